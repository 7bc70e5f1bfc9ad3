package io.github.sparkperceptron.internal.blocks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.ml.PerceptronTrainingSummary;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.spark.Dependency;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.rdd.CoalescedRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.RDDBlockId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code numWorkers}: how many perceptrons train, independently of how many partitions the input
 * has. The expected models come from DataFrames partitioned by hand the way the README documents
 * the layout (contiguous groups of input partitions; rows of an input partition dealt
 * round-robin), which the library then trains one worker per partition, unchanged.
 *
 * <p>Where a test compares only weights (or params), it fits with {@code calibration=none}: on
 * these few thousand rows the default calibration falls back to cross-fitting (the model trains
 * on every row either way, so the weights are the same bits) and would train three more fold
 * models per fit, with many workers most of the test's time.
 */
class NumWorkersTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  /** 7,494 rows, 16 features, 10 classes: mixing several workers visibly changes the model. */
  private static final List<TestData.Example> PENDIGITS =
      TestData.readLibSvm(TestData.sharedData("pendigits", "train.libsvm"), 16);

  @TempDir
  Path tmp;

  private static double[] weights(PerceptronClassificationModel m) {
    double[] coefficients = m.coefficientMatrix().toArray();
    double[] intercepts = m.interceptVector().toArray();
    double[] w = Arrays.copyOf(coefficients, coefficients.length + intercepts.length);
    System.arraycopy(intercepts, 0, w, coefficients.length, intercepts.length);
    return w;
  }

  /**
   * The training input of {@code frame}'s "label" and "features" (and {@code weightCol}) on
   * {@code workers} workers of a cluster with 2 task slots, rows shuffled with seed 0.
   */
  private static TrainingInput prepare(Dataset<Row> frame, String weightCol, int workers) {
    TrainingConfig config = TrainingConfig.builder().columns("label", "features", weightCol, "")
        .numWorkers(workers).visitOrder(true, ShuffleScope.ROWS, 0).build();
    return TrainingInput.prepare(frame, TrainingPlan.forFit(
        JavaSparkContext.fromSparkContext(SPARK.sparkContext()), config, 2));
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
    // parallelize puts one list in each of parts.size() slices; flatMap unpacks it in place.
    return SPARK.createDataFrame(new JavaSparkContext(SPARK.sparkContext())
        .parallelize(rows, rows.size()).flatMap(List::iterator), TestData.SCHEMA);
  }

  /** Slice p of {@code parallelize(examples, parts)}: rows [p·n/parts, (p+1)·n/parts). */
  private static List<TestData.Example> slice(List<TestData.Example> examples, int p,
      int parts) {
    int n = examples.size();
    return examples.subList((int) ((long) p * n / parts), (int) ((long) (p + 1) * n / parts));
  }

  /** Rows first, first + step, first + 2·step, ... of {@code rows}. */
  private static List<TestData.Example> every(List<TestData.Example> rows, int first, int step) {
    List<TestData.Example> out = new ArrayList<>();
    for (int r = first; r < rows.size(); r += step) {
      out.add(rows.get(r));
    }
    return out;
  }

  @Test
  void autoTrainsOneWorkerPerTaskSlotAndSaysSo() {
    // The shared test session is local[2]: two task slots.
    assertEquals(2, SPARK.sparkContext().defaultParallelism());
    Dataset<Row> input = TestData.frameInOrder(SPARK, PENDIGITS, 200);
    assertEquals(200, input.rdd().getNumPartitions());
    PerceptronClassificationModel model;
    try (LogCapture log = LogCapture.of(WorkerLayout.class)) {
      model = new PerceptronClassifier().setMaxIter(2).fit(input);
      assertEquals(List.of("numWorkers=0 (auto): 2 workers = the cluster's 2 task slots"
          + " (SparkContext.defaultParallelism); the input's 200 partitions are gathered into 2"
          + " (contiguous groups of about 100, through one shuffle of the converted rows, so that"
          + " the mixing rounds can run in barrier stages)"), log.messages(Level.INFO));
      assertEquals(List.of(), log.messages(Level.WARN));
    }
    assertEquals(0, model.getNumWorkers());
    assertEquals(2, model.summary().numWorkers());
    assertEquals(200, model.summary().numInputPartitions());
    for (long[] perWorker : model.summary().workerUpdatesHistory()) {
      assertEquals(2, perWorker.length);
    }
  }

  /**
   * The default on a 200-partition input is the model of the same rows in 2 partitions (what
   * a user gets from {@code coalesce(2)} on local[2]), bit for bit, and reruns repeat it.
   */
  @Test
  void autoOnTwoHundredPartitionsIsTheTwoPartitionModel() {
    // parallelize slices [p·n/200, (p+1)·n/200): slices 0-99 together are [0, n/2), the first
    // of parallelize(rows, 2)'s slices, and 100-199 the second. Built independently here.
    Dataset<Row> many = TestData.frameInOrder(SPARK, PENDIGITS, 200);
    Dataset<Row> two = partitionedByHand(List.of(slice(PENDIGITS, 0, 2),
        slice(PENDIGITS, 1, 2)));
    PerceptronClassifier defaults = new PerceptronClassifier();
    PerceptronClassificationModel expected = defaults.fit(two);
    PerceptronClassificationModel coalesced = defaults.fit(many);
    PerceptronClassificationModel again = defaults.fit(many);
    assertEquals(2, expected.summary().numWorkers());
    assertArrayEquals(weights(expected), weights(coalesced), 0.0);
    assertArrayEquals(weights(coalesced), weights(again), 0.0);
    assertArrayEquals(expected.summary().updatesHistory(),
        coalesced.summary().updatesHistory());
    assertArrayEquals(expected.summary().mistakesHistory(),
        coalesced.summary().mistakesHistory());
  }

  /** Uneven groups: 7 input partitions for 3 workers are {0, 1}, {2, 3} and {4, 5, 6}. */
  @Test
  void fewerWorkersThanPartitionsReadContiguousGroupsInOrder() {
    List<TestData.Example> rows = PENDIGITS.subList(0, 2100);
    Dataset<Row> seven = TestData.frameInOrder(SPARK, rows, 7);
    int[][] groups = {{0, 1}, {2, 3}, {4, 5, 6}};
    List<List<TestData.Example>> byHand = new ArrayList<>();
    for (int[] group : groups) {
      List<TestData.Example> worker = new ArrayList<>();
      for (int p : group) {
        worker.addAll(slice(rows, p, 7));
      }
      byHand.add(worker);
    }
    PerceptronClassifier three = new PerceptronClassifier().setNumWorkers(3).setMaxIter(5)
        .setCalibration("none");
    PerceptronClassificationModel expected = three.fit(partitionedByHand(byHand));
    PerceptronClassificationModel coalesced = three.fit(seven);
    assertEquals(3, coalesced.summary().numWorkers());
    assertEquals(7, coalesced.summary().numInputPartitions());
    assertArrayEquals(weights(expected), weights(coalesced), 0.0);
  }

  /**
   * What worker j of {@code workers} gets when the input partitions {@code inputs} are dealt:
   * from input partition p (first row to worker {@code offsets[p]}), the rows r with
   * (offsets[p] + r) mod workers = j, in order, partition after partition.
   */
  private static List<List<TestData.Example>> dealtByHand(List<List<TestData.Example>> inputs,
      int[] offsets, int workers) {
    List<List<TestData.Example>> out = new ArrayList<>();
    for (int j = 0; j < workers; j++) {
      List<TestData.Example> worker = new ArrayList<>();
      for (int p = 0; p < inputs.size(); p++) {
        worker.addAll(every(inputs.get(p), Math.floorMod(j - offsets[p], workers), workers));
      }
      out.add(worker);
    }
    return out;
  }

  /**
   * More workers than partitions: 2 input partitions for 8 workers. The first row of input
   * partition p goes to worker ⌈p·8/2⌉ (0 and 4), the next rows to the next workers, cyclically.
   */
  @Test
  void moreWorkersThanPartitionsDealEachPartitionsRowsRoundRobin() {
    // 2,000 rows and 5 epochs, as the uneven split below: the dealing does not depend on size.
    List<TestData.Example> rows = PENDIGITS.subList(0, 2000);
    Dataset<Row> two = TestData.frameInOrder(SPARK, rows, 2);
    List<List<TestData.Example>> byHand = dealtByHand(List.of(slice(rows, 0, 2),
        slice(rows, 1, 2)), new int[] {0, 4}, 8);
    PerceptronClassifier eight = new PerceptronClassifier().setNumWorkers(8).setMaxIter(5)
        .setCalibration("none");
    PerceptronClassificationModel split;
    try (LogCapture log = LogCapture.of(WorkerLayout.class)) {
      split = eight.fit(two);
      assertEquals(List.of("numWorkers=8: 8 workers; the input's 2 partitions are split into 8"
          + " (each input partition's rows dealt round-robin over the 8 workers, then one shuffle"
          + " of the converted rows)"), log.messages(Level.INFO));
      assertEquals(List.of("numWorkers=8 is more than the cluster's 2 task slots"
          + " (SparkContext.defaultParallelism): the workers of every epoch run in 4 waves, so an"
          + " epoch takes about 4 times as long as with 2 workers. The model is the 8-worker"
          + " model either way (accuracy also depends on numWorkers); set numWorkers=0 to match"
          + " the task slots"), log.messages(Level.WARN));
    }
    PerceptronClassificationModel again = eight.fit(two);
    PerceptronClassificationModel expected = eight.fit(partitionedByHand(byHand));

    PerceptronTrainingSummary s = split.summary();
    assertEquals(8, s.numWorkers());
    assertEquals(2, s.numInputPartitions());
    assertEquals(8, s.workerUpdatesHistory()[0].length);
    // Every row is visited exactly once per epoch: none lost, none duplicated by the shuffle.
    for (long examples : s.examplesHistory()) {
      assertEquals(rows.size(), examples);
    }
    assertArrayEquals(weights(split), weights(again), 0.0);
    assertArrayEquals(weights(expected), weights(split), 0.0);
  }

  /** Uneven split: 2 partitions for 5 workers, first rows to workers ⌈p·5/2⌉ = 0 and 3. */
  @Test
  void unevenSplitsDealToTheDocumentedWorkers() {
    List<TestData.Example> rows = PENDIGITS.subList(0, 1503);
    List<List<TestData.Example>> byHand = dealtByHand(List.of(slice(rows, 0, 2),
        slice(rows, 1, 2)), new int[] {0, 3}, 5);
    PerceptronClassifier five = new PerceptronClassifier().setNumWorkers(5).setMaxIter(5)
        .setCalibration("none");
    assertArrayEquals(weights(five.fit(partitionedByHand(byHand))),
        weights(five.fit(TestData.frameInOrder(SPARK, rows, 2))), 0.0);
  }

  private static boolean hasShuffle(RDD<?> rdd) {
    for (Dependency<?> d : CollectionConverters.asJava(rdd.dependencies())) {
      if (d instanceof ShuffleDependency || hasShuffle(d.rdd())) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasCoalesce(RDD<?> rdd) {
    if (rdd instanceof CoalescedRDD) {
      return true;
    }
    for (Dependency<?> d : CollectionConverters.asJava(rdd.dependencies())) {
      if (hasCoalesce(d.rdd())) {
        return true;
      }
    }
    return false;
  }

  /**
   * numWorkers equal to the input's partition count trains on the input's partitions as they
   * are (no coalesce, no shuffle: the path every model took before numWorkers existed); only
   * more workers than partitions costs a shuffle.
   */
  @Test
  void onlyMoreWorkersThanPartitionsCostAShuffle() {
    List<TestData.Example> rows = PENDIGITS.subList(0, 1000);
    Dataset<Row> five = TestData.frameInOrder(SPARK, rows, 5);
    // workers, coalesced?, shuffled?, expected rows per worker
    Object[][] cases = {
        {5, false, false, new long[] {200, 200, 200, 200, 200}},
        {2, true, false, new long[] {400, 600}},
        // each input partition's 200 rows: 25 to every worker
        {8, false, true, new long[] {125, 125, 125, 125, 125, 125, 125, 125}},
    };
    for (Object[] c : cases) {
      int workers = (Integer) c[0];
      try (TrainingInput input = prepare(five, "", workers)) {
        String what = "numWorkers=" + workers;
        assertEquals(workers, input.numWorkers, what);
        assertEquals(workers, input.blocks.getNumPartitions(), what);
        assertEquals(5, input.layout.inputPartitions, what);
        assertEquals(c[1], hasCoalesce(input.blocks.rdd()), what);
        assertEquals(c[2], hasShuffle(input.blocks.rdd()), what);
        assertArrayEquals((long[]) c[3], input.workerRows, what);
      }
    }
    // Uneven input partitions (900 and 100 rows) still give every worker a quarter: the first
    // deals 225 rows to each worker, the second (first row to worker ⌈1·4/2⌉ = 2) 25 to each.
    Dataset<Row> skewed = partitionedByHand(List.of(rows.subList(0, 900),
        rows.subList(900, 1000)));
    try (TrainingInput input = prepare(skewed, "", 4)) {
      assertArrayEquals(new long[] {250, 250, 250, 250}, input.workerRows);
    }
  }

  /**
   * The largest ‖x‖² and the largest sample weight per class (block momentum's bound reads them)
   * are the input's, whichever worker holds the row: the same in every layout, split pieces
   * merged included. Expected values are computed here from the rows; the norms are compared
   * exactly, being sums of the same squares in index order (a dense row's zeros add nothing).
   */
  @Test
  void everyLayoutRecordsTheLargestNormAndSampleWeightPerClass() {
    List<Row> rows = new ArrayList<>();
    double maxNorm = 0.0;
    double[] maxWeight = new double[10];
    for (int i = 0; i < 600; i++) {
      TestData.Example e = PENDIGITS.get(i);
      double[] x = e.features.toArray();
      if (i == 450) {
        // The largest norm, in the last input partition (rows 400..599).
        for (int j = 0; j < x.length; j++) {
          x[j] *= 3;
        }
      }
      double weight = i == 100 ? 9.0 : 0.5 + (i % 7) * 0.25;
      double norm = 0.0;
      for (double v : x) {
        norm += v * v;
      }
      maxNorm = Math.max(maxNorm, norm);
      int k = (int) e.label;
      maxWeight[k] = Math.max(maxWeight[k], weight);
      rows.add(RowFactory.create(e.label, Vectors.dense(x), weight));
    }
    Dataset<Row> three = SPARK.createDataFrame(new JavaSparkContext(SPARK.sparkContext())
        .parallelize(rows, 3), TestData.SCHEMA.add("weight", "double"));
    for (int workers : new int[] {3, 2, 1, 7}) {
      try (TrainingInput input = prepare(three, "weight", workers)) {
        String what = "numWorkers=" + workers;
        assertEquals(workers, input.numWorkers, what);
        assertEquals(maxNorm, input.maxSquaredNorm, 0.0, what);
        assertArrayEquals(maxWeight, input.maxWeightByClass, 0.0, what);
      }
    }
  }

  /** A bad row is named by its place in the input, whichever worker reads it. */
  @Test
  void badRowsAreNamedByTheirInputPartitionInEveryLayout() {
    List<TestData.Example> rows = new ArrayList<>(PENDIGITS.subList(0, 40));
    // Slice 1 of 2 starts at row 20; its row 7 is row 27 of the list.
    rows.set(27, new TestData.Example(-3.0, rows.get(27).features));
    Dataset<Row> two = TestData.frameInOrder(SPARK, rows, 2);
    for (int workers : new int[] {1, 2, 6}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new PerceptronClassifier().setNumWorkers(workers).fit(two));
      assertTrue(e.getMessage().startsWith("Column 'label' (labelCol) has -3.0 in row 7 of input"
          + " partition 1: "), workers + " workers: " + e.getMessage());
    }
    // Rounds meant for barrier stages gather the 2 partitions into 1 worker through a shuffle.
    IllegalArgumentException gathered = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setNumWorkers(1).setMixing("momentum")
            .setMixingRounds(2).fit(two));
    assertTrue(gathered.getMessage().startsWith("Column 'label' (labelCol) has -3.0 in row 7 of"
        + " input partition 1: "), "gathered: " + gathered.getMessage());
  }

  /**
   * Cached blocks that are lost (an executor dies, memory runs short) are rebuilt from their
   * lineage: the coalesced input partitions, or the split's shuffle. The rebuilt blocks must be
   * the same rows in the same order, so the model cannot change. Checkpoints every 2 epochs end
   * a barrier stage after epochs 2 and 4 (the epochs of a stage run before the driver replays
   * them and tells the listener): the blocks are dropped there, and the next stage rebuilds them.
   */
  @Test
  void blocksRebuiltMidTrainingGiveTheSameModel(@TempDir Path dir) {
    Dataset<Row> three = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 1500), 3);
    for (int workers : new int[] {2, 5}) {
      PerceptronClassifier clf = new PerceptronClassifier().setNumWorkers(workers).setMaxIter(5)
          .setCalibration("none")
          .setCheckpointDir(dir.resolve("checkpoints-" + workers).toString())
          .setCheckpointInterval(2);
      double[] undisturbed = weights(clf.fit(three));
      // Per drop: the cached partitions before and after.
      List<int[]> drops = new ArrayList<>();
      clf.setEpochListener((epoch, model) -> {
        if (epoch == 2 || epoch == 4) {
          for (RDD<?> rdd : CollectionConverters.asJava(
              SPARK.sparkContext().getPersistentRDDs()).values()) {
            if (TrainingInput.BLOCKS_NAME.equals(rdd.name())) {
              int before = cachedPartitions(rdd);
              // Drops the cached blocks but keeps the RDD persisted: the next epoch rebuilds.
              SPARK.sparkContext().env().blockManager().master().removeRdd(rdd.id(), true);
              drops.add(new int[] {before, cachedPartitions(rdd)});
            }
          }
        }
      });
      assertArrayEquals(undisturbed, weights(clf.fit(three)), 0.0, workers + " workers");
      assertEquals(2, drops.size(), "blocks dropped after epochs 2 and 4");
      for (int[] drop : drops) {
        assertArrayEquals(new int[] {workers, 0}, drop, "cached partitions before and after");
      }
    }
  }

  /** Partitions of an RDD whose blocks the block manager master knows of, asked directly. */
  private static int cachedPartitions(RDD<?> rdd) {
    int cached = 0;
    for (int p = 0; p < rdd.getNumPartitions(); p++) {
      if (!SPARK.sparkContext().env().blockManager().master()
          .getLocations(new RDDBlockId(rdd.id(), p)).isEmpty()) {
        cached++;
      }
    }
    return cached;
  }

  /** Worker j's group is input partitions ⌊j·P/W⌋ .. ⌊(j+1)·P/W⌋ − 1, and workerOf inverts it. */
  @Test
  void everyInputPartitionBelongsToTheWorkerWhoseGroupHoldsIt() {
    for (int inputs = 1; inputs <= 40; inputs++) {
      for (int workers = 1; workers <= inputs; workers++) {
        WorkerLayout layout = WorkerLayout.of(workers, 2, inputs);
        int p = 0;
        for (int j = 0; j < workers; j++) {
          assertTrue(layout.firstInputOf(j + 1) > layout.firstInputOf(j), "a group is not empty");
          for (; p < layout.firstInputOf(j + 1); p++) {
            assertEquals(j, layout.workerOf(p), "P=" + inputs + ", W=" + workers + ", p=" + p);
          }
        }
        assertEquals(inputs, p, "the groups cover every input partition");
      }
    }
  }

  /** The rows a worker holds, in its stored order: label, weight and stored entries. */
  private static List<String> storedRows(WorkerBlocks part) {
    List<String> out = new ArrayList<>();
    for (TrainingBlock block : part.trainingChunks()) {
      int[] indices = new int[block.features().maxStoredPerRow()];
      double[] values = new double[indices.length];
      for (int r = 0; r < block.numRows(); r++) {
        int n = block.features().copyRow(r, indices, values);
        out.add(block.label(r) + " " + Double.doubleToLongBits(block.weight(r)) + " "
            + Arrays.toString(Arrays.copyOf(indices, n)) + " "
            + Arrays.toString(Arrays.copyOf(values, n)));
      }
    }
    return out;
  }

  /**
   * Rounds that may run in barrier stages (momentum: 2 rounds for 2 workers) gather the
   * contiguous groups of a coalesce through one shuffle, since Spark refuses a barrier stage
   * over a coalesce: the blocks' chain then holds a shuffle and no coalesce, every RDD of the
   * blocks' stage has W partitions, and every worker holds the rows the coalesce gives it, in the
   * same stored order, bit for bit. With {@code roundExecution=jobs} the coalesce stays.
   */
  @Test
  void roundsForBarrierStagesGatherTheCoalescedGroupsThroughOneShuffle() {
    Dataset<Row> five = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 1000), 5);
    TrainingConfig momentum = TrainingConfig.builder().columns("label", "features", "weight", "")
        .numWorkers(2).visitOrder(true, ShuffleScope.CHUNKS, 3)
        .mixing(MixingMode.MOMENTUM, 0, 2).build();
    Dataset<Row> weighted = five.withColumn("weight",
        org.apache.spark.sql.functions.rand(5).plus(0.5));
    List<List<String>> coalescedRows = new ArrayList<>();
    SPARK.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, "jobs");
    try (TrainingInput coalesced = TrainingInput.prepare(weighted, TrainingPlan.forFit(
        JavaSparkContext.fromSparkContext(SPARK.sparkContext()), momentum, 2))) {
      assertEquals(WorkerLayout.Mode.COALESCE, coalesced.layout.mode);
      assertTrue(hasCoalesce(coalesced.blocks.rdd()));
      for (WorkerBlocks part : coalesced.blocks.collect()) {
        coalescedRows.add(storedRows(part));
      }
    } finally {
      SPARK.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
    }
    try (LogCapture log = LogCapture.of(WorkerLayout.class);
        TrainingInput gathered = TrainingInput.prepare(weighted, TrainingPlan.forFit(
        JavaSparkContext.fromSparkContext(SPARK.sparkContext()), momentum, 2))) {
      assertEquals(List.of("numWorkers=2: 2 workers; the input's 5 partitions are gathered into"
          + " 2 (contiguous groups of about 2, through one shuffle of the converted rows, so that"
          + " the mixing rounds can run in barrier stages)"), log.messages(Level.INFO));
      assertEquals(WorkerLayout.Mode.GATHER, gathered.layout.mode);
      assertFalse(hasCoalesce(gathered.blocks.rdd()));
      assertTrue(hasShuffle(gathered.blocks.rdd()));
      assertEquals(null, BarrierChain.problem(gathered.blocks.rdd(), 2));
      assertArrayEquals(new long[] {400, 600}, gathered.workerRows);
      List<WorkerBlocks> parts = gathered.blocks.collect();
      for (int j = 0; j < 2; j++) {
        assertEquals(coalescedRows.get(j), storedRows(parts.get(j)), "worker " + j);
      }
    }
  }

  /**
   * A checkpoint belongs to one number of workers: with another (here: auto on a cluster of
   * another size would do the same), resuming would continue a different training.
   */
  @Test
  void aCheckpointIsNotResumedWithAnotherNumberOfWorkers() {
    Dataset<Row> data = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 600), 2);
    String dir = tmp.resolve("checkpoints").toString();
    PerceptronClassifier two = new PerceptronClassifier().setNumWorkers(2).setMaxIter(6)
        .setCheckpointDir(dir).setCheckpointInterval(1);
    // Epoch 3 fails on every attempt: the training dies after checkpointing epoch 2.
    SPARK.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, "from-epoch:3");
    try {
      assertThrows(Exception.class, () -> two.fit(data));
    } finally {
      SPARK.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> two.copy(new ParamMap()).setNumWorkers(3).fit(data));
    assertTrue(e.getMessage().contains("a different training"), e.getMessage());
    // The same number of workers resumes it.
    assertEquals(6, two.fit(data).summary().totalIterations());
  }

  /**
   * The mean mixes warn from 8 workers on, where they measurably dilute (BENCHMARKS.md: 3 points
   * on pendigits at 8 workers); momentum (the default), which does not, and fewer workers stay
   * silent.
   */
  @Test
  void theMeanMixesWarnThatManyWorkersDiluteThem() {
    Dataset<Row> two = TestData.frameInOrder(SPARK, PENDIGITS, 2);
    try (LogCapture log = LogCapture.of(MixingSettings.class)) {
      new PerceptronClassifier().setNumWorkers(8).setMaxIter(1).setMixing("mistakes").fit(two);
      new PerceptronClassifier().setNumWorkers(8).setMaxIter(1).setMixing("uniform").fit(two);
      new PerceptronClassifier().setNumWorkers(8).setMaxIter(1).fit(two);
      new PerceptronClassifier().setNumWorkers(7).setMaxIter(1).setMixing("mistakes").fit(two);
      List<String> warnings = log.messages(Level.WARN);
      assertEquals(2, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).startsWith("mixing=mistakes averages the changes of 8 workers"),
          warnings.get(0));
      assertTrue(warnings.get(1).startsWith("mixing=uniform averages the changes of 8 workers"),
          warnings.get(1));
      assertTrue(warnings.get(0).contains("mixing=momentum, the default, keeps"),
          warnings.get(0));
    }
  }

  @Test
  void numWorkersIsValidatedWhenSet() {
    assertEquals(0, new PerceptronClassifier().getNumWorkers());
    assertEquals(4, new PerceptronClassifier().setNumWorkers(4).getNumWorkers());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setNumWorkers(-1));
    assertEquals("numWorkers must be >= 0 (0 = auto: the cluster's task slots), got -1",
        e.getMessage());
  }

  @Test
  void modelsAndEstimatorsKeepNumWorkersWhenSavedAndLoaded() throws IOException {
    Dataset<Row> data = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 300), 2);
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(3).setMaxIter(2)
        .setCalibration("none");
    PerceptronClassificationModel model = estimator.fit(data);
    assertEquals(3, model.getNumWorkers());

    String modelPath = tmp.resolve("model").toString();
    model.write().save(modelPath);
    assertEquals(3, PerceptronClassificationModel.load(modelPath).getNumWorkers());
    String estimatorPath = tmp.resolve("estimator").toString();
    estimator.write().save(estimatorPath);
    assertEquals(3, PerceptronClassifier.load(estimatorPath).getNumWorkers());
  }

  /** A model saved before numWorkers existed has no entry for it: it loads with the default. */
  @Test
  void modelsSavedWithoutNumWorkersStillLoad() throws IOException {
    Dataset<Row> data = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 300), 2);
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(2)
        .setCalibration("none").fit(data);
    Path dir = tmp.resolve("old-model");
    model.write().save(dir.toString());

    Path metadata = dir.resolve("metadata");
    Path part;
    try (Stream<Path> files = Files.list(metadata)) {
      part = files.filter(f -> f.getFileName().toString().startsWith("part-")).findFirst()
          .orElseThrow();
    }
    ObjectMapper json = new ObjectMapper();
    ObjectNode meta = (ObjectNode) json.readTree(part.toFile());
    assertTrue(((ObjectNode) meta.get("defaultParamMap")).remove("numWorkers") != null,
        "the saved model records numWorkers");
    ((ObjectNode) meta.get("paramMap")).remove("numWorkers");
    Files.writeString(part, json.writeValueAsString(meta) + "\n");
    Files.deleteIfExists(metadata.resolve("." + part.getFileName() + ".crc"));
    assertFalse(Files.readString(part).contains("numWorkers"));

    PerceptronClassificationModel old = PerceptronClassificationModel.load(dir.toString());
    assertEquals(0, old.getNumWorkers());
    assertArrayEquals(weights(model), weights(old), 0.0);
  }

  /**
   * What Spark's DAGScheduler refuses under a barrier stage of 2 tasks: an RDD of its stage
   * (through narrow dependencies) with another number of partitions, named; a shuffle ends the
   * stage, so what lies before it does not count.
   */
  @Test
  void theChainCheckNamesWhatSparkWouldRefuse() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(SPARK.sparkContext());
    JavaRDD<Integer> six = jsc.parallelize(List.of(1, 2, 3, 4, 5, 6), 6);
    String coalesced = BarrierChain.problem(six.coalesce(2).map(x -> x + 1).rdd(), 2);
    assertTrue(coalesced != null && coalesced.contains("has 6 partitions, not 2"), coalesced);
    assertEquals(null, BarrierChain.problem(six.map(x -> x + 1).rdd(), 6));
    assertEquals(null, BarrierChain.problem(six.repartition(2).map(x -> x + 1).rdd(), 2));
  }
}
