package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.onnx.OnnxExport;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code submit/export}: writes a saved {@link PerceptronClassificationModel} as one ONNX file,
 * for serving it outside Spark ({@link OnnxExport}). A model too large for one ONNX file (2 GiB)
 * is refused with one line and exit code 2, before anything is written.
 */
@Command(name = "export", sortOptions = false, mixinStandardHelpOptions = true,
    versionProvider = JobVersion.class,
    description = "Export a saved perceptron model as an ONNX file: input features (double"
        + " [N, d], dense), outputs prediction (double [N]) and rawPrediction (double [N, K'],"
        + " Spark's raw prediction).",
    footer = {"", "Score it with ONNX Runtime (Java, Python, C#, C++, JavaScript) or any ONNX"
        + " runtime with double kernels for the standard operators at opset "
        + OnnxExport.OPSET + ".",
        "Spark options (--master, --conf, --properties-file, --driver-memory, ...) go to"
        + " spark-submit; the default master is local[*].",
        "Exit codes: 0 success, 2 bad usage or bad input (e.g. a model too large to export),"
        + " 1 any other failure."})
public final class ExportJob implements Callable<Integer> {
  /** The export formats. */
  enum Format { onnx }

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "a model saved by submit/train (or PerceptronClassificationModel.save)")
  String modelPath;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "onnx",
      description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
  Format format;

  @Option(names = "--output", required = true, paramLabel = "FILE.onnx",
      description = "the file to write: local, file:// or hdfs://")
  String outputPath;

  @Option(names = "--overwrite", description = "replace an existing output file")
  boolean overwrite;

  @Mixin
  JobConfOption jobConf;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.exit(JobSupport.run(new ExportJob(), args));
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    SparkSession spark = JobSupport.session("spark-perceptron export");
    ModelOutput output = new ModelOutput(spark.sparkContext().hadoopConfiguration());
    output.checkWritable(outputPath, overwrite, "--output");

    PerceptronClassificationModel model = SavedModel.load(spark, modelPath);
    OnnxExport.checkExportable(model);
    byte[] onnx = OnnxExport.toBytes(model);
    output.writeBytes(outputPath, onnx);
    int k = model.numClasses();
    out.printf(Locale.ROOT, "ONNX model of %s (%d classes, %d features, averaging=%s%s) written"
        + " to %s: %,d bytes, opset %d; input features double [N, %d], outputs prediction"
        + " double [N] and rawPrediction double [N, %d]%n", modelPath, k, model.numFeatures(),
        model.getAveraging(), k == 2 ? ", threshold=" + model.getThreshold() : "", outputPath,
        onnx.length, OnnxExport.OPSET, model.numFeatures(), k == 2 ? 2 : k);
    out.flush();
    return JobFailure.OK;
  }
}
