package io.github.sparkperceptron.io;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.api.java.JavaNewHadoopRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
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
 * Reads LIBSVM text files ({@code label index:value ...}, 1-based indices) into a DataFrame of
 * (label, sparse features), in two passes: the first checks every line and measures the files
 * (largest index, label set), the second builds the rows.
 *
 * <p>Labels: class indices 0 .. K−1 are kept. A file whose labels are all −1 or +1 is read with −1
 * mapped to 0 and +1 to 1 (the usual binary LIBSVM convention). Any other negative or fractional
 * label is an error naming its line.
 */
public final class LibSvmSource {
  static final StructType SCHEMA = new StructType(new StructField[] {
      DataTypes.createStructField("label", DataTypes.DoubleType, false),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), false)});

  private LibSvmSource() {
  }

  /** A bad line: file, byte offset of the line, reason. */
  private static final class Problem implements Serializable {
    private static final long serialVersionUID = 1L;
    final String file;
    final long offset;
    final String reason;

    Problem(String file, long offset, String reason) {
      this.file = file;
      this.offset = offset;
      this.reason = reason;
    }
  }

  /** What the first pass learns from one split. */
  private static final class SplitReport implements Serializable {
    private static final long serialVersionUID = 1L;
    long rows;
    int maxIndex = -1;
    boolean sawMinusOne;
    boolean sawOtherThanPlusMinusOne;
    Problem firstBadLine;
    /** The first label that is not a class index (negative or fractional). */
    Problem firstOddLabel;
  }

  /**
   * Reads {@code path}.
   *
   * @param numFeatures the feature count the rows must fit (e.g. a model's), or −1 to use the
   *     largest index found
   * @param role what the data are for, used in messages, e.g. "training data (--train)"
   */
  public static LabeledData read(SparkSession spark, String path, int numFeatures, String role) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    InputPaths.requireReadable(conf, path, role);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    @SuppressWarnings("unchecked")
    JavaNewHadoopRDD<LongWritable, Text> lines = (JavaNewHadoopRDD<LongWritable, Text>)
        jsc.newAPIHadoopFile(path, TextInputFormat.class, LongWritable.class, Text.class,
            new Configuration(conf));

    List<SplitReport> reports = lines.mapPartitionsWithInputSplit(
        (split, it) -> Collections.singletonList(check(split, it, numFeatures)).iterator(), true)
        .collect();

    int maxIndex = -1;
    long rows = 0;
    boolean minusOne = false;
    boolean other = false;
    Problem oddLabel = null;
    for (SplitReport r : reports) {
      if (r.firstBadLine != null) {
        throw located(conf, r.firstBadLine, role);
      }
      maxIndex = Math.max(maxIndex, r.maxIndex);
      rows += r.rows;
      minusOne |= r.sawMinusOne;
      other |= r.sawOtherThanPlusMinusOne;
      if (oddLabel == null) {
        oddLabel = r.firstOddLabel;
      }
    }
    if (rows == 0) {
      throw new BadInputException("The " + role + " at '" + path + "' hold no examples (only"
          + " blank or comment lines)");
    }
    boolean mapPlusMinusOne = minusOne && !other;
    if (!mapPlusMinusOne && oddLabel != null) {
      throw located(conf, oddLabel, role);
    }
    int d = numFeatures >= 0 ? numFeatures : maxIndex + 1;

    JavaRDD<Row> rowRdd = lines.values().mapPartitions(it -> toRows(it, d, mapPlusMinusOne));
    return new LabeledData(spark.createDataFrame(rowRdd, SCHEMA), d,
        mapPlusMinusOne ? "labels -1/+1 mapped to 0/1" : "");
  }

  private static BadInputException located(Configuration conf, Problem p, String role) {
    return new BadInputException(InputPaths.place(conf, p.file, p.offset) + ": " + p.reason
        + " (" + role + ", LIBSVM format: label index:value ..., 1-based increasing indices)");
  }

  private static SplitReport check(InputSplit split, Iterator<Tuple2<LongWritable, Text>> it,
      int numFeatures) {
    String file = split instanceof FileSplit ? ((FileSplit) split).getPath().toString() : "?";
    SplitReport report = new SplitReport();
    LibSvmParser parser = new LibSvmParser();
    while (it.hasNext()) {
      Tuple2<LongWritable, Text> line = it.next();
      String error = parser.parse(line._2().toString());
      if (error != null) {
        report.firstBadLine = new Problem(file, line._1().get(), error);
        return report;
      }
      if (parser.isBlank()) {
        continue;
      }
      if (numFeatures >= 0 && parser.maxIndex() >= numFeatures) {
        report.firstBadLine = new Problem(file, line._1().get(), "feature index "
            + (parser.maxIndex() + 1) + " exceeds the " + numFeatures
            + " features of the training data or model");
        return report;
      }
      double label = parser.label();
      if (label == -1.0) {
        report.sawMinusOne = true;
      } else if (label != 1.0) {
        report.sawOtherThanPlusMinusOne = true;
      }
      if (report.firstOddLabel == null && (label < 0 || label != Math.rint(label))) {
        report.firstOddLabel = new Problem(file, line._1().get(), "label " + label
            + " is not a class index 0, 1, ..., K-1 (only a file of -1/+1 labels is mapped"
            + " to 0/1)");
      }
      report.maxIndex = Math.max(report.maxIndex, parser.maxIndex());
      report.rows++;
    }
    return report;
  }

  /** Lazily turns lines into rows, so a partition is never held in memory twice. */
  private static Iterator<Row> toRows(Iterator<Text> lines, int numFeatures,
      boolean mapPlusMinusOne) {
    LibSvmParser parser = new LibSvmParser();
    return new Iterator<Row>() {
      private Row next = advance();

      private Row advance() {
        while (lines.hasNext()) {
          String line = lines.next().toString();
          if (parser.parse(line) != null) {
            throw new IllegalStateException("a line changed between two reads: " + line);
          }
          if (!parser.isBlank()) {
            double label = parser.label();
            if (mapPlusMinusOne) {
              label = label > 0 ? 1.0 : 0.0;
            }
            int n = parser.size();
            return RowFactory.create(label, Vectors.sparse(numFeatures,
                Arrays.copyOf(parser.indices(), n), Arrays.copyOf(parser.values(), n)));
          }
        }
        return null;
      }

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public Row next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        Row current = next;
        next = advance();
        return current;
      }
    };
  }
}
