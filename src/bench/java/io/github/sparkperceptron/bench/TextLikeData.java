package io.github.sparkperceptron.bench;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Generated bag-of-words documents for the many-class benchmarks: the shape of a hashed text
 * set (d features whose frequencies follow Zipf's law, a few hundred non-zeros per row, K topics)
 * without shipping one.
 *
 * <pre>
 * background   p(feature of rank r) ∝ 1 / (r + 1)^s            (Zipf, exponent s)
 * topic c      T_c = {@code topicSize} features drawn from the background (so frequent words
 *              belong to many topics, rare ones to few), each with weight ∝ 1 / (position + 1)
 * document     class c uniform over K; tokens drawn until it has nnz distinct features: each
 *              token from topic c with probability {@code topicShare}, else from the background
 * value        1 + ln(count) per distinct feature, the row then scaled to unit L2 norm (sublinear
 *              tf, as text pipelines do)
 * </pre>
 *
 * <p>Row i is a pure function of (seed, i) (SplitMix64 keyed by the row index), so the same seed
 * gives the same rows whatever the partitioning; rows [0, n) and [n, n + m) are a training and a
 * held-out set of the same distribution. Features keep their rank as index (index 0 is the most
 * frequent), like a vocabulary sorted by frequency.
 */
public final class TextLikeData implements Serializable {
  private static final long serialVersionUID = 1L;

  final int numFeatures;
  final int numClasses;
  final int nonZerosPerRow;
  final double zipfExponent;
  final int topicSize;
  final double topicShare;
  final long seed;

  public TextLikeData(int numFeatures, int numClasses, int nonZerosPerRow, double zipfExponent,
      int topicSize, double topicShare, long seed) {
    if (nonZerosPerRow < 1 || nonZerosPerRow > numFeatures / 2) {
      throw new IllegalArgumentException("nonZerosPerRow must be in 1.." + numFeatures / 2
          + ", got " + nonZerosPerRow);
    }
    this.numFeatures = numFeatures;
    this.numClasses = numClasses;
    this.nonZerosPerRow = nonZerosPerRow;
    this.zipfExponent = zipfExponent;
    this.topicSize = topicSize;
    this.topicShare = topicShare;
    this.seed = seed;
  }

  public String describe() {
    return String.format(Locale.ROOT, "TextLikeData d=%d, K=%d, nnz/row=%d, zipf s=%s, topics of"
        + " %d features, topic share %s, seed %d", numFeatures, numClasses, nonZerosPerRow,
        zipfExponent, topicSize, topicShare, seed);
  }

  StructType schema() {
    StructField label = NominalAttribute.defaultAttr().withName("label")
        .withNumValues(numClasses).toStructField();
    StructField features = new AttributeGroup("features", numFeatures).toStructField();
    return new StructType(new StructField[] {
        new StructField("label", DataTypes.DoubleType, false, label.metadata()),
        new StructField("features", SQLDataTypes.VectorType(), false, features.metadata())});
  }

  /** Rows firstRow .. firstRow + numRows − 1, generated inside the tasks. */
  Dataset<Row> frame(SparkSession spark, long firstRow, long numRows, int partitions) {
    List<Integer> ids = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      ids.add(p);
    }
    TextLikeData spec = this;
    JavaRDD<Row> rows = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(ids, partitions)
        .mapPartitionsWithIndex((p, ignored) -> spec.rows(firstRow + numRows * p / partitions,
            firstRow + numRows * (p + 1) / partitions), true);
    return spark.createDataFrame(rows, schema());
  }

  /** Rows from .. to − 1 as (label, sparse features) rows, generated on this thread. */
  public Iterator<Row> rows(long from, long to) {
    Generator g = new Generator();
    return new Iterator<>() {
      private long next = from;

      @Override
      public boolean hasNext() {
        return next < to;
      }

      @Override
      public Row next() {
        if (next >= to) {
          throw new NoSuchElementException();
        }
        return g.row(next++);
      }
    };
  }

  /** The per-task state: cumulative tables of the background and of every topic. */
  private final class Generator {
    private final double[] background = new double[numFeatures];
    private final int[][] topics = new int[numClasses][topicSize];
    private final double[] topicCumulative = new double[topicSize];
    private final int[] counts = new int[numFeatures];
    private final int[] seen = new int[nonZerosPerRow];

    Generator() {
      double sum = 0;
      for (int r = 0; r < numFeatures; r++) {
        sum += Math.pow(r + 1, -zipfExponent);
        background[r] = sum;
      }
      for (int r = 0; r < numFeatures; r++) {
        background[r] /= sum;
      }
      double t = 0;
      for (int i = 0; i < topicSize; i++) {
        t += 1.0 / (i + 1);
        topicCumulative[i] = t;
      }
      for (int i = 0; i < topicSize; i++) {
        topicCumulative[i] /= t;
      }
      long state = seed ^ 0x5DEECE66DL;
      for (int c = 0; c < numClasses; c++) {
        for (int i = 0; i < topicSize; i++) {
          state += 0x9E3779B97F4A7C15L;
          topics[c][i] = draw(background, uniform(mix(state)));
        }
      }
    }

    Row row(long index) {
      long state = mix(seed * 0x632BE59BD9B4E5L + index);
      state += 0x9E3779B97F4A7C15L;
      int label = (int) ((mix(state) >>> 1) % numClasses);
      int distinct = 0;
      while (distinct < nonZerosPerRow) {
        state += 0x9E3779B97F4A7C15L;
        double coin = uniform(mix(state));
        state += 0x9E3779B97F4A7C15L;
        double u = uniform(mix(state));
        int feature = coin < topicShare ? topics[label][draw(topicCumulative, u)]
            : draw(background, u);
        if (counts[feature]++ == 0) {
          seen[distinct++] = feature;
        }
      }
      int[] indices = seen.clone();
      Arrays.sort(indices);
      double[] values = new double[indices.length];
      double norm = 0;
      for (int k = 0; k < indices.length; k++) {
        values[k] = 1 + Math.log(counts[indices[k]]);
        norm += values[k] * values[k];
        counts[indices[k]] = 0;
      }
      norm = Math.sqrt(norm);
      for (int k = 0; k < values.length; k++) {
        values[k] /= norm;
      }
      return RowFactory.create((double) label, Vectors.sparse(numFeatures, indices, values));
    }
  }

  /** The first index whose cumulative probability exceeds u. */
  private static int draw(double[] cumulative, double u) {
    int i = Arrays.binarySearch(cumulative, u);
    i = i < 0 ? -i - 1 : i + 1;
    return Math.min(i, cumulative.length - 1);
  }

  /** SplitMix64's finaliser. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static double uniform(long bits) {
    return (bits >>> 11) * 0x1.0p-53;
  }
}
