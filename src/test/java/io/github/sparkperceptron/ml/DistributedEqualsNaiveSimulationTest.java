package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaiveMixingSimulation;
import io.github.sparkperceptron.testing.SerialOrder;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Several workers against {@link NaiveMixingSimulation}, a plain re-implementation of the
 * documented algorithm that shares no code with the library: shuffled, averaged or not, every
 * iterative mixing mode, with one or several mixing rounds per epoch, bit for bit.
 */
class DistributedEqualsNaiveSimulationTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);

  private static double[] fitted(Dataset<Row> frame, String mixing, int rounds,
      boolean averaged, boolean fitIntercept, int epochs, long seed) {
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
        .setMixing(mixing).setMixingRounds(rounds).setAveraging(averaged ? "average" : "none")
        .setFitIntercept(fitIntercept).setMaxIter(epochs).setTol(0.0).setSeed(seed)
        .setNumWorkers(frame.rdd().getNumPartitions()).fit(frame);
    double[] w = model.coefficients().toArray();
    double[] out = Arrays.copyOf(w, w.length + 1);
    out[w.length] = model.intercept();
    return out;
  }

  @ParameterizedTest(name = "{0}, {1} rounds, averaged={2}")
  @CsvSource({
      "uniform,  1, true",
      "uniform,  2, false",
      "mistakes, 1, true",
      "mistakes, 1, false",
      "mistakes, 3, true",
      "momentum, 4, true",
      "momentum, 4, false",
      "momentum, 2, true",
  })
  void fourWorkersEqualTheNaiveSimulationBitForBit(String mixing, int rounds, boolean averaged) {
    int epochs = 4;
    long seed = 17;
    Dataset<Row> frame = TestData.frameInOrder(SPARK, BREAST, 4);
    double[] actual = fitted(frame, mixing, rounds, averaged, true, epochs, seed);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(BREAST),
        Examples.labels(BREAST), 30, 4, rounds, mixing, averaged, true, seed).run(epochs);
    assertArrayEquals(naive.model(), actual, 0.0);
  }

  /**
   * The chunked order (shuffleScope=chunks) through several workers and mixing rounds: each
   * worker's rows laid out once, each epoch's chunked order sliced into the rounds (cuts inside
   * chunks), bit for bit the naive simulation visiting the rows that the Spark-free VisitOrder
   * names. 4,000 rows of 40 dense features: about 330 bytes a row, chunks of about 200 rows,
   * five chunks per worker.
   */
  @ParameterizedTest(name = "{0}, {1} rounds")
  @CsvSource({"mistakes, 3", "momentum, 4", "uniform, 1"})
  void theChunkedOrderEqualsTheNaiveSimulationBitForBit(String mixing, int rounds) {
    int workers = 4;
    long seed = 23;
    TestData.Separable data = TestData.separable(seed, 4_000, 40, 0.02, 2);
    List<TestData.Example> examples = data.examples;
    VisitOrder chunks = VisitOrder.of(true, ShuffleScope.CHUNKS, seed);
    SerialOrder[] perWorker = new SerialOrder[workers];
    int n = examples.size();
    for (int p = 0; p < workers; p++) {
      List<TestData.Example> slice = examples.subList((int) ((long) p * n / workers),
          (int) ((long) (p + 1) * n / workers));
      perWorker[p] = SerialOrder.of(chunks, p, slice);
    }
    assertTrue(perWorker[0].chunkRows * 3 < n / workers,
        "several chunks per worker");
    PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
        .setMixing(mixing).setMixingRounds(rounds).setMaxIter(4).setTol(0.0).setSeed(seed)
        .setShuffleScope("chunks").setNumWorkers(workers).fit(TestData.frameInOrder(SPARK, examples, workers));
    double[] w = model.coefficients().toArray();
    double[] actual = Arrays.copyOf(w, w.length + 1);
    actual[w.length] = model.intercept();
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(examples),
        Examples.labels(examples), 40, workers, rounds, mixing, true, true, seed);
    naive.visits = (p, epoch) -> perWorker[p].inputOrders.apply(epoch);
    naive.run(4);
    assertArrayEquals(naive.model(), actual, 0.0);
  }

  /**
   * Mistake mixing weights workers by their share of the epoch's updates: its model is the
   * naive mistake-weighted one (previous test) and differs from the example-weighted one.
   */
  @Test
  void mistakeMixingIsNotTheUniformMean() {
    NaiveMixingSimulation byMistakes = new NaiveMixingSimulation(Examples.dense(BREAST),
        Examples.labels(BREAST), 30, 4, 1, "mistakes", true, true, 17).run(4);
    NaiveMixingSimulation uniform = new NaiveMixingSimulation(Examples.dense(BREAST),
        Examples.labels(BREAST), 30, 4, 1, "uniform", true, true, 17).run(4);
    assertFalse(Arrays.equals(byMistakes.model(), uniform.model()));
    double[] defaults = fitted(TestData.frameInOrder(SPARK, BREAST, 4), "mistakes", 0, true,
        true, 4, 17);
    assertArrayEquals(byMistakes.model(), defaults, 0.0);
  }

  /**
   * Block momentum keeps McDonald et al.'s bound (see {@code BlockMomentum}): on data separable
   * with margin γ, Σ over rounds of Σ_i μ_i·k_i ≤ R²/γ², and training converges. The sum is read
   * from the naive simulation, which the trainer equals bit for bit on the same data.
   */
  @Test
  void blockMomentumObeysTheMistakeBoundAndConverges() {
    for (long seed = 1; seed <= 3; seed++) {
      TestData.Separable data = TestData.separable(seed, 600, 6, 0.08, 2);
      for (int workers : seed == 3 ? new int[] {8} : new int[] {4}) {
        Dataset<Row> frame = TestData.frameInOrder(SPARK, data.examples, workers);
        PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
            .setMixing("momentum").setAveraging("none").setFitIntercept(false).setMaxIter(200)
            .setTol(0.0).setSeed(seed).setNumWorkers(workers).fit(frame);
        assertTrue(model.summary().converged(), "separable data must converge");
        assertEquals(0, IterativeParameterMixingTest.trainingErrors(model, data.examples));
        NaiveMixingSimulation naive = new NaiveMixingSimulation(
            Examples.dense(data.examples), Examples.labels(data.examples), 6, workers,
            Math.min(64, workers), "momentum", false, false, seed).run(200);
        assertEquals(naive.epochsRun, model.summary().totalIterations());
        double[] w = Arrays.copyOf(model.coefficients().toArray(), 7);
        w[6] = model.intercept();
        assertArrayEquals(naive.model(), w, 0.0);
        double bound = Math.pow(data.boundRadius / data.gamma, 2);
        assertTrue(naive.mixedMistakes <= bound, "Σ μ k = " + naive.mixedMistakes
            + " exceeds R²/γ² = " + bound + " (seed " + seed + ", " + workers + " workers)");
      }
    }
  }
}
