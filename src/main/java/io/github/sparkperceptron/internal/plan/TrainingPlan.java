package io.github.sparkperceptron.internal.plan;

import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.plan.RoundExecution.Mode;
import java.util.Locale;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * How one training runs on the cluster, decided in one place, once per {@code fit} and once per
 * stream micro-batch: the workers, how the input reaches them, how the mixing rounds run, and
 * whether the memory suffices. The blocks ({@code internal.blocks}) and the rounds
 * ({@code internal.rounds}) read it; neither asks the other or the scheduler.
 *
 * <pre>
 * before the rows are read ({@link #forFit}, {@link #forStreamBatch}):
 *   W              the numWorkers param, or the cluster's task slots when it is 0
 *   round keys     spark.perceptron.roundExecution and the barrier's keys ({@link RoundExecution})
 *   barrier?       whether the rounds may run in barrier stages: not with roundExecution=jobs,
 *                  one-shot mixing, a stream's batch, one round per epoch at any row count in
 *                  auto mode, dynamic allocation or fewer task slots than W
 *                  ({@link #clusterProblem}); so whether the layout gathers groups of input
 *                  partitions through a shuffle where it would otherwise coalesce them, which
 *                  Spark refuses under a barrier stage ({@link #gathersForBarrier})
 * once the rows are read ({@link #withData}):
 *   settings       the mixing rounds, block momentum and its bound ({@link MixingSettings})
 *   memory         the memory plan of the driver and the executors ({@link MemoryPlan})
 *   barrier.       the final word ({@link #barrierProblem}): the rounds per epoch, the memory the
 *                  barrier stage adds and the blocks' RDD chain
 * </pre>
 *
 * <p>Nothing here changes a model: the plan decides where and how fast the same arithmetic runs
 * (a "yes" to barrier stages that the final word turns down costs the layout's shuffle, never
 * different bits).
 */
public final class TrainingPlan {
  private final JavaSparkContext jsc;
  private final TrainingConfig config;
  private final RoundExecution execution;
  private final int numWorkers;
  /** The cluster's task slots when the plan was made ({@code defaultParallelism}). */
  private final int slots;
  /** Why the rounds cannot run in barrier stages, known before the rows; null when they may. */
  private final String barrierRefusal;
  /** The data's facts, the learner and what they decide; null before {@link #withData}. */
  private final WithData resolved;

  /** What the rows decide: the mixing settings and the memory plan of the learner on them. */
  private static final class WithData {
    final DataFacts data;
    final LearnerConfig learner;
    final MixingSettings settings;
    final MemoryPlan memory;

    WithData(DataFacts data, LearnerConfig learner, MixingSettings settings, MemoryPlan memory) {
      this.data = data;
      this.learner = learner;
      this.settings = settings;
      this.memory = memory;
    }
  }

  private TrainingPlan(JavaSparkContext jsc, TrainingConfig config, RoundExecution execution,
      int slots, String barrierRefusal, WithData resolved) {
    this.jsc = jsc;
    this.config = config;
    this.execution = execution;
    this.slots = slots;
    this.numWorkers = workers(config.numWorkers, slots);
    this.barrierRefusal = barrierRefusal;
    this.resolved = resolved;
  }

  /**
   * The plan of fitting with {@code config} on a cluster of {@code slots} task slots
   * ({@code SparkContext.defaultParallelism}, which an automatic {@code numWorkers} takes).
   *
   * @throws IllegalArgumentException naming the key and the value, for a bad round setting
   */
  public static TrainingPlan forFit(JavaSparkContext jsc, TrainingConfig requested, int slots) {
    TrainingConfig config = requested.withTestSizes(jsc);
    RoundExecution execution = RoundExecution.read(jsc);
    return new TrainingPlan(jsc, config, execution, slots,
        barrierRefusal(jsc, config, execution, workers(config.numWorkers, slots)), null);
  }

  /** {@link #forFit} on the cluster's task slots now. */
  public static TrainingPlan forFit(JavaSparkContext jsc, TrainingConfig config) {
    return forFit(jsc, config, jsc.sc().defaultParallelism());
  }

  /**
   * The plan of one micro-batch of a stream with the batch's {@code config}: laid out over W
   * workers as {@code fit} lays out a dataset, its rounds one Spark job each (a batch already
   * takes a job to convert and score, and its split layout, dealt without a shuffle, is a
   * coalesce, which Spark refuses under a barrier stage).
   */
  public static TrainingPlan forStreamBatch(JavaSparkContext jsc, TrainingConfig requested) {
    TrainingConfig config = requested.withTestSizes(jsc);
    return new TrainingPlan(jsc, config, RoundExecution.read(jsc),
        jsc.sc().defaultParallelism(), "a stream's micro-batch runs its rounds as one Spark job"
            + " each", null);
  }

  /** The workers of a {@code numWorkers} param on {@code slots} task slots (0: automatic). */
  public static int workers(int numWorkersParam, int slots) {
    return numWorkersParam > 0 ? numWorkersParam : Math.max(1, slots);
  }

  /**
   * This plan once the rows are read: the mixing settings and the memory plan of training
   * {@code data} with {@code learner}, each resolved once.
   */
  public TrainingPlan withData(DataFacts data, LearnerConfig learner) {
    if (data.numWorkers != numWorkers) {
      throw new IllegalStateException("data laid out over " + data.numWorkers + " workers for a"
          + " plan of " + numWorkers);
    }
    MixingSettings resolved = MixingSettings.resolve(config, data, learner, jsc);
    MemoryPlan plan = new MemoryPlan(learner, data, resolved, config.hasInitialModel(),
        ClusterMemory.of(jsc.sc()));
    return new TrainingPlan(jsc, config, execution, slots, barrierRefusal,
        new WithData(data, learner, resolved, plan));
  }

  /**
   * This plan with its memory measured again against the cluster as it is now (what Spark's
   * storage memory holds, after chunks were moved to disk): the settings stay as resolved.
   */
  public TrainingPlan remeasured() {
    WithData was = withData();
    MemoryPlan plan = new MemoryPlan(was.learner, was.data, was.settings,
        config.hasInitialModel(), ClusterMemory.of(jsc.sc()));
    return new TrainingPlan(jsc, config, execution, slots, barrierRefusal,
        new WithData(was.data, was.learner, was.settings, plan));
  }

  /**
   * This plan, before the rows are read, for a training that writes no checkpoints (the fold
   * models of cross-fitted calibration, trained on the rows of the same conversion).
   */
  public TrainingPlan withoutCheckpoints() {
    return new TrainingPlan(jsc, config.withoutCheckpoints(), execution, slots, barrierRefusal,
        null);
  }

  public TrainingConfig config() {
    return config;
  }

  public JavaSparkContext sparkContext() {
    return jsc;
  }

  public int numWorkers() {
    return numWorkers;
  }

  /** The cluster's task slots when the plan was made ({@code SparkContext.defaultParallelism}). */
  public int slots() {
    return slots;
  }

  /** The round keys as read when the plan was made. */
  public RoundExecution execution() {
    return execution;
  }

  /**
   * Whether the input's layout gathers groups of input partitions through a shuffle where a
   * coalesce would do (or where its own chain changes the number of partitions), so that the
   * rounds can run in barrier stages over the blocks: Spark refuses a barrier stage over such a
   * chain.
   */
  public boolean gathersForBarrier() {
    return barrierRefusal == null;
  }

  /** The mixing settings resolved for the data ({@link #withData}). */
  public MixingSettings settings() {
    return withData().settings;
  }

  /** The memory plan of the data ({@link #withData}). */
  public MemoryPlan memory() {
    return withData().memory;
  }

  /** The learner of the data ({@link #withData}). */
  public LearnerConfig learner() {
    return withData().learner;
  }

  public DataFacts data() {
    return withData().data;
  }

  /**
   * Why the rounds of this training cannot run in barrier stages, or null when they can: the
   * reasons known before the rows, then one round per epoch (auto mode: a job per round costs
   * the same), the extra memory of the barrier tasks and, from the blocks,
   * {@code chainProblem}: why Spark would refuse a barrier stage over their RDD chain (null
   * when it would not).
   */
  public String barrierProblem(String chainProblem) {
    WithData resolved = withData();
    if (barrierRefusal != null) {
      return barrierRefusal;
    }
    String cluster = clusterProblem(jsc, numWorkers);
    if (cluster != null) {
      return cluster;
    }
    if (execution.mode == Mode.AUTO && resolved.settings.rounds == 1) {
      return "one mixing round per epoch is one Spark job either way";
    }
    String memoryProblem = resolved.memory.barrier().problem();
    if (memoryProblem != null) {
      return memoryProblem;
    }
    if (chainProblem != null) {
      return "Spark runs a barrier stage only over RDDs with as many partitions as tasks, and "
          + chainProblem + " (a coalesce, union or partition pruning before the training"
          + " partitions; " + Settings.ROUND_EXECUTION + " must be auto or barrier when fit"
          + " starts, so that the workers are laid out through a shuffle instead)";
    }
    return null;
  }

  private WithData withData() {
    if (resolved == null) {
      throw new IllegalStateException("the plan knows the data only after withData");
    }
    return resolved;
  }

  /**
   * Why the rounds may not run in barrier stages, judged before the input is laid out: without
   * the rows, so with the automatic rounds at their most and without the memory check.
   */
  private static String barrierRefusal(JavaSparkContext jsc, TrainingConfig config,
      RoundExecution execution, int workers) {
    if (execution.mode == Mode.JOBS) {
      return Settings.ROUND_EXECUTION + "=jobs";
    }
    String security = execution.closedBySecurity();
    if (security != null) {
      return security;
    }
    if (config.mixing == MixingMode.ONESHOT) {
      return "mixing=oneshot trains in one Spark job";
    }
    if (execution.mode == Mode.AUTO
        && MixingSettings.rounds(config, workers, Long.MAX_VALUE) == 1) {
      return "one mixing round per epoch is one Spark job either way";
    }
    return clusterProblem(jsc, workers);
  }

  /**
   * Why this cluster cannot run a barrier stage of {@code workers} tasks now, or null: dynamic
   * allocation, or fewer task slots than workers (Spark's own count, which its check uses).
   * Asked again before every epoch's stage: a lost executor leaves fewer slots until its
   * replacement registers.
   */
  public static String clusterProblem(JavaSparkContext jsc, int workers) {
    SparkConf conf = jsc.getConf();
    if (conf.getBoolean("spark.dynamicAllocation.enabled", false)
        && (!jsc.isLocal() || conf.getBoolean("spark.dynamicAllocation.testing", false))) {
      return "Spark refuses barrier stages under dynamic allocation"
          + " (spark.dynamicAllocation.enabled=true)";
    }
    int slots = jsc.sc().maxNumConcurrentTasks(
        jsc.sc().resourceProfileManager().defaultResourceProfile());
    if (workers > slots) {
      return String.format(Locale.ROOT, "a barrier stage runs all %d workers at once, but the"
          + " cluster has %d task slots (numWorkers=0 chooses the slots)", workers, slots);
    }
    return null;
  }
}
