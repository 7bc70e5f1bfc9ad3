package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.ml.InternalModelFormat;
import java.io.IOException;
import org.apache.spark.SparkException;
import org.apache.spark.ml.util.GeneralMLWriter;

/**
 * The model's writer. Spark's {@link GeneralMLWriter} finds the writer of a named format among
 * the {@code MLFormatRegister} services ({@code META-INF/services}); this one writes the default
 * format, {@code "internal"} (Spark's layout, {@link InternalModelFormat}), itself and leaves only
 * the other formats ({@code "onnx"}, a user's own) to that look-up. So {@code save(path)} works
 * wherever the model class loads, also under a class loader whose service files Spark cannot see
 * (a REPL's), and writes exactly what the writer before formats wrote.
 */
final class ModelWriter extends GeneralMLWriter {
  private final PerceptronClassificationModel model;
  private String format = InternalModelFormat.NAME;

  ModelWriter(PerceptronClassificationModel model) {
    super(model);
    this.model = model;
  }

  @Override
  public GeneralMLWriter format(String source) {
    this.format = source;
    return super.format(source);
  }

  @Override
  public void saveImpl(String path) {
    if (InternalModelFormat.NAME.equalsIgnoreCase(format)) {
      PerceptronClassificationModel.saveInternal(model, path, sparkSession());
      return;
    }
    try {
      super.saveImpl(path);
    } catch (IOException | SparkException e) {
      // Scala declares them and throws them unchecked; Java's override may not declare them.
      // Rethrown as they are, so a format that is not found fails as for Spark's own models.
      throw ModelWriter.<RuntimeException>rethrow(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> E rethrow(Exception e) throws E {
    throw (E) e;
  }
}
