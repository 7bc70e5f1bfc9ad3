package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.KafkaBroker;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code submit/stream-train} from a real Kafka broker ({@link KafkaBroker}: Kafka 3.9.2 in
 * KRaft mode, in this JVM on 127.0.0.1): Spark's Kafka source reads every produced row, the job
 * learns from a topic exactly what it learns from the same rows in files (bit for bit, batch for
 * batch), and a bad message stops it naming its topic, partition and offset.
 */
@Tag("kafka")
class StreamTrainKafkaTest {
  @TempDir
  static Path tmp;

  private static KafkaBroker kafka;
  private static List<String> lines;

  @BeforeAll
  static void start() throws Exception {
    SparkTestSupport.spark();
    lines = Files.readAllLines(TestData.sharedData("breast_cancer", "train.libsvm"));
    kafka = KafkaBroker.start(tmp);
    kafka.createTopic("rows", 1);
    kafka.produce("rows", lines);
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void sparksKafkaSourceReadsEveryProducedRowInOrder() throws Exception {
    SparkSession spark = SparkTestSupport.spark();
    StreamingQuery query = spark.readStream().format("kafka")
        .option("kafka.bootstrap.servers", kafka.bootstrapServers()).option("subscribe", "rows")
        .option("startingOffsets", "earliest").load()
        .selectExpr("CAST(value AS STRING) AS value", "offset")
        .writeStream().format("memory").queryName("kafka_rows")
        .trigger(Trigger.AvailableNow()).start();
    query.awaitTermination();
    List<String> read = new ArrayList<>();
    for (Row r : spark.sql("SELECT value FROM kafka_rows ORDER BY offset").collectAsList()) {
      read.add(r.getString(0));
    }
    assertEquals(lines, read);
  }

  @Test
  void learnsFromATopicWhatTheSameRowsInFilesTeachBitForBit() throws Exception {
    int batch = (lines.size() + 2) / 3;
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    for (int i = 0; i < 3; i++) {
      Path f = in.resolve("part-" + i + ".libsvm");
      Files.write(f, lines.subList(i * batch, Math.min(lines.size(), (i + 1) * batch)));
      Files.setLastModifiedTime(f, FileTime.fromMillis(1_700_000_000_000L + i * 1000L));
    }
    JobRun files = JobRun.of(new StreamTrainJob(), "--input", in.toString(), "--model",
        tmp.resolve("files-model").toString(), "--checkpoint-dir",
        tmp.resolve("files-ckpt").toString(), "--num-features", "30", "--workers", "1",
        "--max-files-per-trigger", "1");
    assertEquals(0, files.exitCode, files.toString());

    JobRun topic = JobRun.of(new StreamTrainJob(), "--kafka-bootstrap-servers",
        kafka.bootstrapServers(), "--kafka-topic", "rows", "--model",
        tmp.resolve("kafka-model").toString(), "--checkpoint-dir",
        tmp.resolve("kafka-ckpt").toString(), "--num-features", "30", "--workers", "1",
        "--max-offsets-per-trigger", String.valueOf(batch));
    assertEquals(0, topic.exitCode, topic.toString());
    assertTrue(topic.out.contains("batch 2: " + (lines.size() - 2 * batch)
        + " rows from topic rows"), topic.out);
    assertTrue(topic.out.contains("Learnt " + lines.size() + " rows in 3 batches"), topic.out);
    assertArrayEquals(weights(tmp.resolve("files-model")), weights(tmp.resolve("kafka-model")));

    JobRun again = JobRun.of(new StreamTrainJob(), "--kafka-bootstrap-servers",
        kafka.bootstrapServers(), "--kafka-topic", "rows", "--model",
        tmp.resolve("kafka-model").toString(), "--checkpoint-dir",
        tmp.resolve("kafka-ckpt").toString(), "--num-features", "30", "--workers", "1",
        "--max-offsets-per-trigger", String.valueOf(batch));
    assertEquals(0, again.exitCode, again.toString());
    assertTrue(again.out.contains("nothing learnt"), again.out);
  }

  @Test
  void aBadMessageStopsTheStreamNamingItsOffset() throws Exception {
    kafka.createTopic("bad", 1);
    kafka.produce("bad", List.of("1 1:0.5", "0 2:1", "1 3:abc", "0 1:1"));
    JobRun run = JobRun.of(new StreamTrainJob(), "--kafka-bootstrap-servers",
        kafka.bootstrapServers(), "--kafka-topic", "bad", "--model",
        tmp.resolve("bad-model").toString(), "--checkpoint-dir",
        tmp.resolve("bad-ckpt").toString(), "--num-features", "30");
    assertEquals(2, run.exitCode, run.toString());
    assertTrue(run.err.contains("topic bad, partition 0, offset 2: "), run.err);
    assertTrue(run.err.contains("(stream input (--kafka-topic), LIBSVM format"), run.err);
    assertEquals(1, run.err.strip().lines().count(), run.err);
    assertFalse(Files.exists(tmp.resolve("bad-model")));
  }

  private static double[] weights(Path model) {
    PerceptronClassificationModel m = PerceptronClassificationModel.load(model.toString());
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }
}
