package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The voted perceptron against a naive Freund &amp; Schapire (1999) implementation. */
class VotedPerceptronTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @TempDir
  Path tmp;

  /**
   * Freund &amp; Schapire, written out: keep every intermediate weight vector (bias last) and the
   * number of examples after which it was the current one; vote sign(w_k·x) (multiclass: the
   * arg-max class) weighted by those counts.
   */
  private static final class NaiveVoted {
    final int d;
    final int k;
    final List<double[][]> vectors = new ArrayList<>();
    final List<Double> counts = new ArrayList<>();

    NaiveVoted(int d, int k, List<TestData.Example> examples, int epochs) {
      this.d = d;
      this.k = k;
      int rows = k == 2 ? 1 : k;
      double[][] w = new double[rows][d + 1];
      vectors.add(copy(w));
      counts.add(0.0);
      for (int epoch = 0; epoch < epochs; epoch++) {
        for (TestData.Example e : examples) {
          double[] x = e.features.toArray();
          int label = (int) e.label;
          double[] s = scores(w, x);
          boolean mistake;
          int rival = -1;
          if (k == 2) {
            mistake = (label == 1 ? s[0] : -s[0]) <= 0;
          } else {
            for (int c = 0; c < k; c++) {
              if (c != label && (rival < 0 || s[c] > s[rival])) {
                rival = c;
              }
            }
            mistake = s[label] - s[rival] <= 0;
          }
          if (mistake) {
            for (int j = 0; j < d; j++) {
              if (k == 2) {
                w[0][j] += (label == 1 ? 1 : -1) * x[j];
              } else {
                w[label][j] += x[j];
                w[rival][j] -= x[j];
              }
            }
            if (k == 2) {
              w[0][d] += label == 1 ? 1 : -1;
            } else {
              w[label][d] += 1;
              w[rival][d] -= 1;
            }
            vectors.add(copy(w));
            counts.add(0.0);
          }
          counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
        }
      }
    }

    double[] scores(double[][] w, double[] x) {
      double[] s = new double[w.length];
      for (int c = 0; c < w.length; c++) {
        for (int j = 0; j < d; j++) {
          s[c] += w[c][j] * x[j];
        }
        s[c] += w[c][d];
      }
      return s;
    }

    double[] votes(double[] x) {
      double[] out = new double[k == 2 ? 1 : k];
      for (int v = 0; v < vectors.size(); v++) {
        double[] s = scores(vectors.get(v), x);
        if (k == 2) {
          out[0] += s[0] > 0 ? counts.get(v) : -counts.get(v);
        } else {
          int best = 0;
          for (int c = 1; c < k; c++) {
            if (s[c] > s[best]) {
              best = c;
            }
          }
          out[best] += counts.get(v);
        }
      }
      return out;
    }

    static double[][] copy(double[][] w) {
      double[][] c = new double[w.length][];
      for (int i = 0; i < w.length; i++) {
        c[i] = w[i].clone();
      }
      return c;
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"breast_cancer, 30, 2, 6", "iris, 4, 3, 6", "spark_sample_libsvm, 692, 2, 2"})
  void onePartitionVoteEqualsFreundAndSchapire(String name, int d, int k, int epochs) {
    List<TestData.Example> train = TestData.readLibSvm(TestData.sharedData(name, "train.libsvm"),
        d);
    List<TestData.Example> test = TestData.readLibSvm(TestData.sharedData(name, "test.libsvm"), d);
    NaiveVoted naive = new NaiveVoted(d, k, train, epochs);
    PerceptronClassificationModel model = new PerceptronClassifier().setAveraging("vote")
        .setShuffle(false).setTol(0.0).setMaxIter(epochs).setNumWorkers(1)
        .fit(TestData.frameInOrder(SPARK, train, 1));
    assertTrue(model.isVoted());
    // Stopping early on a mistake-free epoch would only add vote counts to the last vector; the
    // naive version runs every epoch, so both must have run them all here.
    assertEquals(epochs, model.summary().totalIterations());
    for (List<TestData.Example> set : List.of(train, test)) {
      for (TestData.Example e : set) {
        double[] expected = naive.votes(e.features.toArray());
        Vector raw = model.predictRaw(e.features);
        if (k == 2) {
          // Counts are whole numbers, so the sums are exact; only a margin within rounding of 0
          // could vote differently, which these data do not have.
          assertEquals(expected[0], raw.apply(1), 0.0);
          assertEquals(-expected[0], raw.apply(0), 0.0);
          assertEquals(expected[0] > 0 ? 1.0 : 0.0, model.predict(e.features), 0.0);
        } else {
          assertArrayEquals(expected, raw.toArray(), 0.0);
        }
      }
    }
  }

  /**
   * Iterative parameter mixing with the vote, simulated naively over P contiguous partitions in
   * input order (no shuffle): every epoch, each partition runs Rosenblatt's perceptron from the
   * mixed vector on its own rows and keeps every intermediate vector with the time it survived,
   * on a clock that advances T/T_i per example (so that every partition's epoch spans T); each
   * vector votes with μ_i × survival, μ_i the partition's share of the epoch's mixing weight
   * (updates, or rows for uniform mixing); the next epoch starts from the μ-weighted mean. The
   * mean is taken pairwise along the same fixed binary tree over partition indices as the
   * library documents (w_L + r·(w_R − w_L), r = μ_R/(μ_L + μ_R)), because a floating-point mean
   * depends on its order and the trajectories must agree bit for bit.
   */
  private static final class NaiveMixedVote {
    final int d;
    final int k;
    final int rows;
    final List<double[][]> vectors = new ArrayList<>();
    final List<Double> weights = new ArrayList<>();
    int epochsRun;

    NaiveMixedVote(int d, int k, List<TestData.Example> examples, int partitions, int epochs,
        boolean mistakesMixing) {
      this.d = d;
      this.k = k;
      this.rows = k == 2 ? 1 : k;
      int n = examples.size();
      double total = n;
      double[][] mixed = new double[rows][d + 1];
      double clock = 0;
      for (int epoch = 1; epoch <= epochs; epoch++) {
        double[][][] ends = new double[partitions][][];
        double[] mixWeight = new double[partitions];
        List<List<double[][]>> partVectors = new ArrayList<>();
        List<List<Double>> partSurvival = new ArrayList<>();
        long updatesThisEpoch = 0;
        for (int p = 0; p < partitions; p++) {
          // Spark's parallelize slices: [p·n/P, (p+1)·n/P).
          int from = (int) ((long) p * n / partitions);
          int to = (int) ((long) (p + 1) * n / partitions);
          double scale = total / (to - from);
          double[][] w = copy(mixed);
          List<double[][]> seen = new ArrayList<>();
          seen.add(copy(w));
          List<Double> since = new ArrayList<>(List.of(clock));
          double c = clock;
          long updates = 0;
          for (int i = from; i < to; i++) {
            double[] x = examples.get(i).features.toArray();
            int label = (int) examples.get(i).label;
            if (update(w, x, label)) {
              updates++;
              seen.add(copy(w));
              since.add(c);
            }
            c += scale;
          }
          // Survival of each vector: until the next update, the last one until clock + T.
          List<Double> survival = new ArrayList<>();
          for (int v = 0; v < seen.size(); v++) {
            double until = v + 1 < seen.size() ? since.get(v + 1) : clock + total;
            survival.add(until - since.get(v));
          }
          ends[p] = w;
          mixWeight[p] = mistakesMixing ? updates : to - from;
          partVectors.add(seen);
          partSurvival.add(survival);
          updatesThisEpoch += updates;
        }
        double sum = 0;
        for (double m : mixWeight) {
          sum += m;
        }
        for (int p = 0; p < partitions; p++) {
          double mu = sum > 0 ? mixWeight[p] / sum : 1.0 / partitions;
          for (int v = 0; v < partVectors.get(p).size(); v++) {
            vectors.add(partVectors.get(p).get(v));
            weights.add(mu * partSurvival.get(p).get(v));
          }
        }
        int level = 32 - Integer.numberOfLeadingZeros(partitions - 1);
        mixed = mix(ends, mixWeight, 0, level).w;
        clock += total;
        epochsRun = epoch;
        if (updatesThisEpoch == 0) {
          break;
        }
      }
    }

    /** One perceptron step (η = 1, bias fitted); whether it updated. */
    private boolean update(double[][] w, double[] x, int label) {
      double[] s = scores(w, x);
      if (k == 2) {
        double y = label == 1 ? 1 : -1;
        if (y * s[0] > 0) {
          return false;
        }
        for (int j = 0; j < d; j++) {
          w[0][j] += y * x[j];
        }
        w[0][d] += y;
        return true;
      }
      int rival = -1;
      for (int c = 0; c < k; c++) {
        if (c != label && (rival < 0 || s[c] > s[rival])) {
          rival = c;
        }
      }
      if (s[label] - s[rival] > 0) {
        return false;
      }
      for (int j = 0; j < d; j++) {
        w[label][j] += x[j];
        w[rival][j] -= x[j];
      }
      w[label][d] += 1;
      w[rival][d] -= 1;
      return true;
    }

    private static final class Mixed {
      final double[][] w;
      final double weight;

      Mixed(double[][] w, double weight) {
        this.w = w;
        this.weight = weight;
      }
    }

    /** The mean of the partitions of tree node (level, index), left before right. */
    private static Mixed mix(double[][][] ends, double[] mixWeight, int index, int level) {
      if (level == 0) {
        return new Mixed(copy(ends[index]), mixWeight[index]);
      }
      Mixed left = mix(ends, mixWeight, 2 * index, level - 1);
      if (((long) (2 * index + 1) << (level - 1)) >= ends.length) {
        return left;
      }
      Mixed right = mix(ends, mixWeight, 2 * index + 1, level - 1);
      double total = left.weight + right.weight;
      if (left.weight == 0 && right.weight > 0) {
        return new Mixed(right.w, total);
      }
      if (right.weight > 0) {
        double r = right.weight / total;
        for (int c = 0; c < left.w.length; c++) {
          for (int j = 0; j < left.w[c].length; j++) {
            left.w[c][j] += r * (right.w[c][j] - left.w[c][j]);
          }
        }
      }
      return new Mixed(left.w, total);
    }

    double[] scores(double[][] w, double[] x) {
      double[] s = new double[w.length];
      for (int c = 0; c < w.length; c++) {
        for (int j = 0; j < d; j++) {
          s[c] += w[c][j] * x[j];
        }
        s[c] += w[c][d];
      }
      return s;
    }

    double[] votes(double[] x) {
      double[] out = new double[rows];
      for (int v = 0; v < vectors.size(); v++) {
        double[] s = scores(vectors.get(v), x);
        double c = weights.get(v);
        if (k == 2) {
          out[0] += s[0] > 0 ? c : -c;
        } else {
          int best = 0;
          for (int j = 1; j < k; j++) {
            if (s[j] > s[best]) {
              best = j;
            }
          }
          out[best] += c;
        }
      }
      return out;
    }

    static double[][] copy(double[][] w) {
      return NaiveVoted.copy(w);
    }
  }

  @ParameterizedTest(name = "{0}, {4} partitions, mixing={5}")
  @CsvSource({"breast_cancer, 30, 2, 4, 3, mistakes", "breast_cancer, 30, 2, 4, 4, uniform",
      "iris, 4, 3, 5, 3, mistakes", "iris, 4, 3, 5, 2, uniform"})
  void distributedVoteEqualsANaiveSimulationOfMixing(String name, int d, int k, int epochs,
      int partitions, String mixing) {
    List<TestData.Example> train = TestData.readLibSvm(TestData.sharedData(name, "train.libsvm"),
        d);
    List<TestData.Example> test = TestData.readLibSvm(TestData.sharedData(name, "test.libsvm"), d);
    NaiveMixedVote naive = new NaiveMixedVote(d, k, train, partitions, epochs,
        mixing.equals("mistakes"));
    PerceptronClassificationModel model = new PerceptronClassifier().setAveraging("vote")
        .setMixing(mixing).setShuffle(false).setTol(0.0).setMaxIter(epochs)
        .setNumWorkers(partitions).fit(TestData.frameInOrder(SPARK, train, partitions));
    assertEquals(partitions, model.summary().numWorkers());
    assertEquals(naive.epochsRun, model.summary().totalIterations());
    for (List<TestData.Example> set : List.of(train, test)) {
      for (TestData.Example e : set) {
        double[] expected = naive.votes(e.features.toArray());
        double[] raw = model.predictRaw(e.features).toArray();
        // The same weights summed in the same order: equal, as long as no intermediate vector
        // scores a row within rounding of 0 (the library updates its scores incrementally, the
        // reference takes full dot products), which these data do not have; any difference in
        // the mixing, the clock or μ would show in the low bits.
        if (k == 2) {
          assertEquals(expected[0], raw[1], 0.0);
          assertEquals(-expected[0], raw[0], 0.0);
        } else {
          assertArrayEquals(expected, raw, 0.0);
        }
      }
    }
  }

  @Test
  void distributedVoteTrainsPredictsAndRoundTrips() throws Exception {
    List<TestData.Example> train = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    List<TestData.Example> test = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "test.libsvm"), 30);
    for (String mixing : new String[] {"mistakes", "uniform", "oneshot"}) {
      // calibration=none: the round trip compares raw scores and predictions (the calibrators'
      // own round trips are ProbabilityContractTest's), and on these 455 rows the default
      // cross-fits three more voted fold models per fit, the same weights otherwise.
      PerceptronClassificationModel model = new PerceptronClassifier().setAveraging("vote")
          .setMixing(mixing).setCalibration("none").fit(TestData.frame(SPARK, train, 3));
      long correct = test.stream().filter(e -> model.predict(e.features) == e.label).count();
      // The voted perceptron is as accurate as the averaged one here (0.96-0.98); 0.9 leaves
      // room for the mixing modes without accepting a broken vote (chance is 0.63).
      assertTrue(correct / (double) test.size() > 0.9, mixing + ": " + correct);

      String path = tmp.resolve("vote-" + mixing).toString();
      model.write().overwrite().save(path);
      PerceptronClassificationModel loaded = PerceptronClassificationModel.load(path);
      assertTrue(loaded.isVoted());
      List<Row> before = model.transform(TestData.frame(SPARK, test, 1))
          .select("rawPrediction", "prediction").collectAsList();
      List<Row> after = loaded.transform(TestData.frame(SPARK, test, 1))
          .select("rawPrediction", "prediction").collectAsList();
      assertEquals(before, after);
    }
  }

  @Test
  void voteThatCouldOutgrowTheDriverIsRefusedBeforeTraining() {
    List<TestData.Example> train = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setAveraging("vote").setMaxIter(100_000_000)
            .fit(TestData.frame(SPARK, train, 2)));
    assertTrue(e.getMessage().contains("averaging=vote"), e.getMessage());
    assertTrue(e.getMessage().contains("maxIter=100000000"), e.getMessage());
    assertTrue(e.getMessage().contains("averaging=average"), e.getMessage());
    assertTrue(e.getMessage().contains("spark.driver.memory"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
  }
}
