package io.github.sparkperceptron.data;

import java.io.Serializable;
import java.util.ArrayList;
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
 * Synthetic classification data, linearly separable with a chosen margin and then corrupted by a
 * chosen rate of label noise, at any scale: sparse rows with a fixed number of non-zeros, or dense
 * rows; two or more classes; reproducible from a seed. See {@link SyntheticRows} for how a row is
 * drawn and what the margin means.
 *
 * <p>The rows are generated inside Spark tasks, every partition from (seed, row index) alone, so
 * that ten million rows never pass through the driver, and the same seed gives the same rows
 * whatever the number of partitions. Rows {@code [0, n)} make a training set; a test set from the
 * same distribution is another range, e.g. {@code [n, n + m)}.
 *
 * <pre>{@code
 * SyntheticData data = SyntheticData.builder().numFeatures(100_000).nonZerosPerRow(20)
 *     .margin(0.05).labelNoise(0.02).seed(7).build();
 * Dataset<Row> train = data.frame(spark, 0, 1_000_000, 8);
 * Dataset<Row> test = data.frame(spark, 1_000_000, 100_000, 8);
 * }</pre>
 *
 * <p>The frame has the columns {@code label} (double, with nominal ML metadata declaring the K
 * classes) and {@code features} (vector of size d, with ML metadata declaring d).
 */
public final class SyntheticData implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int numFeatures;
  private final int nonZerosPerRow;
  private final int numClasses;
  private final double margin;
  private final double labelNoise;
  private final long seed;

  private SyntheticData(Builder b) {
    if (b.numFeatures < 1) {
      throw new IllegalArgumentException("numFeatures must be >= 1, got " + b.numFeatures);
    }
    if (b.nonZerosPerRow < 0 || b.nonZerosPerRow > b.numFeatures) {
      throw new IllegalArgumentException("nonZerosPerRow must be in 0.." + b.numFeatures
          + " (0 for dense rows), got " + b.nonZerosPerRow);
    }
    if (b.numClasses < 2) {
      throw new IllegalArgumentException("numClasses must be >= 2, got " + b.numClasses);
    }
    if (!(b.margin >= 0 && b.margin < 1)) {
      throw new IllegalArgumentException("margin is a cosine and must be in [0, 1), got "
          + b.margin);
    }
    if (!(b.labelNoise >= 0 && b.labelNoise <= 1)) {
      throw new IllegalArgumentException("labelNoise must be in [0, 1], got " + b.labelNoise);
    }
    this.numFeatures = b.numFeatures;
    this.nonZerosPerRow = b.nonZerosPerRow;
    this.numClasses = b.numClasses;
    this.margin = b.margin;
    this.labelNoise = b.labelNoise;
    this.seed = b.seed;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Settings of a {@link SyntheticData}; every one has a default. */
  public static final class Builder {
    private int numFeatures = 1000;
    private int nonZerosPerRow = 20;
    private int numClasses = 2;
    private double margin = 0.05;
    private double labelNoise = 0.0;
    private long seed = 1L;

    private Builder() {
    }

    /** d, the length of every feature vector (default 1000). */
    public Builder numFeatures(int d) {
      this.numFeatures = d;
      return this;
    }

    /** Non-zeros in every row (default 20); 0 makes dense rows of d values. */
    public Builder nonZerosPerRow(int nnz) {
      this.nonZerosPerRow = nnz;
      return this;
    }

    /** Dense rows: every one of the d features is drawn. */
    public Builder dense() {
      this.nonZerosPerRow = 0;
      return this;
    }

    /** K, the number of classes (default 2); labels are 0 .. K−1. */
    public Builder numClasses(int k) {
      this.numClasses = k;
      return this;
    }

    /** γ in [0, 1): the cosine margin every noise-free row keeps (default 0.05). */
    public Builder margin(double gamma) {
      this.margin = gamma;
      return this;
    }

    /** Share of rows whose label is replaced by another class (default 0). */
    public Builder labelNoise(double rate) {
      this.labelNoise = rate;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public SyntheticData build() {
      return new SyntheticData(this);
    }
  }

  public int numFeatures() {
    return numFeatures;
  }

  /** Non-zeros per row, 0 for dense rows. */
  public int nonZerosPerRow() {
    return nonZerosPerRow;
  }

  public boolean isDense() {
    return nonZerosPerRow == 0;
  }

  /** Values each row stores: nnz, or d for dense rows. */
  public int storedPerRow() {
    return isDense() ? numFeatures : nonZerosPerRow;
  }

  public int numClasses() {
    return numClasses;
  }

  public double margin() {
    return margin;
  }

  public double labelNoise() {
    return labelNoise;
  }

  public long seed() {
    return seed;
  }

  /** A Spark-free generator of these rows (one per thread). */
  public SyntheticRows rows() {
    return new SyntheticRows(this);
  }

  /** One line naming every setting, for logs and benchmark tables. */
  public String describe() {
    return String.format(Locale.ROOT, "d=%d, %s, K=%d, margin=%s, noise=%s, seed=%d",
        numFeatures, isDense() ? "dense" : "nnz/row=" + nonZerosPerRow, numClasses, margin,
        labelNoise, seed);
  }

  /** The schema of {@link #frame}: label with K-class metadata, features with d-size metadata. */
  public StructType schema() {
    StructField label = NominalAttribute.defaultAttr().withName("label")
        .withNumValues(numClasses).toStructField();
    StructField features = new AttributeGroup("features", numFeatures).toStructField();
    return new StructType(new StructField[] {
        new StructField("label", DataTypes.DoubleType, false, label.metadata()),
        new StructField("features", SQLDataTypes.VectorType(), false, features.metadata())});
  }

  /**
   * Rows {@code firstRow .. firstRow + numRows − 1} as a DataFrame of {@code partitions}
   * partitions, generated lazily by the tasks (each partition holds a contiguous range).
   */
  public Dataset<Row> frame(SparkSession spark, long firstRow, long numRows, int partitions) {
    if (firstRow < 0 || numRows < 0) {
      throw new IllegalArgumentException("row range must be non-negative, got first=" + firstRow
          + ", count=" + numRows);
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
    }
    List<Integer> ids = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      ids.add(p);
    }
    SyntheticData spec = this;
    JavaRDD<Row> rows = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(ids, partitions)
        .mapPartitionsWithIndex((p, ignored) -> spec.rowIterator(
            firstRow + numRows * p / partitions, firstRow + numRows * (p + 1) / partitions), true);
    return spark.createDataFrame(rows, schema());
  }

  /** Rows {@code from .. to − 1} as Spark rows (label, vector). */
  Iterator<Row> rowIterator(long from, long to) {
    SyntheticRows generator = rows();
    int stored = storedPerRow();
    int[] indices = new int[stored];
    double[] values = new double[stored];
    return new Iterator<Row>() {
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
        int label = generator.row(next++, indices, values);
        return RowFactory.create((double) label, isDense()
            ? Vectors.dense(values.clone())
            : Vectors.sparse(numFeatures, indices.clone(), values.clone()));
      }
    };
  }
}
