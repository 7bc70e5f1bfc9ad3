package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.api.java.JavaNewHadoopRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/** Checks and lookups on Hadoop paths (local, {@code file://}, {@code hdfs://}, globs). */
final class InputPaths {
  private InputPaths() {
  }

  /**
   * Fails with a one-line message unless {@code path} (a file, a directory or a glob) names at
   * least one non-empty file.
   *
   * @param role what the path is for, e.g. "training data (--train)"
   */
  public static void requireReadable(Configuration conf, String path, String role) {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(conf);
      FileStatus[] matches = fs.globStatus(p);
      if (matches == null || matches.length == 0) {
        throw new BadInputException("The " + role + " path '" + path + "' does not exist");
      }
      long bytes = 0;
      for (FileStatus m : matches) {
        bytes += m.isDirectory() ? fs.getContentSummary(m.getPath()).getLength() : m.getLen();
      }
      if (bytes == 0) {
        throw new BadInputException("The " + role + " path '" + path + "' holds no data (0 bytes)");
      }
    } catch (IOException e) {
      throw new BadInputException("Cannot read the " + role + " path '" + path + "': "
          + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      if (e instanceof BadInputException) {
        throw e;
      }
      throw new BadInputException("The " + role + " path '" + path + "' is not a valid path: "
          + e.getMessage(), e);
    }
  }

  /**
   * The lines of a text input, keyed by their byte offset and readable per input split (which
   * names the file), after checking that the path holds data. Both text readers start here.
   */
  @SuppressWarnings("unchecked")
  public static JavaNewHadoopRDD<LongWritable, Text> textLines(SparkSession spark, String path,
      String role) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    requireReadable(conf, path, role);
    return (JavaNewHadoopRDD<LongWritable, Text>) JavaSparkContext
        .fromSparkContext(spark.sparkContext())
        .newAPIHadoopFile(path, TextInputFormat.class, LongWritable.class, Text.class,
            new Configuration(conf));
  }

  /**
   * The 1-based line number of the line that starts at byte {@code offset} of the (decompressed)
   * file: Hadoop's text reader reports offsets, users count lines. Line breaks are counted as
   * Hadoop's reader splits lines: LF, CR and CR LF each end one line.
   */
  public static long lineNumber(Configuration conf, String file, long offset) {
    Path p = new Path(file);
    try {
      FileSystem fs = p.getFileSystem(conf);
      CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(p);
      try (InputStream raw = fs.open(p);
          InputStream in = codec == null ? raw : codec.createInputStream(raw)) {
        byte[] buffer = new byte[1 << 16];
        long seen = 0;
        long breaks = 0;
        byte previous = 0;
        while (seen < offset) {
          int n = in.read(buffer, 0, (int) Math.min(buffer.length, offset - seen));
          if (n < 0) {
            break;
          }
          for (int i = 0; i < n; i++) {
            byte b = buffer[i];
            if (b == '\r' || (b == '\n' && previous != '\r')) {
              breaks++;
            }
            previous = b;
          }
          seen += n;
        }
        return breaks + 1;
      }
    } catch (IOException e) {
      return -1;
    }
  }

  /** "file:line" (or "file, byte offset N" when the line cannot be counted). */
  public static String place(Configuration conf, String file, long offset) {
    long line = lineNumber(conf, file, offset);
    String name = file.startsWith("file:") ? new Path(file).toUri().getPath() : file;
    return line > 0 ? name + ":" + line : name + ", byte offset " + offset;
  }
}
