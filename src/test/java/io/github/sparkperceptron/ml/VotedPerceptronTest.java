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

  @Test
  void distributedVoteTrainsPredictsAndRoundTrips() throws Exception {
    List<TestData.Example> train = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    List<TestData.Example> test = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "test.libsvm"), 30);
    for (String mixing : new String[] {"mistakes", "uniform", "oneshot"}) {
      PerceptronClassificationModel model = new PerceptronClassifier().setAveraging("vote")
          .setMixing(mixing).fit(TestData.frame(SPARK, train, 3));
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
