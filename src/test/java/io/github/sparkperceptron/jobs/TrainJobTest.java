package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainJobTest {
  private static final String TRAIN =
      TestData.sharedData("breast_cancer", "train.libsvm").toString();
  private static final String TEST =
      TestData.sharedData("breast_cancer", "test.libsvm").toString();

  @TempDir
  Path tmp;

  @BeforeAll
  static void session() {
    SparkTestSupport.spark();
  }

  /**
   * The metrics' probability figures are Spark's own on the saved model's test predictions:
   * MulticlassClassificationEvaluator's logLoss (the same clip, 1e-15), the Brier score and the
   * expected calibration error recomputed here from the probability column; the reliability
   * diagram is a PNG beside the training curves.
   */
  @Test
  void reportsTheTestProbabilitiesAndDrawsAReliabilityDiagram() throws IOException {
    Path model = tmp.resolve("model");
    Path metrics = tmp.resolve("metrics.json");
    Path plot = tmp.resolve("curves.png");
    JobRun run = JobRun.of(new TrainJob(), "--train", TRAIN, "--test", TEST, "--model",
        model.toString(), "--metrics", metrics.toString(), "--plot", plot.toString(),
        "--max-iter", "3");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("probabilities: log-loss"), run.out);
    JsonNode test = Json.MAPPER.readTree(metrics.toFile()).get("test");
    SparkSession spark = SparkTestSupport.spark();
    var scored = PerceptronClassificationModel.load(model.toString()).transform(spark.read()
        .format("libsvm").option("numFeatures", "30").load(TEST)).cache();
    double logLoss = new MulticlassClassificationEvaluator()
        .setMetricName("logLoss").evaluate(scored);
    // Means of 114 logs summed in different orders: a few ulps.
    assertEquals(logLoss, test.get("logLoss").asDouble(), 1e-13);
    double brier = 0;
    double[] binRight = new double[15];
    double[] binConfidence = new double[15];
    for (Row r : scored.select("label", "probability").collectAsList()) {
      double p = ((Vector) r.get(1)).apply(1);
      double y = r.getDouble(0);
      brier += (p - y) * (p - y) / 114;
      double confidence = Math.max(p, 1 - p);
      int bin = Math.min(14, (int) Math.ceil(confidence * 15) - 1);
      binRight[bin] += (p > 1 - p ? 1 : 0) == y ? 1 : 0;
      binConfidence[bin] += confidence;
    }
    double ece = 0;
    for (int b = 0; b < 15; b++) {
      ece += Math.abs(binRight[b] - binConfidence[b]) / 114;
    }
    assertEquals(brier, test.get("brier").asDouble(), 1e-13);
    assertEquals(ece, test.get("expectedCalibrationError").asDouble(), 1e-13);
    assertEquals(15, test.get("reliability").size());
    byte[] png = Files.readAllBytes(tmp.resolve("curves-reliability.png"));
    assertEquals(0x89, png[0] & 0xff, "a PNG");
    assertEquals('P', png[1]);
  }

  @Test
  void trainsSavesTheModelAndWritesMetrics() throws IOException {
    Path model = tmp.resolve("model");
    Path metrics = tmp.resolve("metrics.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", TRAIN, "--test", TEST, "--model",
        model.toString(), "--metrics", metrics.toString(), "--max-iter", "7", "--update-rule",
        "pa1", "--partitions", "3");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("Test data: accuracy"), run.out);
    assertTrue(run.out.contains("epoch"), run.out);

    PerceptronClassificationModel loaded = PerceptronClassificationModel.load(model.toString());
    assertEquals(30, loaded.numFeatures());
    assertEquals("pa1", loaded.getUpdateRule());
    assertEquals(7, loaded.getMaxIter());

    JsonNode json = Json.MAPPER.readTree(metrics.toFile());
    assertEquals(455, json.get("train").get("rows").asLong());
    assertEquals(114, json.get("test").get("rows").asLong());
    double accuracy = json.get("test").get("accuracy").asDouble();
    assertTrue(accuracy > 0.9 && accuracy <= 1.0, "test accuracy " + accuracy);
    assertTrue(json.get("test").get("areaUnderROC").asDouble() > 0.9);
    assertEquals(2, json.get("test").get("confusionMatrix").size());
    assertEquals(json.get("train").get("epochs").asInt(), json.get("epochs").size());
    for (JsonNode epoch : json.get("epochs")) {
      // pa1 descends the hinge loss; unweighted rows, so the objective is its mean per example.
      // The two sides divide the same two doubles (the JSON keeps 17 digits): equal.
      assertEquals(epoch.get("hingeLoss").asDouble() / epoch.get("examples").asLong(),
          epoch.get("objective").asDouble(), 0.0, epoch.toString());
      assertTrue(epoch.get("updates").asLong() >= epoch.get("mistakes").asLong(),
          "pa1 updates on every mistake and inside the margin: " + epoch);
      assertTrue(epoch.has("perceptronLoss"), epoch.toString());
    }
    assertEquals(3, json.get("data").get("partitions").asInt());
    assertEquals("pa1", json.get("params").get("updateRule").asText());
    // Numbers as numbers, switches as booleans, every param of the estimator.
    JsonNode params = json.get("params");
    assertTrue(params.get("maxIter").isIntegralNumber() && params.get("seed").isIntegralNumber()
        && params.get("tol").isDouble() && params.get("shuffle").isBoolean(), params.toString());
    assertEquals(7, params.get("maxIter").asInt());
    assertEquals(new PerceptronClassifier().extractParamMap().size(), params.size(),
        params.toString());
    try (Stream<Path> files = Files.list(tmp)) {
      assertFalse(files.anyMatch(f -> f.getFileName().toString().contains(".tmp-")),
          "no temporary output may be left behind");
    }
  }

  /**
   * --workers sets numWorkers: the model, the report and the metrics say how many perceptrons
   * trained; without it there is one per task slot (the shared session is local[2]).
   */
  @Test
  void workersFlagSetsTheNumberOfPerceptrons() throws IOException {
    Path model = tmp.resolve("three");
    Path metrics = tmp.resolve("three.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", TRAIN, "--model", model.toString(),
        "--metrics", metrics.toString(), "--max-iter", "2", "--workers", "3");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains(" with 3 workers (input in 1 partitions) "), run.out);
    JsonNode json = Json.MAPPER.readTree(metrics.toFile());
    assertEquals(3, json.get("data").get("workers").asInt());
    assertEquals(1, json.get("data").get("partitions").asInt());
    assertEquals("3", json.get("params").get("numWorkers").asText());
    for (JsonNode epoch : json.get("epochs")) {
      assertEquals(455, epoch.get("examples").asLong(), "every row trains once per epoch");
    }
    assertEquals(3, PerceptronClassificationModel.load(model.toString()).getNumWorkers());

    Path autoMetrics = tmp.resolve("auto.json");
    JobRun auto = JobRun.of(new TrainJob(), "--train", TRAIN, "--model",
        tmp.resolve("auto").toString(), "--metrics", autoMetrics.toString(), "--max-iter", "1");
    assertEquals(0, auto.exitCode, auto.toString());
    JsonNode autoJson = Json.MAPPER.readTree(autoMetrics.toFile());
    assertEquals(2, autoJson.get("data").get("workers").asInt());
    assertEquals("0", autoJson.get("params").get("numWorkers").asText());

    JobRun bad = JobRun.of(new TrainJob(), "--train", TRAIN, "--model",
        tmp.resolve("bad").toString(), "--workers", "-1");
    assertEquals(2, bad.exitCode, bad.toString());
    // The flag the user typed, not the param behind it (issue 19).
    assertTrue(bad.err.startsWith("train: error: --workers must be >= 0 (0 = auto: the"
        + " cluster's task slots), got -1"), bad.err);
  }

  @Test
  void existingOutputNeedsOverwrite() throws IOException {
    Path model = tmp.resolve("exists");
    Files.createDirectories(model);
    JobRun run = JobRun.of(new TrainJob(), "--train", TRAIN, "--model", model.toString());
    assertEquals(2, run.exitCode, run.toString());
    assertTrue(run.err.startsWith("train: error: The output --model '" + model
        + "' already exists; pass --overwrite"), run.err);
    assertEquals(1, run.err.strip().lines().count(), run.err);

    JobRun again = JobRun.of(new TrainJob(), "--train", TRAIN, "--model", model.toString(),
        "--overwrite", "--max-iter", "1");
    assertEquals(0, again.exitCode, again.toString());
  }

  @Test
  void badFlagsAndValuesGiveOneLineAndExitTwo() {
    String[][] cases = {
        {"--train", TRAIN, "--model", "x", "--bogus"},
        {"--train", TRAIN, "--model", "x", "--max-iter", "ten"},
        {"--model", "x"},
        {"--train", TRAIN, "--model", tmp.resolve("m").toString(), "--update-rule", "mira"},
        {"--train", TRAIN, "--model", tmp.resolve("m").toString(), "--max-iter", "-3"},
        {"--train", TRAIN, "--model", tmp.resolve("m").toString(), "--format", "xml"},
        {"--train", TRAIN, "--model", tmp.resolve("m").toString(), "--shuffle-scope", "blocks"},
    };
    String[] expected = {
        "Unknown option: '--bogus'",
        "Invalid value for option '--max-iter': 'ten' is not an int",
        "Missing required option: '--train=PATH'",
        "--update-rule must be one of [perceptron, pa, pa1, pa2], got 'mira'",
        "--max-iter must be >= 0, got -3",
        "Invalid value for option '--format'",
        "--shuffle-scope must be one of [rows, chunks, auto], got 'blocks'",
    };
    for (int i = 0; i < cases.length; i++) {
      JobRun run = JobRun.of(new TrainJob(), cases[i]);
      assertEquals(2, run.exitCode, run.toString());
      assertTrue(run.err.startsWith("train: error: "), run.err);
      assertTrue(run.err.contains(expected[i]), run.err);
      assertFalse(run.err.contains("\tat "), "no stack trace: " + run.err);
    }
  }

  @Test
  void missingAndMalformedInputGiveOneLineAndExitTwo() throws IOException {
    JobRun missing = JobRun.of(new TrainJob(), "--train", tmp.resolve("none.libsvm").toString(),
        "--model", tmp.resolve("m").toString());
    assertEquals(2, missing.exitCode, missing.toString());
    assertTrue(missing.err.contains("does not exist"), missing.err);

    Path bad = tmp.resolve("bad.libsvm");
    Files.writeString(bad, "1 1:0.5\n0 2:0.1 1:0.3\n");
    JobRun malformed = JobRun.of(new TrainJob(), "--train", bad.toString(), "--model",
        tmp.resolve("m").toString());
    assertEquals(2, malformed.exitCode, malformed.toString());
    assertTrue(malformed.err.contains(bad + ":2: feature index 1 follows 2"), malformed.err);
    assertEquals(1, malformed.err.strip().lines().count(), malformed.err);
    assertFalse(Files.exists(tmp.resolve("m")), "no model may be written for bad input");
  }

  @Test
  void helpListsEveryOptionWithItsDefault() {
    JobRun help = JobRun.of(new TrainJob(), "--help");
    assertEquals(0, help.exitCode);
    for (String flag : new String[] {"--train", "--test", "--model", "--format", "--metrics",
        "--overwrite", "--workers",
        "--partitions", "--max-iter", "--tol", "--step-size", "--[no-]fit-intercept",
        "--update-rule", "--aggressiveness", "--averaging", "--mixing", "--[no-]shuffle",
        "--shuffle-scope", "--seed",
        "--threshold", "--aggregation-depth", "--num-features", "--mixing-rounds",
        "--weight-col"}) {
      assertTrue(help.out.contains(flag), "help lacks " + flag + ":\n" + help.out);
    }
    // Whitespace-normalised: picocli wraps descriptions at 80 columns, wherever the words fall.
    String text = help.out.replaceAll("\\s+", " ");
    assertTrue(text.contains("maximum epochs (default: 10)"), help.out);
    assertTrue(text.contains("uniform, mistakes, momentum or oneshot (default: momentum)"),
        help.out);
    assertTrue(text.contains("chunks beyond) (default: auto)"), help.out);
  }

  @Test
  void drawsTheTrainingCurvesWithTestAccuracyPerEpoch() throws IOException {
    Path plot = tmp.resolve("curves.png");
    Path metrics = tmp.resolve("m.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", TRAIN, "--test", TEST, "--model",
        tmp.resolve("model").toString(), "--max-iter", "6", "--plot", plot.toString(),
        "--metrics", metrics.toString());
    assertEquals(0, run.exitCode, run.toString());
    java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(plot.toFile());
    assertEquals(900, image.getWidth());
    assertEquals(900, image.getHeight());
    JsonNode epochs = Json.MAPPER.readTree(metrics.toFile()).get("epochs");
    assertEquals(6, epochs.size());
    for (JsonNode e : epochs) {
      double accuracy = e.get("testAccuracy").asDouble();
      assertTrue(accuracy > 0.5 && accuracy <= 1.0, e.toString());
    }
    // The last epoch's test accuracy is the final model's.
    assertEquals(Json.MAPPER.readTree(metrics.toFile()).get("test").get("accuracy").asDouble(),
        epochs.get(5).get("testAccuracy").asDouble(), 1e-12);
  }

  /**
   * The training data's evaluation covers every row of --train, the 10% the default holds out
   * to calibrate on included (pendigits holds enough of each class for it), as the evaluate job
   * scores the same file through a DataFrame: the same rows, the same counts, the same metrics
   * (the probability metrics sum the same terms in another order: a few ulps).
   */
  @Test
  void theTrainingEvaluationIsTheEvaluateJobsOnTheSameFile() throws IOException {
    String pendigits = TestData.sharedData("pendigits", "train.libsvm").toString();
    Path model = tmp.resolve("pendigits-model");
    Path trained = tmp.resolve("train.json");
    Path evaluated = tmp.resolve("evaluate.json");
    JobRun train = JobRun.of(new TrainJob(), "--train", pendigits, "--model", model.toString(),
        "--max-iter", "3", "--metrics", trained.toString());
    assertEquals(0, train.exitCode, train.toString());
    JobRun evaluate = JobRun.of(new EvaluateJob(), "--model", model.toString(), "--input",
        pendigits, "--metrics", evaluated.toString());
    assertEquals(0, evaluate.exitCode, evaluate.toString());

    JsonNode trainMetrics = Json.MAPPER.readTree(trained.toFile());
    long trainedOn = trainMetrics.get("epochs").get(0).get("examples").asLong();
    assertTrue(trainedOn < 7494 * 0.95, "a share was held out of training: " + trainedOn);
    JsonNode ofTraining = trainMetrics.get("train");
    JsonNode ofFile = Json.MAPPER.readTree(evaluated.toFile());
    assertEquals(7494, ofTraining.get("rows").asLong(), "every row of the file");
    assertEquals(ofFile.get("rows").asLong(), ofTraining.get("rows").asLong());
    assertEquals(ofFile.get("confusionMatrix"), ofTraining.get("confusionMatrix"));
    assertEquals(ofFile.get("accuracy").asDouble(), ofTraining.get("accuracy").asDouble(), 0.0);
    for (String metric : new String[] {"logLoss", "brier", "expectedCalibrationError"}) {
      assertEquals(ofFile.get(metric).asDouble(), ofTraining.get(metric).asDouble(), 1e-12,
          metric);
    }
  }
}
