package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.io.LibSvmSource;
import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.UpdateRule;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory estimate made before the first epoch: its arithmetic against hand-counted copies,
 * its line against a measured out-of-memory, and the refusals a user meets (a wide LIBSVM file, an
 * initial model of that size), which must come before anything of the model's size is allocated.
 */
class MemoryPlanTest {
  @TempDir
  Path tmp;

  private static LearnerConfig binary(int d, Averaging averaging) {
    return new LearnerConfig(d, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0, averaging);
  }

  private static MemoryPlan.Cluster local(int cores, long heap) {
    return new MemoryPlan.Cluster(true, cores, heap, 0, 1, 1L << 30);
  }

  @Test
  void treeAggregateSendsTheDriverWhatSparksRuleSays() {
    // RDD.treeAggregate: scale = max(ceil(P^(1/depth)), 2); levels while P > scale + ceil(P/scale).
    assertEquals(2, MemoryPlan.treeAggregatePartials(2, 2));
    assertEquals(2, MemoryPlan.treeAggregatePartials(6, 2)); // scale 3: 6 > 3 + 2 -> 2
    assertEquals(4, MemoryPlan.treeAggregatePartials(4, 2)); // scale 2: 4 > 2 + 2 no
    assertEquals(4, MemoryPlan.treeAggregatePartials(16, 2)); // scale 4: 16 > 8 -> 4; 4 > 5 no
    assertEquals(44, MemoryPlan.treeAggregatePartials(2000, 2)); // scale 45: 2000 > 90 -> 44
    assertEquals(2000, MemoryPlan.treeAggregatePartials(2000, 1)); // scale 2000: no level
  }

  @Test
  void localModeCountsEightStateCopiesOnTwoCoresAndTwoPartitions() {
    // Averaging: state = w + u = 2 · 8 · (d + 1) bytes. Driver: the mixed state, its broadcast
    // pieces, 2 results being mixed; tasks (same JVM): 2 × (private copy + serialized result).
    LearnerConfig learner = binary(4_000_000, Averaging.AVERAGE);
    MemoryPlan plan = new MemoryPlan(learner, 2, 0, 0, false, 2, false, local(2, 1L << 30));
    long state = 2L * 8 * 4_000_001;
    assertEquals(state, plan.stateBytes);
    assertEquals(8 * state, plan.driverBytes());
    assertEquals(0, plan.executorBytes());

    MemoryPlan validated = new MemoryPlan(learner, 2, 0, 0, true, 2, true, local(2, 1L << 30));
    assertEquals(9 * state + state / 2, validated.driverBytes(), "+ best state, + initial w");

    MemoryPlan none = new MemoryPlan(binary(4_000_000, Averaging.NONE), 2, 0, 0, false, 2,
        false, local(2, 1L << 30));
    assertEquals(8 * state / 2, none.driverBytes(), "without averaging the state is w alone");
  }

  @Test
  void theLineFallsBetweenWhatTrainedAndWhatRanOutOfMemory() {
    // Measured with submit/train, --partitions 2, local[2], averaging=average, -Xmx1g:
    // d = 4,000,000 trained; d = 6,000,000 died of an OutOfMemoryError in its first epoch.
    MemoryPlan.Cluster oneGig = local(2, 1L << 30);
    assertDoesNotThrow(() -> new MemoryPlan(binary(4_000_000, Averaging.AVERAGE), 2, 4, 8,
        false, 2, false, oneGig).requireFits());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new MemoryPlan(binary(6_000_000, Averaging.AVERAGE), 2, 4, 8, false, 2, false,
            oneGig).requireFits());
    String m = e.getMessage();
    assertTrue(m.startsWith("Training needs about 733 MiB on the driver, more than the 724 MiB"
        + " its 1,024 MiB heap leaves after Spark's 300 MiB reserve: with d = 6,000,000 features"
        + " and K = 2 classes, one copy of the weights and their averaging accumulator takes"
        + " 92 MiB"), m);
    assertTrue(m.contains("the mixed state (1 copy), its broadcast (1 copy), 2 partition results"
        + " being mixed (2 copies) and a private copy and a serialized result for each of 2"
        + " running tasks (4 copies)"), m);
    assertTrue(m.contains("--driver-memory or spark.driver.memory"), m);
    assertTrue(m.contains("FeatureHasher or HashingTF"), m);
    assertFalse(m.contains("fewer classes"), "a binary model has no classes to spare: " + m);
    assertFalse(m.contains("\n"));
  }

  @Test
  void executorsAreCheckedAgainstTheirOwnMemoryOnACluster() {
    // Not local: the driver holds the mixed state, its pieces and the results; each executor
    // the broadcast (deserialized + pieces) and, per running task, a copy and a result.
    LearnerConfig learner = new LearnerConfig(999_999, 10, true, 1.0, UpdateRule.PERCEPTRON,
        1.0, Averaging.NONE);
    long state = 8L * 10 * 1_000_000;
    MemoryPlan.Cluster cluster = new MemoryPlan.Cluster(false, 8, 8L << 30, 1L << 30, 4,
        1L << 30);
    MemoryPlan plan = new MemoryPlan(learner, 4, 0, 0, false, 2, false, cluster);
    assertEquals((2 + 4) * state, plan.driverBytes());
    assertEquals((2 + 4 * 2) * state, plan.executorBytes());

    // 8 partitions make treeAggregate add a level (scale 3: 8 > 3 + 3), whose tasks group
    // partitions i, i+2, i+4, ...: no two are siblings, so every result reaches the driver, and
    // the level's tasks hold 4 each.
    MemoryPlan eight = new MemoryPlan(learner, 8, 0, 0, false, 2, false, cluster);
    assertEquals((2 + 8) * state, eight.driverBytes());
    assertEquals((2 + 4 * 2 + 4) * state, eight.executorBytes());

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        plan::requireFits);
    assertTrue(e.getMessage().startsWith("Training needs about 763 MiB on each executor, more"
        + " than the 724 MiB that spark.executor.memory=1024m leaves"), e.getMessage());
    assertTrue(e.getMessage().contains("K = 10 classes") && e.getMessage().contains(
        "spark.executor.cores") && e.getMessage().contains("fewer classes"), e.getMessage());
  }

  @Test
  void anEpochWhoseResultsExceedMaxResultSizeIsRefused() {
    // 4 partitions x (w + u of 2^26 + 1 doubles) = 4 GiB of task results per epoch: Spark would
    // abort the first epoch at spark.driver.maxResultSize=1g, however large the heaps.
    LearnerConfig learner = binary(1 << 26, Averaging.AVERAGE);
    MemoryPlan.Cluster big = new MemoryPlan.Cluster(false, 4, 64L << 30, 64L << 30, 1,
        1L << 30);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new MemoryPlan(learner, 4, 0, 0, false, 2, false, big).requireFits());
    assertTrue(e.getMessage().startsWith("Every epoch sends the driver 4 partition results of"
        + " 1,025 MiB (4,097 MiB), more than spark.driver.maxResultSize=1024m allows"),
        e.getMessage());
    assertTrue(e.getMessage().contains("--conf spark.driver.maxResultSize=9g"), e.getMessage());
    MemoryPlan.Cluster unlimited = new MemoryPlan.Cluster(false, 4, 64L << 30, 64L << 30, 1, 0);
    assertDoesNotThrow(() -> new MemoryPlan(learner, 4, 0, 0, false, 2, false, unlimited)
        .requireFits());
  }

  @Test
  void aWideLibSvmFileIsRefusedBeforeTheFirstEpoch() throws Exception {
    // The file: two lines, one index of 300,000,000. A zero state alone is 4.8 GB here.
    SparkSession spark = SparkTestSupport.spark();
    Path file = tmp.resolve("wide.libsvm");
    Files.writeString(file, "1 300000000:1\n0 1:1\n");
    Dataset<Row> frame = LibSvmSource.read(spark, file.toString(), -1, "data").frame();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().fit(frame));
    String m = e.getMessage();
    assertTrue(m.startsWith("Training needs about "), m);
    assertTrue(m.contains("MiB on the driver"), m);
    assertTrue(m.contains("with d = 300,000,000 features and K = 2 classes, one copy of the"
        + " weights and their averaging accumulator takes 4,578 MiB"), m);
    assertTrue(m.contains("--driver-memory"), m);
  }

  @Test
  void anInitialModelOfThatSizeIsRefusedBeforeItIsCopied() {
    // 40 million features: the model itself (320 MB) fits this JVM, its training does not:
    // the check must come before the zero state and the copy of the initial weights.
    int d = 40_000_000;
    SparkSession spark = SparkTestSupport.spark();
    PerceptronClassificationModel initial = new PerceptronClassificationModel("initial", 2, d,
        new double[d], new double[1], null);
    List<TestData.Example> rows = List.of(
        new TestData.Example(1.0, Vectors.sparse(d, new int[] {d - 1}, new double[] {1.0})),
        new TestData.Example(0.0, Vectors.sparse(d, new int[] {0}, new double[] {1.0})));
    Dataset<Row> frame = TestData.frameInOrder(spark, rows, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setInitialModel(initial).fit(frame));
    String m = e.getMessage();
    assertTrue(m.contains("with d = 40,000,000 features and K = 2 classes"), m);
    assertTrue(m.contains("the initial model's weights (306 MiB)"), m);
    assertTrue(m.contains("--driver-memory"), m);
  }
}
