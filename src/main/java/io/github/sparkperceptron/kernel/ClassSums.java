package io.github.sparkperceptron.kernel;

import java.util.Arrays;

/**
 * The feature-major inner loop, written once for training ({@link FeatureBlock#dotClasses}) and
 * prediction ({@link Predictor}): every class's dot product with one row over a state whose
 * feature j holds its K weights at {@code w[j·K .. j·K + K)} ({@link StateLayout#FEATURE_MAJOR}).
 *
 * <pre>
 * sums[k] = Σ_t x_t · w[j_t·K + k]     for k &lt; K, t over the row's entries in increasing j_t
 * </pre>
 *
 * <p>Each sum starts from 0.0 and adds the same products in the same order as
 * {@link FeatureBlock#dot} does on class k's row of a class-major state; Java evaluates every
 * {@code +} and {@code *} in source order and never fuses them, so the K sums are bit for bit the K
 * class-major dot products. What changes is the memory access: one run of K consecutive weights per
 * entry instead of K weights 8·(d+1) bytes apart, and K independent accumulators, which the JIT
 * can keep in vector lanes since no sum is reassociated.
 */
final class ClassSums {
  private ClassSums() {
  }

  /** The sums over sparse entries {@code from .. to} of {@code indices}/{@code values}. */
  static void sparse(int[] indices, double[] values, int from, int to, double[] w,
      int numClasses, double[] sums) {
    Arrays.fill(sums, 0, numClasses, 0.0);
    for (int t = from; t < to; t++) {
      final double v = values[t];
      final int base = indices[t] * numClasses;
      for (int k = 0; k < numClasses; k++) {
        sums[k] += v * w[base + k];
      }
    }
  }

  /**
   * The sums over the dense values {@code values[from .. from + numFeatures)}, zeros included (as
   * the dense dot product adds them).
   */
  static void dense(double[] values, int from, int numFeatures, double[] w, int numClasses,
      double[] sums) {
    Arrays.fill(sums, 0, numClasses, 0.0);
    for (int j = 0; j < numFeatures; j++) {
      final double v = values[from + j];
      final int base = j * numClasses;
      for (int k = 0; k < numClasses; k++) {
        sums[k] += v * w[base + k];
      }
    }
  }
}
