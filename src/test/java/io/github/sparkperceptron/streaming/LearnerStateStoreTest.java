package io.github.sparkperceptron.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.kernel.LinearState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The learner state's file format and its directory, without Spark. */
class LearnerStateStoreTest {
  @TempDir
  Path tmp;

  /** Awkward doubles on purpose: bits that a decimal round trip would change. */
  private static LearnerState sample(long batchId, boolean averaging) {
    double[] w = {Math.PI, -0.0, Double.MIN_VALUE, 1e300, -7.25, Math.nextUp(1.0)};
    double[] u = averaging ? new double[] {1e-300, 2.5, -3.0, 0.1, 0.2, 0.3} : null;
    return new LearnerState("a=1\nb=é\n", "query-42", new StreamingProgress(batchId,
        batchId + 1, 1234, 1000, 77, 2, 5), new LinearState(w, u, 1234.0));
  }

  @Test
  void aStateReadsBackBitForBit() {
    for (boolean averaging : new boolean[] {false, true}) {
      LearnerState s = sample(9, averaging);
      LearnerState back = LearnerStateStore.decode(LearnerStateStore.encode(s));
      assertEquals(s.configuration, back.configuration);
      assertEquals(s.queryId, back.queryId);
      assertEquals(List.of(9L, 10L, 1234L, 1000L, 77L), List.of(back.lastBatchId, back.batches,
          back.rows, back.prequentialCorrect, back.updates));
      assertEquals(2, back.numClasses);
      assertEquals(5, back.numFeatures);
      assertEquals(Double.doubleToRawLongBits(1234.0),
          Double.doubleToRawLongBits(back.state.clock()));
      assertArrayEquals(bits(s.state.weights()), bits(back.state.weights()));
      if (averaging) {
        assertArrayEquals(bits(s.state.averageAccumulator()),
            bits(back.state.averageAccumulator()));
      } else {
        assertNull(back.state.averageAccumulator());
      }
    }
  }

  private static long[] bits(double[] v) {
    return Arrays.stream(v).mapToLong(Double::doubleToRawLongBits).toArray();
  }

  /** A fixture written by an earlier version (src/test/resources/state-files/README.md). */
  static byte[] fixture(String name) throws IOException {
    try (java.io.InputStream in = LearnerStateStoreTest.class.getResourceAsStream(
        "/state-files/" + name)) {
      assertNotNull(in, name + " is missing from src/test/resources/state-files");
      return in.readAllBytes();
    }
  }

  /** Learner states in format 1 (magic SPLSTATE), written before the container, still load. */
  @Test
  void formatOneStatesOfTheEarlierVersionStillLoad() throws IOException {
    for (boolean averaging : new boolean[] {false, true}) {
      LearnerState s = sample(3, averaging);
      LearnerState back = LearnerStateStore.decode(fixture("learner-state-v1"
          + (averaging ? "-averaged" : "") + ".bin"));
      assertEquals(s.configuration, back.configuration);
      assertEquals(s.queryId, back.queryId);
      assertEquals(List.of(3L, 4L, 1234L, 1000L, 77L), List.of(back.lastBatchId, back.batches,
          back.rows, back.prequentialCorrect, back.updates));
      assertEquals(List.of(2, 5), List.of(back.numClasses, back.numFeatures));
      assertEquals(Double.doubleToRawLongBits(1234.0),
          Double.doubleToRawLongBits(back.state.clock()));
      assertArrayEquals(bits(s.state.weights()), bits(back.state.weights()));
      if (averaging) {
        assertArrayEquals(bits(s.state.averageAccumulator()),
            bits(back.state.averageAccumulator()));
      } else {
        assertNull(back.state.averageAccumulator());
      }
    }
  }

  /**
   * Learner states in format 2 (the container, before the state was kept as snapshots and
   * changes), written by the code at main 51f0a90, still load.
   */
  @Test
  void formatTwoStatesOfTheEarlierVersionStillLoad() throws IOException {
    for (boolean averaging : new boolean[] {false, true}) {
      LearnerState s = sample(3, averaging);
      LearnerState back = LearnerStateStore.decode(fixture("learner-state-v2"
          + (averaging ? "-averaged" : "") + ".bin"));
      assertEquals(s.configuration, back.configuration);
      assertEquals(s.queryId, back.queryId);
      assertEquals(List.of(3L, 4L, 1234L, 1000L, 77L), List.of(back.lastBatchId, back.batches,
          back.rows, back.prequentialCorrect, back.updates));
      assertEquals(List.of(2, 5), List.of(back.numClasses, back.numFeatures));
      assertEquals(Double.doubleToRawLongBits(1234.0),
          Double.doubleToRawLongBits(back.state.clock()));
      assertArrayEquals(bits(s.state.weights()), bits(back.state.weights()));
      if (averaging) {
        assertArrayEquals(bits(s.state.averageAccumulator()),
            bits(back.state.averageAccumulator()));
      } else {
        assertNull(back.state.averageAccumulator());
      }
    }
  }

  /** Format 1's own checks, on a file of that format. */
  @Test
  void damagedTruncatedForeignAndNewerFilesAreRefusedWithTheReason() throws IOException {
    byte[] good = fixture("learner-state-v1-averaged.bin");
    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 1;
    assertMessage("checksum does not match", flipped);
    assertMessage("damaged or truncated", Arrays.copyOf(good, good.length - 20));
    assertMessage("truncated", Arrays.copyOf(good, 10));
    byte[] foreign = good.clone();
    foreign[0] = 'X';
    assertMessage("not a spark-perceptron learner state", foreign);
    byte[] newer = good.clone();
    newer[11] = 2; // the version's low byte, right after the 8-byte magic
    assertMessage("format version is 2", newer);
  }

  /**
   * The container's checks on a state in today's format: a flipped payload bit, a cut, another
   * kind of state file, a newer format, a size that does not fit the model.
   */
  @Test
  void damagedTruncatedForeignAndNewerStatesInTheContainerAreRefusedWithTheReason() {
    byte[] good = LearnerStateStore.encode(sample(3, true));
    byte[] flipped = good.clone();
    flipped[good.length - 30] ^= 1; // inside the accumulator's last doubles
    assertMessage("checksum does not match", flipped);
    assertMessage("truncated", Arrays.copyOf(good, good.length - 20));
    assertMessage("truncated", Arrays.copyOf(good, 10));
    byte[] foreign = good.clone();
    foreign[0] = 'X';
    assertMessage("not a spark-perceptron learner state", foreign);
    byte[] checkpoint = good.clone();
    System.arraycopy("CKPT".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, checkpoint,
        3, 4);
    assertMessage("another kind of spark-perceptron state file ('CKPT')", checkpoint);
    byte[] newer = good.clone();
    newer[11] = 3; // the version's low byte, right after the 8-byte magic
    // A sound file of a newer format: its checksum matches (else it would be damage).
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(newer, 0, newer.length - 4);
    java.nio.ByteBuffer.wrap(newer).putInt(newer.length - 4, (int) crc.getValue());
    assertMessage("learner state format 3, written by a newer spark-perceptron", newer);
    LearnerState wrongShape = new LearnerState("a=1\n", "q",
        new StreamingProgress(1, 1, 1, 1, 1, 3, 5), new LinearState(new double[6], null, 0.0));
    assertMessage("sizes are inconsistent (3 classes, 5 features, 6 weights)",
        LearnerStateStore.encode(wrongShape));
  }

  private static void assertMessage(String expected, byte[] bytes) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LearnerStateStore.decode(bytes));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void theDirectoryKeepsOnlyTheLatestCompleteStateAndThePublishedMark() throws IOException {
    LearnerStateStore store = new LearnerStateStore(new Configuration(),
        tmp.resolve("learner").toString());
    assertNull(store.latest());
    store.save(sample(1, true));
    store.save(sample(12, true));
    // A temporary file of an interrupted write is never read.
    Files.write(tmp.resolve("learner/.state-0000000000000000099.bin.tmp-x"), new byte[] {1, 2});
    assertEquals(12, store.latest().lastBatchId);
    try (Stream<Path> files = Files.list(tmp.resolve("learner"))) {
      List<String> states = files.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("state-")).collect(Collectors.toList());
      assertEquals(List.of("state-0000000000000000012.bin"), states);
    }
    assertEquals(-1, store.publishedBatch("/models/a"));
    store.markPublished(12, "/models/a");
    assertEquals(12, store.publishedBatch("/models/a"));
    assertEquals(-1, store.publishedBatch("/models/b"), "another model path was not published");

    Files.write(tmp.resolve("learner/state-0000000000000000013.bin"), new byte[] {1, 2, 3});
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, store::latest);
    assertTrue(e.getMessage().contains("state-0000000000000000013.bin cannot be used"),
        e.getMessage());
  }

  @Test
  void theFirstDifferingSettingIsNamed() {
    assertNull(StreamingPerceptron.difference("a=1\nb=2\n", "a=1\nb=2\n"));
    assertEquals("b was 2 there, 3 now", StreamingPerceptron.difference("a=1\nb=2\n", "a=1\nb=3\n"));
    assertEquals("b was unset there, x now",
        StreamingPerceptron.difference("a=1\nb=\n", "a=1\nb=x\n"));
  }
}
