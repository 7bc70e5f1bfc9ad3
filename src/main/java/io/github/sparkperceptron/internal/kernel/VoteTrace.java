package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.Arrays;

/**
 * The intermediate weight vectors one worker passed through while training, stored compactly
 * for the voted perceptron: a start vector (by index, kept once on the driver) followed by the
 * updates that produced each next vector, with the mistake rows copied in CSR form. The vector
 * after update j is start + Σ_{i≤j} Δ_i, and it survives from update j's clock to update j+1's.
 *
 * <p>Memory: 12 bytes per non-zero of every update's row plus 28 bytes per update, i.e.
 * O(updates · non-zeros per row) rather than one dense vector per mistake.
 */
public final class VoteTrace implements UpdateRecorder, Serializable {
  private static final long serialVersionUID = 1L;

  private final int startVector;
  private final double startClock;
  private double endClock;
  private double mixWeight;
  private transient FeatureBlock source;
  /** The source rows' map to the model's feature numbers, or {@code null} when they are the same. */
  private transient LocalFeatures sourceFeatures;
  private transient FeatureBlock.EntryVisitor copier;

  private int count;
  private int[] rowStart = new int[9];
  private int[] indices = new int[32];
  private double[] values = new double[32];
  private int stored;
  private int[] raised = new int[8];
  private int[] lowered = new int[8];
  private double[] delta = new double[8];
  private double[] clockBefore = new double[8];

  /**
   * Starts recording updates made on {@code source}'s rows, from the start vector with the given
   * index, at the given clock.
   */
  public VoteTrace(FeatureBlock source, int startVector, double startClock) {
    this(source, null, startVector, startClock);
  }

  /**
   * Starts recording updates made on the rows of a block numbered by a worker's own features
   * ({@link TrainingBlock#localFeatures()}; {@code null}: the model's numbers): the recorded rows
   * carry the model's feature numbers, so the vote does not depend on how the worker numbered
   * them.
   */
  public VoteTrace(FeatureBlock source, LocalFeatures sourceFeatures, int startVector,
      double startClock) {
    this.source = source;
    this.sourceFeatures = sourceFeatures;
    this.startVector = startVector;
    this.startClock = startClock;
    this.endClock = startClock;
  }

  /**
   * A finished trace from its stored arrays (a checkpoint's): {@code count} updates, update j's
   * row being entries {@code rowStart[j] .. rowStart[j+1]} of {@code indices}/{@code values}.
   * The arrays are taken, not copied.
   *
   * @throws IllegalArgumentException if the arrays do not describe a trace: lengths that
   *     disagree, row starts that decrease or leave the entries, a negative start vector
   */
  public static VoteTrace restore(int startVector, double startClock, double endClock,
      double mixWeight, int[] rowStart, int[] indices, double[] values, int[] raised,
      int[] lowered, double[] delta, double[] clockBefore) {
    int count = raised.length;
    if (startVector < 0 || rowStart.length != count + 1 || lowered.length != count
        || delta.length != count || clockBefore.length != count
        || values.length != indices.length || rowStart[0] != 0
        || rowStart[count] != indices.length) {
      throw new IllegalArgumentException("inconsistent vote trace arrays");
    }
    for (int j = 0; j < count; j++) {
      if (rowStart[j + 1] < rowStart[j]) {
        throw new IllegalArgumentException("vote trace row starts decrease at update " + j);
      }
    }
    VoteTrace t = new VoteTrace(null, startVector, startClock);
    t.endClock = endClock;
    t.mixWeight = mixWeight;
    t.count = count;
    t.rowStart = rowStart;
    t.indices = indices;
    t.values = values;
    t.stored = indices.length;
    t.raised = raised;
    t.lowered = lowered;
    t.delta = delta;
    t.clockBefore = clockBefore;
    return t;
  }

  @Override
  public void onUpdate(int row, int raisedRow, int loweredRow, double step, double clock) {
    if (count == raised.length) {
      int n = count * 2;
      raised = Arrays.copyOf(raised, n);
      lowered = Arrays.copyOf(lowered, n);
      delta = Arrays.copyOf(delta, n);
      clockBefore = Arrays.copyOf(clockBefore, n);
      rowStart = Arrays.copyOf(rowStart, n + 1);
    }
    raised[count] = raisedRow;
    lowered[count] = loweredRow;
    delta[count] = step;
    clockBefore[count] = clock;
    if (copier == null) {
      copier = (index, value) -> {
        if (stored == indices.length) {
          indices = Arrays.copyOf(indices, stored * 2);
          values = Arrays.copyOf(values, stored * 2);
        }
        indices[stored] = sourceFeatures == null ? index : sourceFeatures.global(index);
        values[stored] = value;
        stored++;
      };
    }
    source.forEachStored(row, copier);
    count++;
    rowStart[count] = stored;
  }

  /**
   * Records the next updates from the rows of {@code rows} (numbered by {@code features}, or
   * null: the model's numbers): a round may visit several windows of a worker's chunks, each a
   * block of its own ({@link EpochPlan}).
   */
  public void readFrom(FeatureBlock rows, LocalFeatures features) {
    this.source = rows;
    this.sourceFeatures = features;
  }

  /** Marks the end of recording at the given clock, with the worker's unnormalised μ. */
  public void finish(double clock, double workerMixWeight) {
    this.endClock = clock;
    this.mixWeight = workerMixWeight;
    this.source = null;
    this.sourceFeatures = null;
  }

  public int startVector() {
    return startVector;
  }

  /** The clock at the start of recording (persistence). */
  public double startClock() {
    return startClock;
  }

  /** The clock at {@link #finish} (persistence). */
  public double endClock() {
    return endClock;
  }

  /** The clock before update j (persistence). */
  public double clockBefore(int j) {
    return clockBefore[j];
  }

  /** The worker's unnormalised mixing weight, set by {@link #finish}. */
  public double mixWeight() {
    return mixWeight;
  }

  /** How long (in clock units) the start vector survived before the first update. */
  double startSurvival() {
    return (count == 0 ? endClock : clockBefore[0]) - startClock;
  }

  /** How long the vector produced by update j survived. */
  double survival(int j) {
    return (j + 1 < count ? clockBefore[j + 1] : endClock) - clockBefore[j];
  }

  // Read access to the recorded updates, for the vote and for checkpoints.

  /** Updates recorded. */
  public int updates() {
    return count;
  }

  /** Where update j's row starts among the stored entries (j = updates() gives the end). */
  public int rowStart(int j) {
    return rowStart[j];
  }

  /** Feature index of stored entry k. */
  public int index(int k) {
    return indices[k];
  }

  /** Feature value of stored entry k. */
  public double value(int k) {
    return values[k];
  }

  /** The weight row update j raised. */
  public int raised(int j) {
    return raised[j];
  }

  /** The weight row update j lowered (−1 for binary models). */
  public int lowered(int j) {
    return lowered[j];
  }

  /** Update j's step δ. */
  public double delta(int j) {
    return delta[j];
  }

  /** Stored non-zeros of all update rows. */
  public long storedValues() {
    return stored;
  }
}
