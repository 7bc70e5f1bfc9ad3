package io.github.sparkperceptron.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.io.LibSvmSource;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.LocalCluster;
import io.github.sparkperceptron.testing.ScriptRun;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training on a real Spark standalone cluster (submit/cluster: a master, two workers, executors
 * in JVMs of their own, all on 127.0.0.1) gives bit for bit the model of local mode, and so does
 * a training that loses an executor half-way.
 *
 * <p>Both rest on the library's promise that the same rows in the same partitions with the same
 * seed give the same model, whatever runs the tasks and however often. The submit test also
 * repartitions through a shuffle, whose reducers receive their rows in whatever order the
 * fetches complete: the train job must restore a canonical order for the models to agree.
 */
@Tag("cluster")
// Each test starts JVMs or builds (processes, not Spark jobs of this JVM): minutes under load,
// beyond junit-platform.properties' default of 5.
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class StandaloneClusterTest {
  private static final String SPLIT_MAXSIZE = "mapreduce.input.fileinputformat.split.maxsize";
  /**
   * What Spark logs, as it should, when the test kills an executor, until the session stops: the
   * reset connection and the requests it left unanswered, the lost executor, its lost blocks.
   */
  private static final String[] LOGGED_ON_EXECUTOR_LOSS = {
      "org.apache.spark.network.server.TransportChannelHandler",
      "org.apache.spark.network.client.TransportResponseHandler",
      "org.apache.spark.scheduler.TaskSchedulerImpl",
      "org.apache.spark.storage.BlockManagerMasterEndpoint"};

  private static LocalCluster cluster;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startCluster() {
    // Two workers with one core each: every application gets two executor JVMs, and losing one
    // leaves the other to carry on while its worker starts a replacement.
    cluster = LocalCluster.start(2, 1, "1g");
  }

  @AfterAll
  static void stopCluster() {
    stopActiveSession();
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void stopActiveSession() {
    SparkSession.getDefaultSession().foreach(s -> {
      s.stop();
      return null;
    });
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  @Test
  void submitTrainOnTheClusterGivesTheModelOfLocalMode() throws IOException {
    String train = TestData.sharedData("breast_cancer", "train.libsvm").toString();
    // 157,646 bytes in splits of at most 40,000: 4 input partitions, which --partitions 3
    // repartitions through a shuffle; on the cluster its fetches complete in any order.
    String[] job = {"--conf", "spark.hadoop." + SPLIT_MAXSIZE + "=40000", "--train", train,
        "--partitions", "3", "--max-iter", "15", "--update-rule", "pa1", "--seed", "7"};

    ScriptRun local = submitTrain("local[2]", "local", job);
    ScriptRun onCluster = submitTrain(cluster.masterUrl(), "cluster", job);

    JsonNode localMetrics = new ObjectMapper().readTree(tmp.resolve("local.json").toFile());
    JsonNode clusterMetrics = new ObjectMapper().readTree(tmp.resolve("cluster.json").toFile());
    assertEquals(3, localMetrics.get("data").get("partitions").asInt(), local.toString());
    assertEquals(3, clusterMetrics.get("data").get("partitions").asInt(), onCluster.toString());

    // It ran on the cluster: the master lists the finished application, and the workers started
    // executor JVMs for it (each leaves a directory with its stderr).
    JsonNode master;
    try (java.io.InputStream in = java.net.URI.create(cluster.masterJsonUrl()).toURL()
        .openStream()) {
      master = new ObjectMapper().readTree(in);
    }
    assertTrue(master.get("completedapps").findValuesAsText("name")
        .contains("spark-perceptron train"), master.toPrettyString());
    assertTrue(executorDirectories() >= 2, "executor directories under " + cluster.workDir());

    SparkTestSupport.spark();
    PerceptronClassificationModel a = PerceptronClassificationModel.load(
        tmp.resolve("local-model").toString());
    PerceptronClassificationModel b = PerceptronClassificationModel.load(
        tmp.resolve("cluster-model").toString());
    // assertArrayEquals on doubles compares exactly (doubleToLongBits): bit-identical models.
    assertArrayEquals(a.coefficients().toArray(), b.coefficients().toArray());
    assertEquals(Double.doubleToLongBits(a.intercept()), Double.doubleToLongBits(b.intercept()));
    // And the same history: mistakes, updates, losses and weight change of every epoch.
    assertEquals(withoutTimes(localMetrics.get("epochs")),
        withoutTimes(clusterMetrics.get("epochs")));
  }

  private static JsonNode withoutTimes(JsonNode epochs) {
    ArrayNode copy = (ArrayNode) epochs.deepCopy();
    copy.forEach(epoch -> ((ObjectNode) epoch).remove("seconds"));
    return copy;
  }

  private ScriptRun submitTrain(String master, String name, String... job) {
    String[] cmd = Stream.concat(
        Stream.of("submit/train", "--master", master, "--model",
            tmp.resolve(name + "-model").toString(), "--metrics",
            tmp.resolve(name + ".json").toString()),
        Stream.of(job)).toArray(String[]::new);
    ScriptRun run = ScriptRun.of(Duration.ofMinutes(4), Map.of(), cmd);
    assertEquals(0, run.exitCode, run.toString());
    return run;
  }

  private long executorDirectories() throws IOException {
    try (Stream<Path> files = Files.walk(cluster.workDir())) {
      return files.filter(p -> p.getFileName().toString().equals("stderr")).count();
    }
  }

  @Test
  void losingAnExecutorMidTrainingChangesNothing() {
    stopActiveSession();
    Map<String, Level> quietLevels = null;
    SparkSession spark = SparkSession.builder()
        .master(cluster.masterUrl())
        .appName("executor-loss-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.executor.memory", "1g")
        // The executors load our classes from the build, as from an application jar.
        .config("spark.executor.extraClassPath",
            TestData.projectRoot().resolve("target/classes").toString())
        // The skin sample (6.6 MB, 196,045 rows) in 4 fixed byte ranges of at most 1.7 MB.
        .config("spark.hadoop." + SPLIT_MAXSIZE, "1700000")
        .getOrCreate();
    try {
      // Shipped gzipped; a gzipped file is one split, and the test wants four byte ranges.
      String file = TestData.uncompressed(TestData.sharedData("skin_nonskin", "train.libsvm"),
          tmp).toString();
      // An epoch takes 0.1-0.6 s here: the loss, noticed within milliseconds of the kill after
      // epoch 2, lands with 18 epochs to go.
      int epochs = 20;
      PerceptronClassifier estimator = new PerceptronClassifier()
          .setMaxIter(epochs).setTol(0.0).setSeed(11);

      Dataset<Row> data = LibSvmSource.read(spark, file, -1, "training data").frame();
      assertEquals(4, data.rdd().getNumPartitions());
      PerceptronClassificationModel undisturbed = estimator.fit(data);
      assertEquals(epochs, undisturbed.summary().totalIterations());

      ExecutorKiller killer = new ExecutorKiller(cluster, "perceptron epoch 2/" + epochs + " ");
      spark.sparkContext().addSparkListener(killer);
      quietLevels = quiet(LOGGED_ON_EXECUTOR_LOSS);
      PerceptronClassificationModel disturbed;
      try {
        disturbed = estimator.fit(LibSvmSource.read(spark, file, -1, "training data").frame());
        SparkTestSupport.awaitListeners(spark); // the killer's record of the executor's loss
      } finally {
        spark.sparkContext().removeSparkListener(killer);
      }

      assertNotNull(killer.killed.get(), "no executor process was found to kill");
      assertFalse(killer.removed.isEmpty(), "Spark never noticed the executor's loss");
      int epochsDone = killer.epochsEndedAtRemoval.get();
      assertTrue(epochsDone >= 2 && epochsDone < epochs, "the executor was lost after "
          + epochsDone + " of " + epochs + " epochs, not half-way");
      assertEquals(epochs, disturbed.summary().totalIterations());
      assertArrayEquals(undisturbed.summary().updatesHistory(),
          disturbed.summary().updatesHistory());
      assertArrayEquals(undisturbed.coefficients().toArray(), disturbed.coefficients().toArray());
      assertEquals(Double.doubleToLongBits(undisturbed.intercept()),
          Double.doubleToLongBits(disturbed.intercept()));
    } finally {
      stopActiveSession();
      if (quietLevels != null) {
        Configurator.setLevel(quietLevels);
      }
    }
  }

  /** Turns the loggers off; returns their levels to restore. */
  private static Map<String, Level> quiet(String... loggers) {
    Map<String, Level> previous = new HashMap<>();
    for (String name : loggers) {
      previous.put(name, LogManager.getLogger(name).getLevel());
      Configurator.setLevel(name, Level.OFF);
    }
    return previous;
  }

  /**
   * Kills one executor JVM (SIGKILL, no goodbye to the driver) as soon as the job whose
   * description starts with {@code trigger} ends, and records when Spark noticed the loss.
   */
  private static final class ExecutorKiller extends SparkListener {
    private final LocalCluster cluster;
    private final String trigger;
    private final Map<Integer, String> descriptions = new ConcurrentHashMap<>();
    private final AtomicInteger epochsEnded = new AtomicInteger();
    final AtomicReference<ProcessHandle> killed = new AtomicReference<>();
    final List<String> removed = new CopyOnWriteArrayList<>();
    final AtomicInteger epochsEndedAtRemoval = new AtomicInteger(-1);

    ExecutorKiller(LocalCluster cluster, String trigger) {
      this.cluster = cluster;
      this.trigger = trigger;
    }

    @Override
    public void onJobStart(SparkListenerJobStart start) {
      String description = start.properties() == null ? null
          : start.properties().getProperty("spark.job.description");
      if (description != null) {
        descriptions.put(start.jobId(), description);
      }
    }

    @Override
    public void onJobEnd(SparkListenerJobEnd end) {
      String description = descriptions.getOrDefault(end.jobId(), "");
      if (description.startsWith("perceptron epoch ")) {
        epochsEnded.incrementAndGet();
      }
      if (description.startsWith(trigger) && killed.get() == null) {
        List<ProcessHandle> executors = cluster.executors();
        if (!executors.isEmpty() && executors.get(0).destroyForcibly()) {
          killed.set(executors.get(0));
        }
      }
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved event) {
      if (killed.get() != null && removed.isEmpty()) {
        epochsEndedAtRemoval.set(epochsEnded.get());
      }
      removed.add(event.executorId() + ": " + event.reason());
    }
  }
}
