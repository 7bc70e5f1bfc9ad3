package io.github.sparkperceptron.internal.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A partition's change travels sparsely (the coordinates it touched) or densely (every
 * coordinate), chosen by density; the choice must never change a bit of the model. Each case
 * trains once with the changes forced dense and once forced sparse.
 */
class SparseExchangeTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  private static double[] train(Dataset<Row> frame, String exchange, String rule,
      String averaging, String mixing) {
    return train(frame, exchange, rule, averaging, mixing, new PerceptronClassifier());
  }

  /**
   * As {@link #train(Dataset, String, String, String, String)}, with calibration=none: for the
   * data where the default falls back to cross-fitting (under 50 held-out rows of some class:
   * 5 classes of 1,500 rows, breast_cancer, iris), where the model trains on every row either
   * way (the same bits) and three fold models more per fit are compared by nothing here. The
   * binary 1,500-row cases keep the default, which holds about 150 rows out of training there
   * (no extra fits).
   */
  private static double[] trainUncalibrated(Dataset<Row> frame, String exchange, String rule,
      String averaging, String mixing) {
    return train(frame, exchange, rule, averaging, mixing,
        new PerceptronClassifier().setCalibration("none"));
  }

  private static double[] train(Dataset<Row> frame, String exchange, String rule,
      String averaging, String mixing, PerceptronClassifier estimator) {
    SPARK.sparkContext().setLocalProperty(Settings.DELTA_ENCODING, exchange);
    try {
      PerceptronClassificationModel model = estimator.setUpdateRule(rule)
          .setAveraging(averaging).setMixing(mixing).setMaxIter(4).setSeed(5)
          .setNumWorkers(frame.rdd().getNumPartitions()).fit(frame);
      double[] w = model.coefficientMatrix().toArray();
      double[] b = model.interceptVector().toArray();
      double[] out = Arrays.copyOf(w, w.length + b.length);
      System.arraycopy(b, 0, out, w.length, b.length);
      return out;
    } finally {
      SPARK.sparkContext().setLocalProperty(Settings.DELTA_ENCODING, null);
    }
  }

  @ParameterizedTest(name = "{0} {1} {2} {3} classes, {4} partitions")
  @CsvSource({
      "perceptron, average, mistakes, 2, 1",
      "perceptron, average, mistakes, 2, 3",
      "perceptron, none,    uniform,  2, 3",
      "perceptron, vote,    mistakes, 2, 2",
      "pa1,        average, momentum, 2, 4",
      "pa,         none,    oneshot,  2, 3",
      "perceptron, average, momentum, 5, 4",
      "pa2,        average, uniform,  5, 3",
      "perceptron, none,    mistakes, 5, 1",
      "perceptron, average, oneshot,  5, 2",
  })
  void sparseAndDenseExchangeGiveBitIdenticalModels(String rule, String averaging,
      String mixing, int classes, int partitions) {
    SyntheticData data = SyntheticData.builder().numFeatures(300).nonZerosPerRow(8)
        .numClasses(classes).margin(0.05).labelNoise(0.1).seed(classes + partitions).build();
    Dataset<Row> frame = data.frame(SPARK, 0, 1500, partitions).cache();
    double[] dense = classes == 2 ? train(frame, "dense", rule, averaging, mixing)
        : trainUncalibrated(frame, "dense", rule, averaging, mixing);
    double[] sparse = classes == 2 ? train(frame, "sparse", rule, averaging, mixing)
        : trainUncalibrated(frame, "sparse", rule, averaging, mixing);
    double[] auto = classes == 2 ? train(frame, "auto", rule, averaging, mixing)
        : trainUncalibrated(frame, "auto", rule, averaging, mixing);
    assertArrayEquals(dense, sparse, 0.0);
    assertArrayEquals(dense, auto, 0.0);
    frame.unpersist();
  }

  /**
   * The control for the cases above: forcing a representation takes effect. A wide binary model
   * (d = 20,000) trained on 20 rows of 8 non-zeros touches at most 162 coordinates a round, so a
   * sparse change is a few kilobytes and a dense one at least d doubles of w and of u
   * (Spark's task metrics: the largest task result of the fit; auto chooses sparse here).
   */
  @Test
  void forcingTheExchangeChangesWhatTheTasksReturn() {
    SyntheticData data = SyntheticData.builder().numFeatures(20_000).nonZerosPerRow(8)
        .margin(0.05).labelNoise(0.0).seed(3).build();
    Dataset<Row> frame = data.frame(SPARK, 0, 20, 2).cache();
    long dense = SparkTestSupport.largestTaskResult(SPARK, () -> train(frame, "dense", "perceptron", "average",
        "mistakes"));
    long sparse = SparkTestSupport.largestTaskResult(SPARK, () -> train(frame, "sparse", "perceptron", "average",
        "mistakes"));
    long auto = SparkTestSupport.largestTaskResult(SPARK, () -> train(frame, "auto", "perceptron", "average",
        "mistakes"));
    frame.unpersist();
    assertTrue(dense >= 16L * 20_000, "forced dense: " + dense + " bytes");
    assertTrue(sparse < 20_000, "forced sparse: " + sparse + " bytes");
    assertTrue(auto < 20_000, "auto on 162 of 20,001 coordinates: " + auto + " bytes");
  }

  @ParameterizedTest(name = "dense real data {0}")
  @CsvSource({"breast_cancer, 30", "iris, 4"})
  void denseRowsToo(String dataset, int d) {
    Dataset<Row> frame = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData(dataset, "train.libsvm"), d), 3).cache();
    assertArrayEquals(trainUncalibrated(frame, "dense", "perceptron", "average", "momentum"),
        trainUncalibrated(frame, "sparse", "perceptron", "average", "momentum"), 0.0);
    frame.unpersist();
  }
}
