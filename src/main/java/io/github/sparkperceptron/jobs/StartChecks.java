package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.ReaderSupport;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/**
 * What a job checks before it starts Spark (which takes seconds, and much longer on a busy
 * machine): that its inputs hold data and that its outputs may be written, with the messages the
 * checks after start-up give. The file systems are reached with the Hadoop configuration the
 * session will have: Hadoop's own (core-site.xml on the class path) plus the {@code spark.hadoop.*}
 * settings spark-submit passes (its {@code --conf} and properties file) and the job adds
 * ({@link JobSupport#addedSettings}). The readers and writers
 * check again once Spark runs.
 */
final class StartChecks {
  private final Configuration conf;
  private final ModelOutput output;

  StartChecks() {
    conf = new Configuration();
    SparkConf spark = new SparkConf();
    JobSupport.addedSettings(spark, conf).forEach(spark::set);
    for (Tuple2<String, String> e : spark.getAllWithPrefix("spark.hadoop.")) {
      conf.set(e._1(), e._2());
    }
    output = new ModelOutput(conf);
  }

  /** Fails (exit 2) when {@code path} certainly holds no data. */
  StartChecks input(String path, String role) {
    if (path != null) {
      ReaderSupport.requireReadableIfReachable(conf, path, role);
    }
    return this;
  }

  /** Fails (exit 2) when {@code target} exists and may not be replaced. */
  StartChecks output(String target, boolean overwrite, String flag) {
    if (target != null) {
      output.checkWritable(target, overwrite, flag);
    }
    return this;
  }

  /** Fails (exit 2) when {@code path} is certainly not a model: missing, or a plain file. */
  StartChecks model(String path) {
    try {
      SavedModel.requireDirectory(conf, path);
    } catch (BadInputException e) {
      if (!(e.getCause() instanceof IOException)) {
        throw e;
      }
    }
    return this;
  }

  /** The outputs' writer, for checks that need it (checkpoints). */
  ModelOutput outputs() {
    return output;
  }
}
