package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.testing.Background;
import io.github.sparkperceptron.testing.KafkaBroker;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once from a real Kafka broker through a real kill: rows produced to a topic of
 * {@link KafkaBroker} (in this JVM, so it outlives the driver), a {@code submit/stream-train}
 * driver process learning them in 4 batches SIGKILLed after it applied batch 1 and saved the
 * learner state but before Spark committed the batch (the learner's test hook parks it there),
 * then the same command again: Spark's Kafka source replays batch 1 from the offsets it logged,
 * the learner skips it, batches 2 and 3 are learnt, and the model equals, bit for bit, that of an
 * uninterrupted run over the same topic; the drift detector's count too.
 */
@Tag("kafka")
// Starts a broker and driver JVMs (and may build the jar): minutes under load.
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class StreamTrainKafkaKillTest {
  @TempDir
  Path tmp;

  private static List<String> args(String servers, Path model, Path checkpoint, Path metrics,
      int perBatch) {
    return new ArrayList<>(List.of("--kafka-bootstrap-servers", servers, "--kafka-topic",
        "rows", "--model", model.toString(), "--checkpoint-dir", checkpoint.toString(),
        "--num-features", "30", "--max-offsets-per-trigger", String.valueOf(perBatch),
        "--workers", "2", "--drift-detector", "page-hinkley", "--metrics",
        metrics.toString()));
  }

  @Test
  void aDriverKilledBetweenApplyingAndCommittingABatchResumesAndLearnsEveryMessageOnce()
      throws Exception {
    List<String> lines = Files.readAllLines(TestData.sharedData("breast_cancer",
        "train.libsvm"));
    int perBatch = (lines.size() + 3) / 4;
    try (KafkaBroker kafka = KafkaBroker.start(tmp)) {
      kafka.createTopic("rows", 1);
      kafka.produce("rows", lines);
      Path model = tmp.resolve("model");
      Path checkpoint = tmp.resolve("ckpt");
      Path metrics = tmp.resolve("metrics.json");

      List<String> paused = args(kafka.bootstrapServers(), model, checkpoint, metrics, perBatch);
      paused.addAll(List.of("--conf", Settings.TEST_PAUSE_AFTER_BATCH + "=1"));
      Path firstLog = tmp.resolve("first.log");
      Process first = StreamTrainKillTest.start(paused, firstLog);
      // The same topic without interruption, in this JVM, while the driver processes run.
      Path reference = tmp.resolve("reference");
      Path referenceMetrics = tmp.resolve("reference.json");
      Background<JobRun> referenceRun = Background.start("reference stream", () -> {
        SparkTestSupport.spark();
        return JobRun.of(new StreamTrainJob(), args(kafka.bootstrapServers(), reference,
            tmp.resolve("ckpt2"), referenceMetrics, perBatch).toArray(new String[0]));
      });
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(8);
      while (first.isAlive() && System.nanoTime() < deadline
          && !Files.readString(firstLog).contains("waiting to be killed")) {
        Thread.sleep(100);
      }
      assertTrue(first.isAlive(), "the first run ended before the kill:\n"
          + Files.readString(firstLog));
      first.destroyForcibly().waitFor(); // SIGKILL: the script execs the driver JVM
      assertTrue(StreamTrainKillTest.savedBatch(checkpoint, 1),
          "batch 1 was applied and its state saved");
      assertTrue(Files.exists(checkpoint.resolve("query/offsets/1")), "Spark logged batch 1");
      assertFalse(Files.exists(checkpoint.resolve("query/commits/1")),
          "but did not commit it: the moment this test is about");

      Path resumeLog = tmp.resolve("resume.log");
      Process resumed = StreamTrainKillTest.start(args(kafka.bootstrapServers(), model, checkpoint, metrics,
          perBatch), resumeLog);
      assertTrue(resumed.waitFor(8, TimeUnit.MINUTES), "the resumed run hung");
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
      assertArrayEquals(StreamTrainKillTest.weights(reference), StreamTrainKillTest.weights(model),
          0.0);
      JsonNode r = Json.MAPPER.readTree(referenceMetrics.toFile());
      assertEquals(r.get("cumulative").get("prequentialCorrect").asLong(),
          m.get("cumulative").get("prequentialCorrect").asLong());
      assertEquals(r.get("cumulative").get("drifts").asLong(),
          m.get("cumulative").get("drifts").asLong());
    }
  }
}
