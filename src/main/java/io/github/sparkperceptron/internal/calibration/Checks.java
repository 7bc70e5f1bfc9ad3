package io.github.sparkperceptron.internal.calibration;

/** The input checks every fit makes, with messages that name the row and the value. */
final class Checks {
  private Checks() {
  }

  /**
   * The first {@code n} rows of {@code width} scores: at least one row, finite scores, class
   * indices in [0, numClasses), finite weights ≥ 0 of which at least one is positive.
   */
  static void rows(double[] scores, int[] labels, double[] weights, int n, int width,
      int numClasses) {
    if (n <= 0) {
      throw new IllegalArgumentException("no calibration rows: a calibrator needs scored rows"
          + " of known class");
    }
    if ((long) n * width > scores.length || n > labels.length || n > weights.length) {
      throw new IllegalArgumentException(n + " rows of " + width + " score(s) need longer arrays"
          + " than " + scores.length + " scores, " + labels.length + " labels and "
          + weights.length + " weights");
    }
    double total = 0;
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < width; k++) {
        double s = scores[i * width + k];
        if (!Double.isFinite(s)) {
          throw new IllegalArgumentException("calibration row " + i + " has the score " + s
              + (width > 1 ? " for class " + k : "") + "; a calibrator needs finite scores (a"
              + " model whose weights overflowed, or a constant model, has none)");
        }
      }
      if (labels[i] < 0 || labels[i] >= numClasses) {
        throw new IllegalArgumentException("calibration row " + i + " has the class "
            + labels[i] + ", not one of 0.." + (numClasses - 1));
      }
      double w = weights[i];
      if (!(w >= 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("calibration row " + i + " has the weight " + w
            + "; weights must be finite and >= 0");
      }
      total += w;
    }
    if (!(total > 0)) {
      throw new IllegalArgumentException("every calibration row has weight 0");
    }
  }

  /** ±∞ as ±{@link Double#MAX_VALUE}: a constant model's infinite scores, kept finite. */
  static double finite(double score) {
    return score == Double.POSITIVE_INFINITY ? Double.MAX_VALUE
        : score == Double.NEGATIVE_INFINITY ? -Double.MAX_VALUE : score;
  }
}
