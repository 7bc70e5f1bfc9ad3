package io.github.sparkperceptron.internal.calibration;

/**
 * Platt's sigmoid: P(y = 1 | m) = 1 / (1 + exp(A·m + B)) of a binary model's margin m, with A
 * and B fitted by maximum likelihood on held-out scores.
 *
 * <pre>
 * Platt, "Probabilistic outputs for support vector machines and comparisons to regularized
 *   likelihood methods", Advances in Large Margin Classifiers, MIT Press 1999/2000 (the model,
 *   and the targets t+ = (N+ + 1)/(N+ + 2), t− = 1/(N− + 2) in place of 1 and 0: a uniform prior
 *   on each side's out-of-sample labels, which keeps A finite on separable scores)
 * Lin, Lin &amp; Weng, "A note on Platt's probabilistic outputs for support vector machines",
 *   Machine Learning 68, 2007 (the fit: Newton's method with a backtracking line search and
 *   Armijo's condition, the cross-entropy written so that no exp overflows, and σ = 1e-12 added
 *   to the Hessian's diagonal; their Algorithm 1 with sample weights)
 * </pre>
 *
 * <p>With sample weights, N+ and N− are the sums of the weights of each class (as
 * scikit-learn's {@code _sigmoid_calibration}) and every row's terms are scaled by its weight.
 * The fit minimises the convex F(A, B) = Σ_i w_i·(log(1 + e^{z_i}) − (1 − t_i)·z_i), z_i = A·m_i
 * + B, whose gradient is Σ_i w_i·(t_i − p_i)·(m_i, 1) and Hessian Σ_i w_i·p_i(1 − p_i)·(m_i, 1)ᵀ(m_i,
 * 1). It stops when a Newton step moves A and B by less than 1e-12 of their size, when the line
 * search cannot decrease F by a step of at least 1e-10 (F is at its floating-point minimum), or
 * after 100 iterations; every step is a function of the data alone, so the same rows in the same
 * order give the same bits. Cost: O(n) per iteration; Newton converges in a handful.
 *
 * <p>When every score is the same, F has no unique minimum (only A·m + B is determined): the fit
 * returns A = 0 and the B of the weighted mean target, a constant probability.
 */
public final class PlattScaling {
  static final int MAX_ITERATIONS = 100;
  static final double MIN_STEP = 1e-10;
  static final double SIGMA = 1e-12;
  static final double ARMIJO = 1e-4;
  static final double STEP_TOLERANCE = 1e-12;
  /** A decrease of F smaller than this share of |F| is taken as rounding. */
  static final double ROUNDING = 1e-10;

  private PlattScaling() {
  }

  /**
   * Fits A and B on the first {@code n} margins, classes (0 or 1) and weights.
   *
   * @return {A, B}
   * @throws IllegalArgumentException for no rows, a margin that is not finite, a class other than
   *     0 or 1, or a weight that is negative or not finite, naming the row
   */
  public static double[] fit(double[] margins, int[] labels, double[] weights, int n) {
    Checks.rows(margins, labels, weights, n, 1, 2);
    double prior1 = 0;
    double prior0 = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      if (labels[i] == 1) {
        prior1 += weights[i];
      } else {
        prior0 += weights[i];
      }
      min = Math.min(min, margins[i]);
      max = Math.max(max, margins[i]);
    }
    double hiTarget = (prior1 + 1.0) / (prior1 + 2.0);
    double loTarget = 1.0 / (prior0 + 2.0);
    if (min == max) {
      // Only z = A·m + B is determined; A = 0 gives the constant minimiser.
      double mean = (prior1 * hiTarget + prior0 * loTarget) / (prior1 + prior0);
      return new double[] {0.0, Math.log((1.0 - mean) / mean)};
    }
    double[] targets = {loTarget, hiTarget};
    double a = 0.0;
    double b = Math.log((prior0 + 1.0) / (prior1 + 1.0));
    double f = objective(margins, labels, weights, n, targets, a, b);
    for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      double h11 = SIGMA;
      double h22 = SIGMA;
      double h21 = 0;
      double g1 = 0;
      double g2 = 0;
      for (int i = 0; i < n; i++) {
        double m = margins[i];
        double z = a * m + b;
        // p = 1/(1 + e^z), q = 1 − p, each from the exponential that cannot overflow.
        double p;
        double q;
        if (z >= 0) {
          double e = Math.exp(-z);
          p = e / (1.0 + e);
          q = 1.0 / (1.0 + e);
        } else {
          double e = Math.exp(z);
          p = 1.0 / (1.0 + e);
          q = e / (1.0 + e);
        }
        double w = weights[i];
        double d2 = w * p * q;
        h11 += m * m * d2;
        h22 += d2;
        h21 += m * d2;
        double d1 = w * ((labels[i] == 1 ? hiTarget : loTarget) - p);
        g1 += m * d1;
        g2 += d1;
      }
      double det = h11 * h22 - h21 * h21;
      double da = -(h22 * g1 - h21 * g2) / det;
      double db = -(-h21 * g1 + h11 * g2) / det;
      double gd = g1 * da + g2 * db;
      if (!(Math.abs(da) > STEP_TOLERANCE * Math.max(1.0, Math.abs(a))
          || Math.abs(db) > STEP_TOLERANCE * Math.max(1.0, Math.abs(b)))) {
        break;
      }
      if (-gd <= ROUNDING * Math.max(1.0, Math.abs(f))) {
        // The predicted decrease is below what F can resolve in doubles, so the line search
        // could not tell the step from rounding; this close to the minimum F is quadratic and
        // the full Newton step is accurate.
        a += da;
        b += db;
        continue;
      }
      double step = 1.0;
      boolean moved = false;
      while (step >= MIN_STEP) {
        double na = a + step * da;
        double nb = b + step * db;
        double nf = objective(margins, labels, weights, n, targets, na, nb);
        if (nf < f + ARMIJO * step * gd) {
          a = na;
          b = nb;
          f = nf;
          moved = true;
          break;
        }
        step /= 2.0;
      }
      if (!moved) {
        break;
      }
    }
    return new double[] {a, b};
  }

  /**
   * F(A, B), each term in the form whose exponential cannot overflow; {@code targets} holds t−
   * and t+ (by class).
   */
  private static double objective(double[] margins, int[] labels, double[] weights, int n,
      double[] targets, double a, double b) {
    double f = 0;
    for (int i = 0; i < n; i++) {
      double z = a * margins[i] + b;
      double t = targets[labels[i]];
      double term = z >= 0 ? t * z + Math.log1p(Math.exp(-z))
          : (t - 1.0) * z + Math.log1p(Math.exp(z));
      f += weights[i] * term;
    }
    return f;
  }

  /**
   * P(y = 1 | m) = 1 / (1 + exp(A·m + B)); a margin of ±∞ (a constant model's) is taken as
   * ±{@link Double#MAX_VALUE}, so that A = 0 gives 1 / (1 + e^B) rather than NaN. NaN stays NaN.
   */
  public static double probability(double a, double b, double margin) {
    return 1.0 / (1.0 + Math.exp(a * Checks.finite(margin) + b));
  }
}
