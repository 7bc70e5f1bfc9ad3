package io.github.sparkperceptron.internal.kernel;

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
 * class-major dot products. What changes is the memory access: runs of consecutive weights per
 * entry instead of K weights 8·(d+1) bytes apart, and eight independent accumulators in registers
 * (classes k .. k+7 over the whole row, then the next eight; the row's entries stay in L1).
 */
final class ClassSums {
  private ClassSums() {
  }

  /** The sums over sparse entries {@code from .. to} of {@code indices}/{@code values}. */
  static void sparse(int[] indices, double[] values, int from, int to, double[] w,
      int numClasses, double[] sums) {
    // Eight classes at a time in registers, each its own chain over the row: the sum order of
    // every class is the row's, and eight independent adds keep the pipeline full where one
    // array of K accumulators would go through memory on every add.
    int k = 0;
    for (; k + 8 <= numClasses; k += 8) {
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
      for (int t = from; t < to; t++) {
        final double v = values[t];
        final int b = indices[t] * numClasses + k;
        s0 += v * w[b];
        s1 += v * w[b + 1];
        s2 += v * w[b + 2];
        s3 += v * w[b + 3];
        s4 += v * w[b + 4];
        s5 += v * w[b + 5];
        s6 += v * w[b + 6];
        s7 += v * w[b + 7];
      }
      store8(sums, k, s0, s1, s2, s3, s4, s5, s6, s7);
    }
    for (; k + 4 <= numClasses; k += 4) {
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (int t = from; t < to; t++) {
        final double v = values[t];
        final int b = indices[t] * numClasses + k;
        s0 += v * w[b];
        s1 += v * w[b + 1];
        s2 += v * w[b + 2];
        s3 += v * w[b + 3];
      }
      store4(sums, k, s0, s1, s2, s3);
    }
    for (; k < numClasses; k++) {
      double s0 = 0.0;
      for (int t = from; t < to; t++) {
        s0 += values[t] * w[indices[t] * numClasses + k];
      }
      sums[k] = s0;
    }
  }

  /**
   * The sums over the dense values {@code values[from .. from + numFeatures)}, zeros included (as
   * the dense dot product adds them); the loops of {@link #sparse} with feature j at entry j.
   */
  static void dense(double[] values, int from, int numFeatures, double[] w, int numClasses,
      double[] sums) {
    int k = 0;
    for (; k + 8 <= numClasses; k += 8) {
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
      for (int j = 0; j < numFeatures; j++) {
        final double v = values[from + j];
        final int b = j * numClasses + k;
        s0 += v * w[b];
        s1 += v * w[b + 1];
        s2 += v * w[b + 2];
        s3 += v * w[b + 3];
        s4 += v * w[b + 4];
        s5 += v * w[b + 5];
        s6 += v * w[b + 6];
        s7 += v * w[b + 7];
      }
      store8(sums, k, s0, s1, s2, s3, s4, s5, s6, s7);
    }
    for (; k + 4 <= numClasses; k += 4) {
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (int j = 0; j < numFeatures; j++) {
        final double v = values[from + j];
        final int b = j * numClasses + k;
        s0 += v * w[b];
        s1 += v * w[b + 1];
        s2 += v * w[b + 2];
        s3 += v * w[b + 3];
      }
      store4(sums, k, s0, s1, s2, s3);
    }
    for (; k < numClasses; k++) {
      double s0 = 0.0;
      for (int j = 0; j < numFeatures; j++) {
        s0 += values[from + j] * w[j * numClasses + k];
      }
      sums[k] = s0;
    }
  }

  private static void store8(double[] sums, int k, double s0, double s1, double s2, double s3,
      double s4, double s5, double s6, double s7) {
    store4(sums, k, s0, s1, s2, s3);
    store4(sums, k + 4, s4, s5, s6, s7);
  }

  private static void store4(double[] sums, int k, double s0, double s1, double s2, double s3) {
    sums[k] = s0;
    sums[k + 1] = s1;
    sums[k + 2] = s2;
    sums[k + 3] = s3;
  }
}
