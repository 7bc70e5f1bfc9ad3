package io.github.sparkperceptron.internal.calibration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Pool-adjacent-violators against hand-worked examples and a naive reference. */
class IsotonicStepsTest {

  @Test
  void violatorsArePooledAndEachStepKeepsItsEnds() {
    // Targets by score: 0, 1, 0, 1, 1. Scores 2 and 3 violate (1 then 0) and pool to 1/2;
    // scores 4 and 5 are a flat step of 1. Kept: 1 (0), 2 and 3 (1/2), 4 and 5 (1).
    IsotonicSteps s = IsotonicSteps.fit(new double[] {3, 1, 5, 2, 4}, new int[] {0, 0, 1, 1, 1},
        PlattScalingTest.ones(5), 5);
    assertArrayEquals(new double[] {1, 2, 3, 4, 5}, s.boundaries(), 0.0);
    assertArrayEquals(new double[] {0, 0.5, 0.5, 1, 1}, s.values(), 0.0);
    // Linear between kept scores, clipped outside them.
    assertEquals(0.25, s.value(1.5), 0.0);
    assertEquals(0.75, s.value(3.5), 0.0);
    assertEquals(0.0, s.value(-10), 0.0);
    assertEquals(1.0, s.value(Double.POSITIVE_INFINITY), 0.0);
    assertTrue(Double.isNaN(s.value(Double.NaN)));
  }

  @Test
  void tiesArePooledFirstAndWeightsCount() {
    // Score 0: class 1 (weight 3) and class 0 (weight 1) → 3/4; score 1: class 0 (weight 1)
    // violates and pools with it: (3 + 0)/(4 + 1) = 3/5 over [0, 1].
    IsotonicSteps s = IsotonicSteps.fit(new double[] {0, 0, 1}, new int[] {1, 0, 0},
        new double[] {3, 1, 1}, 3);
    assertArrayEquals(new double[] {0, 1}, s.boundaries(), 0.0);
    assertArrayEquals(new double[] {0.6, 0.6}, s.values(), 1e-15);
  }

  @Test
  void rowsOfWeightZeroAreLeftOut() {
    IsotonicSteps s = IsotonicSteps.fit(new double[] {0, 1, 2}, new int[] {0, 1, 0},
        new double[] {1, 0, 1}, 3);
    // Without score 1, scores 0 and 2 (classes 0 and 0) make one flat step at 0.
    assertArrayEquals(new double[] {0, 2}, s.boundaries(), 0.0);
    assertArrayEquals(new double[] {0, 0}, s.values(), 0.0);
  }

  @Test
  void allEqualScoresGiveTheWeightedRate() {
    IsotonicSteps s = IsotonicSteps.fit(new double[] {4, 4, 4, 4}, new int[] {1, 0, 0, 1},
        new double[] {1, 1, 1, 2}, 4);
    assertEquals(1, s.size());
    assertEquals(0.6, s.value(-1e300), 1e-15);
    assertEquals(0.6, s.value(1e300), 1e-15);
  }

  /**
   * The fitted values at the rows equal a naive O(n²) isotonic regression (the minimum-of-
   * maxima formula: the fit at the i-th score is max over j ≤ i of min over k ≥ i of the mean
   * of the targets of scores j..k; Barlow et al. 1972, Theorem 1.4) on random data with ties.
   */
  @Test
  void theFitEqualsTheMinMaxFormula() {
    Random r = new Random(3);
    for (int trial = 0; trial < 20; trial++) {
      int n = 1 + r.nextInt(40);
      double[] x = new double[n];
      int[] y = new int[n];
      double[] w = new double[n];
      for (int i = 0; i < n; i++) {
        x[i] = r.nextInt(15);
        y[i] = r.nextDouble() < 0.1 + x[i] / 20 ? 1 : 0;
        w[i] = 1 + r.nextInt(3);
      }
      IsotonicSteps s = IsotonicSteps.fit(x, y, w, n);
      double[] distinct = Arrays.stream(x).distinct().sorted().toArray();
      int m = distinct.length;
      double[] sw = new double[m];
      double[] swy = new double[m];
      for (int i = 0; i < n; i++) {
        int at = Arrays.binarySearch(distinct, x[i]);
        sw[at] += w[i];
        swy[at] += w[i] * y[i];
      }
      for (int i = 0; i < m; i++) {
        double best = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= i; j++) {
          double inner = Double.POSITIVE_INFINITY;
          for (int k = i; k < m; k++) {
            double a = 0;
            double b = 0;
            for (int t = j; t <= k; t++) {
              a += swy[t];
              b += sw[t];
            }
            inner = Math.min(inner, a / b);
          }
          best = Math.max(best, inner);
        }
        // Means of at most 40 integers: rounding differs by a few ulps between the orders.
        assertEquals(best, s.value(distinct[i]), 1e-14, "trial " + trial + " score "
            + distinct[i]);
      }
    }
  }

  @Test
  void aDamagedStepFunctionIsRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> new IsotonicSteps(new double[] {1, 1}, new double[] {0.2, 0.3}));
    assertThrows(IllegalArgumentException.class,
        () -> new IsotonicSteps(new double[] {1, 2}, new double[] {0.4, 0.3}));
    assertThrows(IllegalArgumentException.class,
        () -> new IsotonicSteps(new double[] {1, 2}, new double[] {0.4, 1.5}));
    assertThrows(IllegalArgumentException.class,
        () -> new IsotonicSteps(new double[0], new double[0]));
  }

  @Test
  void theMergeSortIsStable() {
    double[] scores = {3, 1, 3, 2, 1};
    assertArrayEquals(new int[] {1, 4, 3, 0, 2},
        IsotonicSteps.sortedByScore(scores, new int[] {0, 1, 2, 3, 4}));
  }
}
