package io.github.sparkperceptron.internal.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What each calibrator gives for Spark's raw predictions, and what fit refuses. */
class CalibratorTest {

  @Test
  void noneIsTheLogisticFunctionOfTheMarginAndTheSoftmaxOfTheScores() {
    double[] out = new double[2];
    Calibrator.none(2).probabilities(new double[] {-1.5, 1.5}, out);
    assertEquals(1 / (1 + Math.exp(-1.5)), out[1], 0.0);
    assertEquals(1 - out[1], out[0], 0.0);

    double[] raw = {1, 2, 3};
    Calibrator.none(3).probabilities(raw, raw);
    double sum = Math.exp(1) + Math.exp(2) + Math.exp(3);
    // exp(z − max)/Σ exp(z − max): the same quotient as exp(z)/Σ exp(z), up to a few ulps.
    assertEquals(Math.exp(1) / sum, raw[0], 1e-15);
    assertEquals(Math.exp(3) / sum, raw[2], 1e-15);
  }

  @Test
  void aConstantModelsInfiniteMarginGivesProbabilityOne() {
    double[] out = new double[2];
    Calibrator.none(2).probabilities(new double[] {Double.NEGATIVE_INFINITY,
        Double.POSITIVE_INFINITY}, out);
    assertEquals(1.0, out[1], 0.0);
    Calibrator.sigmoid(0.0, 0.5).probabilities(new double[] {Double.NEGATIVE_INFINITY,
        Double.POSITIVE_INFINITY}, out);
    assertEquals(1 / (1 + Math.exp(0.5)), out[1], 0.0);
  }

  @Test
  void isotonicMulticlassNormalisesAndFallsBackToUniform() {
    IsotonicSteps up = new IsotonicSteps(new double[] {0, 1}, new double[] {0, 0.5});
    Calibrator c = Calibrator.isotonic(3, new IsotonicSteps[] {up, up, up});
    double[] out = new double[3];
    c.probabilities(new double[] {1, 0.5, 0}, out);
    assertEquals(0.5 / 0.75, out[0], 1e-16);
    assertEquals(0.25 / 0.75, out[1], 1e-16);
    assertEquals(0.0, out[2], 0.0);
    c.probabilities(new double[] {0, -1, -2}, out);
    assertEquals(1.0 / 3, out[1], 0.0);
  }

  @Test
  void fitRefusesOneClassAndNoRows() {
    ScoreSample oneClass = ScoreSample.of(2, new double[] {1, 2, 3}, new int[] {1, 1, 1},
        PlattScalingTest.ones(3));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Calibrator.fit(CalibrationMethod.SIGMOID, oneClass));
    assertEquals("the calibration rows hold no row of class 0 (with a positive weight), so no"
        + " map from scores to probabilities can be fitted; calibrate on rows of both classes,"
        + " or set calibration=none", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Calibrator.fit(CalibrationMethod.ISOTONIC,
        oneClass));
    ScoreSample empty = ScoreSample.withCapacity(3, 0);
    e = assertThrows(IllegalArgumentException.class,
        () -> Calibrator.fit(CalibrationMethod.SIGMOID, empty));
    assertTrue(e.getMessage().startsWith("no calibration rows"), e.getMessage());
    // none fits nothing, so it needs no rows.
    assertEquals(CalibrationMethod.NONE, Calibrator.fit(CalibrationMethod.NONE, empty).method());
  }

  @Test
  void multiclassSigmoidIsTemperatureScalingAndKeepsTheArgMax() {
    ScoreSample s = ScoreSample.of(3, new double[] {9, 0, 0, 0, 8, 1, 2, 0, 7, 5, 6, 0},
        new int[] {0, 1, 2, 0}, PlattScalingTest.ones(4));
    Calibrator c = Calibrator.fit(CalibrationMethod.SIGMOID, s);
    assertEquals(1, c.parameters().length);
    double[] p = new double[3];
    c.probabilities(new double[] {5, 6, 0}, p);
    assertTrue(p[1] > p[0] && p[0] > p[2]);
  }
}
