package io.github.sparkperceptron.internal.rounds;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.monotonically_increasing_id;
import static org.apache.spark.sql.functions.when;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.blocks.WorkerLayout;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.ml.PerceptronTrainingSummary;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.NaiveMixingSimulation;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import org.apache.logging.log4j.Level;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An epoch's mixing rounds in one barrier stage ({@link BarrierRounds}) against one Spark job per
 * round, and both against {@link NaiveMixingSimulation}: bit for bit, for every iterative mixing
 * mode, averaged or not, voted, binary and multiclass, with sample and class weights, several
 * rounds and shuffling; a task that fails in the middle of an epoch changes nothing; when Spark
 * cannot run the stage, the rounds run as jobs and the log says why. Runs on local[4] (four task
 * slots, so that four workers can run at once), which needs its own session.
 */
class BarrierRoundsTest {
  private static SparkSession spark;
  private static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[4]");
  }

  /** Fits with the rounds run as {@code execution} ({@link Settings#ROUND_EXECUTION}). */
  private static PerceptronClassificationModel fit(String execution, PerceptronClassifier c,
      Dataset<Row> frame) {
    spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, execution);
    try {
      return c.fit(frame);
    } finally {
      spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
    }
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = m.coefficientMatrix().toArray();
    double[] b = m.interceptVector().toArray();
    double[] out = Arrays.copyOf(w, w.length + b.length);
    System.arraycopy(b, 0, out, w.length, b.length);
    return out;
  }

  /**
   * Asserts two fits are the same training: weights, raw predictions (the vote's, when voted)
   * and every per-epoch figure of the summary, bit for bit.
   */
  private static void assertSameTraining(PerceptronClassificationModel expected,
      PerceptronClassificationModel actual, List<TestData.Example> rows) {
    assertArrayEquals(weights(expected), weights(actual), 0.0, "weights");
    for (TestData.Example e : rows) {
      assertArrayEquals(expected.predictRaw(e.features).toArray(),
          actual.predictRaw(e.features).toArray(), 0.0, "raw prediction");
    }
    PerceptronTrainingSummary s = expected.summary();
    PerceptronTrainingSummary t = actual.summary();
    assertEquals(s.totalIterations(), t.totalIterations());
    assertArrayEquals(s.updatesHistory(), t.updatesHistory());
    assertArrayEquals(s.mistakesHistory(), t.mistakesHistory());
    assertArrayEquals(s.perceptronLossHistory(), t.perceptronLossHistory(), 0.0);
    assertArrayEquals(s.hingeLossHistory(), t.hingeLossHistory(), 0.0);
    assertArrayEquals(s.weightChangeHistory(), t.weightChangeHistory(), 0.0);
    assertArrayEquals(s.validationHistory(), t.validationHistory(), 0.0);
    assertEquals(s.workerUpdatesHistory().length, t.workerUpdatesHistory().length);
    for (int e = 0; e < s.workerUpdatesHistory().length; e++) {
      assertArrayEquals(s.workerUpdatesHistory()[e], t.workerUpdatesHistory()[e]);
    }
    assertEquals(s.stopReason(), t.stopReason());
    assertEquals(s.modelEpoch(), t.modelEpoch());
  }

  /** Counts the Spark jobs of the epochs (by their description) and their stages. */
  private static final class EpochJobs extends SparkListener {
    final List<String> jobs = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> stagesPerJob = Collections.synchronizedList(new ArrayList<>());
    final List<String> taskFailures = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> retriedStages = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onJobStart(SparkListenerJobStart start) {
      Properties p = start.properties();
      String description = p == null ? null : p.getProperty("spark.job.description");
      if (description != null && description.startsWith("perceptron epoch")
          && !description.contains("validation")) {
        jobs.add(description);
        stagesPerJob.add(start.stageInfos().size());
      }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (!end.taskInfo().successful()) {
        taskFailures.add(end.reason().toString());
      }
    }

    @Override
    public void onStageCompleted(SparkListenerStageCompleted completed) {
      if (completed.stageInfo().attemptNumber() > 0) {
        retriedStages.add(completed.stageInfo().stageId());
      }
    }
  }

  private static EpochJobs listen() {
    EpochJobs l = new EpochJobs();
    spark.sparkContext().addSparkListener(l);
    return l;
  }

  private static void stopListening(EpochJobs l) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new AssertionError("Spark's listener bus did not drain", e);
    } finally {
      spark.sparkContext().removeSparkListener(l);
    }
  }

  /**
   * Four workers, every iterative mode, against the simulation and the jobs (the workers report
   * worker 0's mixes; every worker's own changes of one round an epoch, which the driver
   * re-mixes: {@link MixAudit}).
   */
  @ParameterizedTest(name = "{0}, {1} rounds, averaged={2}")
  @CsvSource({
      "mistakes, 3, true",
      "mistakes, 2, false",
      "uniform,  2, true",
      "momentum, 4, true",
      "momentum, 4, false",
      "momentum, 7, true",
  })
  void fourWorkersInABarrierStageEqualTheJobsAndTheNaiveSimulation(String mixing, int rounds,
      boolean averaged) {
    int epochs = 4;
    long seed = 17;
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing(mixing).setMixingRounds(rounds)
        .setAveraging(averaged ? "average" : "none").setMaxIter(epochs).setTol(0.0)
        .setSeed(seed).setNumWorkers(4);
    EpochJobs listener = listen();
    PerceptronClassificationModel barrier;
    try {
      barrier = fit("barrier", c, frame);
    } finally {
      stopListening(listener);
    }
    PerceptronClassificationModel jobs = fit("jobs", c, frame);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(BREAST),
        Examples.labels(BREAST), 30, 4, rounds, mixing, averaged, true, seed).run(epochs);
    assertArrayEquals(naive.model(), weights(barrier), 0.0, "barrier against the simulation");
    assertSameTraining(jobs, barrier, BREAST);
    // One Spark job for all the epochs (nothing needs the driver between them): its barrier
    // stage, whose results come back in its tasks' own results (StageOutputs).
    assertEquals(1, listener.jobs.size(), listener.jobs.toString());
    assertTrue(listener.stagesPerJob.stream().allMatch(n -> n == 1),
        listener.stagesPerJob.toString());
  }

  /** The lines {@link BarrierRounds} logged about its stages' reports during {@code fit}. */
  private static List<String> stageReports(Runnable fit) {
    try (LogCapture log = LogCapture.of(BarrierRounds.class)) {
      fit.run();
      return log.messages(Level.INFO, "The barrier stage of");
    }
  }

  /**
   * With block momentum a stage reports the state it ended with, however few coordinates its
   * rounds touch (after the checkpoint of epoch 2, a sparse, separable set whose mistakes have
   * become rare); with an epoch listener its every round's mix, for the driver to replay (the
   * listener sees every epoch's state). Without momentum, whichever is the smaller report: the
   * end state of a small model whose mixes repeat its coordinates every round, the mixes where
   * the rounds touch few of a large support's coordinates. Every way, the job-per-round
   * training, bit for bit.
   */
  @Test
  void aStageReportsItsEndStateOrItsMixesForTheSameTraining(@TempDir Path tmp) {
    Dataset<Row> dense = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(4).setMaxIter(4).setTol(0.0).setSeed(5)
        .setNumWorkers(4);
    PerceptronClassificationModel jobs = fit("jobs", c, dense);
    PerceptronClassificationModel[] fitted = new PerceptronClassificationModel[1];
    List<String> ended = stageReports(() -> fitted[0] = fit("barrier", c, dense));
    assertEquals(1, ended.size(), ended.toString());
    assertTrue(ended.get(0).startsWith("The barrier stage of epochs 1-4 reported where it ended"
        + " (31 coordinates) and 1 audited mix(es)"), ended.get(0));
    assertSameTraining(jobs, fitted[0], BREAST);

    List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
    PerceptronClassifier listened = c.copy(new ParamMap())
        .setEpochListener((epoch, model) -> seen.add(epoch));
    List<String> replayed = stageReports(() -> fitted[0] = fit("barrier", listened, dense));
    assertEquals(List.of("The barrier stage of epochs 1-4 reported its 16 rounds' mixes (496"
        + " entries) for the driver to replay"), replayed);
    assertEquals(List.of(1, 2, 3, 4), seen);
    assertSameTraining(jobs, fitted[0], BREAST);

    Dataset<Row> sparse = SyntheticData.builder().numFeatures(500).nonZerosPerRow(8)
        .margin(0.2).seed(3).build().frame(spark, 0, 800, 4);
    PerceptronClassifier checkpointed = c.copy(new ParamMap()).setMaxIter(6)
        .setCheckpointDir(tmp.resolve("ckpt").toString()).setCheckpointInterval(2);
    PerceptronClassificationModel sparseJobs = fit("jobs", checkpointed, sparse);
    List<String> ends = stageReports(() -> fitted[0] = fit("barrier", checkpointed, sparse));
    assertEquals(3, ends.size(), ends.toString());
    for (int k = 0; k < 3; k++) {
      assertTrue(ends.get(k).contains("epochs " + (2 * k + 1) + "-" + (2 * k + 2)
          + " reported where it ended"), ends.toString());
    }
    assertSameHistory(sparseJobs, fitted[0]);

    PerceptronClassifier plain = checkpointed.copy(new ParamMap()).setMixing("mistakes")
        .setCheckpointDir(tmp.resolve("ckpt-plain").toString());
    // Its rounds touch few of the support's coordinates by epoch 5: 5,000 features.
    Dataset<Row> wide = SyntheticData.builder().numFeatures(5_000).nonZerosPerRow(8)
        .margin(0.2).seed(3).build().frame(spark, 0, 800, 4);
    PerceptronClassificationModel plainJobs = fit("jobs", plain, wide);
    List<String> both = stageReports(() -> fitted[0] = fit("barrier", plain, wide));
    assertEquals(3, both.size(), both.toString());
    assertTrue(both.get(0).contains("epochs 1-2 reported where it ended"), both.toString());
    assertTrue(both.get(2).contains("epochs 5-6 reported its 8 rounds' mixes"),
        both.toString());
    assertSameHistory(plainJobs, fitted[0]);
  }

  private static void assertSameHistory(PerceptronClassificationModel jobs,
      PerceptronClassificationModel barrier) {
    assertArrayEquals(weights(jobs), weights(barrier), 0.0);
    assertArrayEquals(jobs.summary().updatesHistory(), barrier.summary().updatesHistory());
    assertArrayEquals(jobs.summary().weightChangeHistory(),
        barrier.summary().weightChangeHistory(), 0.0);
  }

  /**
   * What the naive simulation does not cover: three classes, sample weights, balanced class
   * weights, a step size, the voted perceptron with block momentum, a passive-aggressive rule, a
   * validation set, the chunked visiting order, one worker (whose change carries its weights
   * exactly). Bit for bit the job-per-round training.
   */
  @ParameterizedTest(name = "{0}, {1}, {2}, {3} rounds, {4} workers")
  @CsvSource({
      "momentum, vote,    perceptron, 3, 4",
      "momentum, average, pa1,        5, 3",
      "mistakes, vote,    perceptron, 2, 2",
      "uniform,  none,    pa2,        3, 4",
      "mistakes, average, perceptron, 3, 1",
  })
  void multiclassWeightedAndVotedTrainingsEqualTheJobs(String mixing, String averaging,
      String rule, int rounds, int workers) {
    TestData.Separable data = TestData.separable(5, 1_200, 12, 0.05, 3);
    Dataset<Row> frame = TestData.frameInOrder(spark, data.examples, workers)
        .withColumn("w", when(col("label").equalTo(1.0), lit(2.5)).otherwise(lit(0.75)))
        .withColumn("heldOut", monotonically_increasing_id().mod(10).equalTo(0));
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing(mixing).setMixingRounds(rounds)
        .setAveraging(averaging).setUpdateRule(rule).setStepSize(0.5).setWeightCol("w")
        .setClassWeight("balanced").setValidationIndicatorCol("heldOut")
        .setValidationPatience(10).setShuffleScope("chunks").setMaxIter(3).setTol(0.0)
        .setSeed(9).setNumWorkers(workers);
    PerceptronClassificationModel barrier = fit("barrier", c, frame);
    PerceptronClassificationModel jobs = fit("jobs", c, frame);
    assertSameTraining(jobs, barrier, data.examples);
  }

  /**
   * The first attempt of the barrier stage (all 3 epochs) loses one task halfway through the
   * middle round of each epoch, after the rounds before it were mixed into every worker's
   * weights; Spark reruns the stage and the model is the undisturbed one. Also when every task's first attempt fails
   * before it starts.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"first-attempt-mid-epoch", "first-attempt"})
  void aTaskFailingMidEpochLeavesTheModelUnchanged(String mode) {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(4)
        .setAveraging("vote").setMaxIter(3).setTol(0.0).setSeed(5).setNumWorkers(4);
    PerceptronClassificationModel undisturbed = fit("barrier", c, frame);
    EpochJobs listener = listen();
    spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, mode);
    PerceptronClassificationModel retried;
    try {
      retried = fit("barrier", c, frame);
    } finally {
      spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
      stopListening(listener);
    }
    assertSameTraining(undisturbed, retried, BREAST);
    // The injected failure, or a peer's exchange that broke on it: when the peer's failure
    // reaches the driver first, Spark kills the stage's other tasks and the injected one may
    // end as killed (seen once in a full run).
    assertTrue(listener.taskFailures.stream().anyMatch(r -> r.contains("injected failure")
        || r.contains("Mixing round exchange of epoch")), listener.taskFailures.toString());
    assertEquals(1, listener.retriedStages.size(), "the stage of the 3 epochs ran twice: "
        + listener.retriedStages);
    assertEquals(1, listener.jobs.size(), "still one job for the 3 epochs");
  }

  /**
   * A barrier stage that keeps failing (every attempt of epoch 4 on) aborts the training after
   * Spark's stage attempts, as a dying driver would; resuming from the checkpoint of epoch 2
   * (momentum's Δ and the vote included) ends with the undisturbed model.
   */
  @Test
  void anAbortedBarrierTrainingResumesFromItsCheckpointToTheSameModel(@TempDir Path tmp) {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(4)
        .setAveraging("vote").setMaxIter(5).setTol(0.0).setSeed(8).setNumWorkers(4);
    PerceptronClassificationModel undisturbed = fit("barrier", c, frame);
    PerceptronClassifier checkpointed = c.copy(new ParamMap())
        .setCheckpointDir(tmp.resolve("ckpt").toString()).setCheckpointInterval(2);
    spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, "from-epoch:4");
    Exception aborted;
    try {
      aborted = assertThrows(Exception.class, () -> fit("barrier", checkpointed, frame));
    } finally {
      spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
    }
    assertTrue(String.valueOf(aborted.getMessage()).contains("injected failure"),
        String.valueOf(aborted.getMessage()));
    assertTrue(Files.exists(tmp.resolve("ckpt").resolve("epoch-000002.ckpt")),
        "the training to resume stopped after its checkpoint of epoch 2");
    PerceptronClassificationModel resumed = fit("barrier", checkpointed, frame);
    assertArrayEquals(weights(undisturbed), weights(resumed), 0.0);
    for (TestData.Example e : BREAST) {
      assertArrayEquals(undisturbed.predictRaw(e.features).toArray(),
          resumed.predictRaw(e.features).toArray(), 0.0, "the vote");
    }
    assertArrayEquals(undisturbed.summary().updatesHistory(), resumed.summary().updatesHistory());
  }

  /**
   * Tasks that cannot connect to each other (a firewall): the barrier stage fails on every
   * attempt, the epoch runs again as jobs, the rest of the training stays there, one WARN line
   * says so, and the model is the job-per-round one.
   */
  @Test
  void tasksThatCannotConnectFallBackToJobsForTheRestOfTheTraining() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 2);
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3)
        .setMaxIter(3).setTol(0.0).setSeed(6).setNumWorkers(2);
    EpochJobs listener = listen();
    PerceptronClassificationModel fellBack;
    List<String> warnings;
    spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, "barrier-setup");
    try (LogCapture log = LogCapture.of(BarrierRounds.class)) {
      fellBack = fit("auto", c, frame);
      warnings = log.messages(Level.WARN);
    } finally {
      spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
      stopListening(listener);
    }
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("from epoch 1 on")
        && warnings.get(0).contains(Settings.BARRIER_PORT), warnings.get(0));
    // The failed barrier job, then 3 rounds as jobs in each of the 3 epochs.
    assertEquals(1 + 3 * 3, listener.jobs.size(), listener.jobs.toString());
    assertSameTraining(fit("jobs", c, frame), fellBack, BREAST);
  }

  /**
   * More workers than task slots: a barrier stage could never start, so the rounds run as one
   * job each, and the log says why; asking for barrier mode then is an error naming the key.
   */
  @Test
  void moreWorkersThanSlotsFallBackToAJobPerRoundAndSaySo() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 6);
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3)
        .setMaxIter(2).setTol(0.0).setSeed(5).setNumWorkers(6);
    EpochJobs listener = listen();
    PerceptronClassificationModel auto;
    List<String> info;
    try (LogCapture log = LogCapture.of(BarrierRounds.class)) {
      auto = fit("auto", c, frame);
      info = log.messages(Level.INFO);
    } finally {
      stopListening(listener);
    }
    assertEquals(2 * 3, listener.jobs.size(), "one job per round: " + listener.jobs);
    assertEquals(1, info.size(), info.toString());
    assertTrue(info.get(0).contains("one Spark job each")
        && info.get(0).contains("6 workers") && info.get(0).contains("4 task slots"),
        info.get(0));
    assertSameTraining(fit("jobs", c, frame), auto, BREAST);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> fit("barrier", c, frame));
    assertTrue(e.getMessage().contains(Settings.ROUND_EXECUTION + "=barrier")
        && e.getMessage().contains("4 task slots"), e.getMessage());
  }

  /** A DataFrame whose partition p holds exactly {@code parts.get(p)}, in that order. */
  private static Dataset<Row> partitionedByHand(List<List<TestData.Example>> parts) {
    List<List<Row>> rows = new ArrayList<>();
    for (List<TestData.Example> part : parts) {
      List<Row> r = new ArrayList<>();
      for (TestData.Example e : part) {
        r.add(RowFactory.create(e.label, e.features));
      }
      rows.add(r);
    }
    return spark.createDataFrame(new JavaSparkContext(spark.sparkContext())
        .parallelize(rows, rows.size()).flatMap(List::iterator), TestData.SCHEMA);
  }

  /**
   * Workers that coalesce the input's partitions (8 for 3 workers: groups {0, 1}, {2, 3, 4},
   * {5, 6, 7}): Spark refuses a barrier stage over a coalesce, so the groups are gathered through
   * one shuffle instead, the log says so, and every epoch is one barrier job; the model is, bit
   * for bit, the one of the jobs over the coalesce and of the groups partitioned by hand.
   */
  @Test
  void coalescedWorkersAreGatheredThroughAShuffleAndRunInABarrierStage() {
    Dataset<Row> eight = TestData.frameInOrder(spark, BREAST, 8);
    List<List<TestData.Example>> groups = new ArrayList<>();
    for (int[] group : new int[][] {{0, 1}, {2, 3, 4}, {5, 6, 7}}) {
      List<TestData.Example> worker = new ArrayList<>();
      for (int p : group) {
        int n = BREAST.size();
        worker.addAll(BREAST.subList(p * n / 8, (p + 1) * n / 8));
      }
      groups.add(worker);
    }
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3)
        .setMaxIter(3).setTol(0.0).setSeed(5).setNumWorkers(3);
    EpochJobs listener = listen();
    PerceptronClassificationModel gathered;
    List<String> layout;
    try (LogCapture log = LogCapture.of(WorkerLayout.class)) {
      gathered = fit("auto", c, eight);
      layout = log.messages(Level.INFO);
    } finally {
      stopListening(listener);
    }
    assertTrue(layout.size() == 1 && layout.get(0).contains("the input's 8 partitions are"
        + " gathered into 3"), layout.toString());
    assertEquals(1, listener.jobs.size(), listener.jobs.toString());
    // Each: the barrier stage and the gather's map stage, listed but skipped (its output
    // exists since the blocks were built).
    assertTrue(listener.stagesPerJob.stream().allMatch(n -> n == 2),
        listener.stagesPerJob.toString());
    assertSameTraining(fit("jobs", c, eight), gathered, BREAST);
    assertSameTraining(fit("jobs", c, partitionedByHand(groups)), gathered, BREAST);
  }

  /**
   * An input as many partitions as workers whose chain holds a union (Spark refuses a barrier
   * stage over it too): gathered one partition per worker, the same model as the jobs.
   */
  @Test
  void anInputMadeByAUnionIsGatheredOnePartitionPerWorker() {
    int half = BREAST.size() / 2;
    Dataset<Row> union = TestData.frameInOrder(spark, BREAST.subList(0, half), 2)
        .union(TestData.frameInOrder(spark, BREAST.subList(half, BREAST.size()), 2));
    assertEquals(4, union.rdd().getNumPartitions());
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(2)
        .setMaxIter(2).setTol(0.0).setSeed(4).setNumWorkers(4);
    EpochJobs listener = listen();
    PerceptronClassificationModel gathered;
    try {
      gathered = fit("barrier", c, union);
    } finally {
      stopListening(listener);
    }
    // The barrier stage and the gather's (skipped) map stage.
    assertTrue(listener.stagesPerJob.stream().allMatch(n -> n == 2),
        listener.stagesPerJob.toString());
    assertSameTraining(fit("jobs", c, union), gathered, BREAST);
  }

  /**
   * The automatic choice: one round per epoch stays one job per epoch (a barrier stage would
   * save nothing), several rounds run in a barrier stage, and the log says so once.
   */
  @Test
  void autoUsesABarrierStageOnlyForSeveralRounds() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 3);
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("mistakes").setMaxIter(2).setTol(0.0).setSeed(5).setNumWorkers(3);
    EpochJobs oneRound = listen();
    try {
      fit("auto", c, frame);
    } finally {
      stopListening(oneRound);
    }
    assertTrue(oneRound.stagesPerJob.stream().allMatch(n -> n == 1), "plain jobs");
    EpochJobs severalRounds = listen();
    List<String> info;
    try (LogCapture log = LogCapture.of(BarrierRounds.class)) {
      fit("auto", c.setMixingRounds(3), frame);
      info = log.messages(Level.INFO, "Mixing rounds");
    } finally {
      stopListening(severalRounds);
    }
    assertEquals(1, severalRounds.jobs.size(), severalRounds.jobs.toString());
    assertTrue(info.size() == 1 && info.get(0).contains("inside barrier stages of 3 tasks"),
        info.toString());
  }

  /**
   * A barrier stage runs the epochs that nothing on the driver separates: all of them by
   * default; up to each checkpoint (interval 2 of 5 epochs: stages 1-2, 3-4, 5); one at a time
   * with validation rows (each epoch's model is scored before the next). Every case is the
   * job-per-round training, bit for bit.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "none,        perceptron epochs 1-5/5",
      "checkpoints, perceptron epochs 1-2/5|perceptron epochs 3-4/5|perceptron epoch 5/5",
      "validation,  perceptron epoch 1/5|perceptron epoch 2/5|perceptron epoch 3/5"
          + "|perceptron epoch 4/5|perceptron epoch 5/5",
  })
  void aStageRunsTheEpochsNothingOnTheDriverSeparates(String between, String stages,
      @TempDir Path dir) {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4)
        .withColumn("heldOut", monotonically_increasing_id().mod(7).equalTo(0));
    // calibration=none: one training per fit (the default cross-fits these small sets).
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3)
        .setMaxIter(5).setTol(0.0).setSeed(3).setNumWorkers(4);
    if (between.equals("checkpoints")) {
      c.setCheckpointDir(dir.resolve("checkpoints").toString()).setCheckpointInterval(2);
    } else if (between.equals("validation")) {
      c.setValidationIndicatorCol("heldOut").setValidationPatience(10);
    }
    EpochJobs listener = listen();
    PerceptronClassificationModel barrier;
    try {
      barrier = fit("barrier", c, frame);
    } finally {
      stopListening(listener);
    }
    List<String> expected = Arrays.asList(stages.split("\\|"));
    assertEquals(expected.size(), listener.jobs.size(), listener.jobs.toString());
    for (int k = 0; k < expected.size(); k++) {
      assertTrue(listener.jobs.get(k).startsWith(expected.get(k) + ":"), listener.jobs.toString());
    }
    assertSameTraining(fit("jobs", c, frame), barrier, BREAST);
  }

  /**
   * The workers of a stage stop where the driver will: at an epoch without updates (separable
   * rows: the perceptron converges, the stage ends before maxIter = 40) and at a relative change
   * of the weights below tol (tol just above the smallest change of the first three epochs of an
   * unstopped training, so that the training stops by epoch 3 of 10). Each is the job-per-round
   * training, stop reason and epochs included, in one stage.
   */
  @Test
  void theStageEndsWhereTheDriverStops() {
    List<TestData.Example> separable = new ArrayList<>();
    Random random = new Random(17);
    while (separable.size() < 400) {
      double x = random.nextDouble() * 2 - 1;
      double y = random.nextDouble() * 2 - 1;
      if (Math.abs(x + y) > 0.2) {
        separable.add(new TestData.Example(x + y > 0 ? 1.0 : 0.0,
            Vectors.dense(x, y)));
      }
    }
    Dataset<Row> points = TestData.frameInOrder(spark, separable, 4);
    // calibration=none: one training per fit (the default cross-fits these small sets).
    PerceptronClassifier converges = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum")
        .setMixingRounds(2).setMaxIter(40).setTol(0.0).setSeed(1).setNumWorkers(4);
    EpochJobs listener = listen();
    PerceptronClassificationModel barrier;
    try {
      barrier = fit("barrier", converges, points);
    } finally {
      stopListening(listener);
    }
    assertEquals(StopReason.CONVERGED, barrier.summary().stopReason());
    assertTrue(barrier.summary().totalIterations() < 40);
    assertEquals(List.of("perceptron epochs 1-40/40"), listener.jobs.stream()
        .map(j -> j.substring(0, j.indexOf(':'))).toList());
    assertSameTraining(fit("jobs", converges, points), barrier, separable);

    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    // calibration=none: one training per fit (the default cross-fits these small sets).
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3)
        .setMaxIter(10).setTol(0.0).setSeed(8).setNumWorkers(4);
    double[] changes = fit("jobs", c, frame).summary().weightChangeHistory();
    double tol = Math.min(changes[0], Math.min(changes[1], changes[2])) * (1 + 1e-9);
    c.setTol(tol);
    listener = listen();
    try {
      barrier = fit("barrier", c, frame);
    } finally {
      stopListening(listener);
    }
    assertEquals(StopReason.TOL, barrier.summary().stopReason());
    assertTrue(barrier.summary().totalIterations() <= 3);
    assertEquals(1, listener.jobs.size(), listener.jobs.toString());
    assertSameTraining(fit("jobs", c, frame), barrier, BREAST);
  }

  /**
   * Sparse rows (spark_sample_libsvm: 692 columns, each worker holding its own features): block
   * momentum's look-ahead moves the whole support every round, more coordinates than a worker's
   * copy holds, which then follows the base in one pass ({@code LocalWeights.refreshAll}); the
   * model is the job-per-round one and the naive simulation's, bit for bit.
   */
  @Test
  void sparseWorkersFollowTheWholeSupportAsTheJobsDo() {
    List<TestData.Example> sparse =
        TestData.readLibSvm(TestData.sharedData("spark_sample_libsvm", "train.libsvm"), 692);
    Dataset<Row> frame = TestData.frameInOrder(spark, sparse, 4);
    // calibration=none: one training per fit (the default cross-fits these small sets).
    PerceptronClassifier c = new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3)
        .setMaxIter(4).setTol(0.0).setSeed(2).setNumWorkers(4);
    PerceptronClassificationModel barrier = fit("barrier", c, frame);
    assertSameTraining(fit("jobs", c, frame), barrier, sparse);
    NaiveMixingSimulation naive = new NaiveMixingSimulation(Examples.dense(sparse),
        Examples.labels(sparse), 692, 4, 3, "momentum", true, true, 2).run(4);
    assertArrayEquals(naive.model(), weights(barrier), 0.0, "barrier against the simulation");
  }
}
