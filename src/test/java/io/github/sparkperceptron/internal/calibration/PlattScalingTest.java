package io.github.sparkperceptron.internal.calibration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Platt's fit against hand-computed minima and its own defining equations. With two distinct
 * scores the sigmoid can meet any two probabilities, so the minimum puts each score's probability
 * at the weighted mean of its rows' targets, t+ = (N+ + 1)/(N+ + 2) and t− = 1/(N− + 2): the
 * solution follows by hand.
 */
class PlattScalingTest {
  /**
   * Newton's method stops within rounding of the exact minimum: the tests allow 1e-12 on numbers
   * of size 1 (ln 2 ≈ 0.69), a thousand times the double's resolution there.
   */
  private static final double EXACT = 1e-12;

  @Test
  void twoRowsFitTheirSmoothedTargetsExactly() {
    // Score 2 is class 1, score 0 class 0: N+ = N− = 1, t+ = 2/3, t− = 1/3.
    // 1/(1 + e^{2A + B}) = 2/3 and 1/(1 + e^{B}) = 1/3 give B = ln 2, A = −ln 2.
    double[] ab = PlattScaling.fit(new double[] {2, 0}, new int[] {1, 0}, new double[] {1, 1}, 2);
    assertEquals(-Math.log(2), ab[0], EXACT);
    assertEquals(Math.log(2), ab[1], EXACT);
  }

  @Test
  void mixedRowsAtTwoScoresFitTheirMeanTargets() {
    // Score 1: three of class 1, one of class 0; score −1 the other way round. N± = 4, so
    // t+ = 5/6, t− = 1/6; p(1) = (3·5/6 + 1/6)/4 = 2/3 and p(−1) = (5/6 + 3/6)/4 = 1/3,
    // symmetric around 0: B = 0 and A = −ln 2.
    double[] m = {1, 1, 1, 1, -1, -1, -1, -1};
    int[] y = {1, 1, 1, 0, 1, 0, 0, 0};
    double[] ab = PlattScaling.fit(m, y, ones(8), 8);
    assertEquals(-Math.log(2), ab[0], EXACT);
    assertEquals(0.0, ab[1], EXACT);
    assertEquals(2.0 / 3, PlattScaling.probability(ab[0], ab[1], 1.0), EXACT);
  }

  @Test
  void theGradientVanishesAtTheFitOnNoisyScores() {
    Random r = new Random(7);
    int n = 500;
    double[] m = new double[n];
    int[] y = new int[n];
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = r.nextDouble() < 0.3 ? 1 : 0;
      m[i] = (y[i] == 1 ? 4 : -3) + 6 * r.nextGaussian();
      w[i] = 0.5 + r.nextDouble();
    }
    double[] ab = PlattScaling.fit(m, y, w, n);
    double prior1 = 0;
    double prior0 = 0;
    for (int i = 0; i < n; i++) {
      prior1 += y[i] == 1 ? w[i] : 0;
      prior0 += y[i] == 0 ? w[i] : 0;
    }
    double g1 = 0;
    double g2 = 0;
    for (int i = 0; i < n; i++) {
      double t = y[i] == 1 ? (prior1 + 1) / (prior1 + 2) : 1 / (prior0 + 2);
      double p = PlattScaling.probability(ab[0], ab[1], m[i]);
      g1 += w[i] * (t - p) * m[i];
      g2 += w[i] * (t - p);
    }
    // The gradient's terms are of size Σw·|m| ≈ 3,000: rounding leaves about 1e-12 of that.
    assertEquals(0.0, g1, 1e-8);
    assertEquals(0.0, g2, 1e-9);
  }

  @Test
  void anIntegerWeightCountsAsThatManyCopies() {
    double[] m = {-3, -1, 0.5, 2, 4};
    int[] y = {0, 1, 0, 1, 1};
    double[] weighted = PlattScaling.fit(m, y, new double[] {2, 1, 3, 1, 2}, 5);
    double[] copies = PlattScaling.fit(new double[] {-3, -3, -1, 0.5, 0.5, 0.5, 2, 4, 4},
        new int[] {0, 0, 1, 0, 0, 0, 1, 1, 1}, ones(9), 9);
    // The same minimum; sums in another order move it by rounding only.
    assertArrayEquals(copies, weighted, 1e-10);
  }

  @Test
  void separableScoresGiveAFiniteSlope() {
    double[] ab = PlattScaling.fit(new double[] {-5, -4, -3, 3, 4, 5}, new int[] {0, 0, 0, 1, 1, 1},
        ones(6), 6);
    assertTrue(Double.isFinite(ab[0]) && ab[0] < 0, Arrays.toString(ab));
    // The smoothed targets cap the confidence: t+ = 4/5 for these 3 rows.
    assertTrue(PlattScaling.probability(ab[0], ab[1], 5) < 0.9);
  }

  @Test
  void equalScoresFallBackToTheSmoothedPositiveRate() {
    // 3 of class 1 and 1 of class 0, all at score 7: t+ = 4/5, t− = 1/3; the mean target
    // (3·4/5 + 1/3)/4 = 41/60 is the probability at every score.
    double[] ab = PlattScaling.fit(new double[] {7, 7, 7, 7}, new int[] {1, 1, 1, 0}, ones(4), 4);
    assertEquals(0.0, ab[0], 0.0);
    assertEquals(41.0 / 60, PlattScaling.probability(ab[0], ab[1], -100), EXACT);
    assertEquals(41.0 / 60, PlattScaling.probability(ab[0], ab[1], Double.POSITIVE_INFINITY),
        EXACT);
  }

  @Test
  void badRowsAreRefusedNamingTheRow() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PlattScaling.fit(new double[] {1, Double.NaN}, new int[] {1, 0}, ones(2), 2));
    assertEquals("calibration row 1 has the score NaN; a calibrator needs finite scores (a model"
        + " whose weights overflowed, or a constant model, has none)", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PlattScaling.fit(new double[0], new int[0], new double[0], 0));
    assertTrue(e.getMessage().startsWith("no calibration rows"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PlattScaling.fit(new double[] {1, 2}, new int[] {1, 0}, new double[] {1, -1}, 2));
    assertTrue(e.getMessage().contains("row 1 has the weight -1.0"), e.getMessage());
  }

  static double[] ones(int n) {
    double[] w = new double[n];
    Arrays.fill(w, 1.0);
    return w;
  }
}
