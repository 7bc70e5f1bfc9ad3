package io.github.sparkperceptron.ml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.sparkperceptron.internal.plan.MemoryPlan;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWriter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.json4s.JInt;
import org.json4s.JObject;
import org.json4s.JValue;
import scala.Option;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.math.BigInt;

/**
 * Saving and reading stages: Spark's layout plus a format version, and errors that say which
 * directory is wrong and how, instead of Spark's "requirement failed" or a Parquet stack trace.
 *
 * <p><b>Format version.</b> Every saved estimator and model carries {@value #FORMAT_VERSION_KEY}
 * in its {@code metadata/} JSON (Spark's "extra metadata"): the version of the layout of its
 * {@code data/} and {@code vote/} directories. A change to that layout that old readers cannot
 * read raises {@link #FORMAT_VERSION} and keeps reading the older versions; a reader refuses a
 * version newer than its own with a message, rather than misreading it. Directories saved before
 * versioning have no version and the layout of version 1.
 *
 * <pre>
 * 1  data/: one Parquet row (numClasses, numFeatures, coefficientMatrix K'×d, interceptVector);
 *    vote/starts and vote/segments for a voted model; initialModel/ beside an estimator
 * 2  as 1, plus calibration/ in every model: its calibrator ({@link CalibratorFiles}); a model
 *    of version 1 reads with the uncalibrated link (calibration=none)
 * </pre>
 */
final class ModelFiles {
  private ModelFiles() {
  }

  /** The version of the saved layout this code writes, and the newest it reads. */
  static final int FORMAT_VERSION = 2;
  /** The metadata field that holds it. */
  static final String FORMAT_VERSION_KEY = "formatVersion";

  /** Spark's {@code metadata/} for {@code instance}, with the format version added. */
  static void saveMetadata(Params instance, String path, SparkSession spark) {
    List<Tuple2<String, JValue>> fields = List.of(new Tuple2<>(FORMAT_VERSION_KEY,
        new JInt(BigInt.apply(FORMAT_VERSION))));
    JObject extra = new JObject(CollectionConverters.asScala(fields).toList());
    DefaultParamsWriter.saveMetadata(instance, path, spark, Option.apply(extra));
  }

  /**
   * The format version a saved stage's metadata declares: 1 when it has none (saved before
   * versioning).
   *
   * @throws IllegalArgumentException when it is not a whole number, or newer than this code reads
   */
  static int formatVersion(DefaultParamsReader.Metadata metadata, String path) {
    JsonNode version;
    try {
      version = new ObjectMapper().readTree(metadata.metadataJson()).get(FORMAT_VERSION_KEY);
    } catch (IOException e) {
      throw new IllegalArgumentException("'" + path + "' has unreadable metadata ("
          + firstLine(e) + ")", e);
    }
    if (version == null) {
      return 1;
    }
    if (!version.canConvertToInt() || !version.isIntegralNumber() || version.asInt() < 1) {
      throw new IllegalArgumentException("'" + path + "' declares " + FORMAT_VERSION_KEY + " "
          + version + " in its metadata, which is not a format version (a whole number >= 1);"
          + " the directory is damaged or was written by another program");
    }
    if (version.asInt() > FORMAT_VERSION) {
      throw new IllegalArgumentException("'" + path + "' holds a "
          + simpleName(metadata.className()) + " saved in format version " + version.asInt()
          + " by a newer spark-perceptron (with Spark " + metadata.sparkVersion() + "); this"
          + " version reads format versions up to " + FORMAT_VERSION
          + ": load it with a newer spark-perceptron");
    }
    return version.asInt();
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  static DefaultParamsReader.Metadata loadMetadata(String path, SparkSession spark,
      Class<?> expected) {
    Path metadataDir = new Path(path, "metadata");
    requireExists(spark, new Path(path), "a saved " + expected.getSimpleName());
    requireExists(spark, metadataDir, "the metadata/ directory of a saved "
        + expected.getSimpleName());
    DefaultParamsReader.Metadata metadata;
    try {
      metadata = DefaultParamsReader.loadMetadata(path, spark, "");
    } catch (Exception e) { // also the checked JsonParseException Scala code throws undeclared
      throw new IllegalArgumentException("'" + path + "' does not hold a readable saved Spark ML"
          + " stage: its metadata could not be parsed (" + firstLine(e) + ")", e);
    }
    if (!metadata.className().equals(expected.getName())) {
      throw new IllegalArgumentException("'" + path + "' holds a saved " + metadata.className()
          + ", not a " + expected.getName() + "; load it with that class instead");
    }
    formatVersion(metadata, path);
    return metadata;
  }

  static Row readSingleRow(SparkSession spark, String dir, String... columns) {
    requireExists(spark, new Path(dir), "the data/ directory of a saved model");
    try {
      Row[] rows = (Row[]) spark.read().parquet(dir).selectExpr(columns).collect();
      if (rows.length != 1) {
        throw new IllegalArgumentException("'" + dir + "' holds " + rows.length
            + " rows; a saved model has exactly one");
      }
      return rows[0];
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (Exception e) { // also the checked SparkException Scala code throws undeclared
      throw new IllegalArgumentException("'" + dir + "' is not readable model data ("
          + firstLine(e) + "); the model directory is damaged or was written by another program",
          e);
    }
  }

  /**
   * Checks a saved model's declared shape before anything of its size is allocated: the sizes
   * must agree with each other (a file that says otherwise was not written by this library, and
   * a sparse matrix can declare any size in a few bytes), and the coefficients must fit the heap.
   */
  static void requireShape(String path, int numClasses, int numFeatures, int matrixRows,
      int matrixCols, int intercepts) {
    int rows = numClasses == 2 ? 1 : numClasses;
    if (numClasses < 2 || numFeatures < 0 || matrixRows != rows || matrixCols != numFeatures
        || intercepts != rows || (long) rows * numFeatures > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("'" + new Path(path, "data") + "' is not readable model"
          + " data (it declares " + numClasses + " classes and " + numFeatures + " features, but"
          + " a " + matrixRows + " x " + matrixCols + " coefficient matrix and " + intercepts
          + " intercepts); the model directory is damaged or was written by another program");
    }
    MemoryPlan.requireModelLoadFits(path, numClasses, numFeatures);
  }

  static boolean exists(SparkSession spark, Path path) {
    try {
      Configuration conf = spark.sparkContext().hadoopConfiguration();
      FileSystem fs = path.getFileSystem(conf);
      return fs.exists(path);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot access '" + path + "': " + e.getMessage(), e);
    }
  }

  private static void requireExists(SparkSession spark, Path path, String what) {
    if (!exists(spark, path)) {
      throw new IllegalArgumentException("'" + path + "' does not exist; expected " + what);
    }
  }

  static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
