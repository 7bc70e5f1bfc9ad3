package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.testing.BarrierPath;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaiveMixingSimulation;
import io.github.sparkperceptron.testing.SerialOrder;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One case of the barrier path against {@link NaiveMixingSimulation}, the plain re-implementation
 * of the documented algorithm that shares no code with the library (not {@code WorkerRound},
 * {@code DriverRounds}, {@code BlockMomentum} nor {@code WorkerResult}, which the barrier and
 * job-per-round paths share): the fit runs every epoch in a barrier stage
 * ({@link BarrierPath}, which fails on a fall-back) and must equal the simulation bit for bit.
 * Used by the test classes of each master ({@code local[4]}, {@code local[8]}).
 */
final class BarrierOracle {
  static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
  static final List<TestData.Example> IRIS =
      TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4);
  static final List<TestData.Example> PENDIGITS =
      TestData.readLibSvm(TestData.sharedData("pendigits", "train.libsvm"), 16).subList(0, 1200);
  /** 2,000 separable rows of 40 features: several 64 KiB chunks per worker. */
  static final List<TestData.Example> CHUNKY =
      TestData.separable(23, 2_000, 40, 0.02, 2).examples;
  private static final int EPOCHS = 3;
  private static final long SEED = 29;

  private BarrierOracle() {
  }

  static List<TestData.Example> data(String name) {
    switch (name) {
      case "breast_cancer":
        return BREAST;
      case "iris":
        return IRIS;
      case "pendigits":
        return PENDIGITS;
      case "chunky":
        return CHUNKY;
      default:
        throw new IllegalArgumentException(name);
    }
  }

  static int classes(String name) {
    return name.equals("iris") ? 3 : name.equals("pendigits") ? 10 : 2;
  }

  /** Uneven weights, some zero (such a row teaches nothing and moves no clock). */
  static List<Double> weights(int n) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(i % 7 == 3 ? 0.0 : 0.25 + (i % 5) * 0.5);
    }
    return out;
  }

  /**
   * Fits {@code name} on {@code workers} workers and {@code rounds} rounds per epoch on the
   * barrier path and asserts the simulation's model (or vote) bit for bit.
   *
   * @param averaging none, average or vote
   * @param variant plain, weights (sample weights), balanced (classWeight=balanced with sample
   *     weights), step (stepSize 0.3), pa / pa1 / pa2 (aggressiveness 0.05), chunks
   *     (shuffleScope=chunks), no-intercept (fitIntercept=false), warm (setInitialModel)
   */
  static void check(SparkSession spark, String name, int workers, int rounds, String mixing,
      String averaging, String variant) {
    List<TestData.Example> rows = data(name);
    int d = rows.get(0).features.size();
    int k = classes(name);
    boolean vote = averaging.equals("vote");
    boolean weighted = variant.equals("weights") || variant.equals("balanced");
    boolean intercept = !variant.equals("no-intercept");
    List<Double> w = weights(rows.size());
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    PerceptronClassifier estimator = new PerceptronClassifier().setCalibration("none")
        .setMixing(mixing)
        .setMixingRounds(rounds).setAveraging(averaging).setFitIntercept(intercept)
        .setNumWorkers(workers).setMaxIter(EPOCHS).setTol(0.0).setSeed(SEED);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, workers, rounds, mixing, averaging.equals("average"),
        intercept, SEED).classes(k);
    if (vote) {
      naive.recordVote();
    }
    if (weighted) {
      estimator.setWeightCol("weight");
      naive.sampleWeights(w);
    }
    if (variant.equals("balanced")) {
      estimator.setClassWeight("balanced");
      naive.balancedClasses();
    }
    if (variant.equals("step")) {
      estimator.setStepSize(0.3);
      naive.stepSize(0.3);
    }
    if (variant.startsWith("pa")) {
      estimator.setUpdateRule(variant).setAggressiveness(0.05);
      naive.rule(variant, 0.05);
    }
    if (variant.equals("chunks")) {
      estimator.setShuffleScope("chunks");
      VisitOrder chunks = VisitOrder.of(true, ShuffleScope.CHUNKS, SEED);
      SerialOrder[] perWorker = new SerialOrder[workers];
      int n = rows.size();
      for (int p = 0; p < workers; p++) {
        perWorker[p] = SerialOrder.of(chunks, p, rows.subList((int) ((long) p * n / workers),
            (int) ((long) (p + 1) * n / workers)));
      }
      naive.visits = (p, epoch) -> perWorker[p].inputOrders.apply(epoch);
    }
    Dataset<Row> frame = weighted ? TestData.frameInOrder(spark, rows, w, workers)
        : TestData.frameInOrder(spark, rows, workers);
    if (variant.equals("warm")) {
      PerceptronClassificationModel initial = new PerceptronClassifier().setCalibration("none")
          .setMixing("mistakes").setNumWorkers(workers).setMaxIter(2).setSeed(5).fit(frame);
      estimator.setInitialModel(initial);
      double[] start = initial.toStateWeights();
      naive.startingFrom(start, new double[start.length], 0.0);
    }
    PerceptronClassificationModel model = BarrierPath.fit(spark, estimator, frame);
    naive.run(EPOCHS);
    String what = name + ", " + workers + " workers, " + rounds + " rounds, " + mixing + ", "
        + averaging + ", " + variant;
    assertEquals(naive.epochsRun, model.summary().totalIterations(), what);
    if (!vote) {
      assertArrayEquals(naive.model(), model.toStateWeights(), 0.0, what);
      return;
    }
    // The vote: every row's raw prediction is the naive vote, bit for bit (the same terms in
    // the same order).
    for (TestData.Example e : rows) {
      double[] expected = naive.votes(e.features.toArray());
      double[] raw = model.predictRaw(e.features).toArray();
      if (k == 2) {
        assertArrayEquals(new double[] {-expected[0], expected[0]}, raw, 0.0, what);
      } else {
        assertArrayEquals(expected, raw, 0.0, what);
      }
    }
  }

  /**
   * Block momentum's restart on {@code workers} workers: separable data whose look-ahead breaks
   * the bound's invariant exactly {@code restarts} times in the simulation, and the barrier fit
   * equal to it (the restart decided on every worker and replayed on the driver alike).
   */
  static void checkRestarts(SparkSession spark, int k, long seed, int workers, int rounds,
      long restarts) {
    TestData.Separable data = TestData.separable(seed, 600, 6, 0.1, k);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(data.examples),
        Examples.labels(data.examples), 6, workers, rounds, "momentum", true, true, seed)
        .classes(k).run(20);
    assertEquals(restarts, naive.restarts, "the case restarts as intended");
    PerceptronClassificationModel model = BarrierPath.fit(spark, new PerceptronClassifier()
        .setCalibration("none").setMixing("momentum").setMixingRounds(rounds)
        .setNumWorkers(workers).setMaxIter(20)
        .setTol(0.0).setSeed(seed), TestData.frameInOrder(spark, data.examples, workers));
    assertEquals(naive.epochsRun, model.summary().totalIterations());
    assertArrayEquals(naive.model(), model.toStateWeights(), 0.0);
    assertFalse(Arrays.equals(new double[naive.model().length], naive.model()));
  }
}
