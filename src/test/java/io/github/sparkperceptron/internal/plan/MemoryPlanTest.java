package io.github.sparkperceptron.internal.plan;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import org.junit.jupiter.api.Test;

/**
 * The memory estimate made before the first epoch: its arithmetic against hand-counted copies
 * and its line against a measured out-of-memory. The refusals a user meets through {@code fit}
 * are in {@code ml.MemoryRefusalTest}.
 */
class MemoryPlanTest {

  private static LearnerConfig binary(int d, Averaging averaging) {
    return new LearnerConfig(d, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0, averaging);
  }

  private static ClusterMemory local(int cores, long heap) {
    return new ClusterMemory(true, cores, heap, 0, 1, 1L << 30);
  }

  /** The mixing loop's settings: 10 epochs, one round, depth 2, unless said otherwise. */
  private static MixingSettings mixing(String mode, int rounds, boolean validate) {
    MixingMode m = MixingMode.fromParam(mode);
    double momentum = m == MixingMode.MOMENTUM ? 0.5 : 0.0;
    return settings(10, m, 1L, validate, rounds, momentum);
  }

  /** Settings of {@code maxIter} epochs, depth 2, bound ρ = 1, the default exchange. */
  private static MixingSettings settings(int maxIter, MixingMode m, long seed, boolean validate,
      int rounds, double momentum) {
    TrainingConfig config = TrainingConfig.builder()
        .columns("label", "features", "", validate ? "validation" : "")
        .visitOrder(true, ShuffleScope.ROWS, seed).epochs(maxIter, 0.0, 5).mixing(m, rounds, 2)
        .build();
    return new MixingSettings(config, rounds, new double[] {momentum, 1.0},
        StateDelta.DENSE_ABOVE);
  }

  private static MixingSettings mistakes() {
    return mixing("mistakes", 1, false);
  }

  /** 1,000 rows of 30 non-zeros on 2 workers, each with at most 15,000 features. */
  private static final DataFacts WIDE = data(2, 1000, 30_000, 15_000);

  /**
   * W workers, their rows and stored values, m = the largest worker's distinct features (the
   * plan reads nothing else of the data; the classes and norms only bound block momentum).
   */
  private static DataFacts data(int workers, long rows, long values, long features) {
    return DataFacts.builder().rows(workers, rows, values, features).build();
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
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

  /**
   * A round's W changes go to the driver in the round's one stage where they are small together;
   * Spark's tree at the aggregationDepth param (a second stage and a shuffle) only where its rule
   * builds a level and the W changes together exceed ROUND_RESULTS_AT_ONCE_BYTES.
   */
  @Test
  void aRoundsChangesReachTheDriverInOneStageUnlessTogetherTheyAreLarge() {
    // 8 workers: Spark's rule builds a level at depth 2 (scale 3: 8 > 3 + 3).
    assertEquals(2, MemoryPlan.treeAggregatePartials(8, 2));
    MemoryPlan small = new MemoryPlan(binary(1000, Averaging.AVERAGE),
        data(8, 8000, 240_000, 1000), mistakes(), false, local(2, 1L << 30));
    // A worker's change: at most its 1,001 coordinates, dense (δw and δu: 16 bytes each).
    assertEquals(1001 * 16, small.workerDeltaBytes);
    assertEquals(1, small.roundAggregationDepth());

    int d = 1 << 22;
    MemoryPlan large = new MemoryPlan(binary(d, Averaging.AVERAGE),
        data(8, 8_000_000, 240_000_000, d), mistakes(), false, local(2, 64L << 30));
    assertTrue(8 * large.workerDeltaBytes > MemoryPlan.ROUND_RESULTS_AT_ONCE_BYTES,
        large.workerDeltaBytes + " bytes per worker");
    assertEquals(2, large.roundAggregationDepth());
    // 4 workers: no level at depth 2 (scale 2: 4 > 2 + 2 fails), so one stage at any size.
    MemoryPlan four = new MemoryPlan(binary(d, Averaging.AVERAGE),
        data(4, 8_000_000, 240_000_000, d), mistakes(), false, local(2, 64L << 30));
    assertEquals(1, four.roundAggregationDepth());
  }

  /**
   * The case the sparse exchange and the workers' own feature numbers are for: d = 2^24 and
   * 1,000 rows of 30 non-zeros, 2 partitions on local[2]. The first snapshot is all zero (shipped
   * empty) and 10 rounds change far less than a quarter of w, so the driver holds S and small
   * things; the executor side (same JVM) its cached copy and each worker's working copy over its
   * at most 15,000 features: 3 copies of w in all (7 while every task slot held a global copy).
   */
  @Test
  void aWideSparseTrainingHoldsThreeCopiesOfTheWeightsOnLocalTwo() {
    int d = 1 << 24;
    long length = d + 1L;
    long w = 8 * length;
    MemoryPlan plan = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        mistakes(), false, local(2, 1L << 30));
    assertEquals(w, plan.weightBytes);
    assertEquals(2 * w, plan.stateBytes);
    // A partition's round touches at most min(L, min(d, 15,000) + 1, 15,000 + 500) = 15,001
    // coordinates, stored sparse: index, δw, δu = 20 bytes each. Both partitions: 30,001.
    long partitionDelta = 15_001 * 20;
    long mixedDelta = 30_001 * 20;
    assertEquals(partitionDelta, plan.workerDeltaBytes);
    // A worker's copy: w and u over 15,001 coordinates and their TouchedSet.
    long copy = 16 * 15_001 + ceilDiv(15_001, 8);
    assertEquals(copy, plan.workerCopyBytes);
    // The idle copies an executor may keep: what 2 global working copies took.
    assertEquals(2 * (2 * w + ceilDiv(length, 8)), plan.idleCopyBytes);
    long driver = 2 * w // w and u
        + 24 * 300_010 // the change chain: 10 rounds of at most 30,001 changes, index + value,
                       // object + pieces (the snapshot stays the empty zero one)
        + 16 * 30_001 + 2 * ceilDiv(length, 8) // support set, two TouchedSets
        + 2 * partitionDelta + 2 * mixedDelta; // 2 changes waiting, the mix and a blend
    long tasks = w // ExecutorWeights' cached copy
        + 2 * copy // both workers' copies
        + 2 * 2 * partitionDelta // per slot: its change and its serialized form
        + 2 * (12 * 15_000 + 16 * 500); // per slot: its worker's rows, all in one window
    assertEquals(driver + tasks, plan.driverBytes());
    assertEquals(0, plan.executorBytes());
    assertEquals(3, plan.driverBytes() / w, "3 copies of w and less than one more in all");

    MemoryPlan none = new MemoryPlan(binary(d, Averaging.NONE), WIDE,
        mistakes(), false, local(2, 1L << 30));
    assertEquals(2, none.driverBytes() / w, "without averaging: w and the executor's cache");
  }

  /**
   * More workers than task slots: each keeps its copy on the executor while the idle copies stay
   * within what the slots' global copies took. K = 100, d = 2^16, 16 workers of m = 60,000
   * features on local[2]: 16 copies would take 1.5 GB; the plan counts 2 in use and 2 global
   * copies' worth idle. One worker per slot: both copies.
   */
  @Test
  void workerCopiesStayWithinTheSlotsGlobalCopies() {
    int d = 1 << 16;
    LearnerConfig learner = new LearnerConfig(d, 100, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    long length = 100L * (d + 1);
    long copy = 16 * 100 * 60_001L + ceilDiv(100 * 60_001L, 8);
    long global = 16 * length + ceilDiv(length, 8);
    MemoryPlan many = plan(learner, 16, 60_000);
    assertEquals(copy, many.workerCopyBytes);
    assertEquals(2 * global, many.idleCopyBytes);
    // Against the same data with m = 0 (copies of the biases alone), the plan differs by the
    // copies' term.
    long biases = 16 * 100 + ceilDiv(100, 8);
    assertEquals(2 * copy + 2 * global - 16 * biases,
        many.driverBytes() - plan(learner, 16, 0).driverBytes(),
        "16 workers: 2 copies in use and 2 global copies' worth idle, not 16 copies");
    assertEquals(2 * copy - 2 * biases,
        plan(learner, 2, 60_000).driverBytes() - plan(learner, 2, 0).driverBytes(),
        "2 workers: their 2 copies");
  }

  /** 200,000 rows of 30 values on local[2], 10 epochs, with W workers of m features. */
  private static MemoryPlan plan(LearnerConfig learner, int workers, long m) {
    return new MemoryPlan(learner, data(workers, 200_000, 6_000_000, m), mistakes(), false,
        local(2, 64L << 30));
  }

  /**
   * Momentum adds its velocity, the vote one start vector per round, an initial model its
   * coefficients, a full snapshot (2 copies) and a support set of every coordinate, validation
   * the best state and the validated model with its broadcast.
   */
  @Test
  void everyOptionAddsTheCopiesItHolds() {
    int d = 1 << 24;
    long length = d + 1L;
    long w = 8 * length;
    ClusterMemory cluster = local(2, 1L << 30);
    long base = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, mistakes(), false,
        cluster).driverBytes();
    long momentum = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        mixing("momentum", 4, false), false, cluster).driverBytes();
    // + Δ; 40 rounds change at most 40 × (30,001 + 30,001 look-ahead) < L/4 coordinates.
    assertEquals(base + w + 24 * (40 * 60_002L - 300_010), momentum);

    long vote = new MemoryPlan(binary(d, Averaging.VOTE), WIDE,
        mixing("mistakes", 2, false), false, cluster).driverBytes();
    long averageTwoRounds = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        mixing("mistakes", 2, false), false, cluster).driverBytes();
    // The vote keeps u too (for coefficients()); + 20 start vectors and the traces (12 bytes per
    // value + 32 per row, per task slot).
    assertEquals(averageTwoRounds + 20 * w + 2 * (12 * 15_000 + 32 * 500), vote);

    long initial = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, mistakes(),
        true, cluster).driverBytes();
    // + its coefficients, a full snapshot with its pieces and a support set of every coordinate.
    assertEquals(base + w + 2 * w + 16 * (length - 30_001), initial);

    long validated = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        mixing("mistakes", 1, true), false, cluster).driverBytes();
    assertEquals(base + 2 * w + 2 * w, validated);
  }

  /**
   * A partition that touches more than half of the coordinates returns them densely (S), and a
   * training that changes more than a quarter of w re-snapshots it: small d, many values.
   */
  @Test
  void denseChangesCountWholeStates() {
    int d = 999_999;
    long length = d + 1L;
    long w = 8 * length;
    MemoryPlan plan = new MemoryPlan(binary(d, Averaging.AVERAGE),
        data(2, 2_000_000, 100_000_000, 999_999), mistakes(), false, local(2, 8L << 30));
    assertEquals(2 * w, plan.workerDeltaBytes);
    long driver = 2 * w + 2 * w + 24 * (length / 4) + 16 * length + 2 * ceilDiv(length, 8)
        + 2 * 2 * w + 2 * 2 * w;
    // Each worker has every feature: its copy is a global one (S and a TouchedSet); its 632 MB of
    // rows lie in many windows: a task holds one and reads the next ahead.
    long tasks = w + 2 * (2 * w + ceilDiv(length, 8)) + 2 * 2 * 2 * w
        + 2 * 2 * EpochPlan.WINDOW_BYTES;
    assertEquals(driver + tasks, plan.driverBytes());
  }

  @Test
  void executorsAreCheckedAgainstTheirOwnMemoryOnACluster() {
    // Not local: each executor holds the snapshot broadcast (value + pieces) and a quarter-length
    // chain, its cached copy and its workers' copies (4 task slots: up to 4 workers) and, per
    // task slot, its change twice.
    LearnerConfig learner = new LearnerConfig(999_999, 10, true, 1.0, UpdateRule.PERCEPTRON,
        1.0, Averaging.NONE);
    long length = 10 * 1_000_000L;
    long w = 8 * length;
    ClusterMemory cluster = new ClusterMemory(false, 8, 8L << 30, 512L << 20, 4,
        1L << 30);
    // 4 partitions of 1,000 rows × 100 values: a round touches at most 2 × (25,000 + 250)
    // coordinates of a partition (two class rows per update), 12 bytes each; a worker's copy
    // holds 10 × 25,001 weights and their TouchedSet.
    MemoryPlan plan = new MemoryPlan(learner, data(4, 1000, 100_000, 25_000), mistakes(), false,
        cluster);
    long delta = 2 * (25_000 + 250) * 12L;
    assertEquals(delta, plan.workerDeltaBytes);
    long copy = 8 * 250_010 + ceilDiv(250_010, 8);
    long executor = 2 * w + 24 * (length / 4) + w + 4 * copy
        + 4 * 2 * delta + 4 * (12 * 25_000 + 16 * 250);
    assertEquals(executor, plan.executorBytes());

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        plan::requireFits);
    assertTrue(e.getMessage().startsWith("Training needs about " + ceilDiv(executor, 1 << 20)
        + " MiB on each executor, more than the 161 MiB that spark.executor.memory=512m"
        + " leaves"), e.getMessage());
    assertTrue(e.getMessage().contains("K = 10 classes") && e.getMessage().contains(
        "spark.executor.cores") && e.getMessage().contains("fewer classes"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  void aRoundWhoseChangesExceedMaxResultSizeIsRefused() {
    // 4 workers each touching every coordinate of 2^26 + 1: dense changes of w and u, 1 GiB
    // each; Spark would abort the first round at spark.driver.maxResultSize=1g.
    LearnerConfig learner = binary(1 << 26, Averaging.AVERAGE);
    ClusterMemory big = new ClusterMemory(false, 4, 64L << 30, 64L << 30, 1,
        1L << 30);
    long values = 4L << 26;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new MemoryPlan(learner, data(4, 1 << 20, values, 1 << 26), mistakes(), false, big)
            .requireFits());
    assertTrue(e.getMessage().startsWith("Every mixing round can send the driver 4 worker"
        + " changes of up to 1,025 MiB (4,097 MiB), more than spark.driver.maxResultSize=1024m"
        + " allows"), e.getMessage());
    assertTrue(e.getMessage().contains("--conf spark.driver.maxResultSize=9g"), e.getMessage());
    ClusterMemory unlimited = new ClusterMemory(false, 4, 64L << 30, 64L << 30, 1, 0);
    assertDoesNotThrow(() -> new MemoryPlan(learner, data(4, 1 << 20, values, 1 << 26),
        mistakes(), false, unlimited).requireFits());
    // The same model on sparse rows sends little: no refusal.
    assertDoesNotThrow(() -> new MemoryPlan(learner, data(4, 1000, 30_000, 7_500), mistakes(),
        false, big).requireFits());
  }

  /**
   * Measured (BENCHMARKS.md, "Memory model"): submit/train on local[2], 2 partitions of 2,000
   * generated rows × 30 non-zeros, the defaults (averaging, momentum: 2 rounds per epoch), 2
   * epochs, the default 2g driver: d = 2^25 trained and saved its model, and d = 2^26 with
   * spark.perceptron.memoryCheck=warn ran out of memory in its first epoch. The plan must let
   * the first through and refuse the second.
   */
  @Test
  void theLineFallsBetweenWhatTrainedAndWhatRanOutOfMemory() {
    ClusterMemory twoGig = local(2, 2L << 30);
    MixingSettings defaults = settings(2, MixingMode.MOMENTUM, 42L, false, 2, 0.5);
    DataFacts rows = data(2, 2000, 60_000, 30_000);
    assertDoesNotThrow(() -> new MemoryPlan(binary(1 << 25, Averaging.AVERAGE), rows, defaults,
        false, twoGig).requireFits());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new MemoryPlan(binary(1 << 26, Averaging.AVERAGE), rows, defaults, false, twoGig)
            .requireFits());
    String m = e.getMessage();
    assertTrue(m.startsWith("Training needs about 2,084 MiB on the driver, more than the 1,544"
        + " MiB its 2,048 MiB heap leaves after Spark's 300 MiB reserve, the garbage collector's"
        + " tenth: with d = 67,108,864"
        + " features and K = 2 classes, one copy of the weights takes 513 MiB"), m);
    assertTrue(m.contains("the weights and their averaging accumulator (2 copies)"), m);
    assertTrue(m.contains("the block momentum's velocity (1 copy)"), m);
    assertTrue(m.contains("the executor's cached copy of the weights (1 copy)"), m);
    assertTrue(m.contains("--driver-memory or spark.driver.memory"), m);
    assertTrue(m.contains("FeatureHasher or HashingTF"), m);
    assertFalse(m.contains("fewer classes"), "a binary model has no classes to spare: " + m);
    assertFalse(m.contains("\n"));
  }

  /**
   * The barrier stage's extra memory, counted by hand for d = 2^24, 2 partitions of 500 rows
   * (15,000 non-zeros each), momentum with 8 rounds on local[2], averaged: per task one more copy
   * of w and momentum's Δ, and the support (at most the 30,001 coordinates the rows can touch)
   * and the moved coordinates as int arrays, 12 bytes per coordinate (no bit set over all 2^24
   * coordinates); the epoch's 8 mixed changes (30,001 coordinates, 20
   * bytes each), 16 reports of 512 bytes and the audited round's 2 workers' own changes (15,001
   * coordinates each: a stage's first epoch is always audited) reach the driver at once. A heap
   * that holds exactly that allows the barrier stage, one byte less does not; a small
   * maxResultSize forbids it. To report the state it ended with, each task also keeps the
   * averaging accumulator u (one more w per task), the executor caches u's shipped copy (one w)
   * and the driver holds u's snapshot and its pieces (two w): a heap of exactly that allows it,
   * one byte less runs the barrier stage without it.
   */
  @Test
  void theBarrierStageNeedsTwoMoreCopiesPerTaskAndTheEpochsMixes() {
    int d = 1 << 24;
    long length = d + 1L;
    long w = 8 * length;
    MixingSettings momentum = mixing("momentum", 8, false);
    MemoryPlan probe = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum,
        false, local(2, 1L << 40));
    assertEquals(30_001 * 20, probe.mixedDeltaBytes);
    assertEquals(15_001 * 20, probe.workerDeltaBytes);
    long epochResults = 8 * 30_001 * 20 + 2 * 8 * 512 + 2 * 15_001 * 20;
    long perTask = 2 * w + 12 * 30_001;
    long need = probe.driverBytes() + 2 * epochResults + 2 * perTask + epochResults;
    long heap = heapLeaving(need);
    assertEquals(null, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum,
        false, local(2, heap)).barrier().problem());
    String tooSmall = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum,
        false, local(2, heap - 1)).barrier().problem();
    assertTrue(tooSmall != null && tooSmall.contains("on the driver"), String.valueOf(tooSmall));
    assertFalse(new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, heap)).barrier().mayReportEnd());
    long withAverage = need + 2 * w + w + 2 * w;
    assertTrue(new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, heapLeaving(withAverage))).barrier().mayReportEnd());
    assertFalse(new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, heapLeaving(withAverage) - 1)).barrier().mayReportEnd());
    assertTrue(new MemoryPlan(binary(d, Averaging.NONE), WIDE, momentum, false,
        local(2, heapLeaving(need))).barrier().mayReportEnd(), "no averaging: no u to keep");
    String capped = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum,
        false, new ClusterMemory(true, 2, 1L << 40, 0, 1, epochResults - 1))
        .barrier().problem();
    assertTrue(capped != null && capped.contains("spark.driver.maxResultSize"),
        String.valueOf(capped));
  }

  /**
   * A barrier stage runs as many epochs as their reports fit (each epoch's 8 mixed changes, 16
   * reports and, at R / (4·W) = 1, an audited round of 2 workers' changes, counted by hand as
   * in the test above): all 10 epochs on a large heap;
   * ⌊maxResultSize / one epoch's reports⌋ under a small spark.driver.maxResultSize; and on a
   * driver whose room beside the one-epoch stage holds k more epochs' reports three times over
   * (serialised, deserialised, and worker 0's own in local mode), 1 + k; never fewer than one.
   */
  @Test
  void aBarrierStageRunsTheEpochsWhoseReportsFit() {
    int d = 1 << 24;
    MixingSettings momentum = mixing("momentum", 8, false);
    long epochResults = 8 * 30_001 * 20 + 2 * 8 * 512 + 2 * 15_001 * 20;
    assertEquals(10, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, 1L << 40)).barrier().epochsPerStage(StageReport.MIXES));
    assertEquals(3, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, 3 * epochResults + 7))
        .barrier().epochsPerStage(StageReport.MIXES));
    MemoryPlan probe = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, 1L << 40));
    long w = 8 * (d + 1L);
    long oneEpochStage = probe.driverBytes() + 3 * epochResults + 2 * (2 * w + 12 * 30_001);
    long heap = heapLeaving(oneEpochStage + 4 * 3 * epochResults);
    assertEquals(5, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, heap)).barrier().epochsPerStage(StageReport.MIXES));
    assertEquals(1, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, heapLeaving(oneEpochStage))).barrier().epochsPerStage(StageReport.MIXES));
  }

  /**
   * With block momentum a stage reports its end state whatever its mixes, so its results are
   * one state (30,001 support coordinates of 28 bytes: index, w, u and Δ), the rounds' small
   * reports (2 workers, 8 rounds, 512 bytes each per epoch) and one audited round (2 changes of
   * 15,001 coordinates and the mix of 30,001, 20 bytes each), counted by hand: all 10 epochs on
   * a large heap where the mixes allow 3; under a maxResultSize of exactly 3 epochs' results 3,
   * one byte less 2. It is chosen where that state fits ({@code barrier().stageReport()}): with 2
   * rounds, a maxResultSize between one epoch's mixes (2 mixes, 4 reports, the audited round:
   * 1,802,128 bytes) and the end state's results (2,042,136) reports the smaller; without
   * momentum always the smaller; without room for u's copies the mixes.
   */
  @Test
  void aStageThatReportsItsEndHoldsOneStateWhateverItsEpochs() {
    int d = 1 << 24;
    MixingSettings momentum = mixing("momentum", 8, false);
    long end = 30_001 * 28 + 2 * 15_001 * 20 + 30_001 * 20;
    long reports = 2 * 8 * 512;
    MemoryPlan large = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, 1L << 40));
    assertEquals(StageReport.END, large.barrier().stageReport());
    assertEquals(10, large.barrier().epochsPerStage(StageReport.END));
    long mixesPerEpoch = 8 * 30_001 * 20 + reports;
    long audited = 2 * 15_001 * 20;
    // 8 rounds over 2 workers audit every epoch of a stage that reports its mixes.
    MemoryPlan capped = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, 3 * (mixesPerEpoch + audited)));
    assertEquals(3, capped.barrier().epochsPerStage(StageReport.MIXES));
    assertEquals(10, capped.barrier().epochsPerStage(StageReport.END));
    assertEquals(3, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, end + 3 * reports))
        .barrier().epochsPerStage(StageReport.END));
    assertEquals(2, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, end + 3 * reports - 1))
        .barrier().epochsPerStage(StageReport.END));

    MixingSettings twoRounds = mixing("momentum", 2, false);
    long endTwo = 30_001 * 28 + 2 * 15_001 * 20 + 30_001 * 20 + 2 * 2 * 512;
    long mixesTwo = 2 * 30_001 * 20 + 2 * 2 * 512 + 2 * 15_001 * 20;
    assertEquals(2_042_136, endTwo);
    assertEquals(1_802_128, mixesTwo);
    assertEquals(StageReport.END, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, twoRounds,
        false, new ClusterMemory(true, 2, 1L << 40, 0, 1, endTwo)).barrier().stageReport());
    assertEquals(StageReport.SMALLER, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        twoRounds, false, new ClusterMemory(true, 2, 1L << 40, 0, 1, endTwo - 1))
        .barrier().stageReport());
    assertEquals(StageReport.SMALLER, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        mixing("mistakes", 8, false), false, local(2, 1L << 40)).barrier().stageReport());
    MemoryPlan probe = new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, 1L << 40));
    long w = 8 * (d + 1L);
    long epochResults = mixesPerEpoch + audited;
    long need = probe.driverBytes() + 2 * epochResults + 2 * (2 * w + 12 * 30_001)
        + epochResults;
    assertEquals(StageReport.MIXES, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE,
        momentum, false, local(2, heapLeaving(need))).barrier().stageReport());
  }

  /**
   * The audit sends every worker's own change in only some of a stage's epochs: with 2 rounds
   * over 2 workers, ⌈E·2 / (4·2)⌉ of E epochs, so 8 epochs hold 8 epochs' reports (2 mixed
   * changes of 30,001 coordinates and 4 reports of 512 bytes each) and 2 audited rounds (2
   * changes of 15,001 coordinates each). A maxResultSize of exactly that allows 8 epochs, one
   * byte less 7, whose 2 audited rounds leave a whole epoch's reports of room.
   */
  @Test
  void aStagesResultsCountItsAuditedEpochsNotEveryEpoch() {
    int d = 1 << 24;
    MixingSettings momentum = mixing("momentum", 2, false);
    long perEpoch = 2 * 30_001 * 20 + 2 * 2 * 512;
    long audited = 2 * (2 * 15_001 * 20);
    assertEquals(2, BarrierPlan.auditedEpochs(8, 2, 2));
    assertEquals(2, BarrierPlan.auditedEpochs(7, 2, 2));
    assertEquals(8, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, 8 * perEpoch + audited))
        .barrier().epochsPerStage(StageReport.MIXES));
    assertEquals(7, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, 8 * perEpoch + audited - 1))
        .barrier().epochsPerStage(StageReport.MIXES));
  }

  /**
   * A voted stage returns every epoch's vote traces too: at worst each worker's 500 rows are all
   * mistakes, 12 bytes per stored value (15,000) and 32 per row, 196,000 bytes per worker and
   * epoch. A maxResultSize of exactly three epochs' results (mixes, reports, both workers'
   * traces, and with 8 rounds over 2 workers an audited round every epoch) allows 3 epochs.
   */
  @Test
  void aVotedStagesResultsCountTheWorkersTraces() {
    int d = 1 << 24;
    MixingSettings momentum = mixing("momentum", 8, false);
    MemoryPlan probe = new MemoryPlan(binary(d, Averaging.VOTE), WIDE, momentum, false,
        local(2, 1L << 40));
    assertEquals(12 * 15_000 + 32 * 500, probe.voteTraceBytes);
    long perEpoch = 8 * probe.mixedDeltaBytes + 2 * 8 * 512 + 2 * probe.voteTraceBytes
        + 2 * probe.workerDeltaBytes;
    assertEquals(3, new MemoryPlan(binary(d, Averaging.VOTE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, 3 * perEpoch))
        .barrier().epochsPerStage(StageReport.MIXES));
    assertEquals(2, new MemoryPlan(binary(d, Averaging.VOTE), WIDE, momentum, false,
        new ClusterMemory(true, 2, 1L << 40, 0, 1, 3 * perEpoch - 1))
        .barrier().epochsPerStage(StageReport.MIXES));
    assertEquals(0, new MemoryPlan(binary(d, Averaging.AVERAGE), WIDE, momentum, false,
        local(2, 1L << 40)).voteTraceBytes);
  }

  /**
   * Cached data take their bytes from the budget: beside 1 GiB of chunks in storage memory a 2g
   * driver has 1,544 − 1,024 MiB for the arrays, and the plan says how much of the cache must go
   * to disk (all the room the arrays leave), nothing when the arrays fit beside it, and −1 when
   * they exceed the heap alone; a refusal names the cached data.
   */
  @Test
  void cachedDataTakeTheirBytesFromTheBudget() {
    ClusterMemory twoGig = local(2, 2L << 30);
    long gib = 1L << 30;
    MixingSettings defaults = settings(2, MixingMode.MOMENTUM, 42L, false, 2, 0.5);
    DataFacts rows = data(2, 2000, 60_000, 30_000);
    MemoryPlan small = new MemoryPlan(binary(1 << 20, Averaging.AVERAGE), rows, defaults, false,
        twoGig.withCached(gib, 0));
    assertEquals(MemoryPlan.budget(2L << 30) - gib, twoGig.withCached(gib, 0).driverBudget());
    assertEquals(Long.MAX_VALUE, small.storageCap());
    MemoryPlan large = new MemoryPlan(binary(1 << 25, Averaging.AVERAGE), rows, defaults, false,
        twoGig.withCached(gib, 0));
    assertEquals(MemoryPlan.budget(2L << 30) - large.driverBytes(), large.storageCap());
    assertTrue(large.storageCap() > 0 && large.storageCap() < gib);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        large::requireFits);
    assertTrue(e.getMessage().contains("and the 1,024 MiB of cached data in Spark's storage"
        + " memory"), e.getMessage());
    MemoryPlan huge = new MemoryPlan(binary(1 << 26, Averaging.AVERAGE), rows, defaults, false,
        twoGig.withCached(gib, 0));
    assertEquals(-1, huge.storageCap());
  }

  /** The smallest heap whose budget is {@code bytes}: less Spark's reserve and a tenth. */
  private static long heapLeaving(long bytes) {
    long heap = (bytes + MemoryPlan.SPARK_RESERVED_BYTES) * 10 / 9;
    while (MemoryPlan.budget(heap) < bytes) {
      heap++;
    }
    while (MemoryPlan.budget(heap - 1) >= bytes) {
      heap--;
    }
    return heap;
  }

  /** 2 GiB leave 2,048 − 300 − 204.8 MiB: Spark's reserve and the collector's tenth. */
  @Test
  void aBudgetLeavesSparksReserveAndATenthForTheCollector() {
    assertEquals((2048L << 20) - (300L << 20) - (2048L << 20) / 10,
        MemoryPlan.budget(2048L << 20));
  }
}
