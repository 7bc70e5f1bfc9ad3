package io.github.sparkperceptron.jobs;

import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TEST;
import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TRAIN;
import static io.github.sparkperceptron.jobs.JobFixtures.IRIS_TRAIN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.internal.io.CsvSource;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the train job tells the user beyond accuracy: the learned weights (largest in the report,
 * all of them in the metrics JSON, each equal to the saved model's), where the time went, sample
 * weights from a column, and no Hadoop checksum files beside the outputs.
 */
class TrainJobReportTest {
  @TempDir
  Path tmp;

  @BeforeAll
  static void session() {
    SparkTestSupport.spark();
  }

  @Test
  void reportsTheLargestWeightsAndWritesAllOfThemAsTheModelHasThem() throws IOException {
    Path model = tmp.resolve("model");
    Path metrics = tmp.resolve("metrics.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", BREAST_TRAIN.toString(), "--test",
        BREAST_TEST.toString(), "--model", model.toString(), "--metrics", metrics.toString());
    assertEquals(0, run.exitCode, run.toString());

    PerceptronClassificationModel saved = PerceptronClassificationModel.load(model.toString());
    double[] w = saved.coefficients().toArray();
    JsonNode c = Json.MAPPER.readTree(metrics.toFile()).get("coefficients");
    assertEquals(30, c.get("features").size());
    assertEquals("1", c.get("features").get(0).asText(), "LIBSVM features by their 1-based index");
    assertEquals("30", c.get("features").get(29).asText());
    assertArrayEquals(w, doubles(c.get("weights")), 0.0, "every weight, exactly");
    assertEquals(saved.intercept(), c.get("intercept").asDouble(), 0.0);

    // The report's line: the 8 weights of largest magnitude, largest first, by LIBSVM index.
    Integer[] order = new Integer[w.length];
    for (int j = 0; j < w.length; j++) {
      order[j] = j;
    }
    Arrays.sort(order, (a, b) -> Double.compare(Math.abs(w[b]), Math.abs(w[a])));
    StringBuilder expected = new StringBuilder(String.format(Locale.ROOT,
        "Largest weights (8 of 30 features; intercept %.4g):", saved.intercept()));
    for (int i = 0; i < 8; i++) {
      expected.append(String.format(Locale.ROOT, "%s %d %.4g", i == 0 ? "" : ",",
          order[i] + 1, w[order[i]]));
    }
    assertTrue(run.out.contains(expected + "\n"), "expected\n" + expected + "\nin\n" + run.out);
  }

  @Test
  void multiclassWeightsComePerClassAndCsvFeaturesByColumnName() throws IOException {
    Path csv = JobFixtures.asCsv(IRIS_TRAIN, 4, tmp.resolve("iris.csv"));
    Path model = tmp.resolve("model");
    Path metrics = tmp.resolve("metrics.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", csv.toString(), "--format", "csv",
        "--feature-cols", "x1,x2,x3,x4", "--model", model.toString(), "--metrics",
        metrics.toString());
    assertEquals(0, run.exitCode, run.toString());

    PerceptronClassificationModel saved = PerceptronClassificationModel.load(model.toString());
    JsonNode c = Json.MAPPER.readTree(metrics.toFile()).get("coefficients");
    assertEquals(List.of("x1", "x2", "x3", "x4"), strings(c.get("features")));
    Matrix m = saved.coefficientMatrix();
    assertEquals(3, c.get("weights").size());
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 4; j++) {
        assertEquals(m.apply(k, j), c.get("weights").get(k).get(j).asDouble(), 0.0);
      }
    }
    assertArrayEquals(saved.interceptVector().toArray(), doubles(c.get("intercepts")), 0.0);
    assertTrue(run.out.contains("Largest weights per class (4 of 4 features):"), run.out);
    for (int k = 0; k < 3; k++) {
      assertTrue(run.out.contains(String.format(Locale.ROOT, "  class %d (intercept %.4g):", k,
          saved.interceptVector().apply(k))), run.out);
    }
  }

  @Test
  void aWeightColumnWeighsTheRowsAsTheEstimatorDoes() throws IOException {
    // Iris as CSV with a weight column w in {0, 1, 2, 3}: the job must train what the library
    // trains with setWeightCol on the same rows in the same (single) partition, bit for bit, and
    // must not take w for a feature.
    Path csv = tmp.resolve("weighted.csv");
    List<String> lines = new ArrayList<>();
    lines.add("label,x1,x2,x3,x4,w");
    int row = 0;
    for (TestData.Example e : TestData.readLibSvm(IRIS_TRAIN, 4)) {
      double[] x = e.features.toArray();
      lines.add(String.format(Locale.ROOT, "%.0f,%s,%s,%s,%s,%d", e.label, x[0], x[1], x[2], x[3],
          row++ % 4));
    }
    Files.write(csv, lines);
    Path model = tmp.resolve("model");
    Path metrics = tmp.resolve("metrics.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", csv.toString(), "--format", "csv",
        "--weight-col", "w", "--partitions", "1", "--model", model.toString(), "--metrics",
        metrics.toString());
    assertEquals(0, run.exitCode, run.toString());
    JsonNode json = Json.MAPPER.readTree(metrics.toFile());
    assertEquals("w", json.get("params").get("weightCol").asText());
    assertEquals(4, json.get("coefficients").get("features").size(), "w is not a feature");

    Dataset<Row> frame = CsvSource.read(SparkTestSupport.spark(), csv.toString(),
        ReadSpec.labelled().withWeightCol("w"), "test").frame();
    assertEquals(List.of("label", "features", "w"), List.of(frame.columns()));
    assertEquals(1, frame.rdd().getNumPartitions(), "the rows in the job's partition");
    // The weights alone are compared. On these 120 rows the job's default holds no rows out
    // (too few per class) and cross-fits its calibrator on three fold models: its weights are
    // trained on every row, as calibration=none trains them without the fold models.
    PerceptronClassificationModel library = new PerceptronClassifier().setWeightCol("w")
        .setCalibration("none").fit(frame);
    PerceptronClassificationModel job = PerceptronClassificationModel.load(model.toString());
    assertArrayEquals(library.coefficientMatrix().toArray(), job.coefficientMatrix().toArray(),
        0.0);
    PerceptronClassificationModel unweighted = new PerceptronClassifier().setCalibration("none")
        .fit(frame.drop("w"));
    assertFalse(Arrays.equals(unweighted.coefficientMatrix().toArray(),
        job.coefficientMatrix().toArray()), "the weights changed nothing");
  }

  @Test
  void aWeightColumnNeedsColumnsAndValidWeights() throws IOException {
    JobRun libsvm = JobRun.of(new TrainJob(), "--train", BREAST_TRAIN.toString(), "--model",
        tmp.resolve("m1").toString(), "--weight-col", "w");
    assertEquals(2, libsvm.exitCode, libsvm.toString());
    assertEquals("train: error: --weight-col names a CSV or Parquet column; LIBSVM input"
        + " (--format libsvm) has none", libsvm.err.strip());

    Path csv = tmp.resolve("w.csv");
    Files.write(csv, List.of("label,x,w", "0,1.5,1", "1,-2.0,-3"));
    JobRun missing = JobRun.of(new TrainJob(), "--train", csv.toString(), "--format", "csv",
        "--model", tmp.resolve("m2").toString(), "--weight-col", "weight");
    assertEquals(2, missing.exitCode, missing.toString());
    assertTrue(missing.err.contains("the header row has no weight column 'weight'"
        + " (--weight-col); its columns are [label, x, w]"), missing.err);

    JobRun negative = JobRun.of(new TrainJob(), "--train", csv.toString(), "--format", "csv",
        "--model", tmp.resolve("m3").toString(), "--weight-col", "w");
    assertEquals(2, negative.exitCode, negative.toString());
    assertTrue(negative.err.contains("Column 'w' (weightCol) has -3.0"), negative.err);
    assertEquals(1, negative.err.strip().lines().count(), negative.err);
  }

  @Test
  void saysWhereTheTimeWentAndLeavesNoChecksumFilesBesideItsOutputs() throws IOException {
    Path metrics = tmp.resolve("metrics.json");
    Path plot = tmp.resolve("curves.png");
    // An old checksum beside the metrics file (as older versions left) goes with the overwrite.
    Files.writeString(metrics, "{}");
    Files.writeString(tmp.resolve(".metrics.json.crc"), "stale");
    JobRun run = JobRun.of(new TrainJob(), "--train", BREAST_TRAIN.toString(), "--model",
        tmp.resolve("model").toString(), "--metrics", metrics.toString(), "--plot",
        plot.toString(), "--max-iter", "2", "--overwrite");
    assertEquals(0, run.exitCode, run.toString());
    try (Stream<Path> files = Files.list(tmp)) {
      List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
      assertEquals(List.of("curves-reliability.png", "curves.png", "metrics.json", "model"),
          names);
    }

    JsonNode json = Json.MAPPER.readTree(metrics.toFile());
    for (String table : List.of("seconds", "cpuSeconds")) {
      JsonNode t = json.get(table);
      List<String> stages = new ArrayList<>();
      double sum = 0;
      for (Iterator<String> it = t.fieldNames(); it.hasNext(); ) {
        String stage = it.next();
        if (!stage.equals("total")) {
          stages.add(stage);
          assertTrue(t.get(stage).asDouble() >= 0, table + "." + stage);
          sum += t.get(stage).asDouble();
        }
      }
      // Run in this JVM, not from main: no JVM start-up stage.
      assertEquals(List.of("spark", "read", "train", "save", "evaluate", "write"), stages);
      assertEquals(sum, t.get("total").asDouble(), 1e-9, "the stages add up to the total");
    }
    assertTrue(run.out.lines().anyMatch(l -> l.matches("Time: [0-9.]+ s: Spark start-up [0-9.]+ s,"
        + " reading [0-9.]+ s, training [0-9.]+ s, saving the model [0-9.]+ s, evaluation"
        + " [0-9.]+ s, writing outputs [0-9.]+ s")), run.out);
  }

  private static double[] doubles(JsonNode array) {
    double[] out = new double[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asDouble();
    }
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
