package io.github.sparkperceptron.internal.mixing;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * {@link ParameterMix}'s fixed tree run among the workers themselves, so that every worker ends a
 * mixing round holding the same mixed change without a trip through the driver: an all-reduce
 * (reduce up the tree, broadcast the root's result down it), the tree being the one the driver's
 * mix uses, so the result is the driver's, bit for bit.
 *
 * <pre>
 * Node (ℓ, i) of ParameterMix covers workers [i·2^ℓ, (i+1)·2^ℓ); a node absorbs its right
 * sibling (ℓ, i+1) as D ← D + r·(D_R − D), r = μ_R/(μ + μ_R); a node without a sibling moves up.
 * Worker w holds node (ℓ, w/2^ℓ) for every ℓ with 2^ℓ dividing w (a binomial tree):
 *   reduce:    for ℓ = 0, 1, ...: if bit ℓ of w is set, send the node to w − 2^ℓ and stop;
 *              else absorb the node of worker w + 2^ℓ (when it exists)
 *   broadcast: worker 0 holds the root; every worker passes the root's change on to its
 *              children w + 2^ℓ, largest subtree first
 * Messages per round: W − 1 up and W − 1 down; rounds of latency 2·⌈log₂ W⌉; worker 0 receives
 * ⌈log₂ W⌉ nodes (each the size of its subtree's change) and sends as many copies of the mix.
 * </pre>
 *
 * (Vowpal Wabbit's spanning-tree all-reduce and XGBoost's Rabit reduce and broadcast along a tree
 * of workers the same way; their trees are shaped differently and sum, where this one must
 * reproduce ParameterMix's weighted means in ParameterMix's order.)
 *
 * <p>The frames are the nodes' bytes ({@link #encode}): worker, μ, update mass and the
 * {@link StateDelta} as stored (sparse or dense), every double as its 64 bits, so a decoded node
 * mixes exactly as the original would.
 */
public final class RoundTree {
  private RoundTree() {
  }

  /** A worker's connections to the other workers: frames out and in, in order per peer. */
  public interface Link {
    /** Sends a frame (its remaining bytes) to worker {@code peer}. */
    void send(int peer, ByteBuffer frame) throws IOException;

    /** The next frame worker {@code peer} sent to this worker. */
    ByteBuffer receive(int peer) throws IOException;
  }

  /** A round's mix as every worker holds it: the mixed change and mixed update mass. */
  public static final class Mixed {
    private final StateDelta delta;
    private final double stepSum;

    Mixed(StateDelta delta, double stepSum) {
      this.delta = delta;
      this.stepSum = stepSum;
    }

    /** Σ_i μ_i·δ_i: what the driver's {@link ParameterMix#result()} delta holds. */
    public StateDelta delta() {
      return delta;
    }

    /** Σ_i μ_i·m_i: the driver's {@link WorkerResult#stepSum()} of the mix. */
    public double stepSum() {
      return stepSum;
    }
  }

  /** The worker that worker {@code worker} sends its node to, or −1 for worker 0 (the root). */
  public static int parent(int worker) {
    return worker == 0 ? -1 : worker - Integer.lowestOneBit(worker);
  }

  /** The workers whose nodes worker {@code worker} absorbs, in the order it absorbs them. */
  public static int[] children(int worker, int workers) {
    int count = 0;
    for (int step = 1; step < workers && (worker & step) == 0; step <<= 1) {
      if (worker + step < workers) {
        count++;
      }
    }
    int[] out = new int[count];
    int k = 0;
    for (int step = 1; step < workers && (worker & step) == 0; step <<= 1) {
      if (worker + step < workers) {
        out[k++] = worker + step;
      }
    }
    return out;
  }

  /**
   * Runs one round's all-reduce from this worker's side: returns the round's mix, the same on
   * every worker.
   *
   * @param leaf this worker's result of the round ({@link WorkerResult#worker()}: this worker; not
   *     modified)
   * @param workers W, the number of workers taking part
   */
  public static Mixed allReduce(WorkerResult leaf, int workers, Link link) throws IOException {
    int worker = leaf.worker();
    StateDelta own = leaf.delta();
    WorkerResult node = WorkerResult.node(worker, leaf.mixWeight(), leaf.stepSum(), own);
    int[] children = children(worker, workers);
    for (int child : children) {
      node.absorb(decode(link.receive(child), workers, own));
    }
    int parent = parent(worker);
    ByteBuffer mix = null;
    if (parent >= 0) {
      link.send(parent, encode(node));
      mix = link.receive(parent);
    } else if (children.length > 0) {
      mix = encode(node);
    }
    // Largest subtree first: its leaves are the most hops away.
    for (int k = children.length - 1; k >= 0; k--) {
      link.send(children[k], mix.duplicate());
    }
    if (parent < 0) {
      return new Mixed(node.delta(), node.stepSum());
    }
    WorkerResult root = decode(mix, workers, own);
    return new Mixed(root.delta(), root.stepSum());
  }

  /** The frame of a result as a tree node: worker, μ, update mass, change (no stats). */
  public static ByteBuffer encode(WorkerResult node) {
    StateDelta delta = node.delta();
    ByteBuffer out = ByteBuffer.allocate(4 + 8 + 8 + delta.serializedSize());
    out.putInt(node.worker()).putDouble(node.mixWeight()).putDouble(node.stepSum());
    delta.write(out);
    out.flip();
    return out;
  }

  /**
   * The largest frame {@link #encode} writes for a state of {@code length} coordinates (a change
   * at every coordinate, stored sparse with its averages and exact weights: 4 + 3·8 bytes per
   * coordinate), capped at the largest array the JVM allocates: the bound a worker's links put
   * on every frame they read.
   */
  public static int maxFrameBytes(int length) {
    long most = NODE_HEADER_BYTES + StateDelta.maxSerializedSize(length);
    return (int) Math.min(Integer.MAX_VALUE - 8, most);
  }

  private static final int NODE_HEADER_BYTES = 4 + 8 + 8;

  /**
   * The node {@link #encode} wrote (reads the frame's remaining bytes), checked against what a
   * node of this round can be: a worker in [0, W), a change over the state's coordinates with
   * averages exactly when {@code shape} has them, every count within the bytes there.
   *
   * @throws IllegalArgumentException for a frame that is not such a node
   */
  static WorkerResult decode(ByteBuffer frame, int workers, StateDelta shape) {
    if (frame.remaining() < NODE_HEADER_BYTES) {
      throw new IllegalArgumentException("a mixing node's frame of " + frame.remaining()
          + " bytes");
    }
    int worker = frame.getInt();
    double mixWeight = frame.getDouble();
    double stepSum = frame.getDouble();
    if (worker < 0 || worker >= workers) {
      throw new IllegalArgumentException("a mixing node of worker " + worker + " of " + workers);
    }
    StateDelta delta = StateDelta.read(frame, shape.length(), shape.hasAverage());
    if (frame.hasRemaining()) {
      throw new IllegalArgumentException("a mixing node's frame has " + frame.remaining()
          + " bytes too many");
    }
    return WorkerResult.node(worker, mixWeight, stepSum, delta);
  }
}
