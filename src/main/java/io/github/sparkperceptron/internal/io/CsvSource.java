package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.spark.api.java.JavaNewHadoopRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * Reads CSV files with a header row into a DataFrame of (label, dense features), parsing the
 * values itself rather than through Spark's schema inference, so that a bad cell is reported as
 * {@code file:line: column 'x' has 'abc', not a number}. Three passes over the lines: the header
 * of every file (only its first line is read), a check of every line, and the rows.
 *
 * <p>The label column is {@link ReadSpec#labelCol()}; the features are the columns
 * {@link ReadSpec#featureCols()} in that order, or every other column (but the weight column
 * {@link ReadSpec#weightCol()}, kept as a third column when named) in file order. Every file
 * of a directory or glob must have the same header. Labels follow {@link LabelCheck}. Read for
 * predictions, the frame keeps every input column, features as doubles and the rest as text.
 */
public final class CsvSource {
  private CsvSource() {
  }

  /**
   * Reads {@code path}.
   *
   * @param role what the data are for, used in messages, e.g. "training data (--train)"
   */
  public static LabeledData read(SparkSession spark, String path, ReadSpec spec, String role) {
    JavaNewHadoopRDD<LongWritable, Text> lines = InputPaths.textLines(spark, path, role);
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    String suffix = suffix(role);

    List<Tuple2<String, String>> headers = lines.mapPartitionsWithInputSplit(
        (split, it) -> header(split, it).iterator(), true).collect();
    CsvLayout layout = layout(conf, headers, spec, path, role, suffix);

    List<SplitReport> reports = lines.mapPartitionsWithInputSplit(
        (split, it) -> Collections.singletonList(
            check(ReaderSupport.fileOf(split), it, layout, spec)).iterator(), true)
        .collect();
    SplitReport.Verdict verdict = SplitReport.combine(conf, reports, spec, path, role, suffix);
    boolean map = verdict.mapPlusMinusOne();
    int d = layout.featureIndices.length;

    if (spec.labelsChecked()) {
      JavaRDD<Row> rows = lines.mapPartitions(it -> toRows(it, layout, map));
      LabeledData data = new LabeledData(spark.createDataFrame(rows,
          layout.weightIndex < 0 ? ReaderSupport.LABELLED_SCHEMA
              : ReaderSupport.LABELLED_SCHEMA.add(spec.weightCol(), DataTypes.DoubleType, false)),
          d, verdict.labelNote()).withFeatureNames(layout.featureNames());
      return layout.weightIndex < 0 ? data : data.withWeightCol(spec.weightCol());
    }
    String vectorColumn = ReaderSupport.freeName(layout.names, spec.featuresCol());
    JavaRDD<Row> rows = lines.mapPartitions(it -> toInputRows(it, layout));
    return new LabeledData(spark.createDataFrame(rows, inputSchema(layout, vectorColumn)), d, "",
        vectorColumn, Arrays.asList(layout.names));
  }

  /** What located messages end with: the data's role and a reminder of the format. */
  static String suffix(String role) {
    return " (" + role + ", CSV format: a header row of column names, then comma-separated"
        + " values)";
  }

  /** The (file, first line) of a split that starts a file: its header row. */
  static List<Tuple2<String, String>> header(InputSplit split,
      Iterator<Tuple2<LongWritable, Text>> it) {
    try {
      if (split instanceof FileSplit && ((FileSplit) split).getStart() == 0 && it.hasNext()) {
        Tuple2<LongWritable, Text> first = it.next();
        if (first._1().get() == 0) {
          return List.of(new Tuple2<>(ReaderSupport.fileOf(split), first._2().toString()));
        }
      }
    } catch (Exception e) { // Spark's iterator throws Hadoop's IOException undeclared
      if (!(e instanceof IOException)) {
        throw e;
      }
      // The header line itself cannot be read: said from the task, as there is no line to name.
      String file = ReaderSupport.fileOf(split);
      throw new BadInputException(Problem.displayName(file) + ": "
          + ReaderSupport.unreadable(file, (IOException) e), e);
    }
    return List.of();
  }

  /**
   * The layout of the first file's header; every other file must have the same header.
   *
   * @param headers (file, header line) per file, in file order
   */
  static CsvLayout layout(Configuration conf, List<Tuple2<String, String>> headers,
      ReadSpec spec, String path, String role, String suffix) {
    if (headers.isEmpty()) {
      throw ReaderSupport.noExamples(role, path);
    }
    String firstFile = headers.get(0)._1();
    CsvLayout layout;
    try {
      layout = CsvLayout.of(headers.get(0)._2(), spec);
    } catch (IllegalArgumentException e) {
      throw Problem.atLine(firstFile, 0, e.getMessage()).toException(conf, suffix);
    }
    for (Tuple2<String, String> h : headers.subList(1, headers.size())) {
      CsvParser parser = new CsvParser();
      String[] names = parser.split(h._2()) != null || parser.isBlank() ? null
          : new String[parser.size()];
      for (int i = 0; names != null && i < names.length; i++) {
        names[i] = parser.field(i);
      }
      if (!Arrays.equals(names, layout.names)) {
        throw Problem.atLine(h._1(), 0, "the header row differs from that of "
            + Problem.displayName(firstFile) + "; every file must have the same columns")
            .toException(conf, suffix);
      }
    }
    return layout;
  }

  /**
   * The check pass over one split's (byte offset, line) records: stops at the first bad line,
   * counts the rest. The line at offset 0 is its file's header. Spark-free, so tests can run it on
   * a file directly.
   */
  static SplitReport check(String file, Iterator<Tuple2<LongWritable, Text>> it,
      CsvLayout layout, ReadSpec spec) {
    SplitReport report = new SplitReport();
    CsvParser parser = new CsvParser();
    boolean checkLabel = spec.labelsChecked();
    long next = 0;
    try {
      while (it.hasNext()) {
        Tuple2<LongWritable, Text> line = it.next();
        long offset = line._1().get();
        next = offset + line._2().getLength() + 1;
        if (offset == 0) {
          continue;
        }
        String error = parser.split(line._2().toString());
        if (error == null && !parser.isBlank()) {
          error = fieldProblem(parser, layout, checkLabel);
        }
        if (error != null) {
          report.firstBadLine = Problem.atLine(file, offset, error);
          return report;
        }
        if (parser.isBlank()) {
          continue;
        }
        if (checkLabel) {
          String cell = parser.field(layout.labelIndex);
          double label = Double.parseDouble(cell) + 0.0;
          report.labels.observe(label, spec.numClasses(), why -> Problem.atLine(file, offset,
              "column '" + NumberText.shown(layout.names[layout.labelIndex]) + "' has "
                  + NumberText.shown(cell) + ", which " + why));
        }
        report.rows++;
      }
    } catch (Exception e) { // Spark's iterator throws Hadoop's IOException undeclared
      if (!(e instanceof IOException)) {
        throw e;
      }
      report.firstBadLine = Problem.atLine(file, next,
          ReaderSupport.unreadable(file, (IOException) e));
    }
    return report;
  }

  /** Why the fields of a split line do not fit the layout, or {@code null}. */
  static String fieldProblem(CsvParser parser, CsvLayout layout, boolean checkLabel) {
    if (parser.size() != layout.names.length) {
      return "the line has " + parser.size() + " fields, but the header row has "
          + layout.names.length + " columns";
    }
    if (checkLabel) {
      String problem = CsvParser.numberProblem(layout.names[layout.labelIndex],
          parser.field(layout.labelIndex));
      if (problem != null) {
        return problem;
      }
    }
    for (int f : layout.featureIndices) {
      String problem = CsvParser.numberProblem(layout.names[f], parser.field(f));
      if (problem != null) {
        return problem;
      }
    }
    if (layout.weightIndex >= 0) {
      // Negative weights are the estimator's to report (it names the row); here only numbers.
      return CsvParser.numberProblem(layout.names[layout.weightIndex],
          parser.field(layout.weightIndex));
    }
    return null;
  }

  /** Lazily turns checked lines into (label, features) rows. */
  static Iterator<Row> toRows(Iterator<Tuple2<LongWritable, Text>> lines, CsvLayout layout,
      boolean mapPlusMinusOne) {
    CsvParser parser = new CsvParser();
    return new CsvRows(lines, parser) {
      @Override
      Row row() {
        double label = LabelCheck.mapped(
            Double.parseDouble(parser.field(layout.labelIndex)) + 0.0, mapPlusMinusOne);
        if (layout.weightIndex >= 0) {
          return RowFactory.create(label, Vectors.dense(features(parser, layout)),
              Double.parseDouble(parser.field(layout.weightIndex)));
        }
        return RowFactory.create(label, Vectors.dense(features(parser, layout)));
      }
    };
  }

  /** Lazily turns checked lines into rows of every input column plus the feature vector. */
  static Iterator<Row> toInputRows(Iterator<Tuple2<LongWritable, Text>> lines,
      CsvLayout layout) {
    CsvParser parser = new CsvParser();
    return new CsvRows(lines, parser) {
      @Override
      Row row() {
        double[] features = features(parser, layout);
        Object[] values = new Object[layout.names.length + 1];
        int k = 0;
        for (int i = 0; i < layout.names.length; i++) {
          if (layout.isFeature(i)) {
            values[i] = Double.parseDouble(parser.field(i));
          } else {
            String cell = parser.field(i);
            values[i] = cell.isEmpty() ? null : cell;
          }
        }
        values[layout.names.length] = Vectors.dense(features);
        return RowFactory.create(values);
      }
    };
  }

  private static double[] features(CsvParser parser, CsvLayout layout) {
    double[] x = new double[layout.featureIndices.length];
    for (int k = 0; k < x.length; k++) {
      x[k] = Double.parseDouble(parser.field(layout.featureIndices[k]));
    }
    return x;
  }

  private static StructType inputSchema(CsvLayout layout, String vectorColumn) {
    List<StructField> fields = new ArrayList<>();
    for (int i = 0; i < layout.names.length; i++) {
      fields.add(DataTypes.createStructField(layout.names[i],
          layout.isFeature(i) ? DataTypes.DoubleType : DataTypes.StringType, !layout.isFeature(i)));
    }
    fields.add(DataTypes.createStructField(vectorColumn, SQLDataTypes.VectorType(), false));
    return DataTypes.createStructType(fields);
  }

  /** The rows of CSV lines: each file's first line is its header. */
  private abstract static class CsvRows extends LineRows {
    private final CsvParser parser;

    CsvRows(Iterator<Tuple2<LongWritable, Text>> lines, CsvParser parser) {
      super(lines, true);
      this.parser = parser;
    }

    @Override
    String parse(String line) {
      return parser.split(line);
    }

    @Override
    boolean isBlank() {
      return parser.isBlank();
    }
  }
}
