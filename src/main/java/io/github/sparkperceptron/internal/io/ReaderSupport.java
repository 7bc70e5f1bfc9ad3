package io.github.sparkperceptron.internal.io;

import static org.apache.spark.sql.functions.col;

import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What the three readers ({@link LibSvmSource}, {@link CsvSource}, {@link ParquetSource}) share:
 * the schema of labelled data, column and file names, and the messages they have in common. The
 * row iterator of the two text readers is {@link LineRows}.
 */
public final class ReaderSupport {
  private ReaderSupport() {
  }

  /** Labelled data as every reader returns it: (label double, features vector). */
  static final StructType LABELLED_SCHEMA = new StructType(new StructField[] {
      DataTypes.createStructField("label", DataTypes.DoubleType, false),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), false)});

  /**
   * The column named {@code name}, taken literally: {@code col("a.b")} would select field b of a
   * struct column a, and a backtick would start a quoted name.
   */
  public static Column column(String name) {
    return col("`" + name.replace("`", "``") + "`");
  }

  /** {@code wanted}, prefixed with underscores until no column in {@code taken} has that name. */
  static String freeName(String[] taken, String wanted) {
    String name = wanted;
    while (Arrays.asList(taken).contains(name)) {
      name = "_" + name;
    }
    return name;
  }

  /** The file an input split reads, for messages ("?" for a split that is not a file's). */
  static String fileOf(InputSplit split) {
    return split instanceof FileSplit ? ((FileSplit) split).getPath().toString() : "?";
  }

  /**
   * The first line of an exception's message (Spark's run over many lines, with a plan or a
   * stack trace), or its class name when it has none: what a one-line error quotes.
   */
  static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl).strip();
  }

  /**
   * Fails with the readers' one-line message when {@code path} certainly holds no data: it does
   * not exist, is not a valid path, or its files are all empty. What a job checks before it
   * starts Spark, so that a mistyped path is reported in a second rather than after Spark's
   * start-up. A file system it cannot reach (a client that is not on the class path, credentials
   * that Spark would set up) is left to the readers, which check again.
   */
  public static void requireReadableIfReachable(Configuration conf,
      String path, String role) {
    try {
      InputPaths.requireReadable(conf, path, role);
    } catch (BadInputException e) {
      if (!(e.getCause() instanceof IOException)) {
        throw e;
      }
    }
  }

  /** The error for input that holds files but not one example. */
  static BadInputException noExamples(String role, String path) {
    return new BadInputException("The " + role + " at '" + path + "' hold no examples (only"
        + " blank, comment or header lines)");
  }

  /**
   * Why a text input could not be read past a point, for a {@link Problem}: Hadoop's readers
   * throw {@link java.io.IOException} (undeclared, through Spark's iterators) when a compressed
   * file ends early or is corrupt, which would otherwise abort the job with a stack trace.
   */
  static String unreadable(String file, IOException e) {
    boolean compressed = new CompressionCodecFactory(
        new Configuration(false))
        .getCodec(new Path(file)) != null;
    String cause = e.getClass().getSimpleName() + ": " + e.getMessage();
    return compressed
        ? "the compressed file ends early or is damaged (" + cause + "), so nothing from here on"
            + " can be read; copy or compress it again"
        : "the file cannot be read from here on (" + cause + ")";
  }
}
