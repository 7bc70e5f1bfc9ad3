package io.github.sparkperceptron.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.attribute.Attribute;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class SyntheticDataTest {
  /** Rounding in the rotation and normalisation: a few ulps of values of order 1. */
  private static final double EPS = 1e-9;

  private static SyntheticData sparse(int classes, double margin, double noise, long seed) {
    return SyntheticData.builder().numFeatures(5000).nonZerosPerRow(20).numClasses(classes)
        .margin(margin).labelNoise(noise).seed(seed).build();
  }

  /** Calls {@code check} with (label, indices, values) for rows 0 .. n−1. */
  private interface RowCheck {
    void accept(long index, int label, int[] indices, double[] values);
  }

  private static void forRows(SyntheticData data, int n, RowCheck check) {
    SyntheticRows rows = data.rows();
    int[] idx = new int[data.storedPerRow()];
    double[] val = new double[data.storedPerRow()];
    for (long i = 0; i < n; i++) {
      int label = rows.row(i, idx, val);
      check.accept(i, label, idx, val);
    }
  }

  @Test
  void sparseRowsHaveExactlyNnzSortedDistinctIndicesAndUnitNorm() {
    forRows(sparse(2, 0.1, 0.0, 3), 5000, (i, label, idx, val) -> {
      double norm = 0;
      for (int t = 0; t < idx.length; t++) {
        assertTrue(idx[t] >= 0 && idx[t] < 5000, "index in range");
        assertTrue(t == 0 || idx[t] > idx[t - 1], "strictly increasing indices in row " + i);
        assertTrue(val[t] != 0.0, "stored values are non-zero");
        norm += val[t] * val[t];
      }
      assertEquals(1.0, norm, EPS, "row " + i + " has unit norm");
      assertTrue(label == 0 || label == 1);
    });
  }

  @Test
  void noiseFreeBinaryRowsKeepTheMarginAndTheSeparatorClassifiesThemAll() {
    for (SyntheticData data : List.of(sparse(2, 0.2, 0.0, 5),
        SyntheticData.builder().numFeatures(30).dense().margin(0.3).seed(5).build())) {
      SyntheticRows rows = data.rows();
      double[] u = rows.separators()[0];
      forRows(data, 5000, (i, label, idx, val) -> {
        assertTrue(rows.margin(label, idx, val, idx.length) >= data.margin() - EPS,
            "row " + i + " keeps margin " + data.margin());
        double score = 0;
        for (int t = 0; t < idx.length; t++) {
          score += u[idx[t]] * val[t];
        }
        assertEquals(label == 1, score > 0, "the hidden separator classifies row " + i);
      });
    }
  }

  @Test
  void noiseFreeMulticlassRowsKeepTheMarginAgainstEveryOtherClass() {
    SyntheticData data = sparse(5, 0.15, 0.0, 9);
    SyntheticRows rows = data.rows();
    double[][] u = rows.separators();
    forRows(data, 3000, (i, label, idx, val) -> {
      assertTrue(rows.margin(label, idx, val, idx.length) >= data.margin() - EPS);
      int best = 0;
      double[] s = new double[u.length];
      for (int k = 0; k < u.length; k++) {
        for (int t = 0; t < idx.length; t++) {
          s[k] += u[k][idx[t]] * val[t];
        }
        best = s[k] > s[best] ? k : best;
      }
      assertEquals(label, best, "the true class scores highest in row " + i);
    });
  }

  @Test
  void labelNoiseFlipsTheStatedShareOfLabels() {
    // A flipped label has a negative margin (the true class beats it by γ), a kept one a
    // positive margin, so the share of negative margins is the realised noise rate.
    for (int classes : new int[] {2, 4}) {
      int n = 20_000;
      SyntheticData data = sparse(classes, 0.1, 0.1, 11);
      SyntheticRows rows = data.rows();
      int[] flipped = new int[1];
      forRows(data, n, (i, label, idx, val) -> {
        if (rows.margin(label, idx, val, idx.length) < 0) {
          flipped[0]++;
        }
      });
      // Binomial(20000, 0.1): standard deviation 0.0021; 0.01 is almost 5 of them.
      assertEquals(0.1, flipped[0] / (double) n, 0.01, classes + " classes");
    }
  }

  @Test
  void classesAreBalanced() {
    for (int classes : new int[] {2, 3, 7}) {
      int n = 21_000;
      long[] counts = new long[classes];
      forRows(sparse(classes, 0.05, 0.05, 13), n, (i, label, idx, val) -> counts[label]++);
      for (int k = 0; k < classes; k++) {
        // Labels are uniform draws: the share's standard deviation is at most 0.0035 here.
        assertEquals(1.0 / classes, counts[k] / (double) n, 0.02,
            "class " + k + " of " + classes + ": " + Arrays.toString(counts));
      }
    }
  }

  @Test
  void sameSeedSameRowsOtherSeedOtherRows() {
    int[] a = new int[20];
    int[] b = new int[20];
    double[] va = new double[20];
    double[] vb = new double[20];
    SyntheticRows first = sparse(2, 0.1, 0.05, 21).rows();
    SyntheticRows again = sparse(2, 0.1, 0.05, 21).rows();
    SyntheticRows other = sparse(2, 0.1, 0.05, 22).rows();
    for (long i = 0; i < 100; i++) {
      assertEquals(first.row(i, a, va), again.row(i, b, vb));
      assertArrayEquals(a, b);
      assertArrayEquals(va, vb);
    }
    other.row(0, b, vb);
    first.row(0, a, va);
    assertFalse(Arrays.equals(va, vb), "another seed gives another row");
  }

  @Test
  void aPerceptronSeparatesNoiseFreeDenseDataWithinNovikoffsBound() {
    // Dense rows: ‖x‖ = 1 and the unit separator has margin γ, so the perceptron without bias
    // makes at most 1/γ² mistakes in all (Novikoff 1962) and then an epoch without one.
    double gamma = 0.2;
    SyntheticData data = SyntheticData.builder().numFeatures(20).dense().margin(gamma).seed(4)
        .build();
    TrainingBlockBuilder builder = new TrainingBlockBuilder(20);
    forRows(data, 2000, (i, label, idx, val) -> builder.addDense(label, 1.0, val));
    TrainingBlock block = builder.build();
    LearnerConfig config = new LearnerConfig(20, 2, false, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.NONE);
    LinearState state = LinearState.zero(config);
    int[] order = new int[block.numRows()];
    Arrays.setAll(order, r -> r);
    long mistakes = 0;
    long last = -1;
    for (int epoch = 0; epoch < 100 && last != 0; epoch++) {
      EpochStats stats = new EpochStats();
      OnlineLearner.runEpoch(config, block, order, state, 1.0, stats, null);
      mistakes += stats.mistakes;
      last = stats.mistakes;
    }
    assertEquals(0, last, "an epoch without mistakes");
    assertTrue(mistakes <= 1 / (gamma * gamma), mistakes + " mistakes");
  }

  @Test
  void frameHoldsTheSameRowsForAnyPartitioningWithMetadata() {
    SparkSession spark = SparkTestSupport.spark();
    SyntheticData data = SyntheticData.builder().numFeatures(300).nonZerosPerRow(7).numClasses(3)
        .margin(0.1).labelNoise(0.1).seed(8).build();
    Dataset<Row> three = data.frame(spark, 100, 1000, 3);
    Dataset<Row> five = data.frame(spark, 100, 1000, 5);
    assertEquals(3, three.rdd().getNumPartitions());
    List<Row> a = three.collectAsList();
    List<Row> b = five.collectAsList();
    assertEquals(1000, a.size());
    assertEquals(a, b);
    SyntheticRows rows = data.rows();
    int[] idx = new int[7];
    double[] val = new double[7];
    for (int r = 0; r < a.size(); r++) {
      int label = rows.row(100 + r, idx, val);
      SparseVector v = (SparseVector) a.get(r).get(1);
      assertEquals(label, a.get(r).getDouble(0));
      assertEquals(300, v.size());
      assertArrayEquals(idx, v.indices());
      assertArrayEquals(val, v.values());
    }
    assertEquals(3, ((NominalAttribute) Attribute.fromStructField(three.schema().apply("label")))
        .getNumValues().get());
    assertEquals(300, AttributeGroup.fromStructField(three.schema().apply("features")).size());

    Vector dense = SyntheticData.builder().numFeatures(12).dense().seed(1).build()
        .frame(spark, 0, 1, 1).first().getAs(1);
    assertTrue(dense instanceof DenseVector);
    assertEquals(12, dense.size());
  }

  @Test
  void rejectsImpossibleSettings() {
    assertThrows(IllegalArgumentException.class,
        () -> SyntheticData.builder().numFeatures(10).nonZerosPerRow(11).build());
    assertThrows(IllegalArgumentException.class, () -> SyntheticData.builder().margin(1.0).build());
    assertThrows(IllegalArgumentException.class, () -> SyntheticData.builder().numClasses(1).build());
    assertThrows(IllegalArgumentException.class,
        () -> SyntheticData.builder().labelNoise(-0.1).build());
  }
}
