package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Distributed training against its definition and its guarantees.
 *
 * <p>The models are fitted with {@code calibration=none}: the tests read weights and summaries
 * only, and on these few hundred rows the default calibration falls back to cross-fitting, where
 * the model trains on every row (the same bits as here) and three more fold models are trained
 * per fit for a calibrator no test reads.
 */
class IterativeParameterMixingTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  private static PerceptronClassifier estimator() {
    return new PerceptronClassifier().setCalibration("none");
  }

  /**
   * McDonald, Hall &amp; Mann (2010), Theorem 3: with mistake-weighted mixing on data separable
   * with margin γ, Σ_n Σ_i μ_i,n·k_i,n ≤ R²/γ² (μ_i,n = k_i,n / Σ_j k_j,n), and training reaches an
   * epoch without mistakes.
   */
  @Test
  void mistakeWeightedMixingObeysTheIpmBoundAndConverges() {
    for (long seed = 1; seed <= 3; seed++) {
      TestData.Separable data = TestData.separable(seed, 600, 6, 0.08, 2);
      PerceptronClassificationModel model = estimator()
          .setMixing("mistakes").setAveraging("none").setFitIntercept(false).setMaxIter(500)
          .setTol(0.0).setSeed(seed).setNumWorkers(4)
          .fit(TestData.frame(SPARK, data.examples, 4));
      PerceptronTrainingSummary summary = model.summary();
      assertTrue(summary.converged(), "separable data must converge: " + summary);
      double weighted = 0;
      for (long[] k : summary.workerUpdatesHistory()) {
        assertEquals(4, k.length);
        long total = Arrays.stream(k).sum();
        for (long ki : k) {
          weighted += total == 0 ? 0 : (double) ki * ki / total;
        }
      }
      double bound = Math.pow(data.boundRadius / data.gamma, 2);
      assertTrue(weighted <= bound, "Σ μ k = " + weighted + " exceeds R²/γ² = " + bound);
      assertEquals(0, trainingErrors(model, data.examples));
    }
  }

  @Test
  void multiclassIpmReachesZeroTrainingMistakesOnSeparableData() {
    TestData.Separable data = TestData.separable(4, 500, 5, 0.15, 4);
    PerceptronClassificationModel model = estimator()
        .setAveraging("none").setFitIntercept(false).setMaxIter(500).setTol(0.0).setNumWorkers(3)
        .fit(TestData.frame(SPARK, data.examples, 3));
    assertTrue(model.summary().converged());
    assertEquals(0, trainingErrors(model, data.examples));
  }

  /**
   * Uniform mixing over three partitions equals a naive simulation of the documented algorithm:
   * every partition starts each epoch from the mixed state, its clock advancing by N/n_i per
   * example, and w, u are mixed with μ_i = n_i/N. (Tolerance: the library blends pairwise along a
   * tree, the simulation sums directly; both round at about 1e-16 per operation.)
   */
  @Test
  void uniformMixingEqualsNaiveSimulationOfTheDefinition() {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    int partitions = 3;
    int epochs = 4;
    for (boolean averaged : new boolean[] {false, true}) {
      double[] expected = simulateUniformIpm(examples, partitions, epochs, averaged);
      PerceptronClassificationModel model = estimator()
          .setMixing("uniform").setAveraging(averaged ? "average" : "none").setShuffle(false)
          .setMaxIter(epochs).setTol(0.0).setNumWorkers(partitions)
          .fit(TestData.frameInOrder(SPARK, examples, partitions));
      double[] actual = Arrays.copyOf(model.coefficients().toArray(), 31);
      actual[30] = model.intercept();
      for (int j = 0; j < 31; j++) {
        assertEquals(expected[j], actual[j], 1e-12 * (1 + Math.abs(expected[j])),
            "averaged=" + averaged + " j=" + j);
      }
    }
  }

  private static double[] simulateUniformIpm(List<TestData.Example> examples, int partitions,
      int epochs, boolean averaged) {
    int n = examples.size();
    int d = 30;
    double[] w = new double[d + 1];
    double[] u = new double[d + 1];
    double clock = 0;
    for (int epoch = 1; epoch <= epochs; epoch++) {
      double[] nextW = new double[d + 1];
      double[] nextU = new double[d + 1];
      for (int p = 0; p < partitions; p++) {
        // Spark's parallelize gives partition p the slice [p·n/P, (p+1)·n/P).
        int from = (int) ((long) p * n / partitions);
        int to = (int) ((long) (p + 1) * n / partitions);
        List<TestData.Example> slice = examples.subList(from, to);
        NaivePerceptron local = NaivePerceptron.perceptron(d, 2, true, 1.0, averaged);
        System.arraycopy(w, 0, local.w[0], 0, d + 1);
        System.arraycopy(u, 0, local.u[0], 0, d + 1);
        local.clock = clock;
        local.clockStep = (double) n / slice.size();
        local.train(Examples.dense(slice), Examples.labels(slice), 1,
            NaivePerceptron.inOrder(slice.size()));
        double mu = (double) slice.size() / n;
        for (int j = 0; j <= d; j++) {
          nextW[j] += mu * local.w[0][j];
          nextU[j] += mu * local.u[0][j];
        }
      }
      w = nextW;
      u = nextU;
      clock += n;
    }
    double[] model = w.clone();
    if (averaged) {
      for (int j = 0; j <= d; j++) {
        model[j] -= u[j] / clock;
      }
    }
    return model;
  }

  /** One-shot mixing averages models trained on each partition alone. */
  @Test
  void oneShotMixingAveragesIndependentSerialModels() {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4);
    int partitions = 3;
    int n = examples.size();
    for (boolean averaged : new boolean[] {false, true}) {
      double[][] expected = new double[3][5];
      for (int p = 0; p < partitions; p++) {
        List<TestData.Example> slice = examples.subList(p * n / partitions,
            (p + 1) * n / partitions);
        NaivePerceptron local = NaivePerceptron.perceptron(4, 3, true, 1.0, averaged)
            .train(Examples.dense(slice), Examples.labels(slice), 5,
                NaivePerceptron.inOrder(slice.size()));
        for (int k = 0; k < 3; k++) {
          double[] row = local.modelRow(k);
          for (int j = 0; j < 5; j++) {
            expected[k][j] += (double) slice.size() / n * row[j];
          }
        }
      }
      PerceptronClassificationModel model = estimator()
          .setMixing("oneshot").setAveraging(averaged ? "average" : "none").setShuffle(false)
          .setMaxIter(5).setNumWorkers(partitions)
          .fit(TestData.frameInOrder(SPARK, examples, partitions));
      Matrix coef = model.coefficientMatrix();
      for (int k = 0; k < 3; k++) {
        for (int j = 0; j < 4; j++) {
          assertEquals(expected[k][j], coef.apply(k, j), 1e-12, "class " + k + " feature " + j);
        }
        assertEquals(expected[k][4], model.interceptVector().apply(k), 1e-12);
      }
    }
  }

  /**
   * Same data, partitioning and seed: bit-identical models, in every mixing mode and both shuffle
   * scopes (the chunked scope also lays the rows out by the seed when the blocks are built, so a
   * second fit rebuilds them identically). Three epochs, not the default ten: every epoch after
   * the first shuffles and mixes as the first does, and the 24 fits (4 workers on 2 slots, each
   * epoch its own Spark jobs) were the class's time.
   */
  @Test
  void sameDataPartitioningAndSeedGiveIdenticalModels() {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    Dataset<Row> frame = TestData.frame(SPARK, examples, 4).cache();
    for (String scope : new String[] {"chunks", "rows"}) {
      for (String mixing : new String[] {"uniform", "mistakes", "oneshot"}) {
        PerceptronClassifier clf = estimator().setMixing(mixing).setSeed(7).setMaxIter(3)
            .setShuffleScope(scope).setAggregationDepth(3).setNumWorkers(4);
        double[] first = clf.fit(frame).coefficients().toArray();
        double[] second = clf.fit(frame).coefficients().toArray();
        assertArrayEquals(first, second, 0.0, scope + " " + mixing);
        double[] otherSeed = clf.copy(new ParamMap()).setSeed(8)
            .fit(frame).coefficients().toArray();
        assertFalse(Arrays.equals(first, otherSeed), "the seed must matter (" + mixing + ")");
        String otherScope = scope.equals("rows") ? "chunks" : "rows";
        double[] otherOrder = clf.copy(new ParamMap())
            .setShuffleScope(otherScope).fit(frame).coefficients().toArray();
        assertFalse(Arrays.equals(first, otherOrder), "the scope must matter (" + mixing + ")");
      }
    }
    frame.unpersist();
  }

  @Test
  void maxIterZeroReturnsTheStartingWeights() {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4);
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(0)
        .fit(TestData.frame(SPARK, examples, 2));
    assertEquals(0, model.summary().totalIterations());
    assertEquals(StopReason.NOTHING_TO_TRAIN,
        model.summary().stopReason());
    assertArrayEquals(new double[12], model.coefficientMatrix().toArray(), 0.0);
  }

  @Test
  void tolStopsWhenTheWeightsBarelyMove() {
    List<TestData.Example> examples =
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    PerceptronClassificationModel model = estimator().setMaxIter(50)
        .setTol(0.5).fit(TestData.frame(SPARK, examples, 2));
    PerceptronTrainingSummary s = model.summary();
    assertEquals(StopReason.TOL, s.stopReason());
    double[] change = s.weightChangeHistory();
    assertTrue(change[change.length - 1] < 0.5);
    for (int e = 0; e < change.length - 1; e++) {
      assertTrue(change[e] >= 0.5);
    }
  }

  static long trainingErrors(PerceptronClassificationModel model,
      List<TestData.Example> examples) {
    long errors = 0;
    for (TestData.Example e : examples) {
      if (model.predict(e.features) != e.label) {
        errors++;
      }
    }
    return errors;
  }
}
