package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.io.LabeledData;
import io.github.sparkperceptron.io.LibSvmSource;
import org.apache.spark.sql.SparkSession;

/** The input formats the jobs read (picocli lists these names in --help). */
enum DataFormat {
  libsvm;

  /**
   * Reads labelled data.
   *
   * @param numFeatures the width the rows must have (the model's, or the training data's for a
   *     test set), or −1 to infer it
   */
  LabeledData read(SparkSession spark, String path, int numFeatures, String role) {
    switch (this) {
      case libsvm:
        return LibSvmSource.read(spark, path, numFeatures, role);
      default:
        throw new IllegalStateException("unsupported format " + this);
    }
  }
}
