package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code submit/stream-train}'s two sources, files (--input) and Kafka, refuse bad combinations
 * before any work: one line on stderr naming the flags, exit 2.
 */
class StreamTrainSourceFlagsTest {
  private static void refused(String expected, String... args) {
    String[] all = new String[args.length + 4];
    System.arraycopy(new String[] {"--model", "/nonexistent/m", "--checkpoint-dir",
        "/nonexistent/c"}, 0, all, 0, 4);
    System.arraycopy(args, 0, all, 4, args.length);
    JobRun run = JobRun.of(new StreamTrainJob(), all);
    assertEquals(2, run.exitCode, run.toString());
    assertTrue(run.err.contains(expected), run.err);
    assertEquals(1, run.err.strip().lines().count(), run.err);
  }

  @Test
  void aStreamNeedsExactlyOneSource() {
    refused("Give the stream's source: --input DIR");
    refused("two sources", "--input", "in", "--kafka-bootstrap-servers", "127.0.0.1:9092",
        "--kafka-topic", "t", "--num-features", "3");
    refused("needs both --kafka-bootstrap-servers HOST:PORT and --kafka-topic NAME, got servers"
        + " '127.0.0.1:9092' and no topic", "--kafka-bootstrap-servers", "127.0.0.1:9092",
        "--num-features", "3");
  }

  @Test
  void kafkaMessagesAreTextRowsWithoutHeaderColumns() {
    String[] kafka = {"--kafka-bootstrap-servers", "127.0.0.1:9092", "--kafka-topic", "t"};
    refused("not parquet", concat(kafka, "--format", "parquet"));
    refused("--label-col names columns of a CSV header", concat(kafka, "--format", "csv",
        "--label-col", "y"));
    refused("for Kafka use --max-offsets-per-trigger", concat(kafka, "--num-features", "3",
        "--max-files-per-trigger", "1"));
    refused("--num-features is required for LIBSVM", kafka);
    refused("--max-offsets-per-trigger applies to Kafka input", "--input", "in",
        "--num-features", "3", "--max-offsets-per-trigger", "5");
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
