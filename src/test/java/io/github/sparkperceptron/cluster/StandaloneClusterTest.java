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
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.jobs.JobRun;
import io.github.sparkperceptron.jobs.TrainJob;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.Background;
import io.github.sparkperceptron.testing.ChildJvms;
import io.github.sparkperceptron.testing.LocalCluster;
import io.github.sparkperceptron.testing.ScriptRun;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.RDDBlockId;
import org.apache.spark.storage.RDDInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

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
  void submitTrainOnTheClusterGivesTheModelOfLocalMode() throws Exception {
    String train = TestData.sharedData("breast_cancer", "train.libsvm").toString();
    // 157,646 bytes in splits of at most 40,000: 4 input partitions, which --partitions 3
    // repartitions through a shuffle; on the cluster its fetches complete in any order.
    String splitMaxSize = "40000";
    String[] job = {"--train", train, "--partitions", "3", "--max-iter", "15", "--update-rule",
        "pa1", "--seed", "7"};

    Background<ScriptRun> onClusterRun = Background.start("submit/train on the cluster",
        () -> submitTrain(cluster.masterUrl(), "cluster", Stream.concat(
            Stream.of("--conf", "spark.hadoop." + SPLIT_MAXSIZE + "=" + splitMaxSize),
            Stream.of(job)).toArray(String[]::new)));
    // The reference: the same job in local mode, on this JVM's local[2] session (the models are
    // loaded here anyway) rather than in a second submit/train JVM, which would cost a JVM and a
    // Spark start for nothing this test checks: the run on the cluster goes through the script.
    // It runs while the script's driver and executors start and train.
    String local = trainInThisJvm("local", splitMaxSize, train, job);
    ScriptRun onCluster = onClusterRun.get();

    JsonNode localMetrics = new ObjectMapper().readTree(tmp.resolve("local.json").toFile());
    JsonNode clusterMetrics = new ObjectMapper().readTree(tmp.resolve("cluster.json").toFile());
    assertEquals(3, localMetrics.get("data").get("partitions").asInt(), local);
    assertEquals(3, clusterMetrics.get("data").get("partitions").asInt(), onCluster.toString());

    // It ran on the cluster: the master lists the finished application, and the workers started
    // executor JVMs for it (each leaves a directory with its stderr).
    JsonNode master;
    try (InputStream in = java.net.URI.create(cluster.masterJsonUrl()).toURL()
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

  /**
   * TrainJob with {@code job}'s flags (training data {@code train}) on the shared local[2]
   * session (SparkTestSupport), its Hadoop split size set as submit/train's
   * {@code --conf spark.hadoop...} sets it; the model and metrics go where {@link #submitTrain}
   * puts them. Returns the job's console.
   */
  private String trainInThisJvm(String name, String splitMaxSize, String train, String... job) {
    SparkSession spark = SparkTestSupport.spark();
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    String before = hadoop.get(SPLIT_MAXSIZE);
    hadoop.set(SPLIT_MAXSIZE, splitMaxSize);
    try {
      // The input as the cluster's run reads it: 4 splits, before --partitions repartitions.
      assertEquals(4, LibSvmSource.read(spark, train, -1, "training data").frame().rdd()
          .getNumPartitions());
      JobRun run = JobRun.of(new TrainJob(), Stream.concat(
          Stream.of("--model", tmp.resolve(name + "-model").toString(), "--metrics",
              tmp.resolve(name + ".json").toString()),
          Stream.of(job)).toArray(String[]::new));
      assertEquals(0, run.exitCode, run.toString());
      return run.toString();
    } finally {
      if (before == null) {
        hadoop.unset(SPLIT_MAXSIZE);
      } else {
        hadoop.set(SPLIT_MAXSIZE, before);
      }
    }
  }

  private ScriptRun submitTrain(String master, String name, String... job) {
    String[] cmd = Stream.concat(
        Stream.of("submit/train", "--master", master, "--model",
            tmp.resolve(name + "-model").toString(), "--metrics",
            tmp.resolve(name + ".json").toString()),
        Stream.of(job)).toArray(String[]::new);
    ScriptRun run = ScriptRun.of(Duration.ofMinutes(4), ChildJvms.c1Only(), cmd);
    assertEquals(0, run.exitCode, run.toString());
    return run;
  }

  private long executorDirectories() throws IOException {
    try (Stream<Path> files = Files.walk(cluster.workDir())) {
      return files.filter(p -> p.getFileName().toString().equals("stderr")).count();
    }
  }

  /**
   * A session on {@code master} (the cluster, or local mode as the reference) that reads the
   * skin sample (6.6 MB, 196,045 rows) in 4 fixed byte ranges of at most 1.7 MB.
   */
  private static SparkSession session(String master, String appName) {
    return session(master, appName, "");
  }

  /** As {@link #session(String, String)}, the executors' class path extended by {@code more}. */
  private static SparkSession session(String master, String appName, String more) {
    stopActiveSession();
    return SparkSession.builder()
        .master(master)
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.executor.memory", "1g")
        // The executors load our classes from the build, as from an application jar.
        .config("spark.executor.extraClassPath",
            TestData.projectRoot().resolve("target/classes").toString() + more)
        .config("spark.hadoop." + SPLIT_MAXSIZE, "1700000")
        .getOrCreate();
  }

  /**
   * Rounds as Spark jobs (the path a fit takes when its barrier stage would not fit in memory,
   * or when asked for): an executor killed after epoch 2's job (its JVM gone, its cached blocks
   * with it) changes nothing; Spark rebuilds the lost blocks from their lineage and the model is
   * the undisturbed one bit for bit. The barrier path's loss mid-stage is
   * {@link #barrierRoundsGiveTheLocalModelAlsoWhenAnExecutorDiesMidEpoch}.
   */
  @Test
  void losingAnExecutorMidTrainingChangesNothing() {
    Map<String, Level> quietLevels = null;
    SparkSession spark = session(cluster.masterUrl(), "executor-loss-test");
    spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, "jobs");
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

      // Epoch 2's job ("perceptron epoch 2/20 (...").
      ExecutorKiller killer = new ExecutorKiller(cluster, "perceptron epoch 2/" + epochs);
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

  /**
   * Block momentum's rounds in barrier stages on the cluster: 2 workers (the cluster's 2 task
   * slots, one per executor JVM) gathered from the 4 input partitions through a shuffle, 16
   * rounds per epoch and the 6 epochs in one barrier stage, the tasks exchanging their changes
   * over sockets between the executors. The model is local mode's (one Spark job per round) bit
   * for bit; and when the executor of one worker dies halfway through epoch 3 (its JVM ends in
   * round 8, {@code exit-mid-epoch:3}: no goodbye, its cached blocks and shuffle files gone),
   * Spark reruns the stage on the replacement executor, from the stage's shipped weights, and
   * the model is still the same. Prints what the barrier stages waited for before their tasks
   * launched (locality): see NOTES-BRANCH.md.
   */
  @Test
  void barrierRoundsGiveTheLocalModelAlsoWhenAnExecutorDiesMidEpoch() throws IOException {
    String file = TestData.uncompressed(TestData.sharedData("skin_nonskin", "train.libsvm"),
        tmp).toString();
    int epochs = 6;
    PerceptronClassifier estimator = new PerceptronClassifier().setMixing("momentum")
        .setMixingRounds(16).setNumWorkers(2).setMaxIter(epochs).setTol(0.0).setSeed(13);
    Map<String, Level> quietLevels = null;
    double[] undisturbed;
    double[] disturbed;
    long[] updates;
    BarrierStages stages = new BarrierStages();
    SparkSession spark = session(cluster.masterUrl(), "barrier-rounds-test");
    try {
      Dataset<Row> data = LibSvmSource.read(spark, file, -1, "training data").frame();
      assertEquals(4, data.rdd().getNumPartitions());
      spark.sparkContext().addSparkListener(stages);
      PerceptronClassificationModel model = estimator.fit(data);
      SparkTestSupport.awaitListeners(spark);
      undisturbed = weights(model);
      updates = model.summary().updatesHistory();
      assertEquals(1, stages.barrierJobs(), "all the epochs in one barrier job: " + stages);
      System.out.println("barrier stages, undisturbed fit: " + stages.summary());

      stages.clear();
      quietLevels = quiet(LOGGED_ON_EXECUTOR_LOSS);
      spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, "exit-mid-epoch:3");
      try {
        model = estimator.fit(LibSvmSource.read(spark, file, -1, "training data").frame());
      } finally {
        spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
      }
      SparkTestSupport.awaitListeners(spark);
      disturbed = weights(model);
      System.out.println("barrier stages, executor lost in epoch 3: " + stages.summary()
          + "; per attempt: " + stages.perAttempt() + "; barrier jobs: "
          + stages.barrierJobs());
      assertFalse(stages.executorsRemoved.isEmpty(), "no executor was lost: " + stages);
      assertTrue(stages.retriedBarrierStages() >= 1, "the epoch's stage was not rerun: "
          + stages);
      assertArrayEquals(updates, model.summary().updatesHistory());
      assertArrayEquals(undisturbed, disturbed);
    } finally {
      spark.sparkContext().removeSparkListener(stages);
      stopActiveSession();
      if (quietLevels != null) {
        Configurator.setLevel(quietLevels);
      }
    }
    // The reference: local mode, one Spark job per round, the same 4 input partitions.
    SparkSession local = session("local[2]", "barrier-rounds-reference");
    try {
      local.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, "jobs");
      PerceptronClassificationModel reference = estimator.fit(
          LibSvmSource.read(local, file, -1, "training data").frame());
      assertArrayEquals(updates, reference.summary().updatesHistory());
      assertArrayEquals(weights(reference), undisturbed);
    } finally {
      stopActiveSession();
    }
  }

  /**
   * The barrier stage needs all its tasks placed in one round of offers, and Spark's delay
   * scheduling holds a task back (spark.locality.wait, 3 s per level) while its preferred
   * executor is busy. Here both workers' cached blocks sit on one executor of one core (the
   * other executor's core was busy while the blocks were built), so both tasks would prefer it:
   * without BarrierPlacement every epoch's stage waited out the delay and then ran one task
   * NODE_LOCAL. With it, the stage of the epochs does not wait: every task launches at once,
   * process-local to the executor it was given.
   */
  @Test
  void barrierTasksDoNotWaitWhenTheBlocksSitOnOneExecutor() throws Exception {
    String file = TestData.uncompressed(TestData.sharedData("skin_nonskin", "train.libsvm"),
        tmp).toString();
    Path release = tmp.resolve("release-the-blocker");
    int epochs = 6;
    PerceptronClassifier estimator = new PerceptronClassifier().setMixing("momentum")
        .setMixingRounds(4).setNumWorkers(2).setMaxIter(epochs).setTol(0.0).setSeed(13);
    BarrierStages stages = new BarrierStages();
    // The blocking task below is a lambda of this class: the executors need the test classes.
    SparkSession spark = session(cluster.masterUrl(), "barrier-locality-test",
        File.pathSeparator + TestData.projectRoot().resolve("target/test-classes"));
    try {
      Dataset<Row> data = LibSvmSource.read(spark, file, -1, "training data").frame();
      JavaSparkContext jsc =
          new JavaSparkContext(spark.sparkContext());
      // Wait until both executors registered, then hold one core until the epochs start.
      long deadline = System.currentTimeMillis() + 120_000;
      while (jsc.sc().getExecutorMemoryStatus().size() < 3
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
      }
      CountDownLatch holding = new CountDownLatch(1);
      List<String> holders = new CopyOnWriteArrayList<>();
      stages.onFirstEpoch(() -> {
        holders.addAll(blockHolders(spark));
        try {
          Files.createFile(release);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      spark.sparkContext().addSparkListener(new SparkListener() {
        @Override
        public void onTaskStart(SparkListenerTaskStart event) {
          holding.countDown();
        }
      });
      String releasePath = release.toString();
      Thread blocker = new Thread(() -> jsc.parallelize(List.of(1), 1).foreach(x -> {
        long until = System.currentTimeMillis() + 300_000;
        while (!Files.exists(Path.of(releasePath)) && System.currentTimeMillis() < until) {
          Thread.sleep(50);
        }
      }));
      blocker.start();
      assertTrue(holding.await(2, TimeUnit.MINUTES), "the blocking task never started");
      spark.sparkContext().addSparkListener(stages);
      PerceptronClassificationModel model = estimator.fit(data);
      blocker.join(300_000);
      SparkTestSupport.awaitListeners(spark);
      assertEquals(epochs, model.summary().totalIterations());
      System.out.println("barrier stages, blocks built on one executor: " + stages.summary()
          + "; per attempt: " + stages.perAttempt());
      assertEquals(2, holders.size(), "cached blocks at the first epoch: " + holders);
      assertEquals(holders.get(0), holders.get(1), "both blocks on one executor: " + holders);
      assertEquals(1, stages.barrierJobs(), "the epochs in one barrier stage");
      assertEquals(0, stages.waited(), stages.perAttempt());
      assertEquals(Map.of("PROCESS_LOCAL", 2), stages.localityCounts(),
          stages.perAttempt());
    } finally {
      spark.sparkContext().removeSparkListener(stages);
      stopActiveSession();
    }
  }

  /** The executors caching each training block, in worker order ("?" for none). */
  private static List<String> blockHolders(SparkSession spark) {
    List<String> out = new ArrayList<>();
    for (RDD<?> rdd : CollectionConverters.asJava(
        spark.sparkContext().getPersistentRDDs()).values()) {
      if (TrainingInput.BLOCKS_NAME.equals(rdd.name())) {
        for (int p = 0; p < rdd.getNumPartitions(); p++) {
          Seq<BlockManagerId> at =
              spark.sparkContext().env().blockManager().master()
                  .getLocations(new RDDBlockId(rdd.id(), p));
          out.add(at.isEmpty() ? "?" : at.head().executorId());
        }
      }
    }
    return out;
  }


  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = m.coefficientMatrix().toArray();
    double[] b = m.interceptVector().toArray();
    double[] out = Arrays.copyOf(w, w.length + b.length);
    System.arraycopy(b, 0, out, w.length, b.length);
    return out;
  }

  /**
   * The barrier stages of the epochs (a stage whose RDDs include a barrier one), per attempt:
   * when Spark submitted it, when its tasks launched and at which locality level; and the
   * executors Spark removed.
   */
  private static final class BarrierStages extends SparkListener {
    private final Map<Integer, String> descriptions = new ConcurrentHashMap<>();
    private final Map<String, Long> submitted = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> launched = new ConcurrentHashMap<>();
    private final Map<String, List<String>> localities = new ConcurrentHashMap<>();
    private final AtomicInteger barrierJobs = new AtomicInteger();
    final List<String> executorsRemoved = new CopyOnWriteArrayList<>();

    private volatile Runnable onFirstEpoch;

    /** Runs {@code action} (on the listener bus) when the first epoch's barrier job starts. */
    void onFirstEpoch(Runnable action) {
      this.onFirstEpoch = action;
    }

    /** Per attempt: stage.attempt, ms from submission to its last task's launch, localities. */
    String perAttempt() {
      StringBuilder out = new StringBuilder();
      new TreeMap<>(launched).forEach((k, times) -> out.append(k).append(": ")
          .append(times.stream().mapToLong(Long::longValue).max().orElse(0) - submitted.get(k))
          .append(" ms ").append(localities.get(k)).append("; "));
      return out.toString();
    }

    void clear() {
      descriptions.clear();
      submitted.clear();
      launched.clear();
      localities.clear();
      barrierJobs.set(0);
      executorsRemoved.clear();
    }

    int barrierJobs() {
      return barrierJobs.get();
    }

    @Override
    public void onJobStart(SparkListenerJobStart start) {
      String description = start.properties() == null ? null
          : start.properties().getProperty("spark.job.description");
      if (description != null && description.contains("in one barrier stage")) {
        barrierJobs.incrementAndGet();
        Runnable action = onFirstEpoch;
        onFirstEpoch = null;
        if (action != null) {
          action.run();
        }
      }
    }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted event) {
      StageInfo info = event.stageInfo();
      boolean barrier = false;
      for (RDDInfo rdd
          : CollectionConverters.asJava(info.rddInfos())) {
        barrier |= rdd.isBarrier();
      }
      if (barrier) {
        String key = info.stageId() + "." + info.attemptNumber();
        submitted.put(key, info.submissionTime().isDefined()
            ? (Long) info.submissionTime().get() : System.currentTimeMillis());
        launched.put(key, new CopyOnWriteArrayList<>());
        localities.put(key, new CopyOnWriteArrayList<>());
      }
    }

    @Override
    public void onTaskStart(SparkListenerTaskStart event) {
      String key = event.stageId() + "." + event.stageAttemptId();
      List<Long> times = launched.get(key);
      if (times != null) {
        times.add(event.taskInfo().launchTime());
        localities.get(key).add(event.taskInfo().taskLocality().toString());
      }
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved event) {
      executorsRemoved.add(event.executorId() + ": " + event.reason());
    }

    /** Barrier stages that ran more than one attempt. */
    long retriedBarrierStages() {
      return submitted.keySet().stream().filter(k -> !k.endsWith(".0")).count();
    }

    /**
     * Attempts that launched their last task 2.5 s or more after submission: a wait of Spark's
     * locality delay (3 s), which load does not explain on a stage of two tasks.
     */
    int waited() {
      int waited = 0;
      for (Map.Entry<String, List<Long>> e : launched.entrySet()) {
        long last = e.getValue().stream().mapToLong(Long::longValue).max().orElse(0);
        if (last - submitted.get(e.getKey()) >= 2500) {
          waited++;
        }
      }
      return waited;
    }

    /** Tasks per locality level. */
    Map<String, Integer> localityCounts() {
      Map<String, Integer> byLocality = new TreeMap<>();
      localities.values().forEach(l -> l.forEach(x -> byLocality.merge(x, 1, Integer::sum)));
      return byLocality;
    }

    /** Attempts, the localities of their tasks, the waits, the executors removed. */
    String summary() {
      return submitted.size() + " stage attempts (" + retriedBarrierStages() + " reruns), task"
          + " localities " + localityCounts() + ", " + waited() + " attempts launched their"
          + " tasks 2.5 s or more after submission; executors removed: " + executorsRemoved;
    }

    @Override
    public String toString() {
      return summary();
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
      boolean triggered = description.startsWith(trigger)
          && description.length() > trigger.length()
          && !Character.isDigit(description.charAt(trigger.length()));
      if (triggered && killed.get() == null) {
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
