package io.github.sparkperceptron.internal.calibration;

/**
 * Temperature scaling of a K-class model's scores: P(y = k | z) = softmax(z / T)_k, with one T
 * fitted by maximum likelihood on held-out scores. Dividing every score by the same T &gt; 0 keeps
 * their order, so the arg-max (the prediction) and every ranking stay as they were; only the
 * confidence changes.
 *
 * <pre>
 * Guo, Pleiss, Sun &amp; Weinberger, "On calibration of modern neural networks", ICML 2017,
 *   section 4.2 (temperature scaling)
 * Platt 1999 (the targets: the true class (N_y + 1)/(N_y + 2), the others sharing the rest, which
 *   for K = 2 are Platt's t+ and t−, and keep T finite when every calibration row is right)
 * </pre>
 *
 * <p>In terms of a = 1/T ≥ 0 the cross-entropy L(a) = Σ_i w_i·(log Σ_k e^{a·z_ik} − a·Σ_k t_ik·z_ik)
 * is convex, with L'(a) = Σ_i w_i·(E_p[z_i] − E_t[z_i]) and L''(a) = Σ_i w_i·Var_p[z_i] (p the
 * softmax, t the targets). When L'(0) ≥ 0 the scores carry no evidence for the true class and a
 * = 0 (every class 1/K); otherwise a bracket [a_lo, a_hi] with L'(a_lo) &lt; 0 ≤ L'(a_hi) is found
 * by doubling, and a safeguarded Newton iteration (a Newton step inside the bracket, else its
 * midpoint) runs until the bracket is 1e-14 of a_hi wide or L' is 0; the result is a function of
 * the data alone. Cost: O(n·K) per iteration.
 */
public final class TemperatureScaling {
  static final int MAX_ITERATIONS = 200;
  static final double TOLERANCE = 1e-14;

  private TemperatureScaling() {
  }

  /**
   * Fits a = 1/T on the first {@code n} rows of {@code numClasses} scores, their classes and
   * weights.
   *
   * @throws IllegalArgumentException for no rows, a score that is not finite, a class outside
   *     0..K−1, or a weight that is negative or not finite
   */
  public static double fit(double[] scores, int[] labels, double[] weights, int n,
      int numClasses) {
    Checks.rows(scores, labels, weights, n, numClasses, numClasses);
    Rows rows = new Rows(scores, labels, weights, n, numClasses);
    double[] classWeight = rows.classWeight;
    double spread = 0;
    for (int i = 0; i < n; i++) {
      double max = Double.NEGATIVE_INFINITY;
      double min = Double.POSITIVE_INFINITY;
      for (int k = 0; k < numClasses; k++) {
        max = Math.max(max, scores[i * numClasses + k]);
        min = Math.min(min, scores[i * numClasses + k]);
      }
      spread = Math.max(spread, max - min);
    }
    double[] derivatives = new double[2];
    rows.derivatives(0.0, derivatives);
    if (spread == 0 || derivatives[0] >= 0 || !Double.isFinite(spread)) {
      return 0.0;
    }
    double lo = 0.0;
    double hi = 1.0 / spread;
    for (int doubling = 0; doubling < 2100; doubling++) {
      rows.derivatives(hi, derivatives);
      if (derivatives[0] >= 0) {
        break;
      }
      lo = hi;
      hi *= 2;
      if (Double.isInfinite(hi)) {
        // Not reached with smoothed targets (L' turns positive at a finite a); kept finite.
        return lo;
      }
    }
    double a = (lo + hi) / 2;
    for (int iteration = 0; iteration < MAX_ITERATIONS && hi - lo > TOLERANCE * hi;
        iteration++) {
      rows.derivatives(a, derivatives);
      if (derivatives[0] == 0) {
        return a;
      }
      if (derivatives[0] < 0) {
        lo = a;
      } else {
        hi = a;
      }
      double newton = derivatives[1] > 0 ? a - derivatives[0] / derivatives[1] : Double.NaN;
      a = newton > lo && newton < hi ? newton : (lo + hi) / 2;
    }
    return a;
  }

  /** The rows of a fit, and the weight of each class (for the targets). */
  private static final class Rows {
    final double[] scores;
    final int[] labels;
    final double[] weights;
    final int n;
    final int numClasses;
    final double[] classWeight;

    Rows(double[] scores, int[] labels, double[] weights, int n, int numClasses) {
      this.scores = scores;
      this.labels = labels;
      this.weights = weights;
      this.n = n;
      this.numClasses = numClasses;
      this.classWeight = new double[numClasses];
      for (int i = 0; i < n; i++) {
        classWeight[labels[i]] += weights[i];
      }
    }

    /** Writes L'(a) and L''(a) into {@code out}. */
    void derivatives(double a, double[] out) {
      TemperatureScaling.derivatives(this, a, out);
    }
  }

  private static void derivatives(Rows rows, double a, double[] out) {
    final double[] scores = rows.scores;
    final int[] labels = rows.labels;
    final double[] weights = rows.weights;
    final double[] classWeight = rows.classWeight;
    final int n = rows.n;
    final int numClasses = rows.numClasses;
    double first = 0;
    double second = 0;
    for (int i = 0; i < n; i++) {
      int base = i * numClasses;
      int y = labels[i];
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < numClasses; k++) {
        max = Math.max(max, a * scores[base + k]);
      }
      double sum = 0;
      double mean = 0;
      double targetMean = 0;
      double trueTarget = (classWeight[y] + 1.0) / (classWeight[y] + 2.0);
      double otherTarget = (1.0 - trueTarget) / (numClasses - 1);
      for (int k = 0; k < numClasses; k++) {
        double z = scores[base + k];
        double e = Math.exp(a * z - max);
        sum += e;
        mean += e * z;
        targetMean += (k == y ? trueTarget : otherTarget) * z;
      }
      mean /= sum;
      double variance = 0;
      for (int k = 0; k < numClasses; k++) {
        double z = scores[base + k];
        double centred = z - mean;
        variance += Math.exp(a * z - max) * centred * centred;
      }
      first += weights[i] * (mean - targetMean);
      second += weights[i] * variance / sum;
    }
    out[0] = first;
    out[1] = second;
  }

  /**
   * softmax(a·z) of {@code numClasses} scores from {@code scores[offset..]} into {@code out}
   * (which may be {@code scores} itself when offset is 0): each a·z_k kept within
   * ±{@link Double#MAX_VALUE}, the largest subtracted before exponentiating, so that no term
   * overflows and a constant model's infinite scores give its class probability 1.
   */
  public static void probabilities(double a, double[] scores, int offset, int numClasses,
      double[] out) {
    double max = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < numClasses; k++) {
      out[k] = clip(a * Checks.finite(scores[offset + k]));
      max = Math.max(max, out[k]);
    }
    double sum = 0;
    for (int k = 0; k < numClasses; k++) {
      out[k] = Math.exp(out[k] - max);
      sum += out[k];
    }
    for (int k = 0; k < numClasses; k++) {
      out[k] /= sum;
    }
  }

  /** ±∞ (a large a times a large score) as ±{@link Double#MAX_VALUE}. */
  private static double clip(double x) {
    return Checks.finite(x);
  }
}
