package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.store.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a stream's model to a fixed path while readers may load it: the model is saved
 * complete under a temporary sibling name, then swapped in ({@link AtomicFiles#swapIn}) by two
 * renames (the old version
 * aside, the new one into place) and the old version deleted. A reader therefore finds either
 * the previous complete model or the new one; only a load that overlaps the swap itself (two
 * renames, microseconds on a local disk or HDFS) can fail, and succeeds when retried.
 *
 * <p>If the driver dies between the two renames, the next {@link #recover} puts the previous
 * version back.
 */
final class ModelPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(ModelPublisher.class);

  private ModelPublisher() {
  }

  static void publish(SparkSession spark, PerceptronClassificationModel model, String target) {
    Path dst = new Path(target);
    Path temporary = AtomicFiles.temporarySibling(dst);
    FileSystem fs;
    try {
      fs = dst.getFileSystem(spark.sparkContext().hadoopConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach the model path '" + target + "'", e);
    }
    try {
      model.write().session(spark).save(temporary.toString());
      AtomicFiles.swapIn(fs, temporary, dst);
    } catch (IOException e) {
      AtomicFiles.discard(fs, temporary);
      throw new UncheckedIOException("Cannot publish the model to '" + target + "'", e);
    } catch (RuntimeException e) {
      AtomicFiles.discard(fs, temporary);
      throw e;
    }
  }

  /**
   * Cleans up after a driver that died while publishing to {@code target}: restores the previous
   * version if the new one never arrived, and removes leftover temporary and old versions.
   */
  static void recover(SparkSession spark, String target) {
    Path dst = new Path(target);
    try {
      FileSystem fs = dst.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (AtomicFiles.recoverSwap(fs, dst)) {
        LOG.warn("Restored the previously published model {} (the last publication was"
            + " interrupted)", dst);
      }
    } catch (IOException e) {
      LOG.warn("Could not check {} for an interrupted publication: {}", target, e.getMessage());
    }
  }
}
