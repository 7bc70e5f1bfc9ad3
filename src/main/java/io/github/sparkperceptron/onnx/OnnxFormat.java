package io.github.sparkperceptron.onnx;

import io.github.sparkperceptron.internal.store.AtomicFiles;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.util.MLFormatRegister;
import org.apache.spark.sql.SparkSession;
import scala.collection.mutable.Map;

/**
 * Format {@code "onnx"} of {@link PerceptronClassificationModel}:
 * {@code model.write().format("onnx").save(path)} writes the model's ONNX graph
 * ({@link OnnxExport}) to {@code path/}{@value #FILE_NAME}.
 *
 * <p>{@code path} is a directory, as for every Spark ML writer and as Spark's own alternative
 * format, PMML ({@code LinearRegressionModel.write.format("pmml")}), writes it: {@code save}
 * refuses an existing {@code path} unless {@code overwrite()} is set, and any Hadoop path works
 * (local, HDFS, S3...). The file is written on the driver under a temporary name and renamed, so
 * a reader never sees half a model. Found by Spark's {@code GeneralMLWriter} through
 * {@code META-INF/services/org.apache.spark.ml.util.MLFormatRegister} (hence public, with a
 * no-argument constructor).
 */
public final class OnnxFormat implements MLFormatRegister {
  /** The name of the ONNX file inside the saved directory. */
  public static final String FILE_NAME = "model.onnx";

  @Override
  public String format() {
    return "onnx";
  }

  @Override
  public String stageName() {
    return PerceptronClassificationModel.class.getName();
  }

  @Override
  public void write(String path, SparkSession session, Map<String, String> optionMap,
      PipelineStage stage) {
    PerceptronClassificationModel model = (PerceptronClassificationModel) stage;
    OnnxExport.checkExportable(model);
    Path dir = new Path(path);
    try {
      FileSystem fs = dir.getFileSystem(session.sparkContext().hadoopConfiguration());
      if (fs instanceof LocalFileSystem local) {
        // no hidden .crc file beside the model: ONNX readers do not expect one
        fs = local.getRawFileSystem();
      }
      AtomicFiles.write(fs, new Path(dir, FILE_NAME), out -> OnnxExport.write(model, out));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write the ONNX model to " + path, e);
    }
  }
}
