package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerateJobTest {
  @TempDir
  Path tmp;

  @BeforeAll
  static void session() {
    SparkTestSupport.spark();
  }

  @Test
  void writesLibSvmTrainAndTestSetsThatTheReaderLoads() throws IOException {
    Path out = tmp.resolve("gen");
    JobRun run = JobRun.of(new GenerateJob(), "--output", out.toString(), "--rows", "3000",
        "--test-rows", "500", "--features", "400", "--nnz", "9", "--classes", "3",
        "--label-noise", "0.05", "--seed", "5", "--partitions", "3");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("Wrote 3,000 training and 500 test rows"), run.out);

    SparkSession spark = SparkTestSupport.spark();
    LabeledData train = LibSvmSource.read(spark, out.resolve("train").toString(), 400, "train");
    LabeledData test = LibSvmSource.read(spark, out.resolve("test").toString(), 400, "test");
    assertEquals(3000, train.frame().count());
    assertEquals(500, test.frame().count());
    Row first = train.frame().first();
    assertEquals(9, ((SparseVector) first.get(1)).numNonzeros());
    assertEquals(3, train.frame().select("label").distinct().count());

    JsonNode spec = Json.MAPPER.readTree(out.resolve("spec.json").toFile());
    assertEquals(3000, spec.get("rows").asLong());
    assertEquals(5, spec.get("seed").asLong());
    assertEquals(0.05, spec.get("labelNoise").asDouble());
  }

  @Test
  void writesDenseParquet() {
    Path out = tmp.resolve("dense");
    JobRun run = JobRun.of(new GenerateJob(), "--output", out.toString(), "--rows", "200",
        "--features", "6", "--dense", "--format", "parquet");
    assertEquals(0, run.exitCode, run.toString());
    Dataset<Row> frame = SparkTestSupport.spark().read().parquet(out.resolve("train").toString());
    assertEquals(200, frame.count());
    assertEquals(6, ((Vector) frame.first().get(1)).size());
  }

  @Test
  void badSettingsGiveOneLineAndExitTwo() {
    JobRun run = JobRun.of(new GenerateJob(), "--output", tmp.resolve("x").toString(), "--rows",
        "10", "--margin", "1.5");
    assertEquals(2, run.exitCode, run.toString());
    assertTrue(run.err.startsWith("generate: error: margin is a cosine"), run.err);
    JobRun noRows = JobRun.of(new GenerateJob(), "--output", tmp.resolve("y").toString());
    assertEquals(2, noRows.exitCode, noRows.toString());
  }
}
