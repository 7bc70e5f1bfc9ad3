package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.exchange.ExecutorWeights;
import io.github.sparkperceptron.internal.exchange.PeerLinks;
import io.github.sparkperceptron.internal.exchange.Rendezvous;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.RoundTree;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.RoundExecution;
import java.io.IOException;
import java.io.Serializable;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.LongAccumulator;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * The body of one barrier task: all R mixing rounds of one epoch on one worker. Every worker
 * starts from the epoch's shipped weights (and block momentum's state), runs each round with
 * the code a task of the job-per-round path runs ({@link WorkerRound}), and the workers exchange
 * their changes and
 * mix them along {@link RoundTree} (or, as a measured alternative, with
 * {@code BarrierTaskContext.allGather}), so that every worker applies the same mixed change and
 * block momentum's look-ahead and after-round step run identically on every worker: the workers
 * hold the driver's weights of every round without a Spark job per round.
 *
 * <p>Returns, once per epoch, what the job-per-round path would have collected round by round
 * (the worker's change, stats and vote trace of each round), from which the driver replays the
 * epoch's mixes ({@link BarrierRounds}), and a digest of the worker's final weights to check
 * that the replay and the workers agree.
 *
 * <p>A retried stage starts again from the shipped weights: nothing here survives a failed
 * attempt (the weights' working copies of a failed task are never released).
 */
final class BarrierEpochTask extends AbstractFunction1<Iterator<WorkerBlocks>,
    Iterator<BarrierEpochTask.Output>> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Marks failures to set the exchange up, which the driver answers by leaving barrier mode. */
  static final String SETUP_FAILURE = "[barrier exchange setup]";

  /** What one worker reports after the epoch. */
  static final class Output implements Serializable {
    private static final long serialVersionUID = 1L;
    final int worker;
    /**
     * The worker's own result of each round: its stats and vote trace, and its change unless
     * only worker 0's mixed changes travel ({@link RoundExecution.Results#MIXES}).
     */
    final WorkerResult[] rounds;
    /** Worker 0's mixed change of each round ({@link RoundExecution.Results#MIXES}), or null. */
    final StateDelta[] mixes;
    /**
     * {@link BarrierRounds#digest} of the worker's weights after the last round at the
     * coordinates its rounds moved (elsewhere they are the shipped weights).
     */
    final long weightsDigest;
    /** Block momentum after the epoch: M, m_Δ and restarts (0 without momentum). */
    final double momentumMass;
    final double velocityMass;
    final long restarts;

    Output(int worker, WorkerResult[] rounds, StateDelta[] mixes, long weightsDigest,
        double momentumMass, double velocityMass, long restarts) {
      this.worker = worker;
      this.rounds = rounds;
      this.mixes = mixes;
      this.weightsDigest = weightsDigest;
      this.momentumMass = momentumMass;
      this.velocityMass = velocityMass;
      this.restarts = restarts;
    }
  }

  /**
   * Where the epoch starts: its number, the averaging clock at its start and at the end of each
   * round (the driver's values), the vote's index of round 0's start vector (−1 without a vote),
   * the shipped weights, and the round whose own changes every worker reports beside worker 0's
   * mixes ({@link MixAudit}; −1: none).
   */
  static final class EpochStart implements Serializable {
    private static final long serialVersionUID = 1L;
    final int epoch;
    final double startClock;
    final double[] roundEnds;
    final int firstStartVector;
    final WeightsRef weights;
    final int auditRound;

    EpochStart(int epoch, double startClock, double[] roundEnds, int firstStartVector,
        WeightsRef weights, int auditRound) {
      this.epoch = epoch;
      this.startClock = startClock;
      this.roundEnds = roundEnds;
      this.firstStartVector = firstStartVector;
      this.weights = weights;
      this.auditRound = auditRound;
    }
  }

  /**
   * Block momentum's state at the start of the epoch: β, ρ, the initial ‖w‖², M, m_Δ and the
   * restarts, its Δ (shipped like the weights) and the driver's support set.
   */
  static final class MomentumStart implements Serializable {
    private static final long serialVersionUID = 1L;
    final double beta;
    final double rho;
    final double initialSquaredNorm;
    final double mass;
    final double velocityMass;
    final long restarts;
    final WeightsRef velocity;
    final Broadcast<int[]> support;

    MomentumStart(BlockMomentum m, WeightsRef velocity, Broadcast<int[]> support) {
      this.beta = m.momentum();
      this.rho = m.normBound();
      this.initialSquaredNorm = m.initialSquaredNorm();
      this.mass = m.mass();
      this.velocityMass = m.velocityMass();
      this.restarts = m.restarts();
      this.velocity = velocity;
      this.support = support;
    }
  }

  private final WorkerRound.Spec spec;
  private final int workers;
  private final EpochStart start;
  private final int epoch;
  /** Null without momentum. */
  private final MomentumStart momentum;
  private final RoundExecution execution;
  /** The driver's rendezvous, or null with Spark's allGather. */
  private final Rendezvous.Ticket rendezvous;
  private final LongAccumulator bytesExchanged;

  /**
   * @param momentum block momentum's state at the epoch's start, or null without momentum
   * @param rendezvous the driver's rendezvous (null with {@code allgather})
   * @param bytesExchanged counts the bytes the workers send each other (for measurements)
   */
  BarrierEpochTask(WorkerRound.Spec spec, EpochStart start, MomentumStart momentum,
      RoundExecution execution, Rendezvous.Ticket rendezvous, LongAccumulator bytesExchanged) {
    this.spec = spec;
    this.workers = spec.workers;
    this.start = start;
    this.epoch = start.epoch;
    this.momentum = momentum;
    this.execution = execution;
    this.rendezvous = rendezvous;
    this.bytesExchanged = bytesExchanged;
  }

  @Override
  public Iterator<Output> apply(Iterator<WorkerBlocks> parts) {
    BarrierTaskContext context = BarrierTaskContext.get();
    int worker = context.partitionId();
    WorkerRound work = WorkerRound.forEpoch(spec, parts.next(), worker, epoch, start.weights);
    Exchanger exchanger = exchanger(context, worker);
    try {
      return CollectionConverters.asScala(Collections.singletonList(
          runRounds(worker, work, exchanger)).iterator());
    } catch (IOException e) {
      throw new IllegalStateException("Mixing round exchange of epoch " + epoch + " failed on"
          + " worker " + worker + ": " + e.getMessage(), e);
    } finally {
      exchanger.close();
    }
  }

  /** One round's exchange on one worker: its leaf in, the round's mix out. */
  private interface Exchanger {
    RoundTree.Mixed mix(WorkerResult leaf) throws IOException;

    /** Bytes this worker sent the others so far, framing included. */
    long bytesSent();

    void close();
  }

  private Exchanger exchanger(BarrierTaskContext context, int worker) {
    if (execution.exchange == RoundExecution.Exchange.ALLGATHER) {
      return new AllGather(context);
    }
    PeerLinks links;
    try {
      if (FaultInjection.barrierSetupFails()) {
        throw new ConnectException("injected: connection refused ("
            + FaultInjection.PROPERTY + "=barrier-setup)");
      }
      long group = ((long) context.stageId() << 32) | context.stageAttemptNumber();
      String host = hostOf(context.getTaskInfos()[worker].address());
      PeerLinks.Seat seat = new PeerLinks.Seat(group, workers, worker, host, bindHost(host),
          RoundTree.maxFrameBytes(spec.learner.stateLength()));
      int blackHole = FaultInjection.advertisedPort();
      links = PeerLinks.connect(rendezvous, blackHole > 0 ? seat.advertising(blackHole) : seat,
          context::isInterrupted);
    } catch (IOException e) {
      throw new IllegalStateException(SETUP_FAILURE + " worker " + worker + " of epoch "
          + epoch + ": " + e.getMessage(), e);
    }
    return new Exchanger() {
      @Override
      public RoundTree.Mixed mix(WorkerResult leaf) throws IOException {
        return RoundTree.allReduce(leaf, workers, links);
      }

      @Override
      public long bytesSent() {
        return links.bytesSent();
      }

      @Override
      public void close() {
        links.close();
      }
    };
  }

  /**
   * The address this executor's listeners bind to: Spark's bind address for it when one is set
   * ({@code spark.executor.bindAddress}; {@code spark.driver.bindAddress} in local mode, where
   * the driver runs the tasks), else the host Spark tells others to reach it at; never every
   * interface.
   */
  static String bindHost(String advertised) {
    SparkEnv env = SparkEnv.get();
    String key = "driver".equals(env.executorId()) ? "spark.driver.bindAddress"
        : "spark.executor.bindAddress";
    return env.conf().get(key, advertised);
  }

  /** The host of an executor address "host:port" ("[v6]:port" for IPv6). */
  static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    String host = colon > 0 ? address.substring(0, colon) : address;
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1)
        : host;
  }

  /**
   * Every worker's leaf through Spark's {@code allGather} (the driver's RPC, W·|m| in and W²·|m|
   * out), each worker mixing all W leaves along ParameterMix's tree. Kept as the measured
   * alternative: Spark 4.2 waits for the reply in one-second sleeps, so a round costs about a
   * second (the benchmark section {@code rounds} measures it).
   */
  private final class AllGather implements Exchanger {
    private final BarrierTaskContext context;
    private long sent;

    AllGather(BarrierTaskContext context) {
      this.context = context;
    }

    @Override
    public RoundTree.Mixed mix(WorkerResult leaf) {
      ByteBuffer frame = RoundTree.encode(leaf);
      byte[] bytes = new byte[frame.remaining()];
      frame.get(bytes);
      sent += bytes.length;
      // ISO-8859-1 maps every byte to one char and back: the frame travels unchanged.
      String[] all = context.allGather(new String(bytes, StandardCharsets.ISO_8859_1));
      ByteBuffer[] leaves = new ByteBuffer[all.length];
      for (int i = 0; i < all.length; i++) {
        leaves[i] = ByteBuffer.wrap(all[i].getBytes(StandardCharsets.ISO_8859_1));
      }
      return RoundTree.mixAll(leaves, workers, leaf.delta());
    }

    @Override
    public long bytesSent() {
      return sent;
    }

    @Override
    public void close() {
    }
  }

  /**
   * The epoch's rounds on this worker. Mirrors the job-per-round path step for step: the
   * driver's look-ahead (here on the worker's base weights), the worker's round
   * ({@link WorkerRound#run}, a task's round of the job-per-round path), the mix, the worker's
   * weights moved by it, and block momentum's after-round step; the vote's start vectors are the
   * driver's (index base + r).
   */
  private Output runRounds(int worker, WorkerRound work, Exchanger exchanger)
      throws IOException {
    double[] roundEnds = start.roundEnds;
    int rounds = roundEnds.length;
    // The round's mixed weights, which the driver holds.
    double[] mixed = work.base();
    BlockMomentum m = null;
    ExecutorWeights.WholeCopy velocity = null;
    // Where w or Δ can be non-zero (increasing): the driver's support set, kept as an array so
    // that a round costs what it touched, not a scan of K'·(d+1)/64 words.
    int[] support = null;
    if (momentum != null) {
      velocity = ExecutorWeights.checkoutWhole(momentum.velocity);
      m = BlockMomentum.resume(velocity.values(), momentum.beta, momentum.rho,
          momentum.initialSquaredNorm, momentum.mass, momentum.velocityMass, momentum.restarts);
      support = momentum.support.value();
    }
    WorkerResult[] results = new WorkerResult[rounds];
    boolean mixesOnly = execution.results == RoundExecution.Results.MIXES;
    StateDelta[] mixes = mixesOnly && worker == 0 ? new StateDelta[rounds] : null;
    boolean averaging = spec.learner.averaging().keepsAverage();
    for (int round = 0; round < rounds; round++) {
      double clock = round == 0 ? start.startClock : roundEnds[round - 1];
      if (m != null) {
        int[] jumped = m.lookAheadMoves(mixed, null, clock, support);
        if (jumped != null) {
          work.baseMoved(jumped);
        }
      }
      FaultInjection.beforeBarrierRound(epoch, worker, workers, round, rounds);
      WorkerResult leaf = work.run(round, clock, roundEnds[round],
          start.firstStartVector >= 0 ? start.firstStartVector + round : -1);
      RoundTree.Mixed mix = exchanger.mix(leaf);
      StateDelta change = FaultInjection.appliedMix(mix.delta());
      int[] changed = work.moveBase(change);
      if (m != null) {
        support = SortedCoordinates.union(support, changed);
        m.afterRound(change, mix.stepSum(), support);
      }
      if (mixesOnly) {
        // The driver mixes the stats and takes the change from worker 0's mixes; in the audited
        // round every worker's own change goes along, for the driver to re-mix (MixAudit).
        if (round != start.auditRound) {
          leaf.withChange(StateDelta.none(mixed.length, averaging));
        }
        if (mixes != null) {
          mixes[round] = FaultInjection.reportedMix(change);
        }
      }
      results[round] = leaf;
    }
    long digest = FaultInjection.reportedDigest(epoch, worker, workers,
        BarrierRounds.digest(mixed, work.moved()));
    work.release();
    if (velocity != null) {
      // Δ changed only on the support: the look-ahead writes it there, a mix where it moved w.
      ExecutorWeights.releaseWhole(velocity, support);
    }
    bytesExchanged.add(exchanger.bytesSent());
    return new Output(worker, results, mixes, digest, m == null ? 0.0 : m.mass(),
        m == null ? 0.0 : m.velocityMass(), m == null ? 0 : m.restarts());
  }
}
