package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.engine.MixingLoop;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.NaiveMixingSimulation;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Block momentum ({@code mixing=momentum}) against {@link NaiveMixingSimulation}, the plain
 * re-implementation of the documented algorithm, bit for bit, where the binary, unit-weight,
 * η = 1 perceptron cases of {@link DistributedEqualsNaiveSimulationTest} do not reach: several
 * classes, sample and class weights, another step size, the passive-aggressive rules (whose
 * steps have no bound per unit of mass: the look-ahead is never checked, see
 * {@code internal/mixing/BlockMomentum}), a warm start over several rounds, the voted perceptron, and the
 * restart that keeps the mistake bound, both where it must fire and where it must not.
 */
class MomentumEqualsNaiveSimulationTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
  private static final List<TestData.Example> IRIS =
      TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4);
  private static final List<TestData.Example> PENDIGITS =
      TestData.readLibSvm(TestData.sharedData("pendigits", "train.libsvm"), 16).subList(0, 1200);

  private static List<TestData.Example> data(String name) {
    switch (name) {
      case "breast_cancer":
        return BREAST;
      case "iris":
        return IRIS;
      case "pendigits":
        return PENDIGITS;
      default:
        throw new IllegalArgumentException(name);
    }
  }

  /** Uneven weights, some zero (such a row teaches nothing and moves no clock). */
  private static List<Double> weights(int n) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(i % 7 == 3 ? 0.0 : 0.25 + (i % 5) * 0.5);
    }
    return out;
  }

  /**
   * @param variant {@code plain}, {@code weights} (sample weights), {@code balanced}
   *     (classWeight=balanced, with sample weights), {@code step} (stepSize 0.3), or an update
   *     rule {@code pa}, {@code pa1}, {@code pa2} (aggressiveness 0.05)
   */
  @ParameterizedTest(name = "{0}, {1}, {2} workers, {3} rounds")
  @CsvSource({
      "iris,          plain,    4, 3",
      "pendigits,     plain,    5, 5",
      "breast_cancer, weights,  4, 4",
      "pendigits,     weights,  3, 4",
      "breast_cancer, balanced, 4, 3",
      "iris,          balanced, 3, 2",
      "breast_cancer, step,     4, 4",
      "iris,          step,     4, 4",
      "breast_cancer, pa,       4, 4",
      "breast_cancer, pa1,      4, 3",
      "breast_cancer, pa2,      4, 4",
      "iris,          pa1,      3, 3",
  })
  void momentumEqualsTheNaiveSimulation(String name, String variant, int workers, int rounds) {
    List<TestData.Example> rows = data(name);
    int d = rows.get(0).features.size();
    int k = name.equals("breast_cancer") ? 2 : name.equals("iris") ? 3 : 10;
    long seed = 29;
    int epochs = 3;
    boolean weighted = variant.equals("weights") || variant.equals("balanced");
    List<Double> w = weights(rows.size());
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    PerceptronClassifier estimator = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum")
        .setMixingRounds(rounds).setNumWorkers(workers).setMaxIter(epochs).setTol(0.0)
        .setSeed(seed);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, workers, rounds, "momentum", true, true, seed).classes(k);
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
    Dataset<Row> frame = weighted ? TestData.frameInOrder(SPARK, rows, w, workers)
        : TestData.frameInOrder(SPARK, rows, workers);
    PerceptronClassificationModel model = estimator.fit(frame);
    naive.run(epochs);
    assertEquals(naive.epochsRun, model.summary().totalIterations());
    assertArrayEquals(naive.model(), model.toStateWeights(), 0.0);
    NaiveMixingSimulation mistakes = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, workers, rounds, "mistakes", true, true, seed).classes(k);
    if (weighted) {
      mistakes.sampleWeights(w);
    }
    if (variant.equals("balanced")) {
      mistakes.balancedClasses();
    }
    if (variant.equals("step")) {
      mistakes.stepSize(0.3);
    }
    if (variant.startsWith("pa")) {
      mistakes.rule(variant, 0.05);
    }
    assertFalse(Arrays.equals(mistakes.run(epochs).model(), naive.model()),
        "momentum must differ from mistake mixing here, or the test cannot tell them apart");
  }

  /**
   * A warm start over several rounds: training starts from the initial model's weights with a
   * zero accumulator, clock and velocity, and the bound counts from ‖w_0‖².
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"breast_cancer", "iris"})
  void aWarmStartOverSeveralRoundsEqualsTheNaiveSimulation(String name) {
    List<TestData.Example> rows = data(name);
    int d = rows.get(0).features.size();
    int k = name.equals("iris") ? 3 : 2;
    Dataset<Row> frame = TestData.frameInOrder(SPARK, rows, 4);
    PerceptronClassificationModel initial = new PerceptronClassifier().setCalibration("none")
        .setMixing("mistakes").setNumWorkers(4).setMaxIter(2).setSeed(5).fit(frame);
    PerceptronClassificationModel warm = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum")
        .setMixingRounds(4).setNumWorkers(4).setMaxIter(3).setTol(0.0).setSeed(31)
        .setInitialModel(initial).fit(frame);
    double[] start = initial.toStateWeights();
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, 4, 4, "momentum", true, true, 31).classes(k)
        .startingFrom(start, new double[start.length], 0.0).run(3);
    assertArrayEquals(naive.model(), warm.toStateWeights(), 0.0);
    NaiveMixingSimulation cold = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, 4, 4, "momentum", true, true, 31).classes(k).run(3);
    assertFalse(Arrays.equals(cold.model(), naive.model()), "the initial model must matter");
  }

  /**
   * The voted perceptron under momentum, several rounds and shuffling: every round's look-ahead
   * start vector and each worker's updates vote with μ_i × survival; the raw predictions of the
   * training and test rows equal the naive vote's, bit for bit (the sums are the same terms in
   * the same order; no vector here scores a row within rounding of 0).
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"breast_cancer, 30, 2", "iris, 4, 3"})
  void theVoteUnderMomentumEqualsTheNaiveVote(String name, int d, int k) {
    List<TestData.Example> rows = data(name);
    List<TestData.Example> test = TestData.readLibSvm(TestData.sharedData(name, "test.libsvm"),
        d);
    int workers = 4;
    int rounds = 3;
    PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
        .setAveraging("vote")
        .setMixing("momentum").setMixingRounds(rounds).setNumWorkers(workers).setMaxIter(3)
        .setTol(0.0).setSeed(13).fit(TestData.frameInOrder(SPARK, rows, workers));
    assertTrue(model.isVoted());
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, workers, rounds, "momentum", false, true, 13).classes(k)
        .recordVote().run(3);
    assertEquals(naive.epochsRun, model.summary().totalIterations());
    for (List<TestData.Example> set : List.of(rows, test)) {
      for (TestData.Example e : set) {
        double[] expected = naive.votes(e.features.toArray());
        double[] raw = model.predictRaw(e.features).toArray();
        if (k == 2) {
          assertEquals(expected[0], raw[1], 0.0);
          assertEquals(-expected[0], raw[0], 0.0);
        } else {
          assertArrayEquals(expected, raw, 0.0);
        }
      }
    }
  }

  /**
   * The restart that keeps the mistake bound: on separable data whose workers agree, the
   * velocity built up by the first rounds carries a look-ahead past ‖w_0‖² + ρ·(M + β·m_Δ), and
   * the look-ahead is skipped (the naive simulation counts it, the trainer logs it, and both
   * give the same model); the same data on 4 workers never reach the bound, and nothing
   * restarts.
   */
  @ParameterizedTest(name = "{0} classes, seed {1}, {2} workers, {3} rounds: {4} restart(s)")
  @CsvSource({"2, 4, 8, 4, 1", "3, 3, 8, 4, 1", "2, 4, 4, 4, 0"})
  void theRestartFiresExactlyWhereTheBoundWouldBreak(int k, long seed, int workers, int rounds,
      long restarts) {
    TestData.Separable data = TestData.separable(seed, 600, 6, 0.1, k);
    assertRestarts(data.examples, k, seed, workers, rounds, 20, restarts);
  }

  /** Real, non-separable rows on 8 workers and 8 rounds: the look-aheads stay within the bound. */
  @Test
  void realDataOnEightWorkersNeverReachTheBound() {
    assertRestarts(BREAST, 2, 42, 8, 8, 10, 0);
  }

  /**
   * Trains on {@code rows} in {@code workers} contiguous partitions, naively and with the
   * trainer: the same model, the same restarts, counted by the naive simulation and logged by the
   * trainer (only when there were any).
   */
  private static void assertRestarts(List<TestData.Example> rows, int k, long seed, int workers,
      int rounds, int epochs, long restarts) {
    int d = rows.get(0).features.size();
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(rows),
        Examples.labels(rows), d, workers, rounds, "momentum", true, true, seed).classes(k)
        .run(epochs);
    assertEquals(restarts, naive.restarts);
    try (LogCapture log = LogCapture.of(MixingLoop.class)) {
      PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
          .setMixing("momentum")
          .setMixingRounds(rounds).setNumWorkers(workers).setMaxIter(epochs).setTol(0.0)
          .setSeed(seed).fit(TestData.frameInOrder(SPARK, rows, workers));
      assertArrayEquals(naive.model(), model.toStateWeights(), 0.0);
      assertEquals(naive.epochsRun, model.summary().totalIterations());
      List<String> said = new ArrayList<>();
      for (String m : log.messages(Level.INFO)) {
        if (m.startsWith("Block momentum restarted")) {
          said.add(m);
        }
      }
      assertEquals(restarts == 0 ? List.of() : List.of("Block momentum restarted " + restarts
          + " times (look-aheads that would have broken the mistake bound's invariant)"), said);
    }
  }
}
