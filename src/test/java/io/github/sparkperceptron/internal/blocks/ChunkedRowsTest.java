package io.github.sparkperceptron.internal.blocks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerMaster;
import org.apache.spark.storage.RDDBlockId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A worker's rows stored in chunks (each a Spark block of its own) train the model of the same
 * rows stored whole, bit for bit, as long as they fit one window of an epoch: the chunks are the
 * rows in storage order, and the window's order is the unchunked worker's. Whatever the storage
 * level, and whether the data spill or not. The expected models come from the default chunk size
 * (a few MiB: every data set of this test fits one chunk). The cases name scope rows: scope
 * chunks lays out each stored chunk from a stream of its own, and the default, auto, takes the
 * chunked order for a worker of several chunks ({@link #autoVisitsOneChunkAsRowsAndSeveralAsChunks}).
 */
class ChunkedRowsTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  /** 7,494 rows, 16 features, 10 classes. */
  private static final List<TestData.Example> PENDIGITS =
      TestData.readLibSvm(TestData.sharedData("pendigits", "train.libsvm"), 16);
  /** 4 KiB: about 200 sparse rows of 20 non-zeros, or 30 dense rows of pendigits, per chunk. */
  private static final String SMALL_CHUNKS = "4096";

  @AfterEach
  void defaults() {
    SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, null);
    SPARK.sparkContext().setLocalProperty(Settings.TEST_WINDOW_BYTES, null);
  }

  /**
   * An estimator for the pendigits cases, which compare weights only: on these 3,000 rows of 10
   * classes the default calibration falls back to cross-fitting, where the model trains on every
   * row (the same bits as with calibration=none) and three fold models more are trained per fit
   * for a calibrator no case reads. The sparse cases keep the default, whose held-out rows the
   * conversion keeps apart from the training chunks.
   */
  private static PerceptronClassifier weightsOnly() {
    return new PerceptronClassifier().setCalibration("none").setShuffleScope("rows");
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] coefficients = m.numClasses() == 2 ? m.coefficients().toArray()
        : m.coefficientMatrix().toArray();
    double[] intercepts = m.numClasses() == 2 ? new double[] {m.intercept()}
        : m.interceptVector().toArray();
    double[] w = Arrays.copyOf(coefficients, coefficients.length + intercepts.length);
    System.arraycopy(intercepts, 0, w, coefficients.length, intercepts.length);
    return w;
  }

  /** The model {@code fit} gives with chunks of {@code chunkBytes} (null: the default). */
  private static double[] fitWithChunks(String chunkBytes, Supplier<PerceptronClassificationModel> fit) {
    SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, chunkBytes);
    try {
      return weights(fit.get());
    } finally {
      SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, null);
    }
  }

  private static Dataset<Row> sparse(int rows, int partitions) {
    return sparse(5_000, rows, partitions);
  }

  private static Dataset<Row> sparse(int d, int rows, int partitions) {
    SyntheticData data = SyntheticData.builder().numFeatures(d).nonZerosPerRow(20)
        .margin(0.05).labelNoise(0.05).seed(3).build();
    return data.frame(SPARK, 0, rows, partitions);
  }

  /** The chunks of every worker's training rows, as {@code plan} converts {@code frame}. */
  private static int[] chunksPerWorker(Dataset<Row> frame, PerceptronClassifier clf) {
    try (TrainingInput input = TrainingInput.prepare(frame, TrainingPlan.forFit(
        JavaSparkContext.fromSparkContext(SPARK.sparkContext()), EngineBridge.config(clf)))) {
      return input.blocks.collect().stream().mapToInt(p -> p.training.chunks()).toArray();
    }
  }

  @Test
  void manyChunksInOneWindowTrainTheModelOfOneChunk() {
    Dataset<Row> sparse = sparse(4_000, 2);
    Dataset<Row> pendigits = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 3000), 3);
    Object[][] cases = {
        {"sparse, defaults but rows", sparse, new PerceptronClassifier().setMaxIter(3)
            .setShuffleScope("rows")},
        {"sparse, vote, pa1", sparse, new PerceptronClassifier().setMaxIter(3)
            .setAveraging("vote").setUpdateRule("pa1").setFitIntercept(false)
            .setShuffleScope("rows")},
        {"sparse, d = 2^20 (the workers' chunks renumbered by their own features)",
            sparse(1 << 20, 3_000, 2), new PerceptronClassifier().setMaxIter(3)
            .setNumWorkers(2).setShuffleScope("rows")},
        {"pendigits, 3 workers of 3 partitions, mistakes", pendigits,
            weightsOnly().setMaxIter(3).setMixing("mistakes").setNumWorkers(3)},
        {"pendigits, split over 5 workers (pieces through a shuffle), momentum", pendigits,
            weightsOnly().setMaxIter(3).setNumWorkers(5)},
        {"pendigits, gathered into 2 workers, unshuffled", pendigits,
            weightsOnly().setMaxIter(3).setNumWorkers(2).setShuffle(false)},
    };
    for (Object[] c : cases) {
      Dataset<Row> frame = (Dataset<Row>) c[1];
      PerceptronClassifier clf = (PerceptronClassifier) c[2];
      double[] whole = fitWithChunks(null, () -> clf.fit(frame));
      double[] chunked = fitWithChunks(SMALL_CHUNKS, () -> clf.fit(frame));
      assertArrayEquals(whole, chunked, 0.0, c[0].toString());
      SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, SMALL_CHUNKS);
      int[] chunks = chunksPerWorker(frame, clf);
      SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, null);
      for (int n : chunks) {
        assertTrue(n >= 10, c[0] + ": a worker's rows in " + Arrays.toString(chunks) + " chunks");
      }
    }
  }

  /** Where Spark keeps the chunks changes nothing: memory, disk, serialized, spilled. */
  @Test
  void everyStorageLevelTrainsTheSameModel() {
    Dataset<Row> pendigits = TestData.frameInOrder(SPARK, PENDIGITS.subList(0, 3000), 2);
    PerceptronClassifier clf = weightsOnly().setMaxIter(3).setNumWorkers(2);
    double[] expected = fitWithChunks(null, () -> clf.fit(pendigits));
    for (String level : new String[] {"DISK_ONLY", "MEMORY_ONLY_SER", "MEMORY_AND_DISK_SER",
        "MEMORY_ONLY"}) {
      clf.setStorageLevel(level);
      assertArrayEquals(expected, fitWithChunks(SMALL_CHUNKS, () -> clf.fit(pendigits)), 0.0,
          level);
    }
  }

  /**
   * Chunks that no executor keeps any more (dropped between epochs, as when their executor is
   * lost) are converted again by the task that misses them: the same model.
   */
  @Test
  void lostChunksAreRebuiltAndTheModelDoesNotChange() {
    Dataset<Row> sparse = sparse(3_000, 3);
    PerceptronClassifier clf = new PerceptronClassifier().setMaxIter(4).setNumWorkers(2)
        .setShuffleScope("auto");
    double[] undisturbed = fitWithChunks(SMALL_CHUNKS, () -> clf.fit(sparse));
    int[] dropped = {0};
    clf.setEpochListener((epoch, model) -> {
      if (epoch == 1 || epoch == 3) {
        dropped[0] += dropEveryChunk();
      }
    });
    assertArrayEquals(undisturbed, fitWithChunks(SMALL_CHUNKS, () -> clf.fit(sparse)), 0.0);
    assertTrue(dropped[0] >= 20, dropped[0] + " chunks dropped");
  }

  /**
   * Scope auto: a worker whose rows fit one stored chunk trains the model of scope rows, bit for
   * bit; a worker of several chunks the model of scope chunks, which differs.
   */
  @Test
  void autoVisitsOneChunkAsRowsAndSeveralAsChunks() {
    Dataset<Row> sparse = sparse(3_000, 2);
    PerceptronClassifier clf = new PerceptronClassifier().setMaxIter(3).setNumWorkers(2);
    assertEquals("auto", clf.getShuffleScope(), "the default");
    double[] auto = fitWithChunks(null, () -> clf.fit(sparse));
    double[] autoChunked = fitWithChunks(SMALL_CHUNKS, () -> clf.fit(sparse));
    clf.setShuffleScope("rows");
    double[] rows = fitWithChunks(null, () -> clf.fit(sparse));
    clf.setShuffleScope("chunks");
    double[] chunks = fitWithChunks(SMALL_CHUNKS, () -> clf.fit(sparse));
    assertArrayEquals(rows, auto, 0.0, "one chunk a worker: rows");
    assertArrayEquals(chunks, autoChunked, 0.0, "several chunks a worker: chunks");
    assertFalse(Arrays.equals(rows, chunks), "the two orders train different models");
  }

  /**
   * Rows that end exactly where their first chunk is full are one chunk (sealed last), so scope
   * auto visits them as rows: the choice follows the chunks the worker stores.
   */
  @Test
  void rowsThatExactlyFillOneChunkAreOneChunk() {
    Dataset<Row> sparse = sparse(1_000, 1);
    PerceptronClassifier clf = weightsOnly().setMaxIter(2).setNumWorkers(1);
    long[] bytes;
    try (TrainingInput input = TrainingInput.prepare(sparse, TrainingPlan.forFit(
        JavaSparkContext.fromSparkContext(SPARK.sparkContext()), EngineBridge.config(clf)))) {
      bytes = input.blocks.first().training.chunkBytes().clone();
    }
    assertEquals(1, bytes.length);
    String exact = Long.toString(bytes[0]);
    double[] rows = fitWithChunks(null, () -> clf.fit(sparse));
    clf.setShuffleScope("auto");
    SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, exact);
    assertArrayEquals(new int[] {1}, chunksPerWorker(sparse, clf));
    SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, Long.toString(bytes[0] / 2));
    assertArrayEquals(new int[] {2}, chunksPerWorker(sparse, clf));
    assertArrayEquals(rows, fitWithChunks(exact, () -> clf.fit(sparse)), 0.0);
  }

  /** Removes every block of an RDD that Spark does not know as persisted (the chunks). */
  private static int dropEveryChunk() {
    Set<Object> persisted = new HashSet<>(CollectionConverters
        .asJava(SPARK.sparkContext().getPersistentRDDs()).keySet());
    BlockManagerMaster master = SPARK.sparkContext().env().blockManager().master();
    Function1<BlockId, Object> chunk = (Function1<BlockId, Object>
        & Serializable) id -> id instanceof RDDBlockId
        && !persisted.contains(((RDDBlockId) id).rddId());
    List<BlockId> chunks = CollectionConverters.asJava(
        master.getMatchingBlockIds(chunk, true));
    for (BlockId id : chunks) {
      master.removeBlock(id);
    }
    // The master tells the executors asynchronously: wait until none keeps a chunk.
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (BlockId id : chunks) {
      while (!master.getLocations(id).isEmpty()) {
        assertTrue(System.nanoTime() < deadline, id + " is still kept after 30 s");
        Thread.onSpinWait();
      }
    }
    return chunks.size();
  }

  /**
   * Rows in several windows: one worker visits each epoch's windows one after the other, each
   * window's rows in the order of its plan (kernel.EpochPlan, a convention like VisitOrder, tested
   * against its definition in EpochPlanTest); the naive serial perceptron over that sequence of
   * rows, doing all the arithmetic itself, ends with the same model, bit for bit.
   */
  @Test
  void rowsInSeveralWindowsAreVisitedWindowByWindowAsThePlanSays() {
    List<TestData.Example> examples = PENDIGITS.subList(0, 2000);
    Dataset<Row> frame = TestData.frameInOrder(SPARK, examples, 1);
    int epochs = 4;
    PerceptronClassifier clf = weightsOnly().setNumWorkers(1).setMaxIter(epochs)
        .setTol(0).setMixing("mistakes").setSeed(5);
    SPARK.sparkContext().setLocalProperty(Settings.TEST_CHUNK_BYTES, SMALL_CHUNKS);
    SPARK.sparkContext().setLocalProperty(Settings.TEST_WINDOW_BYTES, "16384");
    int[] chunkRows;
    long[] chunkBytes;
    PerceptronClassificationModel model;
    VisitOrder visits;
    try {
      TrainingPlan plan = TrainingPlan.forFit(JavaSparkContext.fromSparkContext(
          SPARK.sparkContext()), EngineBridge.config(clf));
      visits = plan.config().visitOrder();
      try (TrainingInput input = TrainingInput.prepare(frame, plan)) {
        WorkerBlocks part = input.blocks.first();
        chunkRows = part.training.chunkRows().clone();
        chunkBytes = part.training.chunkBytes().clone();
      }
      model = clf.fit(frame);
    } finally {
      defaults();
    }
    int[] chunkStart = new int[chunkRows.length + 1];
    for (int c = 0; c < chunkRows.length; c++) {
      chunkStart[c + 1] = chunkStart[c] + chunkRows[c];
    }
    int[] windows = new int[epochs + 1];
    IntFunction<int[]> orders = epoch -> {
      EpochPlan plan = EpochPlan.of(visits, epoch, 0, chunkRows, chunkBytes);
      windows[epoch] = plan.windows();
      int[] sequence = new int[(int) plan.rows()];
      int t = 0;
      for (int k = 0; k < plan.windows(); k++) {
        List<Integer> rows = new ArrayList<>();
        for (int c : plan.chunks(k)) {
          for (int r = chunkStart[c]; r < chunkStart[c + 1]; r++) {
            rows.add(r);
          }
        }
        TrainingBlockBuilder stand = new TrainingBlockBuilder(1);
        for (int i = 0; i < rows.size(); i++) {
          stand.addSparse(0, 1.0, new int[0], new double[0], 0);
        }
        for (int i : plan.order(k, stand.build().features()).rows()) {
          sequence[t++] = rows.get(i);
        }
      }
      return sequence;
    };
    List<double[]> xs = new ArrayList<>();
    List<Integer> labels = new ArrayList<>();
    for (TestData.Example e : examples) {
      xs.add(e.features.toArray());
      labels.add((int) e.label);
    }
    NaivePerceptron naive = NaivePerceptron.perceptron(16, 10, true, 1.0, true);
    naive.foldAverageEachEpoch = true;
    naive.train(xs, labels, epochs, orders);
    for (int e = 1; e <= epochs; e++) {
      assertTrue(windows[e] >= 5, "epoch " + e + ": " + windows[e] + " windows");
    }
    for (int k = 0; k < 10; k++) {
      double[] expected = naive.modelRow(k);
      double[] row = new double[17];
      for (int j = 0; j < 16; j++) {
        row[j] = model.coefficientMatrix().apply(k, j);
      }
      row[16] = model.interceptVector().apply(k);
      assertArrayEquals(expected, row, 0.0, "class " + k);
    }
  }
}
