package io.github.sparkperceptron.data;

import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import java.util.Arrays;

/**
 * Generates the rows of a {@link SyntheticData} distribution one at a time, without Spark: the
 * same code runs in Spark tasks and in the benchmarks' plain single-threaded loop, so both see
 * exactly the same numbers.
 *
 * <p>Row {@code i} is a pure function of (seed, i): its random stream is SplitMix64 (through
 * {@link SeededShuffle}) keyed by the row index, so a row does not depend on how many rows come
 * before it in its partition, or on the number of partitions. The hidden separator is drawn from
 * the seed alone.
 *
 * <pre>
 * one row, with K' = 1 separator u (binary) or K separators u_1..u_K (multiclass), unit norm:
 *   y        uniform over the K classes (so classes are balanced in expectation)
 *   S        nnz distinct features, uniform (all d features when dense)
 *   x_S      i.i.d. N(0, 1), then scaled to ‖x‖ = 1 (so R = 1 in the mistake bound R²/γ²)
 *   margin   binary:     m = y'·(u·x) / ‖u_S‖             with y' = ±1
 *            multiclass: m = min_{k≠y} (u_y − u_k)·x / ‖(u_y − u_k)_S‖
 *            i.e. the cosine between x and the separator restricted to the row's features;
 *            dense rows have ‖u_S‖ = 1, so there it is the usual geometric margin of u.
 *   push     when m &lt; γ, x is rotated in the plane of x and the (restricted) separator until
 *            m = γ (binary: first x ← −x when it lies on the wrong side), and x keeps ‖x‖ = 1
 *   noise    with probability labelNoise the label becomes another class, uniformly
 * </pre>
 *
 * <p>With {@code labelNoise = 0} every row therefore has margin ≥ γ, and the separator(s)
 * classify every row correctly: the data are linearly separable, through the origin.
 *
 * <p>Not thread-safe (it keeps scratch buffers); use one instance per thread or task. Generating a
 * row costs O(K'·nnz) (plus O(nnz²) moves to keep a sparse row's indices sorted) and allocates
 * nothing.
 */
public final class SyntheticRows {
  /** Rotations of a multiclass row before its values are drawn again. */
  private static final int PUSHES_PER_DRAW = 64;
  /** Fresh draws of a multiclass row before the margin is declared out of reach. */
  private static final int MAX_DRAWS = 1000;

  private final SyntheticData spec;
  private final int numFeatures;
  private final int stored;
  private final int numClasses;
  /** Separators, one row of d values each (K' rows). */
  private final double[][] separators;
  private final double[] direction;
  private final double[] scores;

  SyntheticRows(SyntheticData spec) {
    this.spec = spec;
    this.numFeatures = spec.numFeatures();
    this.stored = spec.storedPerRow();
    this.numClasses = spec.numClasses();
    this.separators = separators(spec);
    this.direction = new double[stored];
    this.scores = new double[separators.length];
  }

  /** The unit-norm hidden separators: one for binary data, one per class for multiclass. */
  static double[][] separators(SyntheticData spec) {
    int count = spec.numClasses() == 2 ? 1 : spec.numClasses();
    double[][] u = new double[count][spec.numFeatures()];
    for (int k = 0; k < count; k++) {
      // Epoch −1 keys streams that no row uses (rows use epochs ≥ 0).
      SeededShuffle rnd = SeededShuffle.forEpoch(spec.seed(), -1, k);
      double norm = 0.0;
      for (int j = 0; j < u[k].length; j++) {
        u[k][j] = gaussian(rnd);
        norm += u[k][j] * u[k][j];
      }
      norm = Math.sqrt(norm);
      for (int j = 0; j < u[k].length; j++) {
        u[k][j] /= norm;
      }
    }
    return u;
  }

  /** Entries every row stores: nnz for sparse data, d for dense data. */
  public int storedPerRow() {
    return stored;
  }

  /**
   * Writes row {@code index} into the buffers (each at least {@link #storedPerRow()} long):
   * strictly increasing feature indices and their values. Returns the row's class index.
   */
  public int row(long index, int[] indices, double[] values) {
    SeededShuffle rnd = SeededShuffle.forEpoch(spec.seed(), (int) (index >>> 31),
        (int) (index & Integer.MAX_VALUE));
    int label = rnd.nextInt(numClasses);
    if (stored == numFeatures) {
      for (int j = 0; j < stored; j++) {
        indices[j] = j;
      }
    } else {
      chooseSupport(rnd, indices);
    }
    double gamma = spec.margin();
    if (numClasses == 2) {
      drawUnit(rnd, values);
      pushBinary(label, indices, values, gamma);
    } else {
      pushMulticlass(rnd, label, indices, values, gamma, index);
    }
    // Drawn whatever the noise rate, so that the rows' geometry does not depend on it.
    double coin = uniform(rnd);
    int other = rnd.nextInt(numClasses - 1);
    if (coin < spec.labelNoise()) {
      label = other >= label ? other + 1 : other;
    }
    return label;
  }

  /**
   * The row's margin as defined in the class documentation, for its true (noise-free) class
   * {@code label}; ≥ γ for every row when the label noise is 0.
   */
  public double margin(int label, int[] indices, double[] values, int length) {
    if (numClasses == 2) {
      double[] u = separators[0];
      double dot = 0.0;
      double norm = 0.0;
      for (int t = 0; t < length; t++) {
        dot += u[indices[t]] * values[t];
        norm += u[indices[t]] * u[indices[t]];
      }
      return (label == 1 ? dot : -dot) / Math.sqrt(norm);
    }
    double min = Double.POSITIVE_INFINITY;
    for (int k = 0; k < numClasses; k++) {
      if (k != label) {
        min = Math.min(min, pairMargin(label, k, indices, values, length, null));
      }
    }
    return min;
  }

  /** The separators (not copies): u for binary data, u_1..u_K for multiclass. */
  double[][] separators() {
    return separators;
  }

  /**
   * Floyd's sampling of nnz distinct features out of d, kept sorted by insertion so the row comes
   * out in CSR order without a separate sort.
   */
  private void chooseSupport(SeededShuffle rnd, int[] indices) {
    int n = 0;
    for (int j = numFeatures - stored; j < numFeatures; j++) {
      int t = rnd.nextInt(j + 1);
      int at = Arrays.binarySearch(indices, 0, n, t);
      if (at >= 0) {
        // t is taken; j is not (every earlier pick was below j), and j is the largest so far.
        indices[n++] = j;
      } else {
        int insert = -at - 1;
        System.arraycopy(indices, insert, indices, insert + 1, n - insert);
        indices[insert] = t;
        n++;
      }
    }
  }

  private void drawUnit(SeededShuffle rnd, double[] values) {
    double norm = 0.0;
    for (int t = 0; t < stored; t++) {
      values[t] = gaussian(rnd);
      norm += values[t] * values[t];
    }
    norm = Math.sqrt(norm);
    for (int t = 0; t < stored; t++) {
      values[t] /= norm;
    }
  }

  private void pushBinary(int label, int[] indices, double[] values, double gamma) {
    double[] u = separators[0];
    double norm = 0.0;
    for (int t = 0; t < stored; t++) {
      direction[t] = u[indices[t]];
      norm += direction[t] * direction[t];
    }
    norm = Math.sqrt(norm);
    double sign = label == 1 ? 1.0 : -1.0;
    double cos = 0.0;
    for (int t = 0; t < stored; t++) {
      direction[t] = sign * direction[t] / norm;
      cos += direction[t] * values[t];
    }
    if (cos < 0) {
      for (int t = 0; t < stored; t++) {
        values[t] = -values[t];
      }
      cos = -cos;
    }
    if (cos < gamma) {
      rotate(values, cos, gamma);
    }
  }

  private void pushMulticlass(SeededShuffle rnd, int label, int[] indices, double[] values,
      double gamma, long index) {
    for (int draw = 0; draw < MAX_DRAWS; draw++) {
      drawUnit(rnd, values);
      for (int push = 0; push < PUSHES_PER_DRAW; push++) {
        int worst = -1;
        double worstMargin = Double.POSITIVE_INFINITY;
        for (int k = 0; k < numClasses; k++) {
          if (k != label) {
            double m = pairMargin(label, k, indices, values, stored, null);
            if (m < worstMargin) {
              worstMargin = m;
              worst = k;
            }
          }
        }
        if (worstMargin >= gamma) {
          return;
        }
        double cos = pairMargin(label, worst, indices, values, stored, direction);
        rotate(values, cos, gamma);
      }
    }
    throw new IllegalStateException("row " + index + ": no point with margin " + gamma
        + " against all " + (numClasses - 1) + " other classes found in " + MAX_DRAWS
        + " draws; lower the margin");
  }

  /**
   * (u_a − u_b)·x / ‖(u_a − u_b)_S‖; when {@code unitOut} is given it receives the normalised
   * restricted difference (u_a − u_b)_S / ‖·‖.
   */
  private double pairMargin(int a, int b, int[] indices, double[] values, int length,
      double[] unitOut) {
    double[] ua = separators[a];
    double[] ub = separators[b];
    double dot = 0.0;
    double norm = 0.0;
    for (int t = 0; t < length; t++) {
      double diff = ua[indices[t]] - ub[indices[t]];
      dot += diff * values[t];
      norm += diff * diff;
      if (unitOut != null) {
        unitOut[t] = diff;
      }
    }
    norm = Math.sqrt(norm);
    if (unitOut != null) {
      for (int t = 0; t < length; t++) {
        unitOut[t] /= norm;
      }
    }
    return dot / norm;
  }

  /**
   * With unit x and unit e = {@link #direction} at cosine {@code cos}, turns x in their plane so
   * that x·e = γ: x ← γ·e + √(1−γ²)·f with f the unit part of x orthogonal to e.
   */
  private void rotate(double[] values, double cos, double gamma) {
    double[] e = direction;
    double orth = 0.0;
    for (int t = 0; t < stored; t++) {
      double f = values[t] - cos * e[t];
      values[t] = f;
      orth += f * f;
    }
    orth = Math.sqrt(orth);
    double keep = Math.sqrt(1.0 - gamma * gamma);
    for (int t = 0; t < stored; t++) {
      // orth is 0 only when x = ±e exactly, a draw of probability zero (and then binary rows
      // already meet the margin, as cos = 1 after the flip).
      values[t] = gamma * e[t] + (orth > 0 ? keep * values[t] / orth : 0.0);
    }
  }

  private static double uniform(SeededShuffle rnd) {
    return (rnd.nextLong() >>> 11) * 0x1.0p-53;
  }

  /** A standard normal draw (Marsaglia's polar method, one value per accepted pair). */
  private static double gaussian(SeededShuffle rnd) {
    while (true) {
      double a = 2 * uniform(rnd) - 1;
      double b = 2 * uniform(rnd) - 1;
      double s = a * a + b * b;
      if (s > 0 && s < 1) {
        return a * Math.sqrt(-2 * Math.log(s) / s);
      }
    }
  }
}
