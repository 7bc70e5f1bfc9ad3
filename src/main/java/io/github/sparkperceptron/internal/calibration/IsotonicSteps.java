package io.github.sparkperceptron.internal.calibration;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Isotonic regression of a 0/1 target on a score: the non-decreasing step function that is
 * closest in weighted least squares to the targets (the maximum-likelihood monotone estimate of
 * P(y = 1 | score)), found by pool-adjacent-violators, and used between its steps by linear
 * interpolation.
 *
 * <pre>
 * Ayer, Brunk, Ewing, Reid &amp; Silverman, Ann. Math. Statist. 26, 1955 (pool-adjacent-violators)
 * Zadrozny &amp; Elkan, "Transforming classifier scores into accurate multiclass probability
 *   estimates", KDD 2002 (isotonic regression as a calibrator; one against the rest, normalised,
 *   for K classes)
 * </pre>
 *
 * <p>The fit follows scikit-learn's {@code IsotonicRegression} and Spark's: rows of weight 0 are
 * dropped; rows of equal score are pooled first (their weighted mean target); the pools are
 * merged while a pool's mean is not below the next one's, so the fitted values increase
 * strictly from step to step; of each step the first and the last score are kept (one when they
 * are the same) with the step's value, Σ w·y / Σ w. A score between two kept scores is
 * interpolated linearly, slope·(s − b_j) + v_j with slope = (v_{j+1} − v_j) / (b_{j+1} − b_j);
 * one outside them takes the nearest end's value (scikit-learn's {@code out_of_bounds="clip"},
 * Spark's model). A NaN score gives NaN.
 *
 * <p>Deterministic: the rows are sorted by score with ties in row order, and every sum runs in
 * that order. Cost: O(n log n) to sort, O(n) to pool; prediction is a binary search over the kept
 * scores (at most 2·n of them).
 */
public final class IsotonicSteps implements Serializable {
  private static final long serialVersionUID = 1L;

  private final double[] boundaries;
  private final double[] values;
  /** slopes[j]: the line from kept point j to j+1; 0 for the last point. */
  private final double[] slopes;

  /**
   * A fitted step function: strictly increasing finite {@code boundaries} and non-decreasing
   * {@code values} in [0, 1], as many of each (at least one).
   *
   * @throws IllegalArgumentException when they are not (a damaged saved model)
   */
  public IsotonicSteps(double[] boundaries, double[] values) {
    if (boundaries.length == 0 || boundaries.length != values.length) {
      throw new IllegalArgumentException("an isotonic calibrator needs as many values as"
          + " boundaries, at least one; got " + boundaries.length + " and " + values.length);
    }
    for (int j = 0; j < boundaries.length; j++) {
      if (!Double.isFinite(boundaries[j]) || (j > 0 && !(boundaries[j] > boundaries[j - 1]))) {
        throw new IllegalArgumentException("isotonic boundary " + j + " is " + boundaries[j]
            + ": the boundaries must be finite and increase strictly");
      }
      if (!(values[j] >= 0 && values[j] <= 1) || (j > 0 && values[j] < values[j - 1])) {
        throw new IllegalArgumentException("isotonic value " + j + " is " + values[j]
            + ": the values must lie in [0, 1] and never decrease");
      }
    }
    this.boundaries = boundaries.clone();
    this.values = values.clone();
    this.slopes = new double[values.length];
    for (int j = 0; j + 1 < values.length; j++) {
      slopes[j] = (values[j + 1] - values[j]) / (boundaries[j + 1] - boundaries[j]);
    }
  }

  /**
   * Fits the step function of the 0/1 {@code targets} on the first {@code n} {@code scores}.
   *
   * @throws IllegalArgumentException for no rows of positive weight, a score that is not finite,
   *     a target other than 0 or 1, or a weight that is negative or not finite
   */
  public static IsotonicSteps fit(double[] scores, int[] targets, double[] weights, int n) {
    Checks.rows(scores, targets, weights, n, 1, 2);
    int[] rows = new int[n];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (weights[i] > 0) {
        rows[kept++] = i;
      }
    }
    int[] order = sortedByScore(scores, Arrays.copyOf(rows, kept));

    // Pools of equal score, then pool-adjacent-violators on a stack of pools.
    double[] x0 = new double[kept];
    double[] x1 = new double[kept];
    double[] sumWy = new double[kept];
    double[] sumW = new double[kept];
    int top = -1;
    int i = 0;
    while (i < kept) {
      double x = scores[order[i]];
      double wy = 0;
      double w = 0;
      while (i < kept && scores[order[i]] == x) {
        w += weights[order[i]];
        wy += weights[order[i]] * targets[order[i]];
        i++;
      }
      top++;
      x0[top] = x;
      x1[top] = x;
      sumWy[top] = wy;
      sumW[top] = w;
      while (top > 0 && sumWy[top - 1] / sumW[top - 1] >= sumWy[top] / sumW[top]) {
        sumWy[top - 1] += sumWy[top];
        sumW[top - 1] += sumW[top];
        x1[top - 1] = x1[top];
        top--;
      }
    }
    int steps = top + 1;
    int points = 0;
    for (int s = 0; s < steps; s++) {
      points += x0[s] == x1[s] ? 1 : 2;
    }
    double[] b = new double[points];
    double[] v = new double[points];
    int p = 0;
    for (int s = 0; s < steps; s++) {
      double value = sumWy[s] / sumW[s];
      b[p] = x0[s];
      v[p++] = value;
      if (x1[s] != x0[s]) {
        b[p] = x1[s];
        v[p++] = value;
      }
    }
    return new IsotonicSteps(b, v);
  }

  /**
   * {@code rows} sorted by their scores, equal scores in the order given: a merge sort on
   * primitive arrays (stable, O(n log n), no boxing).
   */
  static int[] sortedByScore(double[] scores, int[] rows) {
    int[] from = rows;
    int[] to = new int[rows.length];
    for (int width = 1; width < rows.length; width *= 2) {
      for (int lo = 0; lo < rows.length; lo += 2 * width) {
        int mid = Math.min(lo + width, rows.length);
        int hi = Math.min(lo + 2 * width, rows.length);
        int a = lo;
        int b = mid;
        for (int k = lo; k < hi; k++) {
          if (b >= hi || (a < mid && scores[from[a]] <= scores[from[b]])) {
            to[k] = from[a++];
          } else {
            to[k] = from[b++];
          }
        }
      }
      int[] swap = from;
      from = to;
      to = swap;
    }
    return from;
  }

  /** The fitted value at {@code score}: clipped to the ends, linear between kept scores. */
  public double value(double score) {
    if (Double.isNaN(score)) {
      return Double.NaN;
    }
    int last = boundaries.length - 1;
    double s = Math.min(Math.max(score, boundaries[0]), boundaries[last]);
    int j = segment(s);
    return values[j] + slopes[j] * (s - boundaries[j]);
  }

  /** The last j with boundaries[j] ≤ s, for s within [boundaries[0], boundaries[last]]. */
  private int segment(double s) {
    int lo = 0;
    int hi = boundaries.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (boundaries[mid] <= s) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** The kept scores, increasing; a copy. */
  public double[] boundaries() {
    return boundaries.clone();
  }

  /** The fitted value at each kept score; a copy. */
  public double[] values() {
    return values.clone();
  }

  /** The slope from each kept point to the next (0 after the last); a copy. */
  public double[] slopes() {
    return slopes.clone();
  }

  public int size() {
    return boundaries.length;
  }
}
