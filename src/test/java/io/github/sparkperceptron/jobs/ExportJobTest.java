package io.github.sparkperceptron.jobs;

import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TEST;
import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TRAIN;
import static io.github.sparkperceptron.jobs.JobFixtures.IRIS_TRAIN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.onnx.OnnxExport;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.DoubleBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.ml.linalg.Vectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit/export}: the file it writes is the library's export of the saved model (the graph
 * {@code OnnxExportTest} checks against ONNX Runtime on every data set), ONNX Runtime scores it
 * as the model predicts, and what it cannot do ends with exit 2 and one line.
 */
class ExportJobTest {
  @TempDir
  static Path shared;
  private static PerceptronClassificationModel binary;

  @TempDir
  Path tmp;

  @BeforeAll
  static void trainModels() {
    SparkTestSupport.spark();
    binary = JobFixtures.trainAndSave(BREAST_TRAIN, shared.resolve("binary"));
    JobFixtures.trainAndSave(IRIS_TRAIN, shared.resolve("multiclass"));
  }

  @Test
  void writesTheModelsOnnxFileWhichOnnxRuntimeScoresAsTheModelPredicts() throws Exception {
    Path file = tmp.resolve("out").resolve("breast.onnx");
    JobRun run = JobRun.of(new ExportJob(), "--model", shared.resolve("binary").toString(),
        "--format", "onnx", "--output", file.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("2 classes, 30 features") && run.out.contains("opset 17"),
        run.out);
    PerceptronClassificationModel saved = PerceptronClassificationModel.load(
        shared.resolve("binary").toString());
    assertArrayEquals(OnnxExport.toBytes(saved), Files.readAllBytes(file));
    try (var listing = Files.list(file.getParent())) {
      assertEquals(List.of(file), listing.toList(), "no temporary or checksum file left");
    }

    List<TestData.Example> rows = TestData.readLibSvm(BREAST_TEST, 30);
    double[] x = new double[rows.size() * 30];
    for (int i = 0; i < rows.size(); i++) {
      System.arraycopy(rows.get(i).features.toArray(), 0, x, i * 30, 30);
    }
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    try (OrtSession session = env.createSession(file.toString(), new OrtSession.SessionOptions());
        OnnxTensor input = OnnxTensor.createTensor(env, DoubleBuffer.wrap(x),
            new long[] {rows.size(), 30});
        OrtSession.Result result = session.run(Map.of("features", input))) {
      double[] predictions = (double[]) result.get("prediction").orElseThrow().getValue();
      for (int i = 0; i < rows.size(); i++) {
        assertEquals(binary.predict(rows.get(i).features), predictions[i], 0.0, "row " + i);
      }
    }
  }

  @Test
  void anExistingOutputIsKeptWithoutOverwriteAndReplacedWithIt() throws Exception {
    Path file = tmp.resolve("model.onnx");
    Files.writeString(file, "keep me");
    JobRun refused = JobRun.of(new ExportJob(), "--model",
        shared.resolve("multiclass").toString(), "--output", file.toString());
    assertEquals(2, refused.exitCode, refused.toString());
    assertEquals(1, refused.err.strip().lines().count(), refused.err);
    assertTrue(refused.err.contains("--overwrite"), refused.err);
    assertEquals("keep me", Files.readString(file));

    JobRun replaced = JobRun.of(new ExportJob(), "--model",
        shared.resolve("multiclass").toString(), "--output", file.toString(), "--overwrite");
    assertEquals(0, replaced.exitCode, replaced.toString());
    assertArrayEquals(OnnxExport.toBytes(PerceptronClassificationModel.load(
        shared.resolve("multiclass").toString())), Files.readAllBytes(file));
  }

  /**
   * A vote over 2²⁰ features with hundreds of updates would need gigabytes of dense update rows:
   * one line naming the limit and averaging=average, exit 2, nothing written.
   */
  @Test
  void aModelTooLargeForOneOnnxFileEndsWithExitTwoAndOneLine() throws Exception {
    int d = 1 << 20;
    Random random = new Random(11);
    List<TestData.Example> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      int[] idx = random.ints(0, d).distinct().limit(8).sorted().toArray();
      rows.add(new TestData.Example(random.nextInt(2),
          Vectors.sparse(d, idx, random.doubles(idx.length, -1, 1).toArray())));
    }
    // Without a calibrator: the export is refused for the vote's size, and the default would
    // cross-fit three more voted models of 2^20 features on these 400 rows first.
    PerceptronClassificationModel voted = new PerceptronClassifier().setMaxIter(2)
        .setAveraging("vote").setCalibration("none")
        .fit(TestData.frame(SparkTestSupport.spark(), rows, 2));
    Path dir = tmp.resolve("wide-vote");
    voted.write().save(dir.toString());
    Path file = tmp.resolve("wide.onnx");
    JobRun run = JobRun.of(new ExportJob(), "--model", dir.toString(), "--output",
        file.toString());
    assertEquals(2, run.exitCode, run.toString());
    assertEquals(1, run.err.strip().lines().count(), run.err);
    assertTrue(run.err.contains("averaging=average") && run.err.contains("protobuf"), run.err);
    assertTrue(Files.notExists(file));
  }

  @Test
  void aMissingModelEndsWithExitTwo() {
    JobRun run = JobRun.of(new ExportJob(), "--model", tmp.resolve("none").toString(),
        "--output", tmp.resolve("x.onnx").toString());
    assertEquals(2, run.exitCode, run.toString());
    assertEquals(1, run.err.strip().lines().count(), run.err);
  }
}
