package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.kernel.SeededShuffle;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.List;
import java.util.function.IntFunction;
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
 * worker has momentum 0 and one round per epoch).
 */
class OnePartitionEqualsSerialTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @ParameterizedTest(name = "{0} {1} {2} {3} eta={4} intercept={5} shuffle={6}")
  @CsvSource({
      "breast_cancer, 30, 2, none,    perceptron, 1.0, true,  false, uniform",
      "breast_cancer, 30, 2, average, perceptron, 1.0, true,  false, mistakes",
      "breast_cancer, 30, 2, average, perceptron, 0.3, false, true,  uniform",
      "spark_sample_libsvm, 692, 2, average, perceptron, 1.0, true, true, mistakes",
      "iris, 4, 3, none,    perceptron, 1.0, true,  false, uniform",
      "iris, 4, 3, average, perceptron, 0.7, true,  true,  mistakes",
      "iris, 4, 3, average, perceptron, 1.0, false, false, oneshot",
      "breast_cancer, 30, 2, average, pa,  1.0, true,  true,  uniform",
      "breast_cancer, 30, 2, none,    pa1, 1.0, true,  false, mistakes",
      "iris, 4, 3, average, pa2, 1.0, true,  true,  uniform",
      "breast_cancer, 30, 2, average, perceptron, 1.0, true, true, momentum",
      "iris, 4, 3, average, pa1, 1.0, true,  true,  momentum",
  })
  void oneMatchesNaiveSerialBitForBit(String dataset, int d, int k, String averaging,
      String rule, double eta, boolean fitIntercept, boolean shuffle, String mixing) {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData(dataset, "train.libsvm"), d);
    int epochs = 6;
    long seed = 99;
    int n = examples.size();
    IntFunction<int[]> orders = shuffle
        ? epoch -> SeededShuffle.forEpoch(seed, epoch, 0).permutation(n)
        : NaivePerceptron.inOrder(n);
    NaivePerceptron naive = new NaivePerceptron(d, k, fitIntercept, eta,
        averaging.equals("average"), rule, 0.5);
    // The trainer adds each epoch's accumulator change to u (one-shot mixing returns its model).
    naive.foldAverageEachEpoch = !mixing.equals("oneshot");
    naive.train(Examples.dense(examples), Examples.labels(examples), epochs, orders);

    Dataset<Row> frame = TestData.frameInOrder(SPARK, examples, 1);
    PerceptronClassificationModel model = new PerceptronClassifier()
        .setMaxIter(epochs).setTol(0.0).setAveraging(averaging).setUpdateRule(rule)
        .setStepSize(eta).setFitIntercept(fitIntercept).setShuffle(shuffle).setSeed(seed)
        .setAggressiveness(0.5).setMixing(mixing).setNumWorkers(1)
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
    double[] out = java.util.Arrays.copyOf(w, w.length + 1);
    out[w.length] = b;
    return out;
  }
}
