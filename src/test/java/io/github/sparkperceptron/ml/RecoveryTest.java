package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
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

  @TempDir
  Path tmp;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[2,3]");
    data = TestData.frame(spark,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 3)
        .cache();
  }

  @AfterAll
  static void stop() {
    SparkTestSupport.restart(SparkTestSupport.MASTER);
  }

  private static PerceptronClassifier classifier() {
    return new PerceptronClassifier().setMaxIter(8).setTol(0.0).setSeed(3).setNumWorkers(3);
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = java.util.Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }

  private static <T> T withInjection(String mode, java.util.function.Supplier<T> body) {
    spark.sparkContext().setLocalProperty(FaultInjection.PROPERTY, mode);
    try {
      return body.get();
    } finally {
      spark.sparkContext().setLocalProperty(FaultInjection.PROPERTY, null);
    }
  }

  @Test
  void tasksThatFailOnceAreRetriedToTheSameModel() throws Exception {
    for (String config : new String[] {"average:mistakes", "vote:mistakes", "average:momentum"}) {
      String averaging = config.split(":")[0];
      String mixing = config.split(":")[1];
      int rounds = mixing.equals("momentum") ? 3 : 1;
      double[] undisturbed = weights(classifier().setAveraging(averaging).setMixing(mixing)
          .fit(data));
      AtomicInteger failed = new AtomicInteger();
      SparkListener counter = new SparkListener() {
        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
          if (!(end.reason() instanceof Success$)) {
            failed.incrementAndGet();
          }
        }
      };
      spark.sparkContext().addSparkListener(counter);
      double[] retried;
      try {
        retried = weights(withInjection("first-attempt",
            () -> classifier().setAveraging(averaging).setMixing(mixing).fit(data)));
        spark.sparkContext().listenerBus().waitUntilEmpty();
      } finally {
        spark.sparkContext().removeSparkListener(counter);
      }
      // 8 epochs x 3 partitions (x 3 rounds with momentum), each failing once
      assertEquals(24 * rounds, failed.get(), "every round's task must have failed once");
      assertArrayEquals(undisturbed, retried, 0.0, config);
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
        "average:momentum"}) {
      String averaging = config.split(":")[0];
      String mixing = config.split(":")[1];
      Path dir = tmp.resolve("ckpt-" + averaging + "-" + mixing);
      PerceptronClassifier clf = classifier().setAveraging(averaging).setMixing(mixing)
          .setCheckpointDir(dir.toString()).setCheckpointInterval(2);
      PerceptronClassificationModel undisturbed = classifier().setAveraging(averaging)
          .setMixing(mixing).fit(data);

      // Epoch 6 cannot run: the training dies after checkpointing epochs 2 and 4.
      Exception aborted = assertThrows(Exception.class,
          () -> withInjection("from-epoch:6", () -> clf.fit(data)));
      assertTrue(String.valueOf(aborted.getMessage()).contains("injected failure"),
          String.valueOf(aborted.getMessage()));
      assertEquals(List.of("epoch-000004.ckpt"), checkpointFiles(dir),
          "only the latest complete checkpoint is kept");

      PerceptronClassificationModel resumed = clf.fit(data);
      assertArrayEquals(weights(undisturbed), weights(resumed), 0.0, config);
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
        () -> clf.copy(new org.apache.spark.ml.param.ParamMap()).setSeed(4).fit(data));
    assertTrue(e.getMessage().contains("a different training"), e.getMessage());
  }

  @Test
  void halfWrittenCheckpointsAreNeverRead() throws IOException {
    Path dir = tmp.resolve("partial");
    Files.createDirectories(dir);
    // What a driver that died while writing leaves behind: a temporary name, never a .ckpt.
    Files.writeString(dir.resolve(".epoch-000006.ckpt.tmp-1234"), "garbage");
    PerceptronClassificationModel model = classifier().setCheckpointDir(dir.toString())
        .setCheckpointInterval(2).fit(data);
    assertArrayEquals(weights(classifier().fit(data)), weights(model), 0.0);
  }
}
