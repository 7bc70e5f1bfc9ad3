package io.github.sparkperceptron.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.engine.MomentumState;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.ml.param.Param;
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
        new StreamingProgress.Tally(batchId + 1, 1234, 1000, 77, 0), 2, 5),
        new LinearState(w, u, 1234.0));
  }

  @Test
  void aStateReadsBackBitForBit() {
    for (boolean averaging : new boolean[] {false, true}) {
      LearnerState s = sample(9, averaging);
      LearnerState back = LearnerStateStore.decode(LearnerStateStore.encode(s));
      assertEquals(s.configuration, back.configuration);
      assertEquals(s.queryId, back.queryId);
      assertEquals(List.of(9L, 10L, 1234L, 1000L, 77L), List.of(back.progress.lastBatchId(),
          back.progress.batches(), back.progress.rows(), back.progress.prequentialCorrect(),
          back.progress.updates()));
      assertEquals(2, back.progress.numClasses());
      assertEquals(5, back.progress.numFeatures());
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
    try (InputStream in = LearnerStateStoreTest.class.getResourceAsStream(
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
      assertEquals(List.of(3L, 4L, 1234L, 1000L, 77L), List.of(back.progress.lastBatchId(),
          back.progress.batches(), back.progress.rows(), back.progress.prequentialCorrect(),
          back.progress.updates()));
      assertEquals(List.of(2, 5),
          List.of(back.progress.numClasses(), back.progress.numFeatures()));
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
      assertEquals(List.of(3L, 4L, 1234L, 1000L, 77L), List.of(back.progress.lastBatchId(),
          back.progress.batches(), back.progress.rows(), back.progress.prequentialCorrect(),
          back.progress.updates()));
      assertEquals(List.of(2, 5),
          List.of(back.progress.numClasses(), back.progress.numFeatures()));
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
    System.arraycopy("CKPT".getBytes(StandardCharsets.US_ASCII), 0, checkpoint,
        3, 4);
    assertMessage("another kind of spark-perceptron state file ('CKPT')", checkpoint);
    byte[] newer = good.clone();
    newer[11] = 4; // the version's low byte, right after the 8-byte magic
    // A sound file of a newer format: its checksum matches (else it would be damage).
    CRC32C crc = new CRC32C();
    crc.update(newer, 0, newer.length - 4);
    ByteBuffer.wrap(newer).putInt(newer.length - 4, (int) crc.getValue());
    assertMessage("learner state format 4, written by a newer spark-perceptron", newer);
    LearnerState wrongShape = new LearnerState("a=1\n", "q",
        new StreamingProgress(1, new StreamingProgress.Tally(1, 1, 1, 1, 0), 3, 5),
        new LinearState(new double[6], null, 0.0));
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
    store.save(sample(1, true), null);
    store.save(sample(12, true), null);
    // A temporary file of an interrupted write is never read.
    Files.write(tmp.resolve("learner/.state-0000000000000000099.bin.tmp-x"), new byte[] {1, 2});
    assertEquals(12, store.latest().progress.lastBatchId());
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

  /**
   * A learner with block momentum and a drift detector, its arrays filled with awkward doubles;
   * {@link #step} changes some coordinates as a batch would.
   */
  private static LearnerState withMomentum(long batchId, Random random) {
    int length = 40;
    double[] w = new double[length];
    double[] u = new double[length];
    double[] v = new double[length];
    for (int j = 0; j < length; j += 3) {
      w[j] = random.nextGaussian() * 1e-3;
      u[j] = random.nextGaussian() * 1e5;
      v[j] = random.nextGaussian();
    }
    MomentumState momentum = new MomentumState(v, 3.5, 1.25, 2, 7.5, 0.25);
    return new LearnerState("a=1\n", "query-7", new StreamingProgress(batchId,
        new StreamingProgress.Tally(batchId + 1, 100, 60, 30, 1), 2, 39),
        new LinearState(w, u, 99.0), momentum,
        new double[] {2, 1, 0.002, Math.PI});
  }

  /** The learner after one more batch that wrote {@code written}; returns them. */
  private static int[] step(LearnerState[] s, Random random) {
    LearnerState before = s[0];
    TreeSet<Integer> set = new TreeSet<>();
    while (set.size() < 5) {
      set.add(random.nextInt(before.state.weights().length));
    }
    int[] written = set.stream().mapToInt(Integer::intValue).toArray();
    for (int j : written) {
      before.state.weights()[j] = random.nextGaussian();
      before.state.averageAccumulator()[j] = random.nextGaussian() * 1e9;
      before.momentum.velocity()[j] = random.nextBoolean() ? 0.0 : random.nextGaussian();
    }
    before.state.setClock(before.state.clock() + 17.25);
    MomentumState bm = before.momentum;
    MomentumState m = new MomentumState(bm.velocity(), bm.mass() + 2, bm.velocityMass() / 2,
        bm.restarts() + 1, bm.rho() + 1, bm.initialSquaredNorm());
    StreamingProgress p = before.progress;
    s[0] = new LearnerState(before.configuration, before.queryId, new StreamingProgress(
        p.lastBatchId() + 1, new StreamingProgress.Tally(p.batches() + 1, p.rows() + 10,
            p.prequentialCorrect() + 7, p.updates() + 3, p.drifts() + 1), 2, 39), before.state, m,
        new double[] {2, 1, 0.002, before.progress.lastBatchId() + 0.5});
    return written;
  }

  private static void assertSameState(LearnerState expected, LearnerState actual) {
    assertEquals(expected.configuration, actual.configuration);
    assertEquals(expected.queryId, actual.queryId);
    assertEquals(expected.progress.toString(), actual.progress.toString());
    assertEquals(expected.progress.lastBatchId(), actual.progress.lastBatchId());
    assertEquals(expected.progress.tally(), actual.progress.tally());
    assertArrayEquals(bits(expected.state.weights()), bits(actual.state.weights()));
    assertArrayEquals(bits(expected.state.averageAccumulator()),
        bits(actual.state.averageAccumulator()));
    assertEquals(Double.doubleToRawLongBits(expected.state.clock()),
        Double.doubleToRawLongBits(actual.state.clock()));
    assertArrayEquals(bits(expected.momentum.velocity()), bits(actual.momentum.velocity()));
    assertEquals(List.of(expected.momentum.mass(), expected.momentum.velocityMass(),
        expected.momentum.rho(), expected.momentum.initialSquaredNorm()),
        List.of(actual.momentum.mass(), actual.momentum.velocityMass(),
            actual.momentum.rho(), actual.momentum.initialSquaredNorm()));
    assertEquals(expected.momentum.restarts(), actual.momentum.restarts());
    assertArrayEquals(bits(expected.drift), bits(actual.drift));
  }

  /** A deep copy through the snapshot codec (which the round trip test proves exact). */
  private static LearnerState copy(LearnerState s) {
    return LearnerStateStore.decode(LearnerStateStore.encode(s));
  }

  /**
   * Saved as a snapshot and then the changes of later batches (only the coordinates each batch
   * wrote), the state reads back bit for bit after every batch: weights, accumulator, clock,
   * momentum's velocity and scalars, the detector, the counts. Between snapshots the directory
   * holds one file per batch; the next snapshot comes once the changes would hold more values
   * than the state (40 here: the ninth change of 5), and removes the files it includes.
   */
  @Test
  void snapshotAndChangesReadBackBitForBit() throws IOException {
    Random random = new Random(3);
    LearnerStateStore store = new LearnerStateStore(new Configuration(),
        tmp.resolve("learner").toString());
    LearnerState[] live = {withMomentum(0, random)};
    assertTrue(store.save(live[0], null), "the first save is a snapshot");
    assertSameState(live[0], new LearnerStateStore(new Configuration(),
        tmp.resolve("learner").toString()).latest());
    List<Boolean> snapshots = new ArrayList<>();
    for (int b = 1; b <= 10; b++) {
      int[] written = step(live, random);
      snapshots.add(store.save(live[0], written));
      LearnerState expected = copy(live[0]);
      LearnerState read = new LearnerStateStore(new Configuration(),
          tmp.resolve("learner").toString()).latest();
      assertSameState(expected, read);
    }
    assertEquals(List.of(false, false, false, false, false, false, false, false, true, false),
        snapshots, "40 coordinates: a ninth change of 5 would pass them");
    try (Stream<Path> files = Files.list(tmp.resolve("learner"))) {
      assertEquals(List.of("change-0000000000000000010.bin", "state-0000000000000000009.bin"),
          files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("."))
              .sorted().collect(Collectors.toList()));
    }
  }

  /**
   * The rule for damage: a temporary file (what a driver killed while writing leaves) is never
   * read; a complete change that does not read, or a missing link in the chain of changes, is
   * refused with a message naming the file, never skipped.
   */
  @Test
  void aDamagedOrMissingChangeIsRefusedAndAnInterruptedWriteIgnored() throws IOException {
    Random random = new Random(5);
    Path dir = tmp.resolve("learner");
    LearnerStateStore store = new LearnerStateStore(new Configuration(), dir.toString());
    LearnerState[] live = {withMomentum(0, random)};
    store.save(live[0], null);
    for (int b = 1; b <= 3; b++) {
      int[] written = step(live, random);
      store.save(live[0], written);
    }
    LearnerState expected = copy(live[0]);
    Files.write(dir.resolve(".change-0000000000000000004.bin.tmp-x"), new byte[] {1, 2, 3});
    assertSameState(expected, new LearnerStateStore(new Configuration(), dir.toString())
        .latest());

    Path last = dir.resolve("change-0000000000000000003.bin");
    byte[] good = Files.readAllBytes(last);
    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 1;
    Files.write(last, flipped);
    IllegalArgumentException damaged = assertThrows(IllegalArgumentException.class,
        () -> new LearnerStateStore(new Configuration(), dir.toString()).latest());
    assertTrue(damaged.getMessage().contains("change-0000000000000000003.bin cannot be used")
        && damaged.getMessage().contains("checksum does not match")
        && damaged.getMessage().contains("refused rather than skipped"), damaged.getMessage());

    Files.write(last, good);
    Files.delete(dir.resolve("change-0000000000000000002.bin"));
    IllegalArgumentException gap = assertThrows(IllegalArgumentException.class,
        () -> new LearnerStateStore(new Configuration(), dir.toString()).latest());
    assertTrue(gap.getMessage().contains("it changes the state of batch 2, but the state before"
        + " it is of batch 1 (a change record is missing)"), gap.getMessage());
  }

  /**
   * A state of format 2 (today's fixture) resumes, and the first save after it is a snapshot in
   * the current format: a reader of format 2 would otherwise resume from its stale snapshot and
   * ignore the changes; it refuses format 3 instead.
   */
  @Test
  void aStateOfFormatTwoIsFollowedByASnapshot() throws IOException {
    Path dir = tmp.resolve("learner");
    Files.createDirectories(dir);
    Files.write(dir.resolve("state-0000000000000000003.bin"),
        fixture("learner-state-v2-averaged.bin"));
    LearnerStateStore store = new LearnerStateStore(new Configuration(), dir.toString());
    LearnerState loaded = store.latest();
    assertEquals(3, loaded.progress.lastBatchId());
    LearnerState next = new LearnerState(loaded.configuration, loaded.queryId,
        new StreamingProgress(4, new StreamingProgress.Tally(5, 1300, 1050, 80, 0), 2, 5),
        loaded.state);
    assertTrue(store.save(next, new int[] {1}), "a snapshot, though one coordinate changed");
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of("state-0000000000000000004.bin"), files.map(p ->
          p.getFileName().toString()).filter(n -> !n.startsWith("."))
          .collect(Collectors.toList()));
    }
  }

  @Test
  void theFirstDifferingSettingIsNamed() {
    assertNull(StreamConfiguration.difference("a=1\nb=2\n", "a=1\nb=2\n"));
    assertEquals("b was 2 there, 3 now", StreamConfiguration.difference("a=1\nb=2\n",
        "a=1\nb=3\n"));
    assertEquals("b was unset there, x now",
        StreamConfiguration.difference("a=1\nb=\n", "a=1\nb=x\n"));
  }

  /**
   * The configuration text is what the learner states saved by earlier versions hold (or they
   * would not resume): built here as those versions built it, line by line, with a named value
   * given in upper case and an initial model.
   */
  @Test
  void theConfigurationIsTheTextEarlierVersionsSaved() {
    PerceptronClassificationModel initial = EngineBridge.model(
        new PerceptronClassifier(), 2, 2,
        new LinearState(new double[] {1.0, -2.0, 0.25}, null, 0.0));
    PerceptronClassifier params =
        new PerceptronClassifier().setUpdateRule("PA1")
            .setStepSize(0.5).setWeightCol("w").setInitialModel(initial);
    StringBuilder sb = new StringBuilder("spark-perceptron stream 1\n");
    for (Param<?> p : List.of(params.labelCol(), params.featuresCol(),
        params.weightCol(), params.stepSize(), params.fitIntercept(), params.aggressiveness(),
        params.shuffle(), params.seed(), params.aggregationDepth(), params.tol(),
        params.mixingRounds())) {
      sb.append(p.name()).append('=')
          .append(params.isDefined(p) ? String.valueOf(params.getOrDefault(p)) : "").append('\n');
    }
    sb.append("updateRule=pa1\naveraging=").append(params.getAveraging().toLowerCase())
        .append("\nmixing=").append(params.getMixing().toLowerCase())
        .append("\nepochsPerBatch=3\nnumClasses=from the data\ninitialModel=")
        .append(Arrays.hashCode(initial.coefficients().toArray())).append('/')
        .append(Arrays.hashCode(initial.interceptVector().toArray()))
        .append("\ndriftDetector=adwin\nonDrift=report\n");
    assertEquals(sb.toString(), StreamConfiguration.of(params, 3, 0, "adwin", "report"));
  }

  /**
   * A configuration saved before drift detection (no driftDetector line) resumes under any
   * detector and policy; a configuration saved with them resumes only under the same.
   */
  @Test
  void aConfigurationSavedBeforeDriftDetectionResumesUnderAnyDetector() {
    PerceptronClassifier params =
        new PerceptronClassifier();
    String now = StreamConfiguration.of(params, 1, 0, "adwin", "reset");
    String legacy = now.substring(0, now.indexOf("driftDetector="));
    assertNull(StreamConfiguration.difference(StreamConfiguration.upgraded(legacy, now), now));
    String saved = StreamConfiguration.of(params, 1, 0, "page-hinkley", "reset");
    assertEquals("driftDetector was page-hinkley there, adwin now",
        StreamConfiguration.difference(StreamConfiguration.upgraded(saved, now), now));
  }
}
