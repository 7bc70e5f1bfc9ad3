package io.github.sparkperceptron.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.Success$;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task retries and checkpoint/resume leave the model bit-identical to an undisturbed training.
 * Runs on local[2,3] (two threads, up to three attempts per task), which needs its own session.
 */
class RecoveryTest {
  private static SparkSession spark;
  private static Dataset<Row> data;
  /** Every test row, to compare models by what they predict, votes included. */
  private static List<TestData.Example> testRows;
  /** {@link #undisturbed}'s models, by averaging and mixing. */
  private static final Map<String, PerceptronClassificationModel> UNDISTURBED = new HashMap<>();

  @TempDir
  Path tmp;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[2,3]");
    data = TestData.frame(spark,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 3)
        .cache();
    testRows = TestData.readLibSvm(TestData.sharedData("breast_cancer", "test.libsvm"), 30);
  }

  private static PerceptronClassifier classifier() {
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    return new PerceptronClassifier().setCalibration("none")
        .setMaxIter(8).setTol(0.0).setSeed(3).setNumWorkers(3);
  }

  /**
   * The undisturbed training of {@link #classifier()} with {@code averaging} and {@code mixing},
   * fitted once per class: a fit is a pure function of the data, params and seed, so every test
   * compares its disturbed training against the same model.
   */
  private static PerceptronClassificationModel undisturbed(String averaging, String mixing) {
    return UNDISTURBED.computeIfAbsent(averaging + ":" + mixing,
        k -> classifier().setAveraging(averaging).setMixing(mixing).fit(data));
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }

  /**
   * Asserts two models are the same model: equal coefficients and intercept, and equal raw
   * predictions on every test row, which for a voted model are its raw votes (a vote can differ
   * where the averaged weights, which coefficients() returns, do not).
   */
  private static void assertSameModel(PerceptronClassificationModel expected,
      PerceptronClassificationModel actual, String what) {
    assertArrayEquals(weights(expected), weights(actual), 0.0, what);
    assertEquals(EngineBridge.vote(expected) != null, EngineBridge.vote(actual) != null, what);
    for (TestData.Example e : testRows) {
      assertArrayEquals(expected.predictRaw(e.features).toArray(),
          actual.predictRaw(e.features).toArray(), 0.0, what);
    }
  }

  /** Runs {@code body} with injected failures; returns it and the failed tasks' reasons. */
  private static <T> T countingFailures(String mode, List<String> reasons,
      Supplier<T> body) {
    SparkListener counter = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (!(end.reason() instanceof Success$)) {
          synchronized (reasons) {
            reasons.add(end.reason().toString());
          }
        }
      }
    };
    spark.sparkContext().addSparkListener(counter);
    try {
      T result = withInjection(mode, body);
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty();
      } catch (TimeoutException e) {
        throw new AssertionError("Spark's listener bus did not drain", e);
      }
      return result;
    } finally {
      spark.sparkContext().removeSparkListener(counter);
    }
  }

  private static <T> T withInjection(String mode, Supplier<T> body) {
    spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, mode);
    try {
      return body.get();
    } finally {
      spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
    }
  }

  @Test
  void tasksThatFailOnceAreRetriedToTheSameModel() throws Exception {
    for (String config : new String[] {"average:mistakes", "vote:mistakes", "average:momentum"}) {
      String averaging = config.split(":")[0];
      String mixing = config.split(":")[1];
      int rounds = mixing.equals("momentum") ? 3 : 1;
      PerceptronClassificationModel undisturbed = undisturbed(averaging, mixing);
      List<String> failures = new ArrayList<>();
      PerceptronClassificationModel retried = countingFailures("first-attempt", failures,
          () -> classifier().setAveraging(averaging).setMixing(mixing).fit(data));
      // 8 epochs x 3 partitions (x 3 rounds with momentum), each failing once
      assertEquals(24 * rounds, failures.size(), "every round's task must have failed once");
      assertSameModel(undisturbed, retried, config);
    }
  }

  /**
   * A task that dies half-way through its round has already trained its working copy of the
   * weights on half its rows (and recorded them in its vote trace); the retry must start again
   * from the round's weights. Executors keep working copies between rounds (ExecutorWeights), so
   * a failed task that handed its half-trained copy back would hand the retry a wrong start.
   */
  @Test
  void tasksThatFailHalfWayThroughTheirEpochAreRetriedToTheSameModel() throws Exception {
    for (String[] setting : new String[][] {{"mistakes", "average"}, {"mistakes", "vote"},
        {"momentum", "average"}, {"oneshot", "vote"}}) {
      String mixing = setting[0];
      String averaging = setting[1];
      String what = "mixing=" + mixing + ", averaging=" + averaging;
      PerceptronClassificationModel undisturbed = undisturbed(averaging, mixing);
      List<String> failures = new ArrayList<>();
      PerceptronClassificationModel retried = countingFailures("first-attempt-mid-epoch",
          failures, () -> classifier().setMixing(mixing).setAveraging(averaging).fit(data));
      // Iterative: epochs x rounds (3 with momentum on 3 partitions) jobs x 3 partitions;
      // one-shot: one job whose 3 tasks each fail in their first local epoch (the retry then
      // runs every local epoch).
      int rounds = mixing.equals("momentum") ? 3 : 1;
      int expected = mixing.equals("oneshot") ? 3
          : 3 * rounds * undisturbed.summary().totalIterations();
      assertEquals(expected, failures.size(), what + ": " + failures);
      for (String f : failures) {
        assertTrue(f.contains("after learning"), f);
      }
      assertSameModel(undisturbed, retried, what);
      assertArrayEquals(undisturbed.summary().mistakesHistory(),
          retried.summary().mistakesHistory(), what);
    }
  }

  private List<String> checkpointFiles(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".ckpt"))
          .sorted().collect(Collectors.toList());
    }
  }

  @Test
  void anAbortedTrainingResumesFromItsLastCheckpointToTheSameModel() throws IOException {
    for (String config : new String[] {"none:mistakes", "average:mistakes", "vote:mistakes",
        "average:momentum", "vote:momentum"}) {
      String averaging = config.split(":")[0];
      String mixing = config.split(":")[1];
      Path dir = tmp.resolve("ckpt-" + averaging + "-" + mixing);
      PerceptronClassifier clf = classifier().setAveraging(averaging).setMixing(mixing)
          .setCheckpointDir(dir.toString()).setCheckpointInterval(2);
      PerceptronClassificationModel undisturbed = undisturbed(averaging, mixing);

      // Epoch 6 cannot run: the training dies after checkpointing epochs 2 and 4.
      Exception aborted = assertThrows(Exception.class,
          () -> withInjection("from-epoch:6", () -> clf.fit(data)));
      assertTrue(String.valueOf(aborted.getMessage()).contains("injected failure"),
          String.valueOf(aborted.getMessage()));
      assertEquals(List.of("epoch-000004.ckpt"), checkpointFiles(dir),
          "only the latest complete checkpoint is kept");

      PerceptronClassificationModel resumed = clf.fit(data);
      assertSameModel(undisturbed, resumed, config);
      assertEquals(8, resumed.summary().totalIterations());
      assertArrayEquals(undisturbed.summary().updatesHistory(),
          resumed.summary().updatesHistory());
      assertEquals(List.of(), checkpointFiles(dir), "a completed training removes its checkpoints");
    }
  }

  @Test
  void aCheckpointOfAnotherTrainingIsRefused() {
    Path dir = tmp.resolve("other");
    PerceptronClassifier clf = classifier().setCheckpointDir(dir.toString())
        .setCheckpointInterval(1);
    assertThrows(Exception.class, () -> withInjection("from-epoch:3", () -> clf.fit(data)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> clf.copy(new ParamMap()).setSeed(4).fit(data));
    assertTrue(e.getMessage().contains("a different training"), e.getMessage());
    // The visiting order shapes the training too (issue 14): another scope is another training.
    e = assertThrows(IllegalArgumentException.class,
        () -> clf.copy(new ParamMap()).setShuffleScope("chunks")
            .fit(data));
    assertTrue(e.getMessage().contains("a different training"), e.getMessage());
  }

  /**
   * A truncated, a bit-flipped and a planted checkpoint (a Java-serialized object behind the
   * header of the issue: the format number and the fingerprint, read from a real checkpoint as an
   * attacker would) are each refused with one line that names the file and the fix; the planted
   * object is never deserialized; with the real checkpoint back, training resumes to the model
   * of an undisturbed training.
   */
  @Test
  void damagedAndPlantedCheckpointsAreRefusedWithTheFileAndTheFix() throws Exception {
    Path dir = tmp.resolve("damaged");
    PerceptronClassifier clf = classifier().setCheckpointDir(dir.toString())
        .setCheckpointInterval(1);
    assertThrows(Exception.class, () -> withInjection("from-epoch:4", () -> clf.fit(data)));
    Path real = dir.resolve("epoch-000003.ckpt");
    byte[] good = Files.readAllBytes(real);

    // Hadoop's local file system keeps a checksum beside each file, which is the first to see
    // the damage; without it (other file systems), the format's own checks do.
    Path sidecar = dir.resolve("." + real.getFileName() + ".crc");
    assertTrue(Files.exists(sidecar), "Hadoop's local file system writes " + sidecar);
    Files.write(real, Arrays.copyOf(good, good.length / 2));
    assertRefused(clf, real, "the file system's checksum does not match");
    Files.delete(sidecar);
    assertRefused(clf, real, "is truncated");

    // A flip that leaves every field well-formed: only the checksum can see it. The file ends with
    // the END tag and the checksum (8 bytes); before them, the last section's last field, under
    // mixing=momentum the restart count of its MOMENTUM section.
    byte[] flipped = good.clone();
    flipped[good.length - 9] ^= 0x10;
    Files.write(real, flipped);
    assertRefused(clf, real, "its checksum does not match its content");

    Files.write(real, good);
    DataInputStream header = new DataInputStream(
        new ByteArrayInputStream(good));
    header.skipBytes(CheckpointFormat.MAGIC.length + 4);
    String fingerprint = header.readUTF();
    Path planted = dir.resolve("epoch-000007.ckpt");
    try (ObjectOutputStream out = new ObjectOutputStream(
        Files.newOutputStream(planted))) {
      out.writeInt(1);
      out.writeUTF(fingerprint);
      out.writeObject(new CheckpointFormatTest.Trap());
    }
    CheckpointFormatTest.Trap.deserialized = false;
    assertRefused(clf, planted, "is a Java serialization stream");
    assertFalse(CheckpointFormatTest.Trap.deserialized, "the planted object was deserialized");

    Files.delete(planted);
    assertSameModel(undisturbed("average", "momentum"), clf.fit(data),
        "resumed after the refusals");
  }

  private static void assertRefused(PerceptronClassifier clf, Path file, String why) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> clf.fit(data));
    String m = e.getMessage();
    assertTrue(m.startsWith("Cannot resume from the checkpoint '") && m.contains(
        file.getFileName().toString() + "': it") && m.contains(why)
        && m.contains("Delete it to start the training over"), m);
    assertFalse(m.contains("\n"), m);
  }

  @Test
  void halfWrittenCheckpointsAreNeverRead() throws IOException {
    Path dir = tmp.resolve("partial");
    Files.createDirectories(dir);
    // What a driver that died while writing leaves behind: a temporary name, never a .ckpt.
    Files.writeString(dir.resolve(".epoch-000006.ckpt.tmp-1234"), "garbage");
    PerceptronClassificationModel model = classifier().setCheckpointDir(dir.toString())
        .setCheckpointInterval(2).fit(data);
    assertArrayEquals(weights(undisturbed("average", "momentum")), weights(model), 0.0);
  }
}
