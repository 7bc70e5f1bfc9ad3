package io.github.sparkperceptron.internal.drift;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import moa.classifiers.core.driftdetection.ADWIN;
import org.junit.jupiter.api.Test;

/**
 * ADWIN against MOA's, the reference implementation by the method's authors (MOA 2024.07.0 from
 * Maven Central, GPL-3, a test-scope dependency only: nothing of it ships), row for row on seeded
 * error streams with rises, falls and plateaus: the same cuts at the same rows, and the same
 * window (width, mean, variance) after every row, bit for bit.
 *
 * <p>MOA's ADWIN reports a cut in either direction; we compare cuts, detections being the upward
 * subset. MOA multiplies two ints when it drops a bucket (bucket size × width), which overflows
 * past about 46,000 rows, so the streams stay shorter than that.
 *
 * <p>Page-Hinkley is not compared with MOA: its released PageHinkleyDM (2024.07.0, the latest on
 * Maven Central) alarms on m_T &gt; λ without the running minimum M_T of the test's definition
 * (its later source tracks M_T). {@code PageHinkleyTest} checks it against a naive evaluation of
 * the definition instead.
 */
class DriftDetectorOracleTest {

  /** Piecewise-constant error rates: 8 stretches of 500 to 4,500 rows, rates 0.05 to 0.8. */
  private static double[] stream(long seed, int rows) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[rows];
    double rate = 0.2;
    int left = 0;
    for (int t = 0; t < rows; t++) {
      if (left == 0) {
        rate = 0.05 + 0.75 * random.nextDouble();
        left = 500 + random.nextInt(4_000);
      }
      left--;
      x[t] = random.nextDouble() < rate ? 1 : 0;
    }
    return x;
  }

  @Test
  void adwinCutsAtTheSameRowsAsMoaAndKeepsTheSameWindow() {
    int totalCuts = 0;
    for (long seed = 1; seed <= 4; seed++) {
      for (double delta : new double[] {0.002, 0.1}) {
        double[] x = stream(seed, 40_000);
        Adwin ours = new Adwin(delta);
        ADWIN moa = new ADWIN(delta);
        for (int t = 0; t < x.length; t++) {
          long cutsBefore = ours.cuts();
          ours.add(x[t]);
          boolean moaCut = moa.setInput(x[t]);
          String where = "seed " + seed + ", delta " + delta + ", row " + t;
          assertEquals(moaCut, ours.cuts() > cutsBefore, where);
          assertEquals(moa.getWidth(), ours.width(), where);
          assertEquals(moa.getEstimation(), ours.errorRate(), 0.0, where);
          assertEquals(moa.getVariance(), ours.variance(), 0.0, where);
        }
        assertEquals(moa.getNumberDetections(), countChecksWithCuts(x, delta), "seed " + seed);
        totalCuts += moa.getNumberDetections();
      }
    }
    assertTrue(totalCuts > 50, "the streams must make MOA cut often; it cut " + totalCuts);
  }

  private static long countChecksWithCuts(double[] x, double delta) {
    Adwin adwin = new Adwin(delta);
    long checks = 0;
    for (double v : x) {
      long before = adwin.cuts();
      adwin.add(v);
      if (adwin.cuts() > before) {
        checks++;
      }
    }
    return checks;
  }
}
