package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.testing.NaivePerceptron;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

class OnlineLearnerTest {

  private static final IntFunction<int[]> IN_ORDER_2 = NaivePerceptron.inOrder(2);

  /**
   * d = 1, x1 = 2 (label 1), x2 = 1 (label 0), bias fitted, η = 1, in order. Worked by hand,
   * (w, b) after each example:
   * <pre>
   * epoch 1: x1 margin 0 → (2, 1);   x2 score 3, y = −1 → (1, 0)         2 mistakes
   * epoch 2: x1 score 2 ok;          x2 score 1, y = −1 → (0, −1)        1 mistake
   * epoch 3: x1 score −1 → (2, 0);   x2 score 2, y = −1 → (1, −1)        2 mistakes
   * </pre>
   * The averaged weights are the mean of the six states: w = 7/6, b = −1/6.
   */
  @Test
  void matchesHandWorkedBinaryExample() {
    List<double[]> xs = List.of(new double[] {2}, new double[] {1});
    List<Integer> ys = List.of(1, 0);
    for (Averaging averaging : new Averaging[] {Averaging.NONE, Averaging.AVERAGE}) {
      LearnerConfig config = Blocks.config(1, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0, averaging);
      List<EpochStats> stats = new ArrayList<>();
      LinearState state = Blocks.train(config, Blocks.csr(xs, ys, null), 3, IN_ORDER_2, stats);
      assertEquals(3, stats.size());
      assertEquals(2, stats.get(0).mistakes);
      assertEquals(1, stats.get(1).mistakes);
      assertEquals(2, stats.get(2).mistakes);
      assertArrayEquals(new double[] {1, -1}, state.weights(), 0.0);
      assertEquals(6.0, state.clock(), 0.0);
      if (averaging == Averaging.AVERAGE) {
        // Two ulps of 7/6 and 1/6: the lazy form computes w − u/c with one rounding each.
        assertArrayEquals(new double[] {7.0 / 6.0, -1.0 / 6.0}, state.modelWeights(), 1e-15);
      }
    }
  }

  /**
   * Three classes, d = 2, no bias, η = 1: a = (1,0) → 0, b = (0,1) → 1, c = (−1,−1) → 2.
   * <pre>
   * epoch 1, all scores tie at 0, so every rival is the lowest wrong class:
   *   a: rival 1 → w0 = (1,0),  w1 = (−1,0)
   *   b: scores (0, 0, 0), rival 0 → w1 = (−1,1), w0 = (1,−1)
   *   c: scores (0, 0, 0), rival 0 → w2 = (−1,−1), w0 = (2,0)
   * epoch 2: a scores (2,−1,−1), b (0,1,−1), c (−2,0,2): no mistake, converged.
   * </pre>
   */
  @Test
  void matchesHandWorkedMulticlassExample() {
    List<double[]> xs = List.of(new double[] {1, 0}, new double[] {0, 1}, new double[] {-1, -1});
    List<Integer> ys = List.of(0, 1, 2);
    LearnerConfig config = Blocks.config(2, 3, false, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.NONE);
    List<EpochStats> stats = new ArrayList<>();
    LinearState state = Blocks.train(config, Blocks.dense(xs, ys, null), 10,
        NaivePerceptron.inOrder(3), stats);
    assertEquals(2, stats.size());
    assertEquals(3, stats.get(0).updates);
    assertEquals(0, stats.get(1).updates);
    // rows of d + 1 with the (unused) bias slot last
    assertArrayEquals(new double[] {2, 0, 0, -1, 1, 0, -1, -1, 0}, state.weights(), 0.0);
  }

  /** PA on one example, worked by hand: x = (3, 4), y = +1, bias fitted. */
  @Test
  void passiveAggressiveStepsMatchHandComputation() {
    // From w = 0: margin 0, hinge loss 1, q = ‖x‖² + 1 = 26.
    // PA: τ = 1/26; PA-I with C = 0.01: τ = min(0.01, 1/26) = 0.01; PA-II with C = 0.5:
    // τ = 1 / (26 + 1/(2·0.5)) = 1/27.
    double[][] expectedTau = {{1.0 / 26}, {0.01}, {1.0 / 27}};
    UpdateRule[] rules = {UpdateRule.PA, UpdateRule.PA1, UpdateRule.PA2};
    double[] c = {1.0, 0.01, 0.5};
    for (int r = 0; r < 3; r++) {
      LearnerConfig config = Blocks.config(2, 2, true, 1.0, rules[r], c[r], Averaging.NONE);
      LinearState state = LinearState.zero(config);
      OnlineLearner.runEpoch(config, Blocks.csr(List.<double[]>of(new double[] {3, 4}),
          List.of(1), null), new int[] {0}, state, 1.0, new EpochStats(), null);
      double tau = expectedTau[r][0];
      assertArrayEquals(new double[] {3 * tau, 4 * tau, tau}, state.weights(), 1e-15, rules[r].name());
    }
    // PA makes the margin exactly 1 after the step: (3·3 + 4·4 + 1)/26 = 1.
  }

  @Test
  void zeroVectorWithoutBiasNeverMovesPassiveAggressive() {
    LearnerConfig config = Blocks.config(2, 2, false, 1.0, UpdateRule.PA, 1.0, Averaging.AVERAGE);
    LinearState state = LinearState.zero(config);
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, Blocks.csr(List.<double[]>of(new double[] {0, 0}), List.of(1),
        null), new int[] {0}, state, 1.0, stats, null);
    assertEquals(0, stats.updates);
    assertArrayEquals(new double[3], state.weights(), 0.0);
  }

  /**
   * The kernel equals the naive textbook implementation bit for bit, for every rule, with and
   * without averaging and bias, binary and multiclass, CSR and dense storage, on random data with
   * random orders.
   */
  @Test
  void equalsNaiveSerialImplementationBitForBit() {
    Random rnd = new Random(7);
    for (int trial = 0; trial < 40; trial++) {
      int d = 1 + rnd.nextInt(6);
      int k = rnd.nextBoolean() ? 2 : 3 + rnd.nextInt(3);
      int n = 5 + rnd.nextInt(30);
      List<double[]> xs = new ArrayList<>();
      List<Integer> ys = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        double[] x = new double[d];
        for (int j = 0; j < d; j++) {
          x[j] = rnd.nextInt(3) == 0 ? 0.0 : rnd.nextGaussian();
        }
        xs.add(x);
        ys.add(rnd.nextInt(k));
      }
      boolean fitIntercept = rnd.nextBoolean();
      double eta = rnd.nextBoolean() ? 1.0 : 0.1 + rnd.nextDouble();
      String ruleName = new String[] {"perceptron", "pa", "pa1", "pa2"}[rnd.nextInt(4)];
      double c = 0.05 + rnd.nextDouble();
      boolean averaged = rnd.nextBoolean();
      long seed = rnd.nextLong();
      IntFunction<int[]> orders = epoch -> SeededShuffle.forEpoch(seed, epoch, 0).permutation(n);

      NaivePerceptron naive = new NaivePerceptron(d, k, fitIntercept, eta, averaged, ruleName, c)
          .train(xs, ys, 7, orders);
      LearnerConfig config = Blocks.config(d, k, fitIntercept, eta, UpdateRule.fromParam(ruleName),
          c, averaged ? Averaging.AVERAGE : Averaging.NONE);
      for (TrainingBlock block : new TrainingBlock[] {Blocks.csr(xs, ys, null),
          Blocks.dense(xs, ys, null)}) {
        LinearState state = Blocks.train(config, block, 7, orders, null);
        double[] model = state.modelWeights();
        for (int row = 0; row < config.weightRows(); row++) {
          double[] expected = naive.modelRow(row);
          for (int j = 0; j <= d; j++) {
            assertEquals(expected[j], model[row * (d + 1) + j], 0.0,
                "trial " + trial + " " + ruleName + " row " + row + " j " + j);
          }
        }
      }
    }
  }

  @Test
  void lossesAreMeasuredBeforeEachUpdate() {
    // x1 = 2 (label 1) from w = 0: margin 0 → perceptron loss 0, hinge 1.
    // x2 = 1 (label 0) after w = (2, 1): score 3, margin −3 → perceptron loss 3, hinge 4.
    LearnerConfig config = Blocks.config(1, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.NONE);
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, Blocks.csr(List.of(new double[] {2}, new double[] {1}),
        List.of(1, 0), null), new int[] {0, 1}, LinearState.zero(config), 1.0, stats, null);
    assertEquals(3.0, stats.perceptronLoss, 0.0);
    assertEquals(5.0, stats.hingeLoss, 0.0);
    assertEquals(2, stats.mistakes);
  }

  @Test
  void sampleWeightScalesTheUpdateAndZeroWeightSkipsTheRow() {
    LearnerConfig config = Blocks.config(1, 2, true, 0.5, UpdateRule.PERCEPTRON, 1.0,
        Averaging.NONE);
    LinearState state = LinearState.zero(config);
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, Blocks.csr(List.of(new double[] {2}, new double[] {5}),
        List.of(1, 0), new double[] {3.0, 0.0}), new int[] {0, 1}, state, 1.0, stats, null);
    // Only x1 counts: w = 0.5 · 3 · 2 = 3, b = 0.5 · 3 = 1.5.
    assertArrayEquals(new double[] {3.0, 1.5}, state.weights(), 0.0);
    assertEquals(1, stats.examples);
    assertEquals(3.0, state.clock(), 0.0);
  }
}
