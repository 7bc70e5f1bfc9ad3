package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/** Loads the model a job's {@code --model} names, with one-line errors that say what is wrong. */
final class SavedModel {
  private SavedModel() {
  }

  /**
   * Loads a saved {@link PerceptronClassificationModel}; a missing path, a plain file or a damaged
   * or foreign model directory is bad input (exit 2).
   */
  static PerceptronClassificationModel load(SparkSession spark, String path) {
    requireDirectory(spark.sparkContext().hadoopConfiguration(), path);
    try {
      return PerceptronClassificationModel.load(path);
    } catch (Exception e) {
      // Everything load() can meet is a property of the directory: a missing part, unreadable
      // metadata or data, another class's model. (Spark's Scala code also throws the checked
      // SparkException without declaring it.)
      throw new BadInputException("Cannot load the model (--model) '" + path + "': "
          + JobFailure.oneLine(e), e);
    }
  }

  /** Fails (exit 2) unless {@code path} is a directory: a missing path or a plain file is bad input. */
  static void requireDirectory(Configuration conf, String path) {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(conf);
      if (!fs.exists(p)) {
        throw new BadInputException("The model (--model) '" + path + "' does not exist");
      }
      FileStatus status = fs.getFileStatus(p);
      if (!status.isDirectory()) {
        throw new BadInputException("The model (--model) '" + path + "' is a file; --model takes"
            + " the directory a model was saved to (by submit/train or model.write().save)");
      }
    } catch (IOException | IllegalArgumentException e) {
      if (e instanceof BadInputException) {
        throw (BadInputException) e;
      }
      throw new BadInputException("Cannot access the model (--model) '" + path + "': "
          + e.getMessage(), e);
    }
  }

  /** Fails unless the data have the model's number of features (the readers check it too). */
  static void requireSameWidth(PerceptronClassificationModel model, LabeledData data,
      String role) {
    if (data.numFeatures() != model.numFeatures()) {
      throw new BadInputException("The " + role + " have " + data.numFeatures() + " features,"
          + " but the model (--model) was trained on " + model.numFeatures());
    }
  }
}
