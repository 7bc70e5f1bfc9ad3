package io.github.sparkperceptron.internal.drift;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AdwinTest {
  private static final double EXACT = 1e-12;

  /**
   * A 32-row window worked by hand. With M = 5 buckets per size, 32 rows make five buckets of 4
   * (rows 1-20), four of 2 (21-28) and four of 1 (29-32). Rows 1-16 are 0, rows 17-32 are 1, and
   * the only check is at row 32 (clock 32). δ = 0.9, so L = ln(2·ln n / δ) is small enough for
   * a window this short to cut; ε = √(2·(1/m)·σ²·L) + (2/3)·(1/m)·L with
   * 1/m = 1/(n₀ − 4) + 1/(n₁ − 4), and both sides must hold more than 6 rows.
   * <pre>
   * n = 32, σ² = 1/4, L = ln(2·ln 32/0.9) = 2.0415
   *   n₀ = 8:  μ₀ = 0, μ₁ = 16/24,  1/m = 1/4 + 1/20  = 0.3,    ε = 0.962 &gt; 0.667
   *   n₀ = 12: μ₀ = 0, μ₁ = 16/20,  1/m = 1/8 + 1/16  = 0.1875, ε = 0.693 &lt; 0.8  cut: drop rows 1-4
   * n = 28, σ² = (12·16/28)/28 = 0.2449, L = 2.0021
   *   n₀ = 8:  μ₁ = 0.8,           1/m = 1/4 + 1/16   = 0.3125, ε = 0.971 &gt; 0.8
   *   n₀ = 12: μ₁ = 1,             1/m = 1/8 + 1/12   = 0.2083, ε = 0.730 &lt; 1    cut: drop rows 5-8
   * n = 24, σ² = 2/9, L = 1.9548
   *   n₀ = 8:  μ₁ = 1,             1/m = 1/4 + 1/12   = 0.3333, ε = 0.973 &lt; 1    cut: drop rows 9-12
   * n = 20, σ² = 0.16, L = 1.8957
   *   n₀ = 8:  μ₀ = 0.5, μ₁ = 1,   1/m = 1/4 + 1/8    = 0.375,  ε = 0.951 &gt; 0.5
   *   n₀ = 10: μ₀ = 0.6,           1/m = 1/6 + 1/6,             ε = 0.871 &gt; 0.4
   *   n₀ = 12: μ₀ = 2/3,           1/m = 1/8 + 1/4,             ε = 0.951 &gt; 1/3
   *   n₀ ≥ 14 leaves n₁ ≤ 6: no cut. The window keeps rows 13-32: 20 rows, mean 0.8.
   * </pre>
   * Three cuts, each dropping lower errors than the rest: one detection, at row index 31.
   */
  @Test
  void cutsATinyWindowAsWorkedByHand() {
    Adwin adwin = new Adwin(0.9, 32, 5, 10, 5);
    for (int t = 0; t < 31; t++) {
      assertFalse(adwin.add(t < 16 ? 0 : 1), "row " + t);
    }
    assertEquals(32 - 1, adwin.width());
    assertTrue(adwin.add(1));
    assertEquals(3, adwin.cuts());
    assertEquals(1, adwin.detections());
    assertEquals(31, adwin.lastDetectionRow());
    assertEquals(20, adwin.width());
    assertEquals(0.8, adwin.errorRate(), EXACT);
    assertEquals(0.16, adwin.variance(), EXACT);
    // Left: sizes 4 (rows 13-16, 17-20), 2 (four) and 1 (four).
    assertEquals(10, adwin.buckets());
  }

  @Test
  void theSameCutsDownwardsAreNoDetection() {
    Adwin adwin = new Adwin(0.9, 32, 5, 10, 5);
    for (int t = 0; t < 32; t++) {
      assertFalse(adwin.add(t < 16 ? 1 : 0), "row " + t);
    }
    assertEquals(3, adwin.cuts(), "the window still shrinks");
    assertEquals(0, adwin.detections());
    assertEquals(0.2, adwin.errorRate(), EXACT);
  }

  @Test
  void theExponentialHistogramKeepsLogarithmicallyManyBuckets() {
    // Without cuts (a constant stream), n rows take at most M buckets per size 2^i ≤ n.
    Adwin adwin = new Adwin(0.002);
    for (int t = 1; t <= 1 << 20; t++) {
      adwin.add(0.25);
    }
    assertEquals(1 << 20, adwin.width());
    assertTrue(adwin.buckets() <= 5 * 21, adwin.buckets() + " buckets");
    assertEquals(0.25, adwin.errorRate(), EXACT);
    assertEquals(0.0, adwin.variance(), EXACT);
  }

  /**
   * Theorem 3.1 (1): while the mean stays constant, each check cuts with probability at most δ.
   * δ is set high here (0.3 and 0.05) so that a looser ε_cut would show: the bound is loose by
   * design (Bernstein's inequality plus a union bound over splits), and with the reference
   * defaults (δ = 0.002) no cut happens at all on such streams, which could hide a wrong
   * formula. Asserted: false cuts per check ≤ δ, on 300,000 seeded rows (9,375 checks) for two
   * error rates. No tolerance: the bound itself is the tolerance.
   */
  @Test
  void falseCutsOnAStationaryStreamStayUnderDeltaPerCheck() {
    for (double delta : new double[] {0.3, 0.05}) {
      for (double p : new double[] {0.1, 0.4}) {
        Adwin adwin = new Adwin(delta);
        SplittableRandom random = new SplittableRandom(1234);
        int n = 300_000;
        for (int t = 0; t < n; t++) {
          adwin.add(random.nextDouble() < p ? 1 : 0);
        }
        double checks = n / 32.0;
        double rate = adwin.cuts() / checks;
        assertTrue(rate <= delta, "delta " + delta + ", p " + p + ": " + adwin.cuts()
            + " false cuts in " + checks + " checks");
      }
    }
  }

  /**
   * Theorem 3.1 (2): once the means of W₀ and W₁ differ by more than 2·ε_cut, ADWIN cuts (with
   * probability ≥ 1 − δ). After 20,000 rows at 0.2 the error jumps to 0.6 (Δ = 0.4): the
   * smallest n₁ with 2·ε_cut(n₀ = 20,000, n₁) &lt; Δ, computed below from the formula, bounds the
   * delay, plus one clock (the check may come up to 31 rows later) and one clock more for the
   * bucket boundaries (the newest n₁ rows are in buckets of at most 16 rows).
   */
  @Test
  void anAbruptIncreaseIsDetectedWithinTheDelayTheBoundPredicts() {
    int change = 20_000;
    double delta = 0.002;
    Adwin adwin = new Adwin(delta);
    SplittableRandom random = new SplittableRandom(5);
    for (int t = 0; t < change; t++) {
      adwin.add(random.nextDouble() < 0.2 ? 1 : 0);
    }
    assertEquals(0, adwin.detections(), "false alarm before the change");
    int n1 = 7;
    while (2 * epsilon(change, n1, delta) >= 0.4) {
      n1++;
    }
    int bound = n1 + 2 * 32;
    int delay = -1;
    for (int t = 0; t < 10 * bound && delay < 0; t++) {
      if (adwin.add(random.nextDouble() < 0.6 ? 1 : 0)) {
        delay = t + 1;
      }
    }
    assertTrue(delay > 0 && delay <= bound, "delay " + delay + ", bound " + bound);
  }

  /** ε_cut with the window's variance taken at its largest for the two means 0.2 and 0.6. */
  private static double epsilon(int n0, int n1, double delta) {
    double n = n0 + n1;
    double mean = (0.2 * n0 + 0.6 * n1) / n;
    double variance = (n0 * 0.2 + n1 * 0.6) / n - mean * mean;
    double logTerm = Math.log(2 * Math.log(n) / delta);
    double inverseM = 1.0 / (n0 - 4) + 1.0 / (n1 - 4);
    return Math.sqrt(2 * inverseM * variance * logTerm) + 2.0 / 3.0 * inverseM * logTerm;
  }
}
