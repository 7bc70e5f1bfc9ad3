package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LazyAveragingTest {

  /**
   * The lazy w − u/c equals the explicit mean of the weight vector after every example, computed
   * naively by summing all T intermediate vectors (O(d) per example), with sample weights.
   */
  @Test
  void lazyAverageEqualsExplicitMeanOfAllIntermediateWeights() {
    Random rnd = new Random(11);
    for (int trial = 0; trial < 20; trial++) {
      int d = 1 + rnd.nextInt(8);
      int k = rnd.nextBoolean() ? 2 : 4;
      int n = 30;
      List<double[]> xs = new ArrayList<>();
      List<Integer> ys = new ArrayList<>();
      double[] weights = new double[n];
      for (int i = 0; i < n; i++) {
        double[] x = new double[d];
        for (int j = 0; j < d; j++) {
          x[j] = rnd.nextGaussian();
        }
        xs.add(x);
        ys.add(rnd.nextInt(k));
        weights[i] = rnd.nextInt(4) == 0 ? 0.0 : 0.5 + rnd.nextDouble();
      }
      UpdateRule rule = trial % 2 == 0 ? UpdateRule.PERCEPTRON : UpdateRule.PA1;
      LearnerConfig averaged = Blocks.config(d, k, true, 1.0, rule, 0.3, Averaging.AVERAGE);
      LearnerConfig plain = Blocks.config(d, k, true, 1.0, rule, 0.3, Averaging.NONE);
      TrainingBlock block = Blocks.csr(xs, ys, weights);

      LinearState lazy = LinearState.zero(averaged);
      LinearState stepwise = LinearState.zero(plain);
      double[] sum = new double[plain.stateLength()];
      double total = 0;
      for (int epoch = 1; epoch <= 5; epoch++) {
        int[] order = SeededShuffle.forEpoch(trial, epoch, 0).permutation(n);
        OnlineLearner.runEpoch(averaged, block, order, lazy, 1.0, new EpochStats(), null);
        for (int row : order) {
          OnlineLearner.runEpoch(plain, block, new int[] {row}, stepwise, 1.0, new EpochStats(),
              null);
          // weight s of the example times the weights after it
          double s = block.weight(row);
          for (int j = 0; j < sum.length; j++) {
            sum[j] += s * stepwise.weights()[j];
          }
          total += s;
        }
      }
      double[] model = lazy.modelWeights();
      assertEquals(total, lazy.clock(), 1e-12 * total);
      for (int j = 0; j < sum.length; j++) {
        double explicit = sum[j] / total;
        // Both sides round differently (c·Δ sums against a running sum of vectors): allow
        // 1e-10 relative to the weights' scale.
        assertEquals(explicit, model[j], 1e-10 * (1 + Math.abs(stepwise.weights()[j])),
            "trial " + trial + " j " + j);
      }
    }
  }
}
