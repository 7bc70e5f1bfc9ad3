package io.github.sparkperceptron.internal.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Temperature scaling against a hand-computed minimum and its defining equation. */
class TemperatureScalingTest {

  @Test
  void identicalRowsFitTheirSmoothedTarget() {
    // n rows scored (s, 0, 0), all of class 0: targets (n+1)/(n+2) and 1/(2(n+2)) each. One
    // distinct row can meet them: e^{as}/(e^{as} + 2) = (n+1)/(n+2), so a = ln(2(n+1)) / s.
    int n = 5;
    double s = 2.0;
    double[] scores = new double[3 * n];
    for (int i = 0; i < n; i++) {
      scores[3 * i] = s;
    }
    double a = TemperatureScaling.fit(scores, new int[n], PlattScalingTest.ones(n), n, 3);
    // The bracket closes to 1e-14 of a ≈ 1.24.
    assertEquals(Math.log(2 * (n + 1)) / s, a, 1e-13);
    double[] p = new double[3];
    TemperatureScaling.probabilities(a, scores, 0, 3, p);
    assertEquals((n + 1.0) / (n + 2), p[0], 1e-13);
  }

  @Test
  void theDerivativeVanishesAndTheOrderStays() {
    Random r = new Random(5);
    int n = 300;
    int k = 4;
    double[] z = new double[n * k];
    int[] y = new int[n];
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = r.nextInt(k);
      w[i] = 1 + r.nextInt(2);
      for (int c = 0; c < k; c++) {
        z[i * k + c] = 20 * r.nextGaussian() + (c == y[i] ? 25 : 0);
      }
    }
    double a = TemperatureScaling.fit(z, y, w, n, k);
    assertTrue(a > 0);
    // L'(a) by a central difference of L, computed here from its definition.
    double h = a * 1e-5;
    double slope = (loss(z, y, w, n, k, a + h) - loss(z, y, w, n, k, a - h)) / (2 * h);
    // L is about 10² here; a central difference of step 1e-5·a carries an error near
    // 1e-16·L/h ≈ 1e-7 and a curvature term below that: 1e-5 leaves room.
    assertEquals(0.0, slope, 1e-5);
    double[] p = new double[k];
    for (int i = 0; i < n; i++) {
      TemperatureScaling.probabilities(a, z, i * k, k, p);
      int best = 0;
      int bestP = 0;
      for (int c = 1; c < k; c++) {
        best = z[i * k + c] > z[i * k + best] ? c : best;
        bestP = p[c] > p[bestP] ? c : bestP;
      }
      assertEquals(best, bestP, "row " + i);
    }
  }

  @Test
  void scoresWithoutEvidenceGiveEveryClassTheSameProbability() {
    // The true class always scores lowest: L'(0) > 0, so a = 0.
    double[] z = {0, 1, 1, 1, 0, 1};
    assertEquals(0.0, TemperatureScaling.fit(z, new int[] {0, 1}, PlattScalingTest.ones(2), 2, 3),
        0.0);
  }

  @Test
  void infiniteScoresOfAConstantModelGiveItsClassProbabilityOne() {
    double[] z = {Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    double[] p = new double[3];
    TemperatureScaling.probabilities(1.0, z, 0, 3, p);
    assertEquals(0.0, p[0], 0.0);
    assertEquals(1.0, p[1], 0.0);
    assertEquals(0.0, p[2], 0.0);
  }

  private static double loss(double[] z, int[] y, double[] w, int n, int k, double a) {
    double[] classWeight = new double[k];
    for (int i = 0; i < n; i++) {
      classWeight[y[i]] += w[i];
    }
    double total = 0;
    for (int i = 0; i < n; i++) {
      double max = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < k; c++) {
        max = Math.max(max, a * z[i * k + c]);
      }
      double sum = 0;
      double target = 0;
      double t = (classWeight[y[i]] + 1) / (classWeight[y[i]] + 2);
      for (int c = 0; c < k; c++) {
        sum += Math.exp(a * z[i * k + c] - max);
        target += (c == y[i] ? t : (1 - t) / (k - 1)) * a * z[i * k + c];
      }
      total += w[i] * (max + Math.log(sum) - target);
    }
    return total;
  }
}
