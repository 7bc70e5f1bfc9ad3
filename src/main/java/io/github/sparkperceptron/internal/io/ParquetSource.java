package io.github.sparkperceptron.internal.io;

import static io.github.sparkperceptron.internal.io.ReaderSupport.column;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructType;

/**
 * Reads Parquet files (a file, a directory of part files, or a glob) into a DataFrame of
 * (label, features). The label column must be numeric; the features are either a vector column
 * ({@link ReadSpec#featuresCol()}) or numeric columns ({@link ReadSpec#featureCols()}) assembled
 * into a dense vector. One check pass finds nulls, non-finite values, vectors of the wrong size
 * and labels that are not class indices, each reported as {@code file, row N} (Parquet's own row
 * index); the rows themselves are then a plain projection. Labels follow {@link LabelCheck}.
 * A sample weight column ({@link ReadSpec#weightCol()}) is kept beside them, as a double. Read for
 * predictions, the frame keeps every input column, unchanged.
 */
public final class ParquetSource {
  private ParquetSource() {
  }

  /** The columns the check pass looks at, resolved on the driver. */
  private static final class Checks implements Serializable {
    private static final long serialVersionUID = 1L;
    final String labelCol;
    final boolean checkLabel;
    final int numClasses;
    /** The vector column, or {@code null} when numeric columns are assembled. */
    final String vectorCol;
    final String[] numericCols;
    final int numFeatures;
    final String widthSource;

    Checks(ReadSpec spec, String vectorCol) {
      this.labelCol = spec.labelCol();
      this.checkLabel = spec.labelsChecked();
      this.numClasses = spec.numClasses();
      this.vectorCol = vectorCol;
      this.numericCols = spec.featureCols().toArray(new String[0]);
      this.numFeatures = spec.numFeatures();
      this.widthSource = spec.widthSource();
    }
  }

  /**
   * Reads {@code path}.
   *
   * @param role what the data are for, used in messages, e.g. "training data (--train)"
   */
  public static LabeledData read(SparkSession spark, String path, ReadSpec spec, String role) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    InputPaths.requireReadable(conf, path, role);
    Dataset<Row> input;
    try {
      input = spark.read().parquet(path);
    } catch (Exception e) { // Spark's Scala code throws the checked SparkException unannounced
      throw new BadInputException("Cannot read the " + role + " '" + path + "' as Parquet: "
          + ReaderSupport.firstLine(e), e);
    }
    StructType schema = input.schema();
    String suffix = " (" + role + ", Parquet)";
    boolean assembled = !spec.featureCols().isEmpty();
    if (spec.labelsChecked()) {
      requireNumeric(schema, spec.labelCol(), "label column", "--label-col", suffix);
    }
    boolean weighted = !spec.weightCol().isEmpty();
    if (weighted) {
      // Nulls, negative and non-finite weights are the estimator's to report (it names the row).
      requireNumeric(schema, spec.weightCol(), "weight column", "--weight-col", suffix);
      if (spec.weightCol().equals(spec.labelCol())
          || spec.featureCols().contains(spec.weightCol())) {
        throw new BadInputException("Column '" + spec.weightCol() + "' (--weight-col) may not"
            + " also be the label or a feature" + suffix);
      }
    }
    if (assembled) {
      List<String> seen = new ArrayList<>();
      for (String c : spec.featureCols()) {
        requireNumeric(schema, c, "feature column", "--feature-cols", suffix);
        if (c.equals(spec.labelCol())) {
          throw new BadInputException("Column '" + c + "' is the label (--label-col) and may not"
              + " also be a feature (--feature-cols)" + suffix);
        }
        if (seen.contains(c)) {
          throw new BadInputException("Feature column '" + c + "' is named twice in"
              + " --feature-cols" + suffix);
        }
        seen.add(c);
      }
      if (spec.numFeatures() >= 0 && seen.size() != spec.numFeatures()) {
        throw new BadInputException("There are " + seen.size() + " feature columns, but "
            + spec.widthSource() + " has " + spec.numFeatures() + " features; name the same"
            + " feature columns as in training (--feature-cols)" + suffix);
      }
    } else {
      requireColumn(schema, spec.featuresCol(), "feature vector column", "--features-col",
          suffix);
      DataType type = schema.apply(spec.featuresCol()).dataType();
      if (!type.equals(SQLDataTypes.VectorType())) {
        throw new BadInputException("Column '" + spec.featuresCol() + "' (--features-col) has"
            + " type " + type.simpleString() + ", not a Spark ML vector; name numeric feature"
            + " columns with --feature-cols instead" + suffix);
      }
    }

    Checks checks = new Checks(spec, assembled ? null : spec.featuresCol());
    List<Column> probe = new ArrayList<>();
    probe.add(col("_metadata.file_path"));
    probe.add(col("_metadata.row_index"));
    if (spec.labelsChecked()) {
      probe.add(column(spec.labelCol()).cast("double"));
    }
    if (assembled) {
      for (String c : spec.featureCols()) {
        probe.add(column(c).cast("double"));
      }
    } else {
      probe.add(column(spec.featuresCol()));
    }
    List<SplitReport> reports;
    try {
      reports = input.select(probe.toArray(new Column[0])).toJavaRDD()
          .mapPartitions(it -> Collections.singletonList(check(it, checks)).iterator())
          .collect();
    } catch (Exception e) {
      throw new BadInputException("Cannot read the " + role + " '" + path + "' as Parquet: "
          + ReaderSupport.firstLine(e), e);
    }
    int numFeatures = assembled ? spec.featureCols().size() : vectorSize(conf, reports, spec,
        suffix);
    SplitReport.Verdict verdict = SplitReport.combine(conf, reports, spec, path, role, suffix);

    Column features = assembled ? assembledVector(spec.featureCols()) : column(spec.featuresCol());
    if (spec.labelsChecked()) {
      Column label = column(spec.labelCol()).cast("double").plus(0.0); // + 0.0 turns -0 into 0
      if (verdict.mapPlusMinusOne()) {
        label = when(column(spec.labelCol()).cast("double").gt(0), lit(1.0)).otherwise(lit(0.0));
      }
      List<Column> columns = new ArrayList<>(List.of(label.as("label"), features.as("features")));
      if (weighted) {
        columns.add(column(spec.weightCol()).cast("double").as(spec.weightCol()));
      }
      LabeledData data = new LabeledData(input.select(columns.toArray(new Column[0])),
          numFeatures, verdict.labelNote()).withFeatureNames(spec.featureCols());
      return weighted ? data.withWeightCol(spec.weightCol()) : data;
    }
    List<String> columns = Arrays.asList(input.columns());
    if (!assembled) {
      return new LabeledData(input, numFeatures, "", spec.featuresCol(), columns);
    }
    String vectorColumn = ReaderSupport.freeName(input.columns(), spec.featuresCol());
    return new LabeledData(input.withColumn(vectorColumn, features), numFeatures, "",
        vectorColumn, columns);
  }

  private static Column assembledVector(List<String> columns) {
    Column[] values = new Column[columns.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = column(columns.get(i)).cast("double");
    }
    return org.apache.spark.ml.functions.array_to_vector(functions.array(values));
  }

  private static void requireColumn(StructType schema, String column, String what, String flag,
      String suffix) {
    if (!Arrays.asList(schema.fieldNames()).contains(column)) {
      throw new BadInputException("There is no " + what + " '" + column + "' (" + flag + "); the"
          + " columns are " + Arrays.toString(schema.fieldNames()) + suffix);
    }
  }

  private static void requireNumeric(StructType schema, String column, String what, String flag,
      String suffix) {
    requireColumn(schema, column, what, flag, suffix);
    DataType type = schema.apply(column).dataType();
    if (!(type instanceof NumericType)) {
      throw new BadInputException("Column '" + column + "' (" + flag + ") has type "
          + type.simpleString() + ", not a number type" + suffix);
    }
  }

  /** The vectors' common size: the spec's, or else the one every partition saw. */
  private static int vectorSize(Configuration conf, List<SplitReport> reports, ReadSpec spec,
      String suffix) {
    if (spec.numFeatures() >= 0) {
      return spec.numFeatures();
    }
    int size = -1;
    for (SplitReport r : reports) {
      if (r.firstBadLine != null) {
        return -1; // combine() reports it
      }
      if (r.vectorSize >= 0) {
        if (size >= 0 && r.vectorSize != size) {
          throw new BadInputException("Column '" + spec.featuresCol() + "' holds vectors of"
              + " sizes " + size + " and " + r.vectorSize + "; all feature vectors must have the"
              + " same size" + suffix);
        }
        size = r.vectorSize;
      }
    }
    return size;
  }

  /**
   * The check pass over one partition's (file, row index, [label], features...) rows. Keeps the
   * earliest problem in file order: a partition may hold several files in any order.
   */
  static SplitReport check(Iterator<Row> rows, Checks c) {
    SplitReport report = new SplitReport();
    int featuresAt = c.checkLabel ? 3 : 2;
    while (rows.hasNext()) {
      Row row = rows.next();
      String file = row.getString(0);
      long index = row.getLong(1);
      String problem = null;
      if (c.checkLabel) {
        problem = row.isNullAt(2) ? "column '" + c.labelCol + "' is null"
            : finiteProblem(c.labelCol, row.getDouble(2));
      }
      if (problem == null) {
        problem = c.vectorCol == null ? numericProblem(row, featuresAt, c)
            : vectorProblem(row, featuresAt, c, report);
      }
      if (problem != null) {
        report.firstBadLine = Problem.earlier(report.firstBadLine,
            Problem.atRow(file, index, problem));
        continue;
      }
      if (c.checkLabel) {
        double label = row.getDouble(2) + 0.0;
        report.labels.observe(label, c.numClasses, why -> Problem.atRow(file, index,
            "column '" + c.labelCol + "' has " + label + ", which " + why));
      }
      report.rows++;
    }
    return report;
  }

  private static String finiteProblem(String column, double value) {
    return Double.isNaN(value) || Double.isInfinite(value)
        ? "column '" + column + "' has " + value + ", not a finite number" : null;
  }

  private static String numericProblem(Row row, int from, Checks c) {
    for (int k = 0; k < c.numericCols.length; k++) {
      if (row.isNullAt(from + k)) {
        return "column '" + c.numericCols[k] + "' is null";
      }
      String problem = finiteProblem(c.numericCols[k], row.getDouble(from + k));
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String vectorProblem(Row row, int at, Checks c, SplitReport report) {
    if (row.isNullAt(at)) {
      return "column '" + c.vectorCol + "' is null";
    }
    Vector v = (Vector) row.get(at);
    int expected = c.numFeatures >= 0 ? c.numFeatures : report.vectorSize;
    if (expected >= 0 && v.size() != expected) {
      return "column '" + c.vectorCol + "' holds a vector of size " + v.size() + ", but "
          + (c.numFeatures >= 0 ? c.widthSource + " has " : "earlier rows have ") + expected
          + " features";
    }
    if (report.vectorSize < 0) {
      report.vectorSize = v.size();
    }
    double[] values = v instanceof SparseVector ? ((SparseVector) v).values()
        : ((DenseVector) v).values();
    for (int k = 0; k < values.length; k++) {
      if (Double.isNaN(values[k]) || Double.isInfinite(values[k])) {
        int feature = v instanceof SparseVector ? ((SparseVector) v).indices()[k] : k;
        return "column '" + c.vectorCol + "' has " + values[k] + " at feature index " + feature
            + ", not a finite number";
      }
    }
    return null;
  }
}
