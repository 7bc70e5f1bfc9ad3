package io.github.sparkperceptron.internal.drift;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PageHinkleyTest {
  /** Hand arithmetic in tenths and thirds: 1e-12 covers the doubles' rounding, nothing more. */
  private static final double EXACT = 1e-12;

  @Test
  void cumulativeSumsMatchAHandComputedRunAndTheTestRestartsAfterItsAlarm() {
    // δ = 0.1, λ = 1, α = 1, alarms allowed from the first row. Errors 0, 0, 1, 1, 1:
    //   t  x  x̄_t  m_t = m_{t−1} + x − x̄_t − δ      M_t    m_t − M_t
    //   1  0  0     −0.1                           −0.1   0
    //   2  0  0     −0.2                           −0.2   0
    //   3  1  1/3   −0.2 + 2/3 − 0.1 = 11/30        −0.2   17/30
    //   4  1  1/2   11/30 + 0.4 = 23/30             −0.2   29/30  (< λ)
    //   5  1  3/5   23/30 + 0.3 = 32/30             −0.2   38/30  (> λ: drift at row index 4)
    PageHinkley ph = new PageHinkley(0.1, 1.0, 1.0, 1);
    double[] errors = {0, 0, 1, 1};
    double[] statistic = {0, 0, 17.0 / 30, 29.0 / 30};
    double[] mean = {0, 0, 1.0 / 3, 0.5};
    for (int t = 0; t < errors.length; t++) {
      assertFalse(ph.add(errors[t]), "row " + t);
      assertEquals(statistic[t], ph.statistic(), EXACT, "m_t - M_t after row " + t);
      assertEquals(mean[t], ph.errorRate(), EXACT, "mean after row " + t);
    }
    assertTrue(ph.add(1));
    assertEquals(1, ph.detections());
    assertEquals(4, ph.lastDetectionRow());
    // A new run: its statistics start from nothing.
    assertEquals(0.0, ph.statistic());
    assertEquals(0.0, ph.errorRate());
    assertEquals(5, ph.rows());
    assertFalse(ph.add(1), "one row of a new run: x̄ = 1, m = −δ");
    assertEquals(0.0, ph.statistic(), EXACT);
  }

  @Test
  void minRowsHoldsTheAlarmBackUntilTheRunIsLongEnough() {
    // The run above with minRows = 6: row 5 (index 4) may not alarm; row 6 adds
    // 1 − 4/6 − 0.1 = 7/30, so m − M = 38/30 + 7/30 = 45/30 > λ at index 5.
    PageHinkley ph = new PageHinkley(0.1, 1.0, 1.0, 6);
    double[] errors = {0, 0, 1, 1, 1};
    for (double e : errors) {
      assertFalse(ph.add(e));
    }
    assertEquals(38.0 / 30, ph.statistic(), EXACT);
    assertTrue(ph.add(1));
    assertEquals(5, ph.lastDetectionRow());
  }

  @Test
  void theFadingFactorScalesThePreviousSum() {
    // α = 0.5, δ = 0, λ = 10 (no alarm): errors 1, 0, 1.
    //   t=1: x̄ = 1,   m = 0.5·0 + (1 − 1)       = 0        M = 0
    //   t=2: x̄ = 1/2, m = 0.5·0 + (0 − 1/2)     = −1/2     M = −1/2
    //   t=3: x̄ = 2/3, m = 0.5·(−1/2) + (1/3)    = 1/12     M = −1/2, m − M = 7/12
    PageHinkley ph = new PageHinkley(0.0, 10.0, 0.5, 1);
    ph.add(1);
    ph.add(0);
    ph.add(1);
    assertEquals(7.0 / 12, ph.statistic(), EXACT);
  }

  @Test
  void anAbruptIncreaseIsDetectedWithinTheDelayTheDriftOfTheSumPredicts() {
    // Bernoulli(0.2) for 20,000 rows, then Bernoulli(0.6). After the jump each row adds
    // x − x̄ − δ, whose mean is Δ − δ less the slow rise of x̄ (at most 0.4·n/20,000 after n
    // rows), so m − M reaches λ after about n* = λ / (Δ − δ) rows. The bound allows four
    // standard deviations of the sum of n* Bernoulli(0.6) rows (√(n*·0.24)) as extra distance
    // to cover, at the speed less the rise of x̄: a seeded run outside it is a wrong test.
    double delta = 0.005;
    double lambda = 50;
    double jump = 0.4;
    int change = 20_000;
    PageHinkley ph = new PageHinkley(delta, lambda, 1.0, 30);
    SplittableRandom random = new SplittableRandom(7);
    for (int t = 0; t < change; t++) {
      ph.add(random.nextDouble() < 0.2 ? 1 : 0);
    }
    assertEquals(0, ph.detections(), "false alarm before the change");
    double expected = lambda / (jump - delta);
    double slowest = jump - delta - jump * 2 * expected / change;
    double bound = (lambda + 4 * Math.sqrt(expected * 0.24)) / slowest;
    int delay = -1;
    for (int t = 0; t < 2 * bound && delay < 0; t++) {
      if (ph.add(random.nextDouble() < 0.6 ? 1 : 0)) {
        delay = t + 1;
      }
    }
    assertTrue(delay > 0 && delay <= bound, "delay " + delay + " rows, bound " + bound
        + " (expected about " + expected + ")");
  }

  @Test
  void aFallingErrorRateNeverAlarms() {
    // The error of a learner that learns: 0.5 falling to 0.1 over 200,000 rows. Every row's
    // x − x̄ has a negative mean (x̄ lags above), so m_T falls; a seeded run that alarmed would
    // be reporting learning as drift.
    PageHinkley ph = new PageHinkley(0.005, 50, 1.0, 30);
    SplittableRandom random = new SplittableRandom(11);
    int n = 200_000;
    for (int t = 0; t < n; t++) {
      double p = 0.5 - 0.4 * t / n;
      ph.add(random.nextDouble() < p ? 1 : 0);
    }
    assertEquals(0, ph.detections());
  }

  /**
   * Against the definition evaluated naively: every row, x̄_t for each t, m_T as the literal sum
   * Σ_{t≤T} α^{T−t}·(x_t − x̄_t − δ) over the run so far and M_T as the literal minimum of every
   * m_t, recomputed from the stored run (O(T²)). Alarms must fall on the same rows; the
   * statistic agrees to 1e-9 (another summation order: a few ulps per term over ≤ 5,000 terms).
   */
  @Test
  void matchesTheDefinitionEvaluatedNaively() {
    double[][] settings = {{0.005, 50, 1.0, 30}, {0.005, 50, 1 - 0.0001, 30}, {0.01, 15, 0.99, 10}};
    int alarms = 0;
    for (double[] s : settings) {
      SplittableRandom random = new SplittableRandom(21);
      PageHinkley ph = new PageHinkley(s[0], s[1], s[2], (long) s[3]);
      List<Double> run = new ArrayList<>();
      double rate = 0.3;
      for (int t = 0; t < 12_000; t++) {
        if (t % 1500 == 0) {
          rate = 0.05 + 0.7 * random.nextDouble();
        }
        double x = random.nextDouble() < rate ? 1 : 0;
        run.add(x);
        double[] m = new double[run.size()];
        double mean = 0;
        double minimum = Double.POSITIVE_INFINITY;
        for (int i = 0; i < run.size(); i++) {
          mean += (run.get(i) - mean) / (i + 1);
          m[i] = (i == 0 ? 0 : s[2] * m[i - 1]) + (run.get(i) - mean - s[0]);
          minimum = Math.min(minimum, m[i]);
        }
        double statistic = m[run.size() - 1] - minimum;
        boolean expected = run.size() >= s[3] && statistic > s[1];
        if (!expected) {
          // The alarm's row ends the run; compare the statistic on the others.
          assertEquals(statistic, nextStatistic(ph, x, false), 1e-9, "row " + t);
        } else {
          assertTrue(ph.add(x), "alarm expected at row " + t);
          run.clear();
          alarms++;
        }
      }
    }
    assertTrue(alarms >= 10, "the stream must make the test alarm; it alarmed " + alarms);
  }

  private static double nextStatistic(PageHinkley ph, double x, boolean alarm) {
    assertEquals(alarm, ph.add(x));
    return ph.statistic();
  }

  @Test
  void badSettingsAndValuesAreRefusedWithTheirName() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new PageHinkley(-1, 50, 1, 30)).getMessage().contains("delta"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new PageHinkley(0.005, 0, 1, 30)).getMessage().contains("lambda"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new PageHinkley(0.005, 50, 1.5, 30)).getMessage().contains("alpha"));
    PageHinkley ph = new PageHinkley(0.005, 50, 1, 30);
    assertThrows(IllegalArgumentException.class, () -> ph.add(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> ph.add(2));
  }
}
