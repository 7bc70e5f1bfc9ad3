package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The lazy average over very long runs, against an independent, well-conditioned reference. */
class NumericalSoundnessTest {

  /**
   * A run whose averaging clock passes 10⁹: 500 epochs of 2,000 rows, every example advancing the
   * clock by 1,000 (the clockScale that parameter mixing uses when one partition stands for many
   * examples), i.e. 10⁹ simulated steps, on noisy data so that the weights keep moving (about
   * half a million updates, u ≈ c·Δ up to ~10¹⁰). The reference computes each epoch's mean
   * weights with a fresh accumulator (clock ≤ 2·10⁶, so its products stay small) and averages the
   * epoch means with compensated (Kahan) summation; since every epoch spans the same stretch of
   * the clock, that is the same average computed along a different, better-conditioned path.
   */
  @Test
  void lazyAverageStaysWithin1e9OfAWellConditionedReferenceAfter1e9Steps() {
    Random rnd = new Random(17);
    int d = 6;
    int n = 2000;
    List<double[]> xs = new ArrayList<>();
    List<Integer> ys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] x = new double[d];
      for (int j = 0; j < d; j++) {
        x[j] = rnd.nextGaussian();
      }
      xs.add(x);
      ys.add(x[0] + 2 * rnd.nextGaussian() > 0 ? 1 : 0);
    }
    TrainingBlock block = Blocks.csr(xs, ys, null);
    LearnerConfig config = Blocks.config(d, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    double scale = 1000;
    int epochs = 500;

    LinearState longRun = LinearState.zero(config);
    double[] sum = new double[d + 1];
    double[] compensation = new double[d + 1];
    long updates = 0;
    for (int epoch = 1; epoch <= epochs; epoch++) {
      int[] order = SeededShuffle.forEpoch(9, epoch, 0).permutation(n);
      double[] start = longRun.weights().clone();
      EpochStats stats = new EpochStats();
      OnlineLearner.runEpoch(config, block, order, longRun, scale, stats, null);
      updates += stats.updates;

      LinearState epochOnly = new LinearState(start, new double[d + 1], 0.0);
      OnlineLearner.runEpoch(config, block, order, epochOnly, 1.0, new EpochStats(), null);
      double[] epochMean = epochOnly.modelWeights();
      for (int j = 0; j <= d; j++) {
        double y = epochMean[j] / epochs - compensation[j];
        double t = sum[j] + y;
        compensation[j] = (t - sum[j]) - y;
        sum[j] = t;
      }
    }
    assertEquals(1e9, longRun.clock(), 0.0);
    assertTrue(updates > 100_000, "the weights must keep moving: " + updates + " updates");
    double[] lazy = longRun.modelWeights();
    double norm = 0;
    for (double v : sum) {
      norm = Math.max(norm, Math.abs(v));
    }
    for (int j = 0; j <= d; j++) {
      assertEquals(sum[j], lazy[j], 1e-9 * norm, "coordinate " + j);
    }
  }
}
