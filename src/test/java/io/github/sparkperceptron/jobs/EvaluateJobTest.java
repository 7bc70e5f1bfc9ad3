package io.github.sparkperceptron.jobs;

import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TEST;
import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TRAIN;
import static io.github.sparkperceptron.jobs.JobFixtures.IRIS_TEST;
import static io.github.sparkperceptron.jobs.JobFixtures.IRIS_TRAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvaluateJobTest {
  @TempDir
  static Path shared;
  private static PerceptronClassificationModel binary;
  private static PerceptronClassificationModel multiclass;

  @TempDir
  Path tmp;

  @BeforeAll
  static void trainModels() {
    SparkTestSupport.spark();
    binary = JobFixtures.trainAndSave(BREAST_TRAIN, shared.resolve("binary"));
    multiclass = JobFixtures.trainAndSave(IRIS_TRAIN, shared.resolve("multiclass"));
  }

  /** The confusion matrix computed here, row by row, from the model's own predict(). */
  private static long[][] expectedConfusion(PerceptronClassificationModel model, Path libsvm) {
    int k = model.numClasses();
    long[][] confusion = new long[k][k];
    for (TestData.Example e : TestData.readLibSvm(libsvm, model.numFeatures())) {
      confusion[(int) e.label][(int) model.predict(e.features)]++;
    }
    return confusion;
  }

  private static void assertConfusion(long[][] expected, JsonNode matrix) {
    assertEquals(expected.length, matrix.size());
    for (int i = 0; i < expected.length; i++) {
      for (int j = 0; j < expected.length; j++) {
        assertEquals(expected[i][j], matrix.get(i).get(j).asLong(), "cell " + i + "," + j);
      }
    }
  }

  @Test
  void binaryMetricsMatchTheModelsOwnPredictions() throws IOException {
    Path metrics = tmp.resolve("m.json");
    JobRun run = JobRun.of(new EvaluateJob(), "--model", shared.resolve("binary").toString(),
        "--input", BREAST_TEST.toString(), "--metrics", metrics.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("accuracy"), run.out);
    assertTrue(run.out.contains("areaUnderROC"), run.out);
    assertTrue(run.out.contains("confusion matrix"), run.out);

    long[][] expected = expectedConfusion(binary, BREAST_TEST);
    JsonNode json = Json.MAPPER.readTree(metrics.toFile());
    assertConfusion(expected, json.get("confusionMatrix"));
    long correct = expected[0][0] + expected[1][1];
    assertEquals(114, json.get("rows").asLong());
    assertEquals(correct / 114.0, json.get("accuracy").asDouble(), 1e-15);
    double recall1 = expected[1][1] / (double) (expected[1][0] + expected[1][1]);
    assertEquals(recall1, json.get("classes").get(1).get("recall").asDouble(), 1e-15);
    double roc = json.get("areaUnderROC").asDouble();
    assertTrue(roc > 0.9 && roc <= 1.0, "areaUnderROC " + roc);
    assertEquals(30, json.get("data").get("numFeatures").asInt());
    assertEquals("libsvm", json.get("data").get("format").asText());
  }

  @Test
  void csvInputGivesTheSameMetricsAsLibSvm() throws IOException {
    Path csv = JobFixtures.asCsv(BREAST_TEST, 30, tmp.resolve("test.csv"));
    StringBuilder features = new StringBuilder("x1");
    for (int j = 2; j <= 30; j++) {
      features.append(",x").append(j);
    }
    Path metrics = tmp.resolve("csv.json");
    JobRun run = JobRun.of(new EvaluateJob(), "--model", shared.resolve("binary").toString(),
        "--input", csv.toString(), "--format", "csv", "--feature-cols", features.toString(),
        "--metrics", metrics.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertConfusion(expectedConfusion(binary, BREAST_TEST),
        Json.MAPPER.readTree(metrics.toFile()).get("confusionMatrix"));
  }

  @Test
  void multiclassMetricsHaveNoRocArea() throws IOException {
    Path metrics = tmp.resolve("iris.json");
    JobRun run = JobRun.of(new EvaluateJob(), "--model",
        shared.resolve("multiclass").toString(), "--input", IRIS_TEST.toString(), "--metrics",
        metrics.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertFalse(run.out.contains("areaUnderROC"), run.out);
    JsonNode json = Json.MAPPER.readTree(metrics.toFile());
    assertFalse(json.has("areaUnderROC"));
    assertEquals(3, json.get("classes").size());
    assertConfusion(expectedConfusion(multiclass, IRIS_TEST), json.get("confusionMatrix"));
    assertEquals(List.of("model", "data", "rows", "accuracy", "logLoss", "brier",
        "expectedCalibrationError", "weightedPrecision", "weightedRecall", "weightedFMeasure",
        "classes", "confusionMatrix", "reliability"), iterable(json));
    // the weighted means of the per-class values, by each class's share of the rows
    double precision = 0;
    double rows = json.get("rows").asDouble();
    for (JsonNode c : json.get("classes")) {
      precision += c.get("precision").asDouble() * c.get("support").asLong() / rows;
    }
    // the JSON keeps 17 digits; the sum here runs in the same class order as the summary's
    assertEquals(precision, json.get("weightedPrecision").asDouble(), 1e-15);
    assertEquals(json.get("accuracy").asDouble(), json.get("weightedRecall").asDouble(), 1e-15);
  }

  private static List<String> iterable(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
