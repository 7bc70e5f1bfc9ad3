package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;

/**
 * The memory a training needs on the driver and on each executor, estimated before the first
 * epoch from the model's size, the partitions and the cluster, and the refusal of a training that
 * cannot fit: a one-line message naming d, K, the bytes and the fixes, where the training would
 * otherwise die of an {@code OutOfMemoryError} (a two-line LIBSVM file with index 300,000,000
 * asks for a 2.4 GB weight vector before the first epoch).
 *
 * <p>The unit is one copy of the <em>state</em> the epochs exchange: w, K'·(d+1) doubles, plus the
 * averaging accumulator u of the same size when {@code averaging=average}. The counts below are
 * the copies the code holds at the peak of an epoch, read from {@code IterativeParameterMixing},
 * {@code PartitionResult}, {@code ParameterMix} and Spark's {@code TorrentBroadcast},
 * {@code treeAggregate} and task results. <b>Change them here when the exchange changes</b> (sparse
 * deltas, one shared copy per executor): every check reads them from this class.
 *
 * <pre>
 * driver   DRIVER_MIXED_STATE       1  progress.state, the state the epoch starts from (the
 *                                      broadcast's value is this object, not a copy)
 *          DRIVER_BROADCAST_PIECES  1  TorrentBroadcast's serialized pieces of it, kept in the
 *                                      driver's block manager until destroy()
 *          DRIVER_BEST_STATE        1  with validation: progress.best
 *          results held             r  partition results deserialized and not yet mixed:
 *                                      ParameterMix keeps a result until its sibling arrives;
 *                                      r = min(P, tasks running at once), or P when treeAggregate
 *                                      adds a level (it groups partitions i, i+n, i+2n, ... that
 *                                      are never siblings, so every result reaches the driver)
 * executor EXECUTOR_BROADCAST       2  the broadcast deserialized once per executor, and its
 *                                      pieces, kept for other executors to fetch (0 in local
 *                                      mode: tasks there share the driver's object)
 *          per running task         TASK_STATE (its private copy, which becomes its
 *                                      PartitionResult) + TASK_RESULT (that result serialized for
 *                                      the driver, kept until fetched), its partition's block
 *                                      (12 bytes per stored value + 16 per row) and, when
 *                                      voting, its vote trace (12 per stored value + 32 per row)
 *          tree level               ⌈P/r⌉ results, in the task that combines them, when
 *                                      treeAggregate adds a level
 * </pre>
 * In local mode the driver is the executor: its estimate is the sum, with T = min(P, cores)
 * tasks. The training data's cached blocks are not counted: they are cached MEMORY_AND_DISK and
 * spill to disk. An initial model ({@code setInitialModel}) adds its coefficients (one copy of w)
 * for the whole training. The vote's own worst case (every example a mistake every epoch) is
 * checked apart, against half the driver's heap, as before ({@link #requireVoteFits}).
 *
 * <p>The budget of a JVM is its maximum heap less Spark's 300 MiB reserve; Spark's storage and
 * execution regions share the rest with these arrays, but what they hold can spill. Calibration
 * (local[2], 2 partitions, averaging, -Xmx1g, load ~17 on 2 cores): d = 4,000,000 trained, and
 * d = 6,000,000 died of an OutOfMemoryError in its first epoch; the plan puts the limit at
 * 5.6 million.
 *
 * <p>Spark also caps the serialized task results of one job ({@code spark.driver.maxResultSize},
 * 1g by default): an epoch sends P states to the driver, and a training whose epoch would exceed
 * the cap is refused too, since Spark would abort its first epoch.
 */
final class MemoryPlan {
  /** Spark's reserved system memory (UnifiedMemoryManager's RESERVED_SYSTEM_MEMORY_BYTES). */
  static final long SPARK_RESERVED_BYTES = 300L << 20;

  static final int DRIVER_MIXED_STATE = 1;
  static final int DRIVER_BROADCAST_PIECES = 1;
  static final int DRIVER_BEST_STATE = 1;
  static final int EXECUTOR_BROADCAST = 2;
  static final int TASK_STATE = 1;
  static final int TASK_RESULT = 1;

  /** Bytes a cached block takes per stored value (CSR: int index + double value). */
  static final long BLOCK_BYTES_PER_VALUE = 12;
  /** Bytes a cached block takes per row (row start, label, weight). */
  static final long BLOCK_BYTES_PER_ROW = 16;
  /** Bytes a vote trace takes per stored value and per update (VoteTrace). */
  static final long TRACE_BYTES_PER_VALUE = 12;
  static final long TRACE_BYTES_PER_UPDATE = 32;

  private static final long MIB = 1L << 20;

  /** What Spark tells about where the training runs. */
  static final class Cluster {
    final boolean local;
    /** Tasks that run at once in the whole application (local mode: the local master's cores). */
    final int cores;
    final long driverHeap;
    final long executorHeap;
    /** Tasks that run at once on one executor (spark.executor.cores / spark.task.cpus, or 1). */
    final int tasksPerExecutor;
    /** spark.driver.maxResultSize in bytes, 0 for none. */
    final long maxResultSize;

    Cluster(boolean local, int cores, long driverHeap, long executorHeap,
        int tasksPerExecutor, long maxResultSize) {
      this.local = local;
      this.cores = cores;
      this.driverHeap = driverHeap;
      this.executorHeap = executorHeap;
      this.tasksPerExecutor = tasksPerExecutor;
      this.maxResultSize = maxResultSize;
    }

    static Cluster of(SparkContext sc) {
      SparkConf conf = sc.getConf();
      int taskCpus = Math.max(1, conf.getInt("spark.task.cpus", 1));
      int executorCores = conf.getInt("spark.executor.cores", -1);
      int taskSlots = Math.max(1, (sc.isLocal() ? localCores(sc.master())
          : sc.defaultParallelism()) / (sc.isLocal() ? 1 : taskCpus));
      return new Cluster(sc.isLocal(), taskSlots, Runtime.getRuntime().maxMemory(),
          conf.getSizeAsBytes("spark.executor.memory", "1g"),
          executorCores > 0 ? Math.max(1, executorCores / taskCpus) : 1,
          conf.getSizeAsBytes("spark.driver.maxResultSize", "1g"));
    }

    /** The N of local[N] or local[N,F] (local[*]: the machine's processors; local: 1). */
    static int localCores(String master) {
      java.util.regex.Matcher m = java.util.regex.Pattern
          .compile("local\\[(\\*|\\d+)(,\\s*\\d+)?\\]").matcher(master.trim());
      if (!m.matches()) {
        return 1;
      }
      return m.group(1).equals("*") ? Runtime.getRuntime().availableProcessors()
          : Math.max(1, Integer.parseInt(m.group(1)));
    }
  }

  /** One line of an estimate: bytes held, and what they are, for the message. */
  private static final class Term {
    final long bytes;
    final String what;

    Term(long bytes, String what) {
      this.bytes = bytes;
      this.what = what;
    }
  }

  private final LearnerConfig learner;
  private final int numPartitions;
  private final Cluster cluster;
  /** Bytes of one copy of the exchanged state. */
  final long stateBytes;
  /** Bytes of one copy of the weights alone. */
  final long weightBytes;
  private final List<Term> driver = new ArrayList<>();
  private final List<Term> executor = new ArrayList<>();
  /** Serialized task results per epoch. */
  final long resultBytesPerEpoch;

  /**
   * @param rows training rows; {@code storedValues} their stored feature values
   * @param validate whether a best state is kept (validationIndicatorCol)
   * @param initialModel whether setInitialModel's coefficients stay referenced during training
   */
  MemoryPlan(LearnerConfig learner, int numPartitions, long rows, long storedValues,
      boolean validate, int aggregationDepth, boolean initialModel, Cluster cluster) {
    this.learner = learner;
    this.numPartitions = numPartitions;
    this.cluster = cluster;
    this.weightBytes = 8L * learner.weightRows() * (learner.numFeatures() + 1L);
    this.stateBytes = learner.averaging().keepsAverage() ? 2 * weightBytes : weightBytes;
    boolean voting = learner.averaging() == Averaging.VOTE;
    int p = Math.max(1, numPartitions);

    // Tasks running at once: in the JVM of the estimate (local mode: all), on one executor.
    int running = Math.min(p, cluster.local ? cluster.cores : cluster.tasksPerExecutor);
    int partials = treeAggregatePartials(p, aggregationDepth);
    boolean extraLevel = partials < p;
    int resultsHeld = extraLevel ? p : Math.min(p, cluster.cores);

    driver.add(new Term(DRIVER_MIXED_STATE * stateBytes, "the mixed state"));
    driver.add(new Term(DRIVER_BROADCAST_PIECES * stateBytes, "its broadcast"));
    if (validate) {
      driver.add(new Term(DRIVER_BEST_STATE * stateBytes, "the best state on validation"));
    }
    driver.add(new Term(resultsHeld * stateBytes, resultsHeld + " partition result"
        + (resultsHeld == 1 ? "" : "s") + " being mixed"));
    if (initialModel) {
      driver.add(new Term(weightBytes, "the initial model's weights"));
    }

    long perPartitionRows = (rows + p - 1) / p;
    long perPartitionValues = (storedValues + p - 1) / p;
    long block = BLOCK_BYTES_PER_VALUE * perPartitionValues
        + BLOCK_BYTES_PER_ROW * perPartitionRows;
    long trace = voting ? TRACE_BYTES_PER_VALUE * perPartitionValues
        + TRACE_BYTES_PER_UPDATE * perPartitionRows : 0;
    List<Term> tasks = cluster.local ? driver : executor;
    if (!cluster.local) {
      executor.add(new Term(EXECUTOR_BROADCAST * stateBytes, "the broadcast state and its"
          + " pieces"));
    }
    tasks.add(new Term(running * (TASK_STATE + TASK_RESULT) * stateBytes, "a private copy and a"
        + " serialized result for each of " + running + " running task"
        + (running == 1 ? "" : "s")));
    tasks.add(new Term(running * block, "their partitions' blocks"));
    if (voting) {
      tasks.add(new Term(running * trace, "their vote traces"));
    }
    if (extraLevel) {
      tasks.add(new Term(ceilDiv(p, partials) * stateBytes, "a tree level's partial mix"));
    }
    this.resultBytesPerEpoch = p * stateBytes;
  }

  /** The plan of the training {@code learner} describes, on the cluster {@code sc} runs. */
  static MemoryPlan forTraining(LearnerConfig learner, TrainingInput input,
      MixingSettings settings, boolean initialModel, SparkContext sc) {
    return new MemoryPlan(learner, input.numPartitions, input.numRows, input.storedValues,
        settings.validate, settings.aggregationDepth, initialModel, Cluster.of(sc));
  }

  /**
   * How many partial results Spark's {@code treeAggregate} sends to the driver: its own rule
   * (RDD.treeAggregate): scale = max(⌈P^(1/depth)⌉, 2), and while P &gt; scale + ⌈P/scale⌉ a
   * level divides P by scale.
   */
  static int treeAggregatePartials(int partitions, int depth) {
    int n = partitions;
    int scale = Math.max((int) Math.ceil(Math.pow(n, 1.0 / depth)), 2);
    while (n > scale + Math.ceil((double) n / scale)) {
      n /= scale;
    }
    return n;
  }

  long driverBytes() {
    return sum(driver);
  }

  /** Per executor (0 in local mode, where the driver's estimate includes the tasks). */
  long executorBytes() {
    return sum(executor);
  }

  static long budget(long heap) {
    return Math.max(0, heap - SPARK_RESERVED_BYTES);
  }

  /**
   * Refuses, before anything of the model's size is allocated, a training whose estimate exceeds
   * the driver's or an executor's budget, or whose epoch results exceed
   * {@code spark.driver.maxResultSize}.
   *
   * @throws IllegalArgumentException naming d, K, the bytes and the fixes (one line)
   */
  void requireFits() {
    long need = driverBytes();
    if (need > budget(cluster.driverHeap)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training needs about %,d MiB on the driver, more than the %,d MiB its %,d MiB heap"
              + " leaves after Spark's %d MiB reserve: %s, and at the peak of an epoch the driver"
              + " holds %s. %s",
          mib(need), mib(budget(cluster.driverHeap)), mib(cluster.driverHeap),
          mib(SPARK_RESERVED_BYTES), shape(), describe(driver),
          fixes("give the driver more memory (--driver-memory or spark.driver.memory)")));
    }
    long perExecutor = executorBytes();
    if (!cluster.local && perExecutor > budget(cluster.executorHeap)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training needs about %,d MiB on each executor, more than the %,d MiB that"
              + " spark.executor.memory=%dm leaves after Spark's %d MiB reserve: %s, and each"
              + " executor holds %s. %s",
          mib(perExecutor), mib(budget(cluster.executorHeap)), mib(cluster.executorHeap),
          mib(SPARK_RESERVED_BYTES), shape(), describe(executor),
          fixes("give the executors more memory (spark.executor.memory, --executor-memory) or"
              + " run fewer tasks on each (spark.executor.cores)")));
    }
    if (cluster.maxResultSize > 0 && resultBytesPerEpoch > cluster.maxResultSize) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Every epoch sends the driver %,d partition results of %,d MiB (%,d MiB), more than"
              + " spark.driver.maxResultSize=%dm allows, so Spark would abort the first epoch:"
              + " %s. %s",
          numPartitions, mib(stateBytes), mib(resultBytesPerEpoch), mib(cluster.maxResultSize),
          shape(), fixes("raise spark.driver.maxResultSize (e.g. --conf"
              + " spark.driver.maxResultSize=" + suggestedResultSize() + ", 0 for no limit),"
              + " train on fewer partitions")));
    }
  }

  /**
   * Refuses, before the first epoch, a vote that could outgrow the driver: in the worst case
   * every example is a mistake in every epoch, and the vote keeps each one. Half the heap, since
   * the states need the rest.
   */
  static void requireVoteFits(int maxIter, long rows, long storedValues, int stateLength,
      long driverHeap) {
    long worst = VotedPerceptron.worstCaseBytes(maxIter, rows, storedValues, stateLength);
    if (worst > driverHeap / 2) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "averaging=vote keeps every intermediate weight vector: with maxIter=%d over %,d rows"
              + " (%,d non-zeros) it can reach %,d MiB on the driver (every example a mistake in"
              + " every epoch), more than half of the driver's %,d MiB heap. Use averaging=average"
              + " (the averaged perceptron approximates the vote in O(features) memory), lower"
              + " maxIter, or give the driver more memory (spark.driver.memory)",
          maxIter, rows, storedValues, worst >> 20, driverHeap >> 20));
    }
  }

  /**
   * Refuses to load a model whose coefficients cannot fit the heap (loading holds them about
   * three times: Spark's row, its matrix and the model's array), before allocating them.
   */
  static void requireModelLoadFits(String path, int numClasses, int numFeatures) {
    long weights = 8L * (numClasses == 2 ? 1 : numClasses) * (long) numFeatures;
    long heap = Runtime.getRuntime().maxMemory();
    if (3 * weights > budget(heap)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "The model '%s' has d = %,d features and K = %,d classes: loading its %,d MiB of"
              + " coefficients needs about %,d MiB, more than the %,d MiB this JVM's %,d MiB heap"
              + " leaves after Spark's reserve. Give the driver more memory (--driver-memory or"
              + " spark.driver.memory)",
          path, numFeatures, numClasses, mib(weights), mib(3 * weights), mib(budget(heap)),
          mib(heap)));
    }
  }

  private String shape() {
    String state = learner.averaging().keepsAverage()
        ? "the weights and their averaging accumulator" : "the weights";
    return String.format(Locale.ROOT, "with d = %,d features and K = %,d classes, one copy of %s"
        + " takes %,d MiB", learner.numFeatures(), learner.numClasses(), state, mib(stateBytes));
  }

  private String fixes(String memory) {
    return "Fixes: " + memory + ", use fewer features (hash them into fewer dimensions with"
        + " org.apache.spark.ml.feature.FeatureHasher or HashingTF, e.g. numFeatures = 2^18)"
        + (learner.numClasses() > 2 ? ", or use fewer classes (K)" : "");
  }

  private String suggestedResultSize() {
    long gib = (resultBytesPerEpoch * 2 + (1L << 30) - 1) >> 30;
    return gib + "g";
  }

  private String describe(List<Term> terms) {
    List<Term> shown = new ArrayList<>();
    for (Term t : terms) {
      if (t.bytes >= MIB) { // blocks of a few rows say nothing
        shown.add(t);
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < shown.size(); i++) {
      Term t = shown.get(i);
      if (i > 0) {
        sb.append(i == shown.size() - 1 ? " and " : ", ");
      }
      sb.append(t.what);
      if (t.bytes % stateBytes == 0 && t.bytes > 0) {
        sb.append(" (").append(t.bytes / stateBytes).append(t.bytes / stateBytes == 1 ? " copy"
            : " copies").append(')');
      } else {
        sb.append(String.format(Locale.ROOT, " (%,d MiB)", mib(t.bytes)));
      }
    }
    return sb.toString();
  }

  private static long sum(List<Term> terms) {
    long s = 0;
    for (Term t : terms) {
      s += t.bytes;
    }
    return s;
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  private static long mib(long bytes) {
    return (bytes + MIB - 1) / MIB;
  }
}
