package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.ml.PerceptronTrainingSummary;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Worker-local feature numbers through a whole training (issue 21): the same rows with their
 * features spread over a d {@value #SPREAD} times larger (feature j becomes j·s + (7j mod s), an
 * increasing injection) train the same model, bit for bit: the same weights at the spread
 * coordinates and +0.0 everywhere else, the same predictions (the vote's too) and the same
 * summary, for binary and multiclass models, every iterative mixing mode, averaged, voted or not,
 * one Spark job per round or one barrier stage per epoch.
 *
 * <p>What it pins: at d = {@value #COMPACT_D} every round changes more than a quarter of the
 * weights, so the driver ships a new snapshot each round and every worker's copy is gathered
 * whole ({@code LocalWeights.load}); spread, the snapshot stays and each worker keeps its copy on
 * the executor between rounds and epochs, brought up to date only at the coordinates that changed
 * ({@code ExecutorWeights}: its own and the mixes', mapped to its features). The two must agree:
 * by the kernel's theorem (a monotone renumbering adds the same products in the same order) a
 * worker's copy holds only its m features either way, so the compact training is the spread one's
 * reference.
 */
class FeatureSpreadTest {
  static final int COMPACT_D = 50;
  static final int SPREAD = 4096;
  private static final SparkSession SPARK = SparkTestSupport.spark();

  /** {@code n} rows of 5 of {@value #COMPACT_D} features, labelled by noisy prototypes. */
  private static List<TestData.Example> rows(long seed, int n, int k, int d, int spread) {
    Random rnd = new Random(seed);
    double[][] prototype = new double[k][COMPACT_D];
    for (double[] p : prototype) {
      for (int j = 0; j < COMPACT_D; j++) {
        p[j] = rnd.nextGaussian();
      }
    }
    List<TestData.Example> out = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      int[] features = rnd.ints(0, COMPACT_D).distinct().limit(5).sorted().toArray();
      double[] values = new double[features.length];
      int best = 0;
      double[] score = new double[k];
      for (int t = 0; t < features.length; t++) {
        values[t] = rnd.nextGaussian();
        for (int c = 0; c < k; c++) {
          score[c] += prototype[c][features[t]] * values[t];
        }
      }
      for (int c = 1; c < k; c++) {
        if (score[c] > score[best]) {
          best = c;
        }
      }
      int label = rnd.nextInt(10) == 0 ? rnd.nextInt(k) : best;
      int[] at = new int[features.length];
      for (int t = 0; t < features.length; t++) {
        at[t] = spread(features[t], spread);
      }
      out.add(new TestData.Example(label, Vectors.sparse(d, at, values)));
    }
    return out;
  }

  private static int spread(int j, int s) {
    return j * s + (7 * j) % s;
  }

  private static PerceptronClassificationModel fit(List<TestData.Example> rows, String mixing,
      int rounds, String averaging, String execution) {
    Dataset<Row> frame = TestData.frameInOrder(SPARK, rows, 2);
    SPARK.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, execution);
    try {
      // calibration=none: weights, raw scores and the training summary compared; on 300 rows
      // the default cross-fits three fold models more per fit, the model the same bits.
      return new PerceptronClassifier().setCalibration("none").setMixing(mixing)
          .setMixingRounds(rounds).setAveraging(averaging).setMaxIter(4).setTol(0.0).setSeed(5)
          .setNumWorkers(2).fit(frame);
    } finally {
      SPARK.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
    }
  }

  @ParameterizedTest(name = "K={0}, {1} x {2} rounds, {3}, {4}")
  @CsvSource({
      "2, mistakes, 1, average, jobs",
      "2, mistakes, 3, none,    jobs",
      "2, momentum, 4, average, barrier",
      "2, uniform,  2, vote,    jobs",
      "4, mistakes, 1, average, jobs",
      "4, mistakes, 3, average, barrier",
      "4, momentum, 3, none,    jobs",
      "4, momentum, 4, average, barrier",
      "4, uniform,  2, vote,    jobs",
  })
  void spreadingTheFeaturesOverALargerDChangesNoBit(int k, String mixing, int rounds,
      String averaging, String execution) {
    int n = 300;
    List<TestData.Example> compact = rows(11, n, k, COMPACT_D, 1);
    List<TestData.Example> spread = rows(11, n, k, COMPACT_D * SPREAD, SPREAD);
    PerceptronClassificationModel expected = fit(compact, mixing, rounds, averaging, execution);
    PerceptronClassificationModel actual = fit(spread, mixing, rounds, averaging, execution);

    Matrix a = expected.coefficientMatrix();
    Matrix b = actual.coefficientMatrix();
    int weightRows = k == 2 ? 1 : k;
    long nonZero = 0;
    for (int c = 0; c < weightRows; c++) {
      int next = 0;
      for (int j = 0; j < COMPACT_D * SPREAD; j++) {
        double want = 0.0;
        if (next < COMPACT_D && j == spread(next, SPREAD)) {
          want = a.apply(c, next++);
        }
        assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(b.apply(c, j)),
            "class row " + c + ", feature " + j);
        nonZero += want != 0.0 ? 1 : 0;
      }
    }
    assertTrue(nonZero > weightRows * COMPACT_D / 2, "the models learned: " + nonZero);
    assertArrayEquals(bits(expected.interceptVector()), bits(actual.interceptVector()));
    for (int r = 0; r < n; r++) {
      assertArrayEquals(bits(expected.predictRaw(compact.get(r).features)),
          bits(actual.predictRaw(spread.get(r).features)), "raw prediction of row " + r);
    }
    PerceptronTrainingSummary s = expected.summary();
    PerceptronTrainingSummary t = actual.summary();
    assertArrayEquals(s.updatesHistory(), t.updatesHistory());
    assertArrayEquals(s.mistakesHistory(), t.mistakesHistory());
    assertArrayEquals(s.perceptronLossHistory(), t.perceptronLossHistory(), 0.0);
    assertArrayEquals(s.weightChangeHistory(), t.weightChangeHistory(), 0.0);
    for (int e = 0; e < s.workerUpdatesHistory().length; e++) {
      assertArrayEquals(s.workerUpdatesHistory()[e], t.workerUpdatesHistory()[e]);
    }
  }

  private static long[] bits(Vector v) {
    double[] a = v.toArray();
    long[] out = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = Double.doubleToRawLongBits(a[i]);
    }
    return out;
  }
}
