package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The feature-major multiclass kernel ({@link StateLayout#FEATURE_MAJOR}) is today's class-major
 * kernel bit for bit: the class-major path is the reference (itself pinned to the naive textbook
 * perceptron by {@code OnlineLearnerTest}), and every weight, accumulator value, clock, epoch
 * statistic, touched coordinate and recorded vote update must agree to the last bit (compared as
 * raw bits, so even a −0.0 against a 0.0 fails), for every update rule, averaging none / average /
 * vote, with and without sample weights, class weights and intercept, on CSR and dense blocks, at
 * K = 3, 10 and 100, from a random warm start.
 */
class FeatureMajorKernelTest {
  private static final int EPOCHS = 3;

  /** Random rows of d features at the given density, K classes, optional sample weights. */
  static TrainingBlock block(Random rnd, int n, int d, int k, double density, boolean weighted) {
    TrainingBlockBuilder builder = new TrainingBlockBuilder(d);
    double[] x = new double[d];
    for (int r = 0; r < n; r++) {
      for (int j = 0; j < d; j++) {
        x[j] = rnd.nextDouble() < density ? rnd.nextGaussian() : 0.0;
      }
      // Zero and fractional weights: zero-weight rows are skipped, others scale the step.
      double w = !weighted ? 1.0 : rnd.nextInt(5) == 0 ? 0.0 : 0.25 + rnd.nextDouble() * 2;
      builder.addDense(rnd.nextInt(k), w, x);
    }
    return builder.build();
  }

  static double[] classWeights(Random rnd, int k) {
    double[] cw = new double[k];
    for (int c = 0; c < k; c++) {
      cw[c] = 0.5 + rnd.nextDouble();
    }
    return cw;
  }

  /** A random state in class-major layout (u too when averaging), so no margin starts at 0. */
  static LinearState randomState(Random rnd, LearnerConfig config) {
    LinearState s = LinearState.zero(config);
    for (int i = 0; i < s.weights().length; i++) {
      s.weights()[i] = rnd.nextGaussian() * 0.1;
      if (s.averageAccumulator() != null) {
        s.averageAccumulator()[i] = rnd.nextGaussian() * 0.01;
      }
    }
    s.setClock(3.0);
    return s;
  }

  /** The same state in another layout (values moved, not recomputed). */
  static LinearState relayout(LinearState s, LearnerConfig from, LearnerConfig to) {
    int n = s.weights().length;
    double[] w = new double[n];
    double[] u = s.averageAccumulator() == null ? null : new double[n];
    for (int row = 0; row < from.weightRows(); row++) {
      for (int j = 0; j <= from.numFeatures(); j++) {
        w[to.stateIndex(row, j)] = s.weights()[from.stateIndex(row, j)];
        if (u != null) {
          u[to.stateIndex(row, j)] = s.averageAccumulator()[from.stateIndex(row, j)];
        }
      }
    }
    return new LinearState(w, u, s.clock());
  }

  static long[] bits(double[] a) {
    long[] out = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = Double.doubleToRawLongBits(a[i]);
    }
    return out;
  }

  static void assertSameStats(EpochStats expected, EpochStats actual, String where) {
    assertEquals(expected.examples, actual.examples, where);
    assertEquals(expected.mistakes, actual.mistakes, where);
    assertEquals(expected.updates, actual.updates, where);
    assertEquals(expected.nonFiniteMargins, actual.nonFiniteMargins, where);
    assertEquals(Double.doubleToRawLongBits(expected.weightSeen),
        Double.doubleToRawLongBits(actual.weightSeen), where);
    assertEquals(Double.doubleToRawLongBits(expected.perceptronLoss),
        Double.doubleToRawLongBits(actual.perceptronLoss), where);
    assertEquals(Double.doubleToRawLongBits(expected.hingeLoss),
        Double.doubleToRawLongBits(actual.hingeLoss), where);
    assertEquals(Double.doubleToRawLongBits(expected.stepSum),
        Double.doubleToRawLongBits(actual.stepSum), where);
  }

  static void assertSameTrace(VoteTrace expected, VoteTrace actual, String where) {
    assertEquals(expected.updates(), actual.updates(), where);
    assertEquals(expected.storedValues(), actual.storedValues(), where);
    for (int j = 0; j < expected.updates(); j++) {
      assertEquals(expected.raised(j), actual.raised(j), where);
      assertEquals(expected.lowered(j), actual.lowered(j), where);
      assertEquals(Double.doubleToRawLongBits(expected.delta(j)),
          Double.doubleToRawLongBits(actual.delta(j)), where);
      assertEquals(Double.doubleToRawLongBits(expected.clockBefore(j)),
          Double.doubleToRawLongBits(actual.clockBefore(j)), where);
      assertEquals(expected.rowStart(j + 1), actual.rowStart(j + 1), where);
    }
    for (int k = 0; k < expected.storedValues(); k++) {
      assertEquals(expected.index(k), actual.index(k), where);
      assertEquals(Double.doubleToRawLongBits(expected.value(k)),
          Double.doubleToRawLongBits(actual.value(k)), where);
    }
  }

  @Test
  void featureMajorEqualsClassMajorBitForBitInEveryConfiguration() {
    Random rnd = new Random(21);
    int runs = 0;
    for (int k : new int[] {3, 10, 100}) {
      int d = k == 100 ? 12 : 9;
      int n = k == 100 ? 150 : 60;
      for (double density : new double[] {0.3, 0.9}) {
        for (boolean weighted : new boolean[] {false, true}) {
          TrainingBlock data = block(rnd, n, d, k, density, weighted);
          if (density > 0.5) {
            assertInstanceOf(DenseFeatureBlock.class, data.features(), "dense rows stored dense");
          } else {
            assertInstanceOf(CsrFeatureBlock.class, data.features(), "sparse rows stored as CSR");
          }
          for (UpdateRule rule : UpdateRule.values()) {
            for (Averaging averaging : Averaging.values()) {
              for (boolean fitIntercept : new boolean[] {false, true}) {
                boolean withClassWeights = rnd.nextBoolean();
                LearnerConfig classMajor = new LearnerConfig(d, k, fitIntercept,
                    0.5 + rnd.nextDouble(), rule, 0.1 + rnd.nextDouble(), averaging,
                    withClassWeights ? classWeights(rnd, k) : null);
                String where = "K=" + k + " density=" + density + " weighted=" + weighted + " "
                    + rule + " " + averaging + " intercept=" + fitIntercept + " classWeights="
                    + withClassWeights;
                compareLayouts(classMajor, data, randomState(rnd, classMajor), rnd.nextLong(),
                    where);
                runs++;
              }
            }
          }
        }
      }
    }
    assertEquals(3 * 2 * 2 * 4 * 3 * 2, runs);
  }

  private static void compareLayouts(LearnerConfig classMajor, TrainingBlock data,
      LinearState start, long seed, String where) {
    LearnerConfig featureMajor = classMajor.withLayout(StateLayout.FEATURE_MAJOR);
    assertTrue(featureMajor.isFeatureMajor());
    LinearState reference = start.copy();
    LinearState state = relayout(start, classMajor, featureMajor);
    int n = data.numRows();
    int length = classMajor.stateLength();
    long updates = 0;
    for (int epoch = 1; epoch <= EPOCHS; epoch++) {
      int[] order = SeededShuffle.forEpoch(seed, epoch, 0).permutation(n);
      EpochStats expectedStats = new EpochStats();
      EpochStats stats = new EpochStats();
      TouchedSet expectedTouched = new TouchedSet(length);
      TouchedSet touched = new TouchedSet(length);
      boolean vote = classMajor.averaging() == Averaging.VOTE;
      VoteTrace expectedTrace = vote ? new VoteTrace(data.features(), 0, reference.clock()) : null;
      VoteTrace trace = vote ? new VoteTrace(data.features(), 0, state.clock()) : null;
      // A clock scale other than 1, as under parameter mixing (T / T_i).
      OnlineLearner.runEpoch(classMajor, data, order, 0, n, reference, 1.75, expectedStats,
          expectedTrace, expectedTouched);
      OnlineLearner.runEpoch(featureMajor, data, order, 0, n, state, 1.75, stats, trace,
          touched);
      String at = where + " epoch " + epoch;
      assertSameStats(expectedStats, stats, at);
      assertEquals(Double.doubleToRawLongBits(reference.clock()),
          Double.doubleToRawLongBits(state.clock()), at);
      LinearState back = relayout(state, featureMajor, classMajor);
      assertArrayEquals(bits(reference.weights()), bits(back.weights()), at + ": w");
      if (reference.averageAccumulator() != null) {
        assertArrayEquals(bits(reference.averageAccumulator()),
            bits(back.averageAccumulator()), at + ": u");
      }
      int[] expectedCoordinates = expectedTouched.drain();
      int[] mapped = touched.drain();
      for (int i = 0; i < mapped.length; i++) {
        int row = mapped[i] % classMajor.weightRows();
        int feature = mapped[i] / classMajor.weightRows();
        mapped[i] = classMajor.stateIndex(row, feature);
      }
      Arrays.sort(mapped);
      assertArrayEquals(expectedCoordinates, mapped, at + ": touched coordinates");
      if (vote) {
        assertSameTrace(expectedTrace, trace, at);
      }
      updates += stats.updates;
    }
    assertTrue(updates > 0, where + ": the update path ran");
  }

  /** The inner loop by itself: K sums equal K class-major dot products, sparse and dense. */
  @Test
  void classSumsEqualTheClassMajorDotProducts() {
    Random rnd = new Random(5);
    for (int k : new int[] {3, 7, 100, 1000}) {
      int d = 40;
      LearnerConfig classMajor = new LearnerConfig(d, k, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
          Averaging.NONE);
      LearnerConfig featureMajor = classMajor.withLayout(StateLayout.FEATURE_MAJOR);
      LinearState cm = randomState(rnd, classMajor);
      double[] fm = relayout(cm, classMajor, featureMajor).weights();
      for (double density : new double[] {0.2, 0.95}) {
        TrainingBlock data = block(rnd, 20, d, k, density, false);
        double[] sums = new double[k];
        for (int r = 0; r < data.numRows(); r++) {
          data.features().dotClasses(r, fm, k, sums);
          for (int c = 0; c < k; c++) {
            double expected = data.features().dot(r, cm.weights(), c * (d + 1));
            assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(sums[c]),
                "K=" + k + " row " + r + " class " + c);
          }
        }
      }
    }
  }

  /** Binary models have one weight row: the layouts coincide and the kernel path is today's. */
  @Test
  void binaryLayoutsAreTheSameArray() {
    LearnerConfig binary = new LearnerConfig(5, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    LearnerConfig fm = binary.withLayout(StateLayout.FEATURE_MAJOR);
    for (int j = 0; j <= 5; j++) {
      assertEquals(binary.stateIndex(0, j), fm.stateIndex(0, j));
    }
    assertTrue(!fm.isFeatureMajor(), "binary training keeps the one-row kernel");
    List<Integer> seen = new ArrayList<>();
    for (int row = 0; row < 4; row++) {
      for (int j = 0; j <= 2; j++) {
        seen.add(StateLayout.FEATURE_MAJOR.index(row, j, 2, 4));
      }
    }
    // Feature-major by hand: feature j's 4 rows at 4j .. 4j+3, the bias (j = 2) last.
    assertEquals(List.of(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11), seen);
  }
}
