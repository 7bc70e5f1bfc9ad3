package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a stream's model to a fixed path while readers may load it: the model is saved
 * complete under a temporary sibling name, then swapped in by two renames (the old version
 * aside, the new one into place) and the old version deleted. A reader therefore finds either
 * the previous complete model or the new one; only a load that overlaps the swap itself (two
 * renames, microseconds on a local disk or HDFS) can fail, and succeeds when retried.
 *
 * <p>If the driver dies between the two renames, the next {@link #recover} puts the previous
 * version back.
 */
final class ModelPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(ModelPublisher.class);
  private static final String TEMPORARY = ".tmp-";
  private static final String OLD = ".old-";

  private ModelPublisher() {
  }

  static void publish(SparkSession spark, PerceptronClassificationModel model, String target) {
    Path dst = new Path(target);
    Path parent = dst.getParent() == null ? new Path(".") : dst.getParent();
    String id = UUID.randomUUID().toString();
    Path temporary = new Path(parent, "." + dst.getName() + TEMPORARY + id);
    Path old = new Path(parent, "." + dst.getName() + OLD + id);
    FileSystem fs;
    try {
      fs = dst.getFileSystem(spark.sparkContext().hadoopConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach the model path '" + target + "'", e);
    }
    try {
      model.write().session(spark).save(temporary.toString());
      boolean had = fs.exists(dst);
      if (had && !fs.rename(dst, old)) {
        throw new IOException("rename of " + dst + " to " + old + " failed");
      }
      if (!fs.rename(temporary, dst)) {
        if (had) {
          fs.rename(old, dst);
        }
        throw new IOException("rename of " + temporary + " to " + dst + " failed");
      }
      if (had) {
        fs.delete(old, true);
      }
    } catch (IOException e) {
      discard(fs, temporary);
      throw new UncheckedIOException("Cannot publish the model to '" + target + "'", e);
    } catch (RuntimeException e) {
      discard(fs, temporary);
      throw e;
    }
  }

  /**
   * Cleans up after a driver that died while publishing to {@code target}: restores the previous
   * version if the new one never arrived, and removes leftover temporary and old versions.
   */
  static void recover(SparkSession spark, String target) {
    Path dst = new Path(target);
    Path parent = dst.getParent() == null ? new Path(".") : dst.getParent();
    try {
      FileSystem fs = dst.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(parent)) {
        return;
      }
      String prefix = "." + dst.getName();
      for (FileStatus f : fs.listStatus(parent)) {
        String name = f.getPath().getName();
        if (name.startsWith(prefix + OLD)) {
          if (!fs.exists(dst) && fs.rename(f.getPath(), dst)) {
            LOG.warn("Restored the previously published model {} (the last publication was"
                + " interrupted)", dst);
          } else {
            fs.delete(f.getPath(), true);
          }
        } else if (name.startsWith(prefix + TEMPORARY)) {
          fs.delete(f.getPath(), true);
        }
      }
    } catch (IOException e) {
      LOG.warn("Could not check {} for an interrupted publication: {}", target, e.getMessage());
    }
  }

  private static void discard(FileSystem fs, Path temporary) {
    try {
      fs.delete(temporary, true);
    } catch (IOException | RuntimeException ignored) {
      // the temporary name marks it; recover() removes it later
    }
  }
}
