package io.github.sparkperceptron.kernel;

import java.io.Serializable;
import java.util.Arrays;

/**
 * The intermediate weight vectors one partition passed through while training, stored compactly
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
    this.source = source;
    this.startVector = startVector;
    this.startClock = startClock;
    this.endClock = startClock;
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
        indices[stored] = index;
        values[stored] = value;
        stored++;
      };
    }
    source.forEachStored(row, copier);
    count++;
    rowStart[count] = stored;
  }

  /** Marks the end of recording at the given clock, with the partition's unnormalised μ. */
  public void finish(double clock, double partitionMixWeight) {
    this.endClock = clock;
    this.mixWeight = partitionMixWeight;
    this.source = null;
  }

  public int startVector() {
    return startVector;
  }

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

  int updates() {
    return count;
  }

  int rowStart(int j) {
    return rowStart[j];
  }

  int index(int k) {
    return indices[k];
  }

  double value(int k) {
    return values[k];
  }

  int raised(int j) {
    return raised[j];
  }

  int lowered(int j) {
    return lowered[j];
  }

  double delta(int j) {
    return delta[j];
  }

  /** Stored non-zeros of all update rows. */
  long storedValues() {
    return stored;
  }
}
