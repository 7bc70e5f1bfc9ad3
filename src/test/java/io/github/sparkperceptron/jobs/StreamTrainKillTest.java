package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.Background;
import io.github.sparkperceptron.testing.ChildJvms;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILLs the driver of a real {@code submit/stream-train} run at the worst moment for exactly
 * once: after it applied batch 1 and saved the learner state, before Spark committed the batch.
 * The same command then resumes: Spark replays batch 1, the learner recognises it and skips it,
 * and the stream ends with the model of an uninterrupted run, bit for bit. The moment is reached
 * with the learner's test hook ({@code spark.perceptron.test.pauseAfterBatch}), which parks the
 * driver there until it is killed.
 */
@Tag("script")
// Each test starts JVMs or builds (processes, not Spark jobs of this JVM): minutes under load,
// beyond junit-platform.properties' default of 5.
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class StreamTrainKillTest {
  @TempDir
  Path tmp;

  private List<String> args(Path in, Path model, Path checkpoint, Path metrics) {
    return new ArrayList<>(List.of("--input", in.toString(), "--model", model.toString(),
        "--checkpoint-dir", checkpoint.toString(), "--num-features", "30",
        "--max-files-per-trigger", "1", "--workers", "2", "--metrics", metrics.toString()));
  }

  /** Runs {@code submit/stream-train jobArgs} in a process of its own, output in {@code log}. */
  static Process start(List<String> jobArgs, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(TestData.projectRoot().resolve("submit/stream-train").toString());
    command.addAll(jobArgs);
    ProcessBuilder pb = new ProcessBuilder(command).directory(TestData.projectRoot().toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("SPARK_HOME");
    pb.environment().putAll(ChildJvms.c1Only());
    return pb.start();
  }

  @Test
  void aDriverKilledAfterApplyingABatchButBeforeItsCommitResumesWithoutApplyingItTwice()
      throws Exception {
    List<String> lines = Files.readAllLines(TestData.sharedData("breast_cancer",
        "train.libsvm"));
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    for (int i = 0; i < 4; i++) {
      Path file = in.resolve("part-" + i + ".libsvm");
      Files.write(file, lines.subList(i * lines.size() / 4, (i + 1) * lines.size() / 4));
      Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + i * 1000L));
    }
    Path model = tmp.resolve("model");
    Path checkpoint = tmp.resolve("ckpt");
    Path metrics = tmp.resolve("metrics.json");

    List<String> paused = args(in, model, checkpoint, metrics);
    paused.addAll(List.of("--conf", Settings.TEST_PAUSE_AFTER_BATCH + "=1"));
    Path firstLog = tmp.resolve("first.log");
    Process first = start(paused, firstLog);
    // The same stream without interruption, in this JVM, while the driver processes run.
    Path reference = tmp.resolve("reference");
    Background<JobRun> referenceRun = Background.start("reference stream", () -> {
      SparkTestSupport.spark();
      return JobRun.of(new StreamTrainJob(), args(in, reference, tmp.resolve("ckpt2"),
          tmp.resolve("m2.json")).toArray(new String[0]));
    });
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (first.isAlive() && System.nanoTime() < deadline
        && !Files.readString(firstLog).contains("waiting to be killed")) {
      Thread.sleep(100);
    }
    assertTrue(first.isAlive(), "the first run ended before the kill:\n"
        + Files.readString(firstLog));
    first.destroyForcibly().waitFor(); // SIGKILL: the script execs the driver JVM
    assertTrue(Files.readString(firstLog).contains("waiting to be killed"),
        Files.readString(firstLog));
    assertTrue(savedBatch(checkpoint, 1), "batch 1 was applied and its state saved");
    assertTrue(Files.exists(checkpoint.resolve("query/offsets/1")), "Spark planned batch 1");
    assertFalse(Files.exists(checkpoint.resolve("query/commits/1")),
        "but did not commit it: the moment this test is about");

    Path resumeLog = tmp.resolve("resume.log");
    Process resumed = start(args(in, model, checkpoint, metrics), resumeLog);
    assertTrue(resumed.waitFor(5, TimeUnit.MINUTES), "the resumed run hung");
    String log = Files.readString(resumeLog);
    assertEquals(0, resumed.exitValue(), log);
    assertTrue(log.contains("Resuming: 2 batches (last id 1)"), log);
    assertTrue(log.contains("Batch 1 was applied already"), log);
    JsonNode m = Json.MAPPER.readTree(metrics.toFile());
    List<Integer> learnt = new ArrayList<>();
    m.get("batches").forEach(b -> learnt.add(b.get("batchId").asInt()));
    assertEquals(List.of(2, 3), learnt, "the resumed run learnt only batches 2 and 3");
    assertEquals(lines.size(), m.get("cumulative").get("rows").asLong(), "every row once");

    JobRun run = referenceRun.get();
    assertEquals(0, run.exitCode, run.toString());
    assertArrayEquals(weights(reference), weights(model), 0.0);
  }

  /**
   * Whether the learner state holds batch {@code batchId}: a snapshot of it, or its change after
   * a snapshot (the learner state's two kinds of file).
   */
  static boolean savedBatch(Path checkpoint, long batchId) {
    String id = String.format(Locale.ROOT, "%019d", batchId);
    return Files.exists(checkpoint.resolve("learner/state-" + id + ".bin"))
        || Files.exists(checkpoint.resolve("learner/change-" + id + ".bin"));
  }

  /** The saved model's weights and intercept, to compare bit for bit. */
  static double[] weights(Path model) {
    PerceptronClassificationModel m = PerceptronClassificationModel.load(model.toString());
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }
}
