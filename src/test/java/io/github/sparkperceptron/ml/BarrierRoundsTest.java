package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaiveMixingSimulation;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BarrierRoundsTest {
  private static SparkSession spark;
  private static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[4]");
  }

  @AfterAll
  static void stop() {
    SparkTestSupport.restart(SparkTestSupport.MASTER);
  }

  private static double[] fitted(String execution, Dataset<Row> frame, String mixing, int rounds,
      boolean averaged, int epochs, long seed) {
    spark.sparkContext().setLocalProperty(BarrierRounds.MODE_KEY, execution);
    try {
      PerceptronClassificationModel model = new PerceptronClassifier()
          .setMixing(mixing).setMixingRounds(rounds).setAveraging(averaged ? "average" : "none")
          .setMaxIter(epochs).setTol(0.0).setSeed(seed)
          .setNumWorkers(frame.rdd().getNumPartitions()).fit(frame);
      double[] w = model.coefficients().toArray();
      double[] out = Arrays.copyOf(w, w.length + 1);
      out[w.length] = model.intercept();
      return out;
    } finally {
      spark.sparkContext().setLocalProperty(BarrierRounds.MODE_KEY, null);
    }
  }

  @ParameterizedTest(name = "{0}, {1} rounds, averaged={2}")
  @CsvSource({
      "momentum, 4, true",
      "mistakes, 3, false",
  })
  void barrierEqualsJobsAndNaive(String mixing, int rounds, boolean averaged) {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    long t0 = System.nanoTime();
    double[] jobs = fitted("jobs", frame, mixing, rounds, averaged, 4, 17);
    long t1 = System.nanoTime();
    double[] barrier = fitted("barrier", frame, mixing, rounds, averaged, 4, 17);
    long t2 = System.nanoTime();
    System.out.println("DEBUGT jobs " + (t1 - t0) / 1e6 + " barrier " + (t2 - t1) / 1e6);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(BREAST),
        Examples.labels(BREAST), 30, 4, rounds, mixing, averaged, true, 17).run(4);
    assertArrayEquals(naive.model(), jobs, 0.0);
    assertArrayEquals(jobs, barrier, 0.0);
  }
}
