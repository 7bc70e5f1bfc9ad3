package io.github.sparkperceptron.internal.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Log-loss, Brier score and ECE against hand-computed values. */
class ProbabilityMetricsTest {

  @Test
  void binaryMetricsByHand() {
    ProbabilityMetrics m = new ProbabilityMetrics(2);
    m.add(new double[] {0.2, 0.8}, 1, 1.0); // right, confidence 0.8
    m.add(new double[] {0.6, 0.4}, 1, 1.0); // wrong, confidence 0.6
    m.add(new double[] {0.9, 0.1}, 0, 2.0); // right, confidence 0.9, weight 2
    double w = 4.0;
    assertEquals(-(Math.log(0.8) + Math.log(0.4) + 2 * Math.log(0.9)) / w, m.logLoss(), 1e-15);
    // (p1 − y)²: 0.04, 0.36, 2·0.01.
    assertEquals((0.04 + 0.36 + 0.02) / w, m.brier(), 1e-15);
    // Bins of width 1/15: 0.8 in (11/15, 12/15], 0.6 in (8/15, 9/15], 0.9 in (13/15, 14/15]:
    // |1 − 0.8|·1 + |0 − 0.6|·1 + |1 − 0.9|·2, over 4.
    assertEquals((0.2 + 0.6 + 0.2) / w, m.expectedCalibrationError(), 1e-15);
    assertEquals(3, m.rows());
  }

  @Test
  void multiclassBrierSumsTheClassesAndLogLossIsClipped() {
    ProbabilityMetrics m = new ProbabilityMetrics(3);
    m.add(new double[] {0.5, 0.3, 0.2}, 1, 1.0);
    m.add(new double[] {0.0, 0.0, 1.0}, 0, 1.0);
    assertEquals((0.25 + 0.49 + 0.04 + 1 + 0 + 1) / 2, m.brier(), 1e-15);
    assertEquals((-Math.log(0.3) - Math.log(1e-15)) / 2, m.logLoss(), 1e-12);
  }

  @Test
  void mergingPartsEqualsAddingTheirRowsAndNanRowsAreCounted() {
    ProbabilityMetrics a = new ProbabilityMetrics(2);
    ProbabilityMetrics b = new ProbabilityMetrics(2);
    ProbabilityMetrics all = new ProbabilityMetrics(2);
    double[][] p = {{0.3, 0.7}, {0.5, 0.5}, {0.95, 0.05}, {0.1, 0.9}};
    int[] y = {1, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
      (i < 2 ? a : b).add(p[i], y[i], 1.0);
      all.add(p[i], y[i], 1.0);
    }
    a.merge(b);
    assertEquals(all.logLoss(), a.logLoss(), 0.0);
    assertEquals(all.brier(), a.brier(), 0.0);
    assertEquals(all.expectedCalibrationError(), a.expectedCalibrationError(), 0.0);
    a.add(new double[] {Double.NaN, Double.NaN}, 1, 1.0);
    assertEquals(1, a.nanRows());
    assertEquals(4, a.rows());
    assertTrue(Double.isNaN(new ProbabilityMetrics(2).logLoss()));
  }
}
