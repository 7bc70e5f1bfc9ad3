package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.lang.management.ManagementFactory;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * What a partition returns costs O(coordinates its updates touched), not O(K·d): a 100-class
 * model over 2^16 features is 6.5 million weights (52 MB as doubles), and a round over a few
 * hundred sparse rows touches a few thousand of them.
 */
class ExchangeSizeTest {
  private static final int D = 1 << 16;
  private static final int K = 100;

  private static TrainingBlock sparseRows(int rows, int nnz, long seed) {
    Random rnd = new Random(seed);
    TrainingBlockBuilder b = new TrainingBlockBuilder(D);
    int[] idx = new int[nnz];
    double[] val = new double[nnz];
    for (int r = 0; r < rows; r++) {
      int j = rnd.nextInt(D / nnz);
      for (int k = 0; k < nnz; k++) {
        idx[k] = j;
        val[k] = rnd.nextGaussian();
        j += 1 + rnd.nextInt(D / nnz - 1);
      }
      b.addSparse(rnd.nextInt(K), 1.0, idx, val, nnz);
    }
    return b.build();
  }

  /**
   * The round's change of one partition, built as the task builds it: its stored entries are
   * the touched coordinates, its serialized form about 20 bytes per entry, and building it
   * allocates O(touched) bytes once the working arrays exist (the thread's allocation counter).
   */
  @Test
  void aPartitionsChangeCostsWhatItTouched() throws IOException {
    LearnerConfig config = new LearnerConfig(D, K, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    int n = config.stateLength();
    TrainingBlock block = sparseRows(300, 20, 1);
    double[] base = new double[n];
    double[] w = base.clone();
    double[] u = new double[n];
    TouchedSet touched = new TouchedSet(n);
    int[] order = new int[block.numRows()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, block, order, 0, order.length,
        new LinearState(w, u, 0.0), 1.0, stats, null, touched);
    int[] written = touched.drain();
    StateDelta delta = StateDelta.between(written, w, base, u, false);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    // Each update touches two class rows: at most 2·(20 + 1) coordinates.
    assertTrue(written.length <= 42 * stats.updates, written.length + " for " + stats.updates);
    assertTrue(written.length > 0);
    assertEquals(written.length, delta.storedEntries());
    assertTrue(delta.sizeInBytes() <= 20L * written.length, delta.sizeInBytes() + " bytes");
    // Index, δw, δu and the drained indices: ~24 bytes per touched coordinate, plus a little.
    assertTrue(allocated < 64L * written.length + 64 * 1024, allocated + " bytes allocated for "
        + written.length + " touched of " + n);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new WorkerResult(0, stats.updates, delta, new EpochStats[] {stats}));
    }
    assertTrue(bytes.size() < 24L * written.length + 4096, bytes.size() + " serialized bytes for "
        + written.length + " coordinates (the dense state is " + 16L * n + ")");
  }

  /**
   * End to end on Spark: every task of every job of a fit (block building, rounds) returns a
   * result far smaller than the 6.5-million-coordinate state (Spark's own task metrics).
   */
  @Test
  void tasksReturnAndReceiveOnlyWhatChanged() {
    SparkSession spark = SparkTestSupport.spark();
    SyntheticData data = SyntheticData.builder().numFeatures(D).nonZerosPerRow(20)
        .numClasses(K).margin(0.001).labelNoise(0.0).seed(4).build();
    long largest = SparkTestSupport.largestTaskResult(spark,
        () -> new PerceptronClassifier().setMaxIter(3).fit(data.frame(spark, 0, 600, 2)));
    long dense = 16L * K * (D + 1);
    assertTrue(largest > 0);
    assertTrue(largest < dense / 50, "largest task result " + largest + " bytes; the dense state"
        + " is " + dense);
  }

  /**
   * The conversion's tasks send the driver their workers' facts (counts, weights, widths), not
   * the descriptions of their cached chunks, whose feature map holds a number for every feature
   * a worker's rows use: here about 25,000 of 2^16 per worker, some 100 KB each.
   */
  @Test
  void theConversionSendsTheDriverItsFactsNotItsFeatureMaps() {
    SparkSession spark = SparkTestSupport.spark();
    SyntheticData data = SyntheticData.builder().numFeatures(D).nonZerosPerRow(20)
        .numClasses(2).margin(0.001).labelNoise(0.0).seed(5).build();
    TrainingConfig config = TrainingConfig.builder().columns("label", "features", "", "")
        .numWorkers(2).build();
    TrainingInput[] input = new TrainingInput[1];
    long largest = SparkTestSupport.largestTaskResult(spark,
        () -> input[0] = TrainingInput.prepare(data.frame(spark, 0, 3000, 2),
            TrainingPlan.forFit(JavaSparkContext.fromSparkContext(spark.sparkContext()), config,
                2)));
    try {
      int mapped = 0;
      for (WorkerBlocks part : input[0].blocks.collect()) {
        mapped = Math.max(mapped, part.features(D).size());
      }
      assertTrue(mapped > 20_000, "a worker's rows use " + mapped + " features");
      assertTrue(largest > 0 && largest < 16_384, "largest task result " + largest + " bytes;"
          + " a worker's feature map is " + 4L * mapped);
    } finally {
      input[0].close();
    }
  }
}
