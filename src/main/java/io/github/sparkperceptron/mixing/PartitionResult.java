package io.github.sparkperceptron.mixing;

import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.VoteTrace;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one partition (or, after combining, a contiguous range of partitions) returns from a
 * training pass: its state, its unnormalised mixing weight and the stats of each local epoch
 * (one for iterative mixing, up to maxIter for one-shot mixing).
 */
public final class PartitionResult implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int partition;
  private double mixWeight;
  private LinearState state;
  private EpochStats[] epochs;
  /** Updates per local epoch of every partition covered, in partition order. */
  private long[][] updatesByPartition;
  /** The voted perceptron's traces of the partitions covered, in partition order (or empty). */
  private List<VoteTrace> voteTraces = new ArrayList<>();

  public PartitionResult(int partition, double mixWeight, LinearState state, EpochStats[] epochs) {
    if (!(mixWeight >= 0) || Double.isInfinite(mixWeight)) {
      throw new IllegalArgumentException("mixing weight must be finite and >= 0, got " + mixWeight);
    }
    this.partition = partition;
    this.mixWeight = mixWeight;
    this.state = Objects.requireNonNull(state, "state");
    this.epochs = Objects.requireNonNull(epochs, "epochs");
    long[] updates = new long[epochs.length];
    for (int e = 0; e < epochs.length; e++) {
      updates[e] = epochs[e].updates;
    }
    this.updatesByPartition = new long[][] {updates};
  }

  /** The first partition index this result covers. */
  public int partition() {
    return partition;
  }

  /** Σ of the unnormalised μ of the partitions combined into this result. */
  public double mixWeight() {
    return mixWeight;
  }

  /** The μ-weighted mean state of the partitions combined into this result. */
  public LinearState state() {
    return state;
  }

  /** Per local epoch, the stats summed over the partitions combined into this result. */
  public EpochStats[] epochs() {
    return epochs;
  }

  /**
   * The updates k_i,e of each partition i covered (in partition order) in each local epoch e: the
   * per-partition mistake counts of McDonald et al.'s analysis.
   */
  public long[][] updatesByPartition() {
    return updatesByPartition;
  }

  /** Attaches this partition's vote trace; returns this. */
  public PartitionResult withVoteTrace(VoteTrace trace) {
    voteTraces.add(trace);
    return this;
  }

  /** The vote traces of the partitions covered, in partition order. */
  public List<VoteTrace> voteTraces() {
    return voteTraces;
  }

  /**
   * Combines {@code right} (covering higher partition indices) into this result and returns this:
   * the weighted mean w ← w + r·(w_R − w) with r = μ_R / (μ + μ_R), which leaves a coordinate on
   * which both sides agree exactly unchanged, and the sum of the stats.
   */
  PartitionResult absorb(PartitionResult right) {
    double total = mixWeight + right.mixWeight;
    if (mixWeight == 0.0 && right.mixWeight > 0.0) {
      state = right.state;
    } else if (right.mixWeight > 0.0) {
      double r = right.mixWeight / total;
      blend(state.weights(), right.state.weights(), r);
      if (state.averageAccumulator() != null) {
        blend(state.averageAccumulator(), right.state.averageAccumulator(), r);
      }
    }
    mixWeight = total;
    epochs = sumStats(epochs, right.epochs);
    long[][] both = new long[updatesByPartition.length + right.updatesByPartition.length][];
    System.arraycopy(updatesByPartition, 0, both, 0, updatesByPartition.length);
    System.arraycopy(right.updatesByPartition, 0, both, updatesByPartition.length,
        right.updatesByPartition.length);
    updatesByPartition = both;
    if (!right.voteTraces.isEmpty()) {
      List<VoteTrace> traces = new ArrayList<>(voteTraces);
      traces.addAll(right.voteTraces);
      voteTraces = traces;
    }
    return this;
  }

  private static void blend(double[] into, double[] other, double r) {
    for (int j = 0; j < into.length; j++) {
      into[j] += r * (other[j] - into[j]);
    }
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
