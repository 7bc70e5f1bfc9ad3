package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.BarrierPath;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.logging.log4j.Level;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the barrier path does when the network or the workers misbehave, on {@code local[4]}: a
 * peer behind a firewall that drops packets costs one connect timeout and a fall-back to jobs
 * with one WARN line and the same model (or, when barrier mode is required, a clear error at
 * once); a round slower than the exchange's timeout is only slow; a worker that reports a wrong
 * digest, a worker 0 that reports other mixes than it applied, and a wrong mix every worker
 * agrees on are each caught on the driver.
 */
class BarrierDefensesTest {
  private static SparkSession spark;
  private static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[4]");
  }

  /** Runs {@code fit} with the fitting thread's local properties set to {@code properties}. */
  private static <T> T with(Map<String, String> properties, Supplier<T> fit) {
    properties.forEach((k, v) -> spark.sparkContext().setLocalProperty(k, v));
    try {
      return fit.get();
    } finally {
      properties.keySet().forEach(k -> spark.sparkContext().setLocalProperty(k, null));
    }
  }

  private static Map<String, String> properties(String... keysAndValues) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return out;
  }

  private static PerceptronClassifier momentum(int rounds, int epochs) {
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    return new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(rounds)
        .setMaxIter(epochs).setTol(0.0).setSeed(7).setNumWorkers(4);
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = m.coefficients().toArray();
    double[] out = Arrays.copyOf(w, w.length + 1);
    out[w.length] = m.intercept();
    return out;
  }

  /** Barrier stage attempts submitted and task failures, while listening. */
  private static final class Stages extends SparkListener {
    final List<Integer> barrierAttempts = Collections.synchronizedList(new ArrayList<>());
    final List<String> taskFailures = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
      if (CollectionConverters.asJava(submitted.stageInfo().rddInfos()).stream()
          .anyMatch(r -> r.isBarrier())) {
        barrierAttempts.add(submitted.stageInfo().attemptNumber());
      }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (!end.taskInfo().successful()) {
        taskFailures.add(end.reason().toString());
      }
    }
  }

  private static <T> T listening(Stages stages, Supplier<T> action) {
    spark.sparkContext().addSparkListener(stages);
    try {
      return action.get();
    } finally {
      SparkTestSupport.awaitListeners(spark);
      spark.sparkContext().removeSparkListener(stages);
    }
  }

  /**
   * A port whose new connections are never answered, as behind a firewall that drops packets:
   * a listener that never accepts, its queue of pending connections filled (Linux then drops
   * the SYNs of further connections, and their connects hang until their own timeout).
   */
  private static final class BlackHole implements AutoCloseable {
    final ServerSocket server;
    final List<Socket> queued = new ArrayList<>();

    BlackHole() throws IOException {
      server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      for (int i = 0; i < 64; i++) {
        Socket s = new Socket();
        try {
          s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), 300);
          queued.add(s);
        } catch (SocketTimeoutException full) {
          s.close();
          return;
        }
      }
      throw new IllegalStateException("the black hole's queue never filled");
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      for (Socket s : queued) {
        s.close();
      }
      server.close();
    }
  }

  /**
   * Every task's children connect to a black hole instead of their parent: with a 2 s connect
   * timeout, the first task that gives up ends the epoch's barrier job at once (not after Spark's
   * four stage attempts), one WARN line says why, and the training goes on as jobs, to the
   * job-per-round model.
   */
  @Test
  void aFirewalledPeerFallsBackToJobsWithinTheConnectTimeout() throws IOException {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassifier c = momentum(3, 3);
    PerceptronClassificationModel jobs = with(properties(Settings.ROUND_EXECUTION, "jobs"),
        () -> c.fit(frame));
    Stages stages = new Stages();
    List<String> warnings;
    PerceptronClassificationModel fellBack;
    try (BlackHole hole = new BlackHole();
        LogCapture log = LogCapture.of(BarrierRounds.class)) {
      try (Socket probe = new Socket()) {
        assertThrows(SocketTimeoutException.class, () -> probe.connect(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), hole.port()), 500),
            "the black hole drops connections");
      }
      fellBack = listening(stages, () -> with(properties(Settings.ROUND_EXECUTION, "auto",
          Settings.TEST_INJECT_FAILURE, "barrier-blackhole:" + hole.port(),
          Settings.BARRIER_CONNECT_TIMEOUT, "2"), () -> c.fit(frame)));
      warnings = log.messages(Level.WARN);
    }
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("from epoch 1 on")
        && warnings.get(0).contains("2000 ms connect timeout"), warnings.get(0));
    // Spark would try the stage 4 times; the first setup failure cancels it (a second attempt
    // may have been submitted meanwhile, and is cancelled too).
    assertTrue(stages.barrierAttempts.size() <= 2, "barrier attempts " + stages.barrierAttempts);
    assertArrayEquals(weights(jobs), weights(fellBack), 0.0);
  }

  /** Barrier mode required, tasks that cannot connect: a clear error, after one attempt. */
  @Test
  void tasksThatCannotConnectInBarrierModeFailAtOnceAndSayWhy() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    Stages stages = new Stages();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> listening(stages,
        () -> with(properties(Settings.ROUND_EXECUTION, "barrier", Settings.TEST_INJECT_FAILURE,
            "barrier-setup"), () -> momentum(3, 2).fit(frame))));
    assertTrue(e.getMessage().contains(Settings.ROUND_EXECUTION + "=barrier")
        && e.getMessage().contains("could not connect") && e.getMessage().contains("injected"),
        e.getMessage());
    assertTrue(stages.barrierAttempts.size() <= 2, "barrier attempts " + stages.barrierAttempts);
  }

  /**
   * One worker of every epoch waits 2.5 s before its middle round while the exchange's timeout
   * is 1 s: the others wait for it (its host answers), nothing fails or is retried, and the
   * model is the undisturbed one.
   */
  @Test
  void aRoundSlowerThanTheTimeoutIsSlowNotFailed() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassifier c = momentum(4, 1);
    PerceptronClassificationModel undisturbed = BarrierPath.fit(spark, c, frame);
    Stages stages = new Stages();
    PerceptronClassificationModel slow = listening(stages, () -> with(properties(
        Settings.TEST_INJECT_FAILURE, "slow-round:2500", Settings.BARRIER_TIMEOUT, "1"),
        () -> BarrierPath.fit(spark, c, frame)));
    assertEquals(List.of(0), stages.barrierAttempts, "one attempt, not retried");
    assertEquals(List.of(), stages.taskFailures);
    assertArrayEquals(weights(undisturbed), weights(slow), 0.0);
  }

  /**
   * Each corruption is caught on the driver before the stage's state is used, whether the
   * stages report only where they ended (the default) or every round's mix for the driver to
   * replay (with an epoch listener): a worker's digest of other weights (the workers' agreement,
   * or the digest check against the replay), a reporter reporting mixes other than those it
   * applied (the audit; with the replay also the digest check), and a wrong mix that every
   * worker applied alike, whose digests all agree (only the audit of the reported mix against
   * the driver's own mix of the workers' changes sees it). The audited epoch is drawn at random
   * where the stages report their end, the first epoch where they report their mixes.
   */
  @ParameterizedTest(name = "{0}, epoch listener: {2}")
  @CsvSource({
      "corrupt-digest, ended with other weights than, false",
      "corrupt-report, This is a defect of spark-perceptron, false",
      "wrong-mix,      differs from the driver's mix of the workers' changes, false",
      "corrupt-digest, ended with other weights than the driver's state, true",
      "corrupt-report, This is a defect of spark-perceptron, true",
      "wrong-mix,      differs from the driver's mix of the workers' changes, true",
  })
  void aCorruptedResultIsDetected(String corruption, String expected, boolean listener) {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassifier estimator = momentum(4, 2);
    if (listener) {
      estimator.setEpochListener((epoch, model) -> { });
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> with(properties(
        Settings.ROUND_EXECUTION, "barrier", Settings.TEST_INJECT_FAILURE, corruption),
        () -> estimator.fit(frame)));
    String epoch = listener || corruption.equals("corrupt-digest") ? "Epoch 1" : "Epoch ";
    assertTrue(e.getMessage().contains(expected) && e.getMessage().startsWith(epoch),
        e.getMessage());
  }
}
