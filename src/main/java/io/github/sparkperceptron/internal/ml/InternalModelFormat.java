package io.github.sparkperceptron.internal.ml;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.util.MLFormatRegister;
import org.apache.spark.sql.SparkSession;
import scala.collection.mutable.Map;

/**
 * Format {@code "internal"} of {@link PerceptronClassificationModel}: Spark's layout
 * ({@code metadata/}, {@code data/}, {@code vote/}), which {@code PerceptronClassificationModel.load}
 * reads. Registered in {@code META-INF/services/org.apache.spark.ml.util.MLFormatRegister}, as
 * Spark registers the internal writer of its {@code LinearRegressionModel}, so that a plain
 * {@code new GeneralMLWriter(model)} finds it; the model's own writer ({@code model.write()})
 * writes this format without the look-up. Public with a no-argument constructor because
 * {@link java.util.ServiceLoader} instantiates it; not an API.
 */
public final class InternalModelFormat implements MLFormatRegister {
  /** The format's name, as {@code GeneralMLWriter.format} takes it. */
  public static final String NAME = "internal";

  @Override
  public String format() {
    return NAME;
  }

  @Override
  public String stageName() {
    return PerceptronClassificationModel.class.getName();
  }

  @Override
  public void write(String path, SparkSession session, Map<String, String> optionMap,
      PipelineStage stage) {
    EngineBridge.saveInternal((PerceptronClassificationModel) stage, path, session);
  }
}
