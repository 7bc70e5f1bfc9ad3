package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.ml.PerceptronTrainingSummary;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.storage.StorageLevel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code submit/train}: trains a {@link PerceptronClassifier} on a file, saves the model, and
 * reports training progress, accuracy on the training and (optionally) a test file, and a JSON
 * metrics file.
 */
@Command(name = "train", sortOptions = false, mixinStandardHelpOptions = true,
    versionProvider = JobVersion.class,
    description = "Train a perceptron classifier on Spark and save it as a Spark ML model.",
    footer = {"", "Spark options (--master, --conf, --properties-file, --driver-memory, ...) go to"
        + " spark-submit; the default master is local[*].",
        "Exit codes: 0 success, 2 bad usage or bad input, 1 any other failure."})
public final class TrainJob implements Callable<Integer> {

  @Option(names = "--train", required = true, paramLabel = "PATH",
      description = "training data: a file, directory or glob; local, file:// or hdfs://")
  String trainPath;

  @Option(names = "--test", paramLabel = "PATH",
      description = "test data, evaluated after training (same format)")
  String testPath;

  @Option(names = "--validation", paramLabel = "PATH",
      description = "validation data (same format): scored after every epoch; training stops"
          + " after --validation-patience epochs without a better accuracy and keeps the best"
          + " epoch's model")
  String validationPath;

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "where to save the model (Spark ML layout, loadable with"
          + " PerceptronClassificationModel.load)")
  String modelPath;

  @Mixin
  InputOptions input;

  @Option(names = "--num-features", paramLabel = "D", defaultValue = "-1",
      description = "number of features; -1 takes the largest LIBSVM index, or the number of"
          + " feature columns, in the training data (default: ${DEFAULT-VALUE})")
  int numFeatures;

  @Option(names = "--metrics", paramLabel = "FILE.json",
      description = "write training and test metrics and the per-epoch history as JSON")
  String metricsPath;

  @Option(names = "--plot", paramLabel = "FILE.png",
      description = "draw the training curves (mistakes, losses and, with --test or --validation,"
          + " accuracy per epoch) as a PNG, and beside it (FILE-reliability.png) the reliability"
          + " diagram of the model's probabilities on the test data (without --test: the training"
          + " data); with --test this scores the test data after every epoch")
  String plotPath;

  @Option(names = "--overwrite", description = "replace an existing model or metrics file")
  boolean overwrite;

  @Option(names = "--partitions", paramLabel = "P", defaultValue = "0",
      description = "repartition the training rows into P partitions (a shuffle that deals"
          + " them evenly, in a reproducible order) before the workers take them: for inputs"
          + " whose partitions differ in size, which workers that coalesce them inherit. 0 keeps"
          + " the input's partitions as read. The number of perceptrons is --workers, not P"
          + " (default: ${DEFAULT-VALUE})")
  int partitions;

  // The training flags (--max-iter, --update-rule, --workers, ...): one table shared with
  // stream-train, shown in --help under a heading of their own.
  @Mixin
  TrainingFlags training = new TrainingFlags(TrainingFlags.Scope.FIT);

  @Option(names = "--resume",
      description = "continue the training whose checkpoint is in --checkpoint-dir (same"
          + " arguments); without it, an existing checkpoint there is an error")
  boolean resume;

  @Mixin
  JobConfOption jobConf;

  @Spec
  CommandSpec spec;

  private PrintWriter out;

  private static final String VALIDATION_COLUMN = "isValidation";

  /** When main started (ms since the epoch), or 0 when the job runs without it (in tests). */
  private static long mainStartMillis;
  /** The JVM's CPU time when main started. */
  private static long mainStartCpuNanos;

  public static void main(String[] args) {
    mainStartMillis = System.currentTimeMillis();
    mainStartCpuNanos = StageTimes.processCpuNanos();
    System.exit(JobSupport.run(new TrainJob(), args));
  }

  /**
   * The estimator with the params the user gave (flags or --job-conf) and its own defaults for
   * the rest; its param validators check the values.
   */
  PerceptronClassifier estimator() {
    return training.applyTo(new PerceptronClassifier());
  }

  @Override
  public Integer call() {
    out = spec.commandLine().getOut();
    StageTimes times = new StageTimes(mainStartMillis, mainStartCpuNanos);
    PerceptronClassifier estimator = estimator();
    if (partitions < 0) {
      throw new IllegalArgumentException("--partitions must be >= 0, got " + partitions);
    }
    ReadSpec weighted = input.spec(estimator.getWeightCol());
    checkBeforeSpark(estimator);
    SparkSession spark = JobSupport.session("spark-perceptron train");
    times.end("spark");
    // Checked again now that Spark runs: its Hadoop configuration is the one that counts.
    checkOutputs(new ModelOutput(spark.sparkContext().hadoopConfiguration()), estimator);

    List<Double> testAccuracy = new ArrayList<>();
    try (TrainingData data = onePass(estimator)
        ? readOnePass(spark, estimator, weighted, testAccuracy)
        : readFrames(spark, estimator, weighted, testAccuracy)) {
      if (!data.labelNote.isEmpty()) {
        out.println("Training data: " + data.labelNote);
      }
      times.end("read");

      long start = System.nanoTime();
      PerceptronClassificationModel model = data.fit(estimator);
      double fitSeconds = (System.nanoTime() - start) / 1e9;
      times.end("train");

      save(new ModelOutput(spark.sparkContext().hadoopConfiguration()), model);
      times.end("save");

      Evaluation trainEval = data.evaluateTraining(model);
      Evaluation testEval = data.evaluateTest(model);
      Coefficients coefficients = Coefficients.of(model, data.featureNames,
          input.format == DataFormat.libsvm ? 1 : 0);
      times.end("evaluate");

      Fitted fitted = new Fitted(model, fitSeconds, trainEval, testEval, coefficients);
      printReport(fitted);
      ModelOutput output = new ModelOutput(spark.sparkContext().hadoopConfiguration());
      if (plotPath != null) {
        try {
          output.writeBytes(plotPath, TrainingPlot.png("Training curves: " + trainPath,
              model.summary(), testAccuracy));
        } catch (IOException e) {
          throw new UncheckedIOException("Could not draw the plot", e);
        }
        out.println("Plot written to " + plotPath);
        Evaluation shown = testEval != null ? testEval : trainEval;
        String reliability = ReliabilityPlot.besidePlot(plotPath);
        try {
          output.writeBytes(reliability, ReliabilityPlot.png("Reliability of the "
              + EngineBridge.calibrator(model).method().paramValue() + " probabilities on the "
              + (testEval != null ? "test" : "training") + " data", shown.probabilities));
        } catch (IOException e) {
          throw new UncheckedIOException("Could not draw the reliability diagram", e);
        }
        out.println("Reliability diagram written to " + reliability);
      }
      times.end("write");
      if (metricsPath != null) {
        // Last, so that the times in it cover everything else (writing it takes milliseconds).
        output.writeText(metricsPath, Json.write(metrics(fitted, estimator,
            data.inputPartitions, testAccuracy, times)));
        out.println("Metrics written to " + metricsPath);
      }
    }
    out.println("Model saved to " + modelPath);
    out.println(times.describe());
    out.flush();
    return JobFailure.OK;
  }

  /**
   * Whether the data take the one-pass path: text files, read by the workers straight into the
   * training blocks. Parquet (already binary: no text to parse, and Spark's columnar reader
   * splits it by row groups), a validation file (its rows join the training rows' workers) and
   * --partitions (a repartition of the rows) take the DataFrame path.
   */
  boolean onePass(PerceptronClassifier estimator) {
    return input.format != DataFormat.parquet && validationPath == null && partitions == 0;
  }

  /**
   * The checks that need no Spark, made before it starts: every input path holds data, and no
   * output would be overwritten without --overwrite; the flags were checked by then.
   */
  private void checkBeforeSpark(PerceptronClassifier estimator) {
    StartChecks checks = new StartChecks()
        .input(trainPath, "training data (--train)")
        .input(testPath, "test data (--test)")
        .input(validationPath, "validation data (--validation)");
    checkOutputs(checks.outputs(), estimator);
  }

  /** The outputs and the checkpoint directory: what must not be overwritten by accident. */
  private void checkOutputs(ModelOutput output, PerceptronClassifier estimator) {
    String checkpointDir = estimator.getCheckpointDir().isEmpty() ? null
        : estimator.getCheckpointDir();
    if (checkpointDir != null) {
      String existing = output.firstCheckpoint(checkpointDir);
      if (existing != null && !resume) {
        throw new IllegalArgumentException("--checkpoint-dir '" + checkpointDir + "' holds a"
            + " checkpoint (" + existing + "); pass --resume to continue that training, or use"
            + " an empty directory");
      }
    } else if (resume) {
      throw new IllegalArgumentException("--resume needs --checkpoint-dir");
    }
    output.checkWritable(modelPath, overwrite || resume, "--model");
    if (metricsPath != null) {
      output.checkWritable(metricsPath, overwrite, "--metrics");
    }
    if (plotPath != null) {
      output.checkWritable(plotPath, overwrite, "--plot");
      output.checkWritable(ReliabilityPlot.besidePlot(plotPath), overwrite,
          "--plot (its reliability diagram)");
    }
  }

  private void save(ModelOutput output, PerceptronClassificationModel model) {
    String temporary = output.temporarySibling(modelPath);
    try {
      model.write().save(temporary);
      output.commit(temporary, modelPath);
    } catch (IOException e) {
      output.discard(temporary);
      throw new UncheckedIOException("Could not save the model to '" + modelPath + "'", e);
    } catch (RuntimeException e) {
      output.discard(temporary);
      throw e;
    }
  }

  /**
   * The training (and test) data read in one pass each, straight into cached blocks: the
   * training rows laid out for the epochs, the test rows for scoring; evaluated on the blocks.
   */
  private TrainingData readOnePass(SparkSession spark, PerceptronClassifier estimator,
      ReadSpec weighted, List<Double> testAccuracy) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    TrainingConfig config = EngineBridge.config(estimator);
    TrainingPlan plan = TrainingPlan.forFit(jsc, config);
    int workers = plan.numWorkers();
    DataFormat format = input.format;
    TextInput trainText = format.plan(spark, trainPath, numFeatures >= 0
        ? weighted.withNumFeatures(numFeatures, "--num-features") : weighted,
        "training data (--train)", workers);
    TrainingInput train = format.blocks(jsc, trainText, trainPath, plan);
    TrainingInput test = null;
    try {
      if (testPath != null) {
        // The test data are only scored: they need no weight column.
        TextInput testText = format.plan(spark, testPath, weighted.withNumFeatures(
            train.numFeatures(), "the training data").withWeightCol(""), "test data (--test)",
            workers);
        test = format.scoringBlocks(jsc, testText, testPath, config);
        TrainingInput scored = test;
        if (plotPath != null) {
          estimator.setEpochListener((epoch, snapshot) ->
              testAccuracy.add(EngineBridge.accuracy(snapshot, scored)));
        }
      }
    } catch (RuntimeException e) {
      train.close();
      throw e;
    }
    return TrainingData.blocks(train, test, trainText);
  }

  /**
   * The DataFrame path: each file read (checked, then made into rows) by the two-pass readers,
   * converted into blocks by fit.
   */
  private TrainingData readFrames(SparkSession spark, PerceptronClassifier estimator,
      ReadSpec weighted, List<Double> testAccuracy) {
    DataFormat format = input.format;
    LabeledData train = format.read(spark, trainPath,
        numFeatures >= 0 ? weighted.withNumFeatures(numFeatures, "--num-features") : weighted,
        "training data (--train)");
    ReadSpec sameWidth = weighted.withNumFeatures(train.numFeatures(), "the training data");
    // The test data are only scored: they need no weight column.
    LabeledData test = testPath == null ? null : format.read(spark, testPath,
        sameWidth.withWeightCol(""), "test data (--test)");
    Dataset<Row> trainFrame = train.frame();
    if (validationPath != null) {
      LabeledData validation = format.read(spark, validationPath, sameWidth,
          "validation data (--validation)");
      trainFrame = trainFrame.withColumn(VALIDATION_COLUMN, functions.lit(false))
          .union(validation.frame().withColumn(VALIDATION_COLUMN, functions.lit(true)));
      estimator.setValidationIndicatorCol(VALIDATION_COLUMN);
    }
    trainFrame = InputRepartition.of(trainFrame, partitions);
    Dataset<Row> testFrame = test == null ? null : test.frame();
    if (plotPath != null && testFrame != null) {
      testFrame = testFrame.persist(StorageLevel.MEMORY_AND_DISK());
      Dataset<Row> scored = testFrame;
      MulticlassClassificationEvaluator accuracy =
          new MulticlassClassificationEvaluator().setMetricName("accuracy");
      estimator.setEpochListener((epoch, snapshot) ->
          testAccuracy.add(accuracy.evaluate(snapshot.transform(scored))));
    }
    Dataset<Row> trainingRows = validationPath == null ? trainFrame
        : trainFrame.filter(functions.col(VALIDATION_COLUMN).equalTo(false));
    return TrainingData.frames(trainFrame, trainingRows, testFrame, train.labelNote(),
        train.featureNames());
  }

  /** The trained model and what was measured of it, for the report and the metrics. */
  private record Fitted(PerceptronClassificationModel model, double fitSeconds,
      Evaluation trainEval, Evaluation testEval, Coefficients coefficients) {
  }

  private void printReport(Fitted fitted) {
    PerceptronClassificationModel model = fitted.model();
    double fitSeconds = fitted.fitSeconds();
    Evaluation trainEval = fitted.trainEval();
    Evaluation testEval = fitted.testEval();
    Coefficients coefficients = fitted.coefficients();
    PerceptronTrainingSummary s = model.summary();
    out.printf(Locale.ROOT, "Trained a perceptron (%s, averaging=%s, mixing=%s) on %,d rows x %,d"
        + " features, %d classes, with %d workers (input in %d partitions) in %.2f s%n",
        model.getUpdateRule(), model.getAveraging(), model.getMixing(), trainEval.rows,
        model.numFeatures(), model.numClasses(), s.numWorkers(), s.numInputPartitions(),
        fitSeconds);
    out.println(epochTable(s));
    out.printf(Locale.ROOT, "Stopped: %s after %d epochs%s%n",
        s.stopReason().name().toLowerCase(Locale.ROOT).replace('_', ' '), s.totalIterations(),
        s.validationHistory().length == 0 ? "" : String.format(Locale.ROOT,
            "; kept epoch %d (validation accuracy %.4f)", s.modelEpoch(),
            s.validationHistory()[s.modelEpoch() - 1]));
    out.print(coefficients.describeLargest(LARGEST_WEIGHTS_SHOWN));
    out.print(trainEval.describe("Training data"));
    if (testEval != null) {
      out.print(testEval.describe("Test data"));
    }
  }

  /** How many weights the report lists (per class); the metrics JSON has them all. */
  static final int LARGEST_WEIGHTS_SHOWN = 8;

  static String epochTable(PerceptronTrainingSummary s) {
    StringBuilder sb = new StringBuilder();
    double[] validation = s.validationHistory();
    sb.append(String.format(Locale.ROOT, "%5s %12s %8s %12s %14s %14s %13s %8s%s%n", "epoch",
        "mistakes", "share", "updates", "loss", "hinge loss", "weight change", "seconds",
        validation.length == 0 ? "" : "  validation"));
    long[] mistakes = s.mistakesHistory();
    long[] updates = s.updatesHistory();
    long[] examples = s.examplesHistory();
    double[] loss = s.perceptronLossHistory();
    double[] hinge = s.hingeLossHistory();
    double[] change = s.weightChangeHistory();
    double[] seconds = s.epochSeconds();
    for (int e = 0; e < s.totalIterations(); e++) {
      sb.append(String.format(Locale.ROOT, "%5d %,12d %7.2f%% %,12d %14.6g %14.6g %13.4g %8.2f%s%n",
          e + 1, mistakes[e], examples[e] == 0 ? 0.0 : 100.0 * mistakes[e] / examples[e],
          updates[e], loss[e], hinge[e], change[e], seconds[e],
          e < validation.length ? String.format(Locale.ROOT, "  %10.4f%s", validation[e],
              e + 1 == s.modelEpoch() ? " *" : "") : ""));
    }
    return sb.toString().stripTrailing();
  }

  private ObjectNode metrics(Fitted fitted, PerceptronClassifier estimator, int numPartitions,
      List<Double> testAccuracy, StageTimes times) {
    PerceptronClassificationModel model = fitted.model();
    double fitSeconds = fitted.fitSeconds();
    Evaluation trainEval = fitted.trainEval();
    Evaluation testEval = fitted.testEval();
    Coefficients coefficients = fitted.coefficients();
    ObjectNode root = Json.object();
    root.put("model", modelPath);
    // Every param the estimator defines, the defaults included: the training params first, in
    // their order, then the output columns.
    ObjectNode params = root.putObject("params");
    List<Param<?>> order = new ArrayList<>(EngineBridge.trainingParams(estimator));
    for (Param<?> p : estimator.params()) {
      if (!order.contains(p)) {
        order.add(p);
      }
    }
    for (Param<?> p : order) {
      if (estimator.isDefined(p)) {
        Json.putValue(params, p.name(), estimator.getOrDefault(p));
      }
    }
    ObjectNode data = root.putObject("data");
    data.put("train", trainPath);
    if (testPath != null) {
      data.put("test", testPath);
    }
    if (validationPath != null) {
      data.put("validation", validationPath);
    }
    data.put("format", input.format.name());
    data.put("numFeatures", model.numFeatures());
    data.put("numClasses", model.numClasses());
    data.put("partitions", numPartitions);

    PerceptronTrainingSummary s = model.summary();
    data.put("workers", s.numWorkers());
    ObjectNode train = root.putObject("train");
    trainEval.writeTo(train);
    Json.putNumber(train, "fitSeconds", fitSeconds);
    train.put("epochs", s.totalIterations());
    train.put("stopReason", s.stopReason().name());
    train.put("converged", s.converged());
    train.put("modelEpoch", s.modelEpoch());
    if (testEval != null) {
      testEval.writeTo(root.putObject("test"));
    }
    coefficients.writeTo(root.putObject("coefficients"));
    times.writeTo(root.putObject("seconds"), root.putObject("cpuSeconds"));
    ArrayNode epochs = root.putArray("epochs");
    for (int e = 0; e < s.totalIterations(); e++) {
      ObjectNode ep = epochs.addObject();
      ep.put("epoch", e + 1);
      ep.put("mistakes", s.mistakesHistory()[e]);
      ep.put("updates", s.updatesHistory()[e]);
      ep.put("examples", s.examplesHistory()[e]);
      Json.putNumber(ep, "objective", s.objectiveHistory()[e]);
      Json.putNumber(ep, "perceptronLoss", s.perceptronLossHistory()[e]);
      Json.putNumber(ep, "hingeLoss", s.hingeLossHistory()[e]);
      Json.putNumber(ep, "weightChange", s.weightChangeHistory()[e]);
      Json.putNumber(ep, "seconds", s.epochSeconds()[e]);
      if (s.validationHistory().length > e) {
        Json.putNumber(ep, "validationAccuracy", s.validationHistory()[e]);
      }
      if (testAccuracy.size() > e) {
        Json.putNumber(ep, "testAccuracy", testAccuracy.get(e));
      }
    }
    return root;
  }
}
