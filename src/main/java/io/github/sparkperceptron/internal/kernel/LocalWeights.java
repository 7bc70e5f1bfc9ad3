package io.github.sparkperceptron.internal.kernel;

import java.util.Arrays;

/**
 * A worker's working copy of the weights in its own coordinates: its {@link LocalFeatures} (m of
 * the model's d features) and, for multiclass models, the feature-major layout
 * ({@link StateLayout}), with the averaging accumulator and the set of coordinates the round wrote
 * in the same coordinates. The global state (exchange, mixing, checkpoints, models) stays
 * class-major over d features; this class is the one place where the two meet, once per round:
 *
 * <pre>
 * in    load / refresh   global class-major values → local slots (features the worker lacks are
 *                        skipped: no row of its block reads or writes them)
 * train OnlineLearner    on {@link #config()}: m features, the local layout
 * out   drainTouched     the written local slots and their global coordinates, in increasing
 *                        global order, for the round's StateDelta
 * </pre>
 *
 * <p>Exactness: the local feature numbers are monotone and the feature-major kernel adds the same
 * products in the same order, so a round on this copy writes, at the mapped coordinates, the very
 * values a round on a global class-major copy writes, and nothing else. Cost at the boundary:
 * O(log gap) per incoming changed coordinate (a galloping search along the map, the coordinates
 * coming in increasing order; O(log m) otherwise) and O(t + K') for the t touched
 * coordinates of the round (one counting pass by class); O(K'·(m+1)) for a full {@link #load}.
 * Memory: K'·(m+1) doubles for w (twice with averaging) and K'·(m+1)/8 bytes of touched bits,
 * against K'·(d+1) for a global copy.
 */
public final class LocalWeights {
  private final LearnerConfig local;
  private final LocalFeatures features;
  private final int globalRowLength;
  private final int weightRows;
  private final int localFeatures;
  private final double[] weights;
  private final double[] average;
  private final TouchedSet touched;

  /**
   * A zero working copy.
   *
   * @param global the model's settings (d features, class-major)
   * @param features the worker's features (the map its block keeps)
   * @param layout the working copy's layout (feature-major pays for K &gt; 2; binary models have
   *     one weight row, the same in both)
   */
  public LocalWeights(LearnerConfig global, LocalFeatures features, StateLayout layout) {
    if (features.globalFeatures() != global.numFeatures()) {
      throw new IllegalArgumentException("a map over " + features.globalFeatures()
          + " features for a model of " + global.numFeatures());
    }
    this.local = global.withNumFeatures(features.size()).withLayout(layout);
    this.features = features;
    this.globalRowLength = global.rowLength();
    this.weightRows = global.weightRows();
    this.localFeatures = features.size();
    int length = local.stateLength();
    this.weights = new double[length];
    this.average = global.averaging().keepsAverage() ? new double[length] : null;
    this.touched = new TouchedSet(length);
  }

  /** The settings the kernel trains this copy with (m features, the local layout). */
  public LearnerConfig config() {
    return local;
  }

  public LocalFeatures features() {
    return features;
  }

  /** w in local coordinates; the kernel's to mutate. */
  public double[] weights() {
    return weights;
  }

  /** u in local coordinates, or {@code null} when not averaging. */
  public double[] average() {
    return average;
  }

  /** The local coordinates the round wrote (for the kernel to mark). */
  public TouchedSet touched() {
    return touched;
  }

  /** The kernel's view of this copy at {@code clock}: w and u themselves, not copies. */
  public LinearState state(double clock) {
    return new LinearState(weights, average, clock);
  }

  /** The global class-major coordinate of local coordinate {@code c}. */
  public int globalCoordinate(int c) {
    int row;
    int l;
    if (local.isFeatureMajor()) {
      row = c % weightRows;
      l = c / weightRows;
    } else {
      row = c / (localFeatures + 1);
      l = c % (localFeatures + 1);
    }
    int g = l == localFeatures ? globalRowLength - 1 : features.global(l);
    return row * globalRowLength + g;
  }

  /** The local coordinate of global class-major coordinate {@code j}, or −1 if not held here. */
  public int localCoordinate(int j) {
    int row = j / globalRowLength;
    int g = j - row * globalRowLength;
    int l = g == globalRowLength - 1 ? localFeatures : features.local(g);
    return l < 0 ? -1 : local.stateIndex(row, l);
  }

  /**
   * Sets every local weight from the global class-major weights and zeroes the accumulator: a new
   * copy, or one that missed more changes than are worth applying one by one.
   */
  public void load(double[] global) {
    load(global, null);
  }

  /**
   * Sets every local weight and accumulator value from the global class-major ones
   * ({@code globalAverage} null: a zero accumulator) and empties the touched set: O(K'·(m+1)).
   */
  public void load(double[] global, double[] globalAverage) {
    requireGlobalLength(global);
    gather(global, weights);
    if (average != null) {
      if (globalAverage == null) {
        Arrays.fill(average, 0.0);
      } else {
        requireGlobalLength(globalAverage);
        gather(globalAverage, average);
      }
    } else if (globalAverage != null) {
      throw new IllegalArgumentException("an accumulator for a copy that does not average");
    }
    touched.clear();
  }

  /**
   * Sets every local weight from the global ones, the accumulator and the touched set left as
   * they are: {@link #refresh} at every coordinate at once, O(K'·(m+1)) sequential reads and no
   * lookups, the cheaper way when more coordinates moved than the copy holds (block momentum's
   * look-ahead moves the whole support every round).
   */
  public void refreshAll(double[] global) {
    requireGlobalLength(global);
    gather(global, weights);
  }

  /** The local weights' count, K'·(m+1): above it a {@link #refreshAll} costs less. */
  public int size() {
    return weights.length;
  }

  private void gather(double[] global, double[] into) {
    for (int row = 0; row < weightRows; row++) {
      int from = row * globalRowLength;
      for (int l = 0; l < localFeatures; l++) {
        into[local.stateIndex(row, l)] = global[from + features.global(l)];
      }
      into[local.stateIndex(row, localFeatures)] = global[from + globalRowLength - 1];
    }
  }

  /**
   * Sets the local weights at the given global coordinates (the changes since this copy was last
   * brought up to date, the worker's own included) from the global weights; coordinates of
   * features the worker lacks are skipped. Returns how many local weights were set.
   */
  public int refresh(double[] global, int[] globalCoordinates) {
    return refresh(global, globalCoordinates, globalCoordinates.length);
  }

  /** As {@link #refresh(double[], int[])} at the first {@code count} coordinates. */
  public int refresh(double[] global, int[] globalCoordinates, int count) {
    requireGlobalLength(global);
    int set = 0;
    // Coordinates come in increasing order (class row by class row): each feature is searched
    // from where the previous one of its row was found; any other order restarts the search.
    int row = -1;
    int lastFeature = -1;
    int cursor = 0;
    for (int k = 0; k < count; k++) {
      int j = globalCoordinates[k];
      int r = j / globalRowLength;
      int g = j - r * globalRowLength;
      if (r != row || g < lastFeature) {
        row = r;
        cursor = 0;
      }
      lastFeature = g;
      int l;
      if (g == globalRowLength - 1) {
        l = localFeatures;
      } else {
        int found = features.search(g, cursor);
        cursor = found >= 0 ? found + 1 : -found - 1;
        l = found >= 0 ? found : -1;
      }
      if (l >= 0) {
        weights[local.stateIndex(r, l)] = global[j];
        set++;
      }
    }
    return set;
  }

  private void requireGlobalLength(double[] global) {
    if (global.length != weightRows * globalRowLength) {
      throw new IllegalArgumentException("global weights of length " + global.length
          + ", the model has " + weightRows * globalRowLength);
    }
  }

  /** The coordinates a round wrote, aligned: {@code global[i]} is {@code local[i]}'s coordinate. */
  public static final class Touched {
    /** Global class-major coordinates, strictly increasing. */
    public final int[] global;
    /** The local coordinate of each. */
    public final int[] local;

    Touched(int[] global, int[] local) {
      this.global = global;
      this.local = local;
    }
  }

  /**
   * The coordinates the round wrote, in increasing global order, and empties the touched set.
   * A feature-major copy's local order is (feature, class); the global order is (class,
   * feature), so one counting pass over the K' classes reorders them (the map being monotone,
   * each class's coordinates are already in increasing global order).
   */
  public Touched drainTouched() {
    int[] written = touched.drain();
    int n = written.length;
    int[] global = new int[n];
    int[] localOrder = new int[n];
    if (!local.isFeatureMajor()) {
      for (int i = 0; i < n; i++) {
        localOrder[i] = written[i];
        global[i] = globalCoordinate(written[i]);
      }
      return new Touched(global, localOrder);
    }
    int[] next = new int[weightRows + 1];
    for (int c : written) {
      next[c % weightRows + 1]++;
    }
    for (int row = 0; row < weightRows; row++) {
      next[row + 1] += next[row];
    }
    for (int c : written) {
      int at = next[c % weightRows]++;
      localOrder[at] = c;
      global[at] = globalCoordinate(c);
    }
    return new Touched(global, localOrder);
  }

  /**
   * After a round whose change was read: sets the weights {@code written} names back to
   * {@code global}'s values at their global coordinates and zeroes the accumulator there, so
   * the copy equals {@code global} again with a zero accumulator (O(written), no search).
   */
  public void reset(double[] global, Touched written) {
    requireGlobalLength(global);
    int[] slots = written.local;
    int[] coordinates = written.global;
    for (int k = 0; k < slots.length; k++) {
      weights[slots[k]] = global[coordinates[k]];
    }
    clearAverage(slots);
  }

  /** Bytes this copy holds: w, u when averaging, and the touched set's bits. */
  public long sizeInBytes() {
    long length = weights.length;
    return 8L * length * (average == null ? 1 : 2) + 8L * ((length + 63) >>> 6);
  }

  /** Zeroes the accumulator at the given local coordinates (after their change was read). */
  public void clearAverage(int[] localCoordinates) {
    if (average != null) {
      for (int c : localCoordinates) {
        average[c] = 0.0;
      }
    }
  }
}
