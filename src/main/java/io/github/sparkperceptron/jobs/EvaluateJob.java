package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code submit/evaluate}: measures a saved {@link PerceptronClassificationModel} on labelled
 * data: accuracy, precision, recall and F1 per class, the confusion matrix and, for binary
 * models, the areas under the ROC and precision-recall curves; printed, and optionally as JSON.
 */
@Command(name = "evaluate", sortOptions = false, mixinStandardHelpOptions = true,
    versionProvider = JobVersion.class,
    description = "Evaluate a saved perceptron model on labelled data.",
    footer = {"", "Spark options (--master, --conf, --properties-file, --driver-memory, ...) go to"
        + " spark-submit; the default master is local[*].",
        "Exit codes: 0 success, 2 bad usage or bad input, 1 any other failure."})
public final class EvaluateJob implements Callable<Integer> {

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "a model saved by submit/train (or PerceptronClassificationModel.save)")
  String modelPath;

  @Option(names = "--input", required = true, paramLabel = "PATH",
      description = "labelled data: a file, directory or glob; local, file:// or hdfs://")
  String inputPath;

  @Mixin
  InputOptions input;

  @Option(names = "--metrics", paramLabel = "FILE.json",
      description = "also write the metrics as JSON")
  String metricsPath;

  @Option(names = "--overwrite", description = "replace an existing metrics file")
  boolean overwrite;

  @Mixin
  JobConfOption jobConf;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.exit(JobSupport.run(new EvaluateJob(), args));
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    ReadSpec columns = input.spec();
    // What needs no Spark first: a mistyped path is reported before Spark's start-up.
    new StartChecks().output(metricsPath, overwrite, "--metrics").model(modelPath)
        .input(inputPath, "evaluation data (--input)");
    SparkSession spark = JobSupport.session("spark-perceptron evaluate");
    ModelOutput output = new ModelOutput(spark.sparkContext().hadoopConfiguration());
    if (metricsPath != null) {
      output.checkWritable(metricsPath, overwrite, "--metrics");
    }

    PerceptronClassificationModel model = SavedModel.load(spark, modelPath);
    LabeledData data = input.format.read(spark, inputPath,
        columns.withNumFeatures(model.numFeatures(), "the model")
            .withNumClasses(model.numClasses()),
        "evaluation data (--input)");
    SavedModel.requireSameWidth(model, data, "evaluation data (--input)");
    if (!data.labelNote().isEmpty()) {
      out.println("Evaluation data: " + data.labelNote());
    }
    Evaluation evaluation = Evaluation.of(model, data.frame());
    out.print(evaluation.describe("Evaluation of " + modelPath + " on " + inputPath));

    if (metricsPath != null) {
      ObjectNode root = Json.object();
      root.put("model", modelPath);
      ObjectNode about = root.putObject("data");
      about.put("input", inputPath);
      about.put("format", input.format.name());
      about.put("numFeatures", model.numFeatures());
      about.put("numClasses", model.numClasses());
      evaluation.writeTo(root);
      output.writeText(metricsPath, Json.write(root));
      out.println("Metrics written to " + metricsPath);
    }
    out.flush();
    return JobFailure.OK;
  }
}
