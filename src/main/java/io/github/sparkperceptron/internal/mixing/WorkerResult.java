package io.github.sparkperceptron.internal.mixing;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.VoteTrace;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one worker (or, after combining, a contiguous range of workers) returns from a
 * training pass: the change it made to the state ({@link StateDelta}: only the coordinates it
 * touched), its unnormalised mixing weight μ, the mass of its updates and the stats of each local
 * epoch (one per mixing round for iterative mixing, up to maxIter for one-shot mixing).
 */
public final class WorkerResult implements Serializable {
  private static final long serialVersionUID = 2L;

  private final int worker;
  private double mixWeight;
  private StateDelta delta;
  private double stepSum;
  private EpochStats[] epochs;
  /** Updates per local epoch of every worker covered, in worker order. */
  private long[][] updatesByWorker;
  /** The voted perceptron's traces of the workers covered, in worker order (or empty). */
  private List<VoteTrace> voteTraces = new ArrayList<>();

  /**
   * @param delta the worker's change to the state it started from
   * @param epochs the stats of each local epoch; their {@code stepSum}s add up to the
   *     worker's update mass
   */
  public WorkerResult(int worker, double mixWeight, StateDelta delta, EpochStats[] epochs) {
    if (!(mixWeight >= 0) || Double.isInfinite(mixWeight)) {
      throw new IllegalArgumentException("mixing weight must be finite and >= 0, got " + mixWeight);
    }
    this.worker = worker;
    this.mixWeight = mixWeight;
    this.delta = Objects.requireNonNull(delta, "delta");
    this.epochs = Objects.requireNonNull(epochs, "epochs");
    long[] updates = new long[epochs.length];
    double mass = 0.0;
    for (int e = 0; e < epochs.length; e++) {
      updates[e] = epochs[e].updates;
      mass += epochs[e].stepSum;
    }
    this.stepSum = mass;
    this.updatesByWorker = new long[][] {updates};
  }

  /**
   * A result that carries only what mixing reads (μ, the mean update mass and the change),
   * without stats or traces: a node of the mixing tree as it travels between workers.
   */
  static WorkerResult node(int worker, double mixWeight, double stepSum, StateDelta delta) {
    WorkerResult r = new WorkerResult(worker, mixWeight, delta, new EpochStats[0]);
    r.stepSum = stepSum;
    return r;
  }

  /** The first worker index this result covers. */
  public int worker() {
    return worker;
  }

  /** Σ of the unnormalised μ of the workers combined into this result. */
  public double mixWeight() {
    return mixWeight;
  }

  /** The μ-weighted mean change of the workers combined into this result. */
  public StateDelta delta() {
    return delta;
  }

  /**
   * The μ-weighted mean of the workers' update masses Σ τ (the quantity McDonald et al.'s
   * bound counts, Σ_i μ_i·k_i, for the perceptron rule with unit steps).
   */
  public double stepSum() {
    return stepSum;
  }

  /** Per local epoch, the stats summed over the workers combined into this result. */
  public EpochStats[] epochs() {
    return epochs;
  }

  /**
   * The updates k_i,e of each worker i covered (in worker order) in each local epoch e: the
   * per-worker mistake counts of McDonald et al.'s analysis.
   */
  public long[][] updatesByWorker() {
    return updatesByWorker;
  }

  /**
   * Replaces the change this result carries; returns this. For a round whose workers mixed
   * their changes among themselves ({@link RoundTree}): the driver mixes what they report
   * without their changes (stats, masses, traces) and takes the mixed change from them.
   */
  public WorkerResult withChange(StateDelta mixed) {
    this.delta = Objects.requireNonNull(mixed, "mixed");
    return this;
  }

  /** Attaches this worker's vote trace; returns this. */
  public WorkerResult withVoteTrace(VoteTrace trace) {
    voteTraces.add(trace);
    return this;
  }

  /** The vote traces of the workers covered, in worker order. */
  public List<VoteTrace> voteTraces() {
    return voteTraces;
  }

  /**
   * Combines {@code right} (covering higher worker indices) into this result and returns this:
   * the weighted mean D ← D + r·(D_R − D) with r = μ_R / (μ + μ_R) of the changes (and of the
   * update masses), which leaves a coordinate on which both sides agree exactly unchanged, and
   * the sum of the stats. A side whose μ is zero contributes nothing.
   */
  WorkerResult absorb(WorkerResult right) {
    double total = mixWeight + right.mixWeight;
    if (mixWeight == 0.0 && right.mixWeight > 0.0) {
      delta = right.delta;
      stepSum = right.stepSum;
    } else if (right.mixWeight > 0.0) {
      double r = right.mixWeight / total;
      delta = delta.blend(right.delta, r);
      stepSum = stepSum + r * (right.stepSum - stepSum);
    }
    mixWeight = total;
    epochs = sumStats(epochs, right.epochs);
    long[][] both = new long[updatesByWorker.length + right.updatesByWorker.length][];
    System.arraycopy(updatesByWorker, 0, both, 0, updatesByWorker.length);
    System.arraycopy(right.updatesByWorker, 0, both, updatesByWorker.length,
        right.updatesByWorker.length);
    updatesByWorker = both;
    if (!right.voteTraces.isEmpty()) {
      List<VoteTrace> traces = new ArrayList<>(voteTraces);
      traces.addAll(right.voteTraces);
      voteTraces = traces;
    }
    return this;
  }

  private static EpochStats[] sumStats(EpochStats[] a, EpochStats[] b) {
    EpochStats[] longer = a.length >= b.length ? a : b;
    EpochStats[] shorter = longer == a ? b : a;
    for (int e = 0; e < shorter.length; e++) {
      longer[e].add(shorter[e]);
    }
    return longer;
  }
}
