package io.github.sparkperceptron.ml;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Reading saved stages with errors that say which directory is wrong and how, instead of Spark's
 * "requirement failed" or a Parquet stack trace.
 */
final class ModelFiles {
  private ModelFiles() {
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
