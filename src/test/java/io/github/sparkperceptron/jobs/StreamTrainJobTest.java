package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit/stream-train} in this JVM: an available-now run learns the files present and
 * publishes; the same command again learns only new files, and without new files leaves the
 * published model byte for byte as it was; a bad line stops the stream with its file and line,
 * exit 2, and publishes nothing of its batch; usage errors are one line, exit 2.
 */
class StreamTrainJobTest {
  private static List<String> lines;

  @TempDir
  Path tmp;

  @BeforeAll
  static void data() throws IOException {
    SparkTestSupport.spark();
    lines = Files.readAllLines(TestData.sharedData("breast_cancer", "train.libsvm"));
  }

  /** Writes file number {@code i} of 3 (a third of the lines each), oldest first by mtime. */
  private static Path addFile(Path dir, int i, List<String> content) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(String.format("part-%02d.libsvm", i));
    Files.write(file, content);
    Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + i * 1000L));
    return file;
  }

  private static List<String> third(int i) {
    int n = lines.size();
    return lines.subList(i * n / 3, (i + 1) * n / 3);
  }

  private String[] args(Path in, Path model, Path checkpoint, String... more) {
    List<String> a = new ArrayList<>(List.of("--input", in.toString(), "--model",
        model.toString(), "--checkpoint-dir", checkpoint.toString(), "--num-features", "30",
        "--max-files-per-trigger", "1", "--workers", "1", "--metrics",
        tmp.resolve("metrics.json").toString()));
    a.addAll(Arrays.asList(more));
    return a.toArray(new String[0]);
  }

  /** Every file under {@code dir} with its bytes and modification time. */
  private static Map<String, String> snapshot(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        out.put(dir.relativize(f).toString(), Arrays.toString(Files.readAllBytes(f)) + "@"
            + Files.getLastModifiedTime(f).toMillis());
      }
    }
    return out;
  }

  private static double[] weights(Path model) {
    PerceptronClassificationModel m = PerceptronClassificationModel.load(model.toString());
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }

  private JsonNode metrics() throws IOException {
    return Json.MAPPER.readTree(tmp.resolve("metrics.json").toFile());
  }

  @Test
  void rerunningLearnsOnlyNewFilesAndWithoutThemLeavesTheModelByteForByte() throws Exception {
    Path in = tmp.resolve("in");
    Path model = tmp.resolve("model");
    Path checkpoint = tmp.resolve("ckpt");
    addFile(in, 0, third(0));
    addFile(in, 1, third(1));

    JobRun first = JobRun.of(new StreamTrainJob(), args(in, model, checkpoint));
    assertEquals(0, first.exitCode, first.toString());
    assertTrue(first.out.contains("batch 0: " + third(0).size() + " rows from 1 file"),
        first.out);
    assertTrue(first.out.contains("Learnt " + (third(0).size() + third(1).size())
        + " rows in 2 batches"), first.out);
    assertEquals(2, metrics().get("batches").size());
    Map<String, String> published = snapshot(model);

    JobRun nothingNew = JobRun.of(new StreamTrainJob(), args(in, model, checkpoint));
    assertEquals(0, nothingNew.exitCode, nothingNew.toString());
    assertTrue(nothingNew.out.contains("No new files in " + in + ": nothing learnt"),
        nothingNew.out);
    assertEquals(published, snapshot(model), "the published model is untouched");
    assertEquals(0, metrics().get("run").get("rows").asLong());

    addFile(in, 2, third(2));
    JobRun resumed = JobRun.of(new StreamTrainJob(), args(in, model, checkpoint));
    assertEquals(0, resumed.exitCode, resumed.toString());
    assertTrue(resumed.out.contains("Resuming: 2 batches (last id 1)"), resumed.out);
    JsonNode m = metrics();
    assertEquals(1, m.get("batches").size());
    assertEquals(2, m.get("batches").get(0).get("batchId").asInt());
    assertEquals(third(2).size(), m.get("run").get("rows").asLong());
    assertEquals(lines.size(), m.get("cumulative").get("rows").asLong());

    // The same three files streamed in one uninterrupted run give the same model, bit for bit.
    Path reference = tmp.resolve("reference");
    JobRun all = JobRun.of(new StreamTrainJob(), args(in, reference, tmp.resolve("ckpt2")));
    assertEquals(0, all.exitCode, all.toString());
    assertArrayEquals(weights(reference), weights(model), 0.0);
  }

  @Test
  void aBadLineMidStreamStopsWithItsFileAndLineAndNothingOfItsBatchIsPublished()
      throws Exception {
    Path in = tmp.resolve("in");
    Path model = tmp.resolve("model");
    Path checkpoint = tmp.resolve("ckpt");
    addFile(in, 0, third(0));
    List<String> bad = new ArrayList<>(third(1));
    bad.set(2, "1 3:0.5 4:abc");
    Path badFile = addFile(in, 1, bad);

    JobRun failed = JobRun.of(new StreamTrainJob(), args(in, model, checkpoint));
    assertEquals(2, failed.exitCode, failed.toString());
    String[] errors = failed.err.strip().split("\n");
    String last = errors[errors.length - 1];
    assertTrue(last.startsWith("stream-train: error: " + badFile + ":3: ")
        && last.contains("abc"), failed.toString());
    assertFalse(failed.err.contains("\tat "), "no stack trace: " + failed.err);
    // Batch 0 was learnt and published; batch 1 was not applied.
    Map<String, String> published = snapshot(model);
    assertEquals(1, metrics().get("cumulative").get("batches").asLong());
    assertEquals(third(0).size(), metrics().get("cumulative").get("rows").asLong());

    // Fixing the file in place and rerunning learns it (Spark replays the failed batch).
    addFile(in, 1, third(1));
    JobRun fixed = JobRun.of(new StreamTrainJob(), args(in, model, checkpoint));
    assertEquals(0, fixed.exitCode, fixed.toString());
    assertEquals(third(0).size() + third(1).size(),
        metrics().get("cumulative").get("rows").asLong());
    assertFalse(published.equals(snapshot(model)), "the model was published again");
  }

  @Test
  void usageErrorsAreOneLineWithExitTwo() throws Exception {
    Path in = tmp.resolve("in");
    addFile(in, 0, third(0));
    Path model = tmp.resolve("model");
    Path checkpoint = tmp.resolve("ckpt");
    String[][] cases = {
        {"--num-features is required for LIBSVM", "--input", in.toString(), "--model",
            model.toString(), "--checkpoint-dir", checkpoint.toString()},
        {"--trigger must be available-now or processing-time=", "--trigger", "sometimes"},
        {"averaging=vote keeps every intermediate weight vector", "--averaging", "vote"},
        {"does not exist", "--input", tmp.resolve("nowhere").toString(), "--model",
            model.toString(), "--checkpoint-dir", checkpoint.toString(), "--num-features", "30"},
    };
    for (String[] c : cases) {
      String[] a = c[1].equals("--input") && c.length > 3 ? Arrays.copyOfRange(c, 1, c.length)
          : concat(args(in, model, checkpoint), Arrays.copyOfRange(c, 1, c.length));
      JobRun run = JobRun.of(new StreamTrainJob(), a);
      assertEquals(2, run.exitCode, run.toString());
      assertEquals(1, run.err.strip().split("\n").length, run.toString());
      assertTrue(run.err.contains(c[0]), run.toString());
    }
    Files.createDirectories(model);
    Files.write(model.resolve("something"), new byte[] {1});
    JobRun exists = JobRun.of(new StreamTrainJob(), args(in, model, checkpoint));
    assertEquals(2, exists.exitCode, exists.toString());
    assertTrue(exists.err.contains("already exists; pass --overwrite"), exists.toString());
  }

  /**
   * What the user sees of one run: no warning from Spark about adaptive query execution (a
   * control run shows the capture would record it), the same rows/s on the console and in the
   * JSON, and the JSON's params: only those a stream uses, numbers as numbers.
   */
  @Test
  void oneRunIsQuietAndItsConsoleAndJsonAgree() throws Exception {
    String aqeWarning = "spark.sql.adaptive.enabled is not supported in streaming";
    Class<?> warner = Class.forName(
        "org.apache.spark.sql.execution.streaming.runtime.ResolveWriteToStream");
    try (LogCapture control = LogCapture.of(warner)) {
      StreamingQuery q = SparkTestSupport.spark().readStream()
          .format("rate").load().writeStream().format("noop")
          .option("checkpointLocation", tmp.resolve("control").toString()).start();
      q.stop();
      assertTrue(control.messages(Level.WARN).stream().anyMatch(m -> m.contains(aqeWarning)),
          "control: a stream on a session with AQE on is warned about: "
              + control.messages(Level.WARN));
    }
    Path in = tmp.resolve("in");
    addFile(in, 0, third(0));
    JobRun run;
    try (LogCapture log = LogCapture.of(warner)) {
      run = JobRun.of(new StreamTrainJob(), args(in, tmp.resolve("model"), tmp.resolve("ckpt"),
          "--seed", "3"));
      assertEquals(0, run.exitCode, run.toString());
      assertEquals(List.of(), log.messages(Level.WARN));
    }
    JsonNode json = metrics();
    Matcher m = Pattern.compile("Learnt \\S+ rows in 1 batch:"
        + " \\S+ s in batches \\((\\S+) rows/s\\), \\S+ s in all \\((\\S+) rows/s\\)")
        .matcher(run.out);
    assertTrue(m.find(), run.out);
    assertEquals(String.format(Locale.ROOT, "%,.0f",
        json.get("run").get("batchRowsPerSecond").asDouble()), m.group(1));
    assertEquals(String.format(Locale.ROOT, "%,.0f",
        json.get("run").get("rowsPerSecond").asDouble()), m.group(2));

    JsonNode params = json.get("params");
    assertTrue(params.get("seed").isIntegralNumber() && params.get("tol").isDouble()
        && params.get("numWorkers").isIntegralNumber() && params.get("shuffle").isBoolean()
        && params.get("epochsPerBatch").isIntegralNumber(), params.toString());
    assertEquals(3, params.get("seed").asLong());
    for (String unused : new String[] {"maxIter", "validationPatience", "classWeight",
        "checkpointInterval", "checkpointDir", "validationIndicatorCol", "labelCol",
        "featuresCol", "predictionCol", "rawPredictionCol"}) {
      assertFalse(params.has(unused), unused + " is not a stream's param: " + params);
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
