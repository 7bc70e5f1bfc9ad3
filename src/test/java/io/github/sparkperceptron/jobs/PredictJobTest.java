package io.github.sparkperceptron.jobs;

import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TEST;
import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TRAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PredictJobTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @TempDir
  static Path shared;
  private static PerceptronClassificationModel model;
  private static Path modelDir;
  private static List<TestData.Example> test;

  @TempDir
  Path tmp;

  @BeforeAll
  static void trainModel() {
    modelDir = shared.resolve("model");
    model = JobFixtures.trainAndSave(BREAST_TRAIN, modelDir);
    test = TestData.readLibSvm(BREAST_TEST, 30);
  }

  private static String[] args(String... more) {
    List<String> all = new ArrayList<>(List.of("--model", modelDir.toString()));
    all.addAll(Arrays.asList(more));
    return all.toArray(new String[0]);
  }

  /** The lines of every part file of a Spark output directory, headers removed. */
  private static List<String> partLines(Path dir, String suffix, boolean header)
      throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> parts = Files.list(dir)) {
      for (Path p : (Iterable<Path>) parts.filter(f -> f.toString().endsWith(suffix)).sorted()
          ::iterator) {
        List<String> content = Files.readAllLines(p);
        lines.addAll(header && !content.isEmpty() ? content.subList(1, content.size()) : content);
      }
    }
    return lines;
  }

  @Test
  void writesLibSvmInputWithPredictionsAsParquet() {
    Path out = tmp.resolve("pred");
    JobRun run = JobRun.of(new PredictJob(), args("--input", BREAST_TEST.toString(), "--output",
        out.toString()));
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("written to " + out), run.out);

    var written = SPARK.read().parquet(out.toString());
    assertEquals(List.of("label", "features", "prediction", "rawPrediction", "probability"),
        Arrays.asList(written.columns()));
    List<Row> rows = written.collectAsList();
    assertEquals(test.size(), rows.size());
    for (Row r : rows) {
      Vector x = r.getAs("features");
      assertEquals(model.predict(x), r.<Double>getAs("prediction"), 0.0);
      assertEquals(model.predictRaw(x), r.getAs("rawPrediction"));
      assertEquals(model.predictProbability(x), r.getAs("probability"));
    }
  }

  @Test
  void csvOutputHasRawPredictionsAsArraysOfDoubles() throws IOException {
    Path out = tmp.resolve("pred-csv");
    JobRun run = JobRun.of(new PredictJob(), args("--input", BREAST_TEST.toString(), "--output",
        out.toString(), "--output-format", "csv"));
    assertEquals(0, run.exitCode, run.toString());
    try (Stream<Path> parts = Files.list(out)) {
      Path first = parts.filter(f -> f.toString().endsWith(".csv")).sorted().findFirst()
          .orElseThrow();
      assertEquals("label,features,prediction,rawPrediction,probability",
          Files.readAllLines(first).get(0));
    }
    List<String> lines = partLines(out, ".csv", true);
    assertEquals(test.size(), lines.size());
    int matched = 0;
    for (String line : lines) {
      // label,"[x1,...,x30]",prediction,"[-m,m]","[1-p,p]"
      int probabilityStart = line.lastIndexOf(",\"[");
      int rawStart = line.lastIndexOf(",\"[", probabilityStart - 1);
      JsonNode raw = Json.MAPPER.readTree(line.substring(rawStart + 2, probabilityStart - 1));
      JsonNode probability = Json.MAPPER.readTree(line.substring(probabilityStart + 2,
          line.length() - 1));
      assertEquals(1.0, probability.get(0).asDouble() + probability.get(1).asDouble(), 1e-15);
      JsonNode features = Json.MAPPER.readTree(
          line.substring(line.indexOf(",\"[") + 2, line.indexOf("]\"") + 1));
      assertEquals(2, raw.size());
      assertEquals(-raw.get(0).asDouble(), raw.get(1).asDouble(), 0.0);
      assertEquals(30, features.size());
      double[] x = new double[30];
      for (int j = 0; j < 30; j++) {
        x[j] = features.get(j).asDouble();
      }
      Vector v = Vectors.dense(x);
      assertEquals(model.predictRaw(v).apply(1), raw.get(1).asDouble(), 1e-12,
          "doubles survive the text round trip up to printing");
      matched++;
    }
    assertEquals(test.size(), matched);
  }

  @Test
  void jsonOutputFromCsvInputKeepsEveryInputColumn() throws IOException {
    Path csv = JobFixtures.asCsv(BREAST_TEST, 30, tmp.resolve("test.csv"));
    List<String> features = new ArrayList<>();
    for (int j = 1; j <= 30; j++) {
      features.add("x" + j);
    }
    Path out = tmp.resolve("pred-json");
    JobRun run = JobRun.of(new PredictJob(), args("--input", csv.toString(), "--format", "csv",
        "--feature-cols", String.join(",", features), "--output", out.toString(),
        "--output-format", "json"));
    assertEquals(0, run.exitCode, run.toString());
    List<String> lines = partLines(out, ".json", false);
    assertEquals(test.size(), lines.size());
    for (String line : lines) {
      JsonNode row = Json.MAPPER.readTree(line);
      List<String> names = new ArrayList<>();
      row.fieldNames().forEachRemaining(names::add);
      assertEquals(35, names.size(), names.toString());
      assertEquals(List.of("id", "label", "x1"), names.subList(0, 3));
      assertEquals(List.of("prediction", "rawPrediction", "probability"),
          names.subList(32, 35));
      assertTrue(row.get("id").asText().startsWith("row "));
      int index = Integer.parseInt(row.get("id").asText().substring(4)) - 1;
      TestData.Example e = test.get(index);
      assertEquals(String.format("%.0f", e.label), row.get("label").asText(),
          "CSV columns that are not features pass through as text");
      assertEquals(model.predict(e.features), row.get("prediction").asDouble(), 0.0);
      assertTrue(row.get("rawPrediction").isArray());
    }
  }

  @Test
  void parquetInputWithAVectorColumnKeepsItsColumns() {
    Path in = tmp.resolve("in.parquet");
    SPARK.read().format("libsvm").option("numFeatures", "30").load(BREAST_TEST.toString())
        .selectExpr("label as target", "features", "'x' as tag").write().parquet(in.toString());
    Path out = tmp.resolve("pred-pq");
    JobRun run = JobRun.of(new PredictJob(), args("--input", in.toString(), "--format",
        "parquet", "--output", out.toString()));
    assertEquals(0, run.exitCode, run.toString());
    var written = SPARK.read().parquet(out.toString());
    assertEquals(List.of("target", "features", "tag", "prediction", "rawPrediction",
        "probability"), Arrays.asList(written.columns()));
    assertEquals(test.size(), written.count());
  }

  @Test
  void existingOutputIsReplacedOnlyWithOverwrite() throws IOException {
    Path out = tmp.resolve("exists");
    Files.createDirectories(out);
    Files.writeString(out.resolve("old.txt"), "old");
    JobRun refused = JobRun.of(new PredictJob(), args("--input", BREAST_TEST.toString(),
        "--output", out.toString()));
    assertEquals(2, refused.exitCode, refused.toString());
    assertTrue(Files.exists(out.resolve("old.txt")));
    JobRun replaced = JobRun.of(new PredictJob(), args("--input", BREAST_TEST.toString(),
        "--output", out.toString(), "--overwrite"));
    assertEquals(0, replaced.exitCode, replaced.toString());
    assertFalse(Files.exists(out.resolve("old.txt")));
    assertTrue(Files.exists(out.resolve("_SUCCESS")));
  }
}
