package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.SerialOrder;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With one partition, iterative parameter mixing is serial training: the distributed model must
 * equal, bit for bit, the naive textbook perceptron written in the test (real data sets, every
 * averaging mode, update rule and mixing mode, binary and multiclass; block momentum with one
 * worker has momentum 0 and one round per epoch), visiting the rows in the same order: the input
 * order, a full shuffle (shuffleScope=rows) or the chunked order (shuffleScope=chunks, which also
 * stores the rows in a seeded random layout), taken from the Spark-free {@link VisitOrder}.
 */
class OnePartitionEqualsSerialTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  /**
   * The order column: {@code input} (shuffle=false), {@code rows} or {@code chunks} (shuffle with
   * that shuffleScope). pendigits (7,494 rows, 16 chunks of 496) and breast_cancer (2 chunks)
   * cut their rows into several chunks; iris and spark_sample_libsvm fit in one.
   */
  @ParameterizedTest(name = "{0} {1} {2} {3} eta={4} intercept={5} order={6} {7}")
  @CsvSource({
      "breast_cancer, 30, 2, none,    perceptron, 1.0, true,  input,  uniform",
      "breast_cancer, 30, 2, average, perceptron, 1.0, true,  input,  mistakes",
      "breast_cancer, 30, 2, average, perceptron, 0.3, false, rows,   uniform",
      "spark_sample_libsvm, 692, 2, average, perceptron, 1.0, true, rows, mistakes",
      "iris, 4, 3, none,    perceptron, 1.0, true,  input,  uniform",
      "iris, 4, 3, average, perceptron, 0.7, true,  rows,   mistakes",
      "iris, 4, 3, average, perceptron, 1.0, false, input,  oneshot",
      "breast_cancer, 30, 2, average, pa,  1.0, true,  rows,   uniform",
      "breast_cancer, 30, 2, none,    pa1, 1.0, true,  input,  mistakes",
      "iris, 4, 3, average, pa2, 1.0, true,  rows,   uniform",
      "breast_cancer, 30, 2, none,    perceptron, 1.0, true,  chunks, uniform",
      "breast_cancer, 30, 2, average, perceptron, 0.3, false, chunks, mistakes",
      "spark_sample_libsvm, 692, 2, average, perceptron, 1.0, true, chunks, mistakes",
      "iris, 4, 3, none,    perceptron, 1.0, true,  chunks, uniform",
      "iris, 4, 3, average, perceptron, 1.0, false, chunks, oneshot",
      "breast_cancer, 30, 2, average, pa,  1.0, true,  chunks, uniform",
      "breast_cancer, 30, 2, none,    pa1, 1.0, true,  chunks, mistakes",
      "iris, 4, 3, average, pa2, 1.0, true,  chunks, uniform",
      "pendigits, 16, 10, average, perceptron, 1.0, true, chunks, mistakes",
      "pendigits, 16, 10, none,    pa1, 1.0, true,  chunks, oneshot",
      "breast_cancer, 30, 2, average, perceptron, 1.0, true, chunks, momentum",
      "iris, 4, 3, average, pa1, 1.0, true,  rows,   momentum",
      "pendigits, 16, 10, average, perceptron, 1.0, true, rows, momentum",
  })
  void oneMatchesNaiveSerialBitForBit(String dataset, int d, int k, String averaging,
      String rule, double eta, boolean fitIntercept, String order, String mixing) {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData(dataset, "train.libsvm"), d);
    int epochs = 6;
    long seed = 99;
    boolean shuffle = !order.equals("input");
    String scope = shuffle ? order : "chunks";
    SerialOrder serial = SerialOrder.of(
        VisitOrder.of(shuffle, ShuffleScope.fromParam(scope), seed), 0, examples);
    if (order.equals("rows")) {
      // The full shuffle is the order of earlier releases: SeededShuffle's permutation per epoch.
      int n = examples.size();
      assertArrayEquals(SeededShuffle.forEpoch(seed, 3, 0).permutation(n), serial.orders.apply(3));
    }
    NaivePerceptron naive = new NaivePerceptron(d, k, fitIntercept, eta,
        averaging.equals("average"), rule, 0.5);
    // The trainer adds each epoch's accumulator change to u (one-shot mixing returns its model).
    naive.foldAverageEachEpoch = !mixing.equals("oneshot");
    naive.train(serial.xs, serial.labels, epochs, serial.orders);

    Dataset<Row> frame = TestData.frameInOrder(SPARK, examples, 1);
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
        .setMaxIter(epochs).setTol(0.0).setAveraging(averaging).setUpdateRule(rule)
        .setStepSize(eta).setFitIntercept(fitIntercept).setShuffle(shuffle)
        .setShuffleScope(scope).setSeed(seed).setAggressiveness(0.5).setMixing(mixing)
        .setNumWorkers(1)
        .fit(frame);

    assertEquals(naive.epochsRun, model.summary().totalIterations());
    Matrix coef = model.coefficientMatrix();
    for (int row = 0; row < coef.numRows(); row++) {
      double[] expected = naive.modelRow(row);
      for (int j = 0; j < d; j++) {
        assertEquals(expected[j], coef.apply(row, j), 0.0, "row " + row + ", feature " + j);
      }
      assertEquals(expected[d], model.interceptVector().apply(row), 0.0, "intercept " + row);
    }
    if (k == 2) {
      assertArrayEquals(naive.modelRow(0), concat(model.coefficients().toArray(),
          model.intercept()), 0.0);
    }
  }

  private static double[] concat(double[] w, double b) {
    double[] out = Arrays.copyOf(w, w.length + 1);
    out[w.length] = b;
    return out;
  }
}
