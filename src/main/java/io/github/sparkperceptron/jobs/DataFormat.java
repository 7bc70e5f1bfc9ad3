package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.io.CsvSource;
import io.github.sparkperceptron.io.LabeledData;
import io.github.sparkperceptron.io.LibSvmSource;
import io.github.sparkperceptron.io.ParquetSource;
import io.github.sparkperceptron.io.ReadSpec;
import org.apache.spark.sql.SparkSession;

/** The input formats the jobs read (picocli lists these names in --help). */
enum DataFormat {
  libsvm, csv, parquet;

  /**
   * Reads data as {@code spec} says.
   *
   * @param role what the data are for, for messages, e.g. "training data (--train)"
   */
  LabeledData read(SparkSession spark, String path, ReadSpec spec, String role) {
    switch (this) {
      case libsvm:
        return LibSvmSource.read(spark, path, spec, role);
      case csv:
        return CsvSource.read(spark, path, spec, role);
      case parquet:
        return ParquetSource.read(spark, path, spec, role);
      default:
        throw new IllegalStateException("unsupported format " + this);
    }
  }
}
