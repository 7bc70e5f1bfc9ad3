package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.spark.api.java.JavaNewHadoopRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Reads LIBSVM text files ({@code label index:value ...}, 1-based indices) into a DataFrame of
 * (label, sparse features), in two passes: the first checks every line and measures the files
 * (largest index, label set), the second builds the rows.
 *
 * <p>Labels follow {@link LabelCheck}: class indices 0 .. K−1 are kept, a file whose labels are
 * all −1 or +1 is read with −1 mapped to 0 and +1 to 1, and any other label that is not a class
 * index (of the model, when one is given) is an error naming its line. Read for predictions,
 * labels pass through as written.
 */
public final class LibSvmSource {
  private LibSvmSource() {
  }

  /**
   * Reads {@code path} as labelled data.
   *
   * @param numFeatures the feature count the rows must fit (e.g. a model's), or −1 to use the
   *     largest index found
   * @param role what the data are for, used in messages, e.g. "training data (--train)"
   */
  public static LabeledData read(SparkSession spark, String path, int numFeatures, String role) {
    return read(spark, path, ReadSpec.labelled().withNumFeatures(numFeatures, ""), role);
  }

  /**
   * Reads {@code path} as {@code spec} says (only its widths and label handling apply: LIBSVM
   * has no column names).
   *
   * @param role what the data are for, used in messages, e.g. "training data (--train)"
   */
  public static LabeledData read(SparkSession spark, String path, ReadSpec spec, String role) {
    JavaNewHadoopRDD<LongWritable, Text> lines = InputPaths.textLines(spark, path, role);
    Configuration conf = spark.sparkContext().hadoopConfiguration();

    List<SplitReport> reports = lines.mapPartitionsWithInputSplit(
        (split, it) -> Collections.singletonList(check(ReaderSupport.fileOf(split), it, spec))
            .iterator(), true)
        .collect();
    SplitReport.Verdict verdict = SplitReport.combine(conf, reports, spec, path, role,
        suffix(role));
    int d = spec.numFeatures() >= 0 ? spec.numFeatures() : verdict.maxIndex() + 1;
    boolean map = verdict.mapPlusMinusOne();

    JavaRDD<Row> rowRdd = lines.mapPartitions(it -> toRows(it, d, map));
    return new LabeledData(spark.createDataFrame(rowRdd, ReaderSupport.LABELLED_SCHEMA), d,
        verdict.labelNote());
  }

  /** What located messages end with: the data's role and a reminder of the format. */
  static String suffix(String role) {
    return " (" + role + ", LIBSVM format: label index:value ..., 1-based increasing indices)";
  }

  /**
   * The check pass over one split's (byte offset, line) records: stops at the first bad line,
   * measures the rest. Spark-free, so tests can run it on a file directly.
   */
  static SplitReport check(String file, Iterator<Tuple2<LongWritable, Text>> it, ReadSpec spec) {
    SplitReport report = new SplitReport();
    LibSvmParser parser = new LibSvmParser();
    int numFeatures = spec.numFeatures();
    long next = 0;
    try {
      while (it.hasNext()) {
        Tuple2<LongWritable, Text> line = it.next();
        long offset = line._1().get();
        next = offset + line._2().getLength() + 1;
        String error = parser.parse(line._2().toString());
        if (error != null) {
          report.firstBadLine = Problem.atLine(file, offset, error);
          return report;
        }
        if (parser.isBlank()) {
          continue;
        }
        if (numFeatures >= 0 && parser.maxIndex() >= numFeatures) {
          report.firstBadLine = Problem.atLine(file, offset, "feature index "
              + (parser.maxIndex() + 1) + " exceeds the " + numFeatures + " features of "
              + spec.widthSource());
          return report;
        }
        if (spec.labelsChecked()) {
          double label = parser.label();
          report.labels.observe(label, spec.numClasses(),
              why -> Problem.atLine(file, offset, "label " + label + " " + why));
        }
        report.maxIndex = Math.max(report.maxIndex, parser.maxIndex());
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

  /** Lazily turns checked (byte offset, line) records into (label, sparse features) rows. */
  static Iterator<Row> toRows(Iterator<Tuple2<LongWritable, Text>> lines, int numFeatures,
      boolean mapPlusMinusOne) {
    LibSvmParser parser = new LibSvmParser();
    return new LineRows(lines, false) {
      @Override
      String parse(String line) {
        return parser.parse(line);
      }

      @Override
      boolean isBlank() {
        return parser.isBlank();
      }

      @Override
      Row row() {
        double label = LabelCheck.mapped(parser.label(), mapPlusMinusOne);
        int n = parser.size();
        return RowFactory.create(label, Vectors.sparse(numFeatures,
            Arrays.copyOf(parser.indices(), n), Arrays.copyOf(parser.values(), n)));
      }
    };
  }
}
