package io.github.sparkperceptron.internal.plan;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory a training needs on the driver and on each executor, estimated before the first
 * epoch from the model's size, the data, the mixing and the cluster, and the refusal of a training
 * that cannot fit: a one-line message naming d, K, the bytes and the fixes, where the training
 * would otherwise die of an {@code OutOfMemoryError} (a two-line LIBSVM file with index
 * 300,000,000 asks for a 2.4 GB weight vector before the first epoch).
 *
 * <p>The unit is one copy of the weights w, K'·(d+1) doubles (K' = 1 for binary, else K); S, the
 * state, is w plus the averaging accumulator u of the same size when {@code averaging=average}.
 * The counts are the arrays the code holds at the peak of a mixing round with the sparse exchange
 * ({@code io.github.sparkperceptron.internal.exchange}, whose package documentation states the same model),
 * read from {@code MixingLoop}, {@code JobPerRound}, {@code WeightShipper}, {@code ExecutorWeights},
 * {@code StateDelta}, {@code ParameterMix}, {@code BlockMomentum} and Spark's
 * {@code TorrentBroadcast}, {@code treeAggregate} and task results. <b>Change them here when the
 * exchange changes</b>: every check reads them from this class.
 *
 * <pre>
 * driver   S                the weights and accumulator (progress.state)
 *          w                setInitialModel's coefficients, referenced for the whole training
 *          S                with validation: the best state (progress.best)
 *          2w               with validation: the epoch's model weights and their broadcast pieces
 *          w                mixing=momentum on several workers: the velocity Δ (BlockMomentum)
 *          R·E·w            averaging=vote: one start vector per mixing round (R rounds, E epochs)
 *          2w or 0          WeightShipper's snapshot (a copy of w, broadcast) and its serialised
 *                           pieces; 0 while it is the all-zero first snapshot, which is empty
 *                           (a training from scratch that never changes a quarter of w)
 *          ≤ 2·12·L/4 B     the change chain after the snapshot (index + value, object + pieces),
 *                           re-snapshot above a quarter of the length L
 *          16 B per support the support set's coordinates and the epoch's start values
 *                           (relative change), and a third coordinate array while it ends
 *          2·L/8 B          two TouchedSets (the support, the shipper's changed set)
 *          deltas           r worker changes waiting for their sibling in ParameterMix, plus
 *                           the mix so far and the blend being made (2 deltas of the union)
 * executor w                ExecutorWeights' cached copy of the round's weights
 *          2w + chain       the snapshot broadcast deserialised and its pieces (0 in local mode:
 *                           tasks there read the driver's object)
 *          worker copies    one working copy per worker whose round ran here, in the worker's
 *                           own m features (kernel.LocalWeights: w and u over K'·(m+1), a
 *                           TouchedSet of K'·(m+1)/8 B; m the largest worker's distinct
 *                           features), at most min(W copies, r copies in use plus the idle
 *                           ones ExecutorWeights keeps: r·(S + L/8), what r global working
 *                           copies took)
 *          per task slot    its change and that change serialised (2 deltas), the window of
 *                           its worker's cached chunks it trains on and the next one, read
 *                           ahead (each at most kernel.EpochPlan.WINDOW_BYTES: in place where
 *                           Spark keeps the chunks in memory, copies of what it spilled), its
 *                           vote trace
 *          tree level       ⌈W/r⌉ deltas when treeAggregate adds a level
 * </pre>
 * A delta is sparse (4 + 8 + 8 bytes per touched coordinate with averaging, 4 + 8 without) up to
 * half of the coordinates and dense (S) above; a worker's round touches at most
 * min(L, K'·(min(d, nnz) + 1), c·(nnz + rows)) coordinates (c = 1 binary, 2 multiclass: an update
 * moves two class rows), nnz and rows being the worker's. In local mode the driver is the
 * executor: its estimate is the sum, with T = min(W, cores) task slots. One-shot mixing broadcasts
 * the whole state once (S on the driver, S + pieces per executor), each task trains a working copy
 * over its worker's features and returns the change of its model (a copy of that size). The
 * vote's own worst case (every example a mistake every epoch) is checked apart, against half
 * the driver's heap ({@link #requireVoteFits}).
 *
 * <p>The budget of a JVM is its maximum heap less Spark's 300 MiB reserve, a tenth for the
 * garbage collector ({@link #budget}) and what Spark's
 * storage memory holds or may come to hold ({@link ClusterMemory#storageHeld}): cached blocks, the
 * training's own chunks among them (the storageLevel param's level, MEMORY_AND_DISK by default),
 * give up their memory to Spark's own storage and execution, never to an allocation of ours. A
 * training whose arrays would fit the heap but not beside the cached chunks first moves chunks to
 * local disk ({@link #storageCap}): data of any size train, at the cost of reading the spilled
 * chunks back every epoch (the log says how much). BENCHMARKS.md ("Memory model") gives the
 * measured limits this plan is checked against.
 *
 * <p>Spark also caps the serialized task results of one job ({@code spark.driver.maxResultSize},
 * 1g by default): a round sends W changes (one per worker) to the driver, and a training whose round would exceed
 * the cap is refused too, since Spark would abort its first epoch.
 */
public final class MemoryPlan {
  private static final Logger LOG = LoggerFactory.getLogger(MemoryPlan.class);


  /** Spark's reserved system memory (UnifiedMemoryManager's RESERVED_SYSTEM_MEMORY_BYTES). */
  static final long SPARK_RESERVED_BYTES = 300L << 20;

  /** The garbage collector's share of a heap: one part in this many ({@link #budget}). */
  static final long GC_HEADROOM_DIVISOR = 10;

  /** Copies of w WeightShipper's full snapshot takes on the driver: the copy and its pieces. */
  static final int DRIVER_SNAPSHOT = 2;
  /** Copies of w the snapshot takes on a remote executor: deserialised value and pieces. */
  static final int EXECUTOR_SNAPSHOT = 2;
  /** Copies of w ExecutorWeights caches per executor and training. */
  static final int EXECUTOR_CACHED = 1;
  /** Bytes per entry of the change chain (int index + double value), held twice (pieces). */
  static final long CHAIN_BYTES_PER_ENTRY = 2 * 12;
  /** Bytes per support coordinate on the driver: its index twice and its start value. */
  static final long SUPPORT_BYTES_PER_COORDINATE = 4 + 8 + 4;

  /**
   * A mixing round's worker changes, all W of them, up to which they go to the driver in the
   * round's one stage, even where Spark's treeAggregate would add a level
   * at the aggregationDepth param ({@link #roundAggregationDepth}).
   */
  static final long ROUND_RESULTS_AT_ONCE_BYTES = 16L << 20;

  /** Bytes a vote trace takes per stored value and per update (VoteTrace). */
  static final long TRACE_BYTES_PER_VALUE = 12;
  static final long TRACE_BYTES_PER_UPDATE = 32;

  private static final long MIB = 1L << 20;


  /** One line of an estimate: bytes held, and what they are, for the message. */
  private static final class Term {
    final long bytes;
    final String what;

    Term(long bytes, String what) {
      this.bytes = bytes;
      this.what = what;
    }
  }

  final LearnerConfig learner;
  final int numWorkers;
  final ClusterMemory cluster;
  /** Bytes of one copy of the state S (w, and u when averaging). */
  final long stateBytes;
  /** Bytes of one copy of the weights w alone. */
  final long weightBytes;
  /** Bytes of the largest change one worker's round can return. */
  final long workerDeltaBytes;
  private final List<Term> driver = new ArrayList<>();
  private final List<Term> executor = new ArrayList<>();
  /** Serialized task results of one mixing round. */
  final long resultBytesPerRound;
  /** {@link #roundAggregationDepth()}. */
  private final int roundAggregationDepth;
  /** Bytes of the largest mixed change of one round (all workers' changes together). */
  final long mixedDeltaBytes;
  /** Mixing rounds per epoch, and whether block momentum runs (its Δ, its support set). */
  final int rounds;
  /** The epochs at most (a barrier stage runs no more). */
  final int maxIter;
  final boolean momentum;
  /**
   * Whether a barrier stage's tasks that may report the state they ended with keep the
   * averaging accumulator u too (averaging without a vote, {@code rounds.BarrierEpochTask}).
   */
  final boolean barrierKeepsAverage;
  /**
   * The vote traces one worker records in one epoch at worst (every row a mistake; 0 without a
   * vote): a barrier stage returns each epoch's.
   */
  final long voteTraceBytes;
  /** Tasks running at once in the JVM of the estimate that holds them (local: the driver). */
  final int running;
  /**
   * The most coordinates a training's support can hold (where w or Δ can be non-zero; 0 for
   * one-shot mixing): a barrier task keeps it, and where its weights moved, as sorted arrays.
   */
  final long supportBound;
  /** Bytes of one working copy of the largest worker (K'·(m+1) coordinates). */
  final long workerCopyBytes;
  /**
   * Bytes of idle working copies an executor keeps for the training (ExecutorWeights): what a
   * global working copy per running task took, r·(S + L/8).
   */
  public final long idleCopyBytes;

  /**
   * @param data the training data over its workers
   * @param settings the mixing loop's settings (mixing, rounds, maxIter, validation, depth)
   * @param initialModel whether setInitialModel's coefficients stay referenced during training
   */
  MemoryPlan(LearnerConfig learner, DataFacts data, MixingSettings settings,
      boolean initialModel, ClusterMemory cluster) {
    this.learner = learner;
    this.numWorkers = data.numWorkers;
    this.cluster = cluster;
    long rows = data.numRows;
    long storedValues = data.storedValues;
    long length = learner.stateLength();
    boolean averaging = learner.averaging().keepsAverage();
    this.weightBytes = 8L * length;
    this.stateBytes = averaging ? 2 * weightBytes : weightBytes;
    boolean voting = learner.averaging() == Averaging.VOTE;
    boolean oneShot = settings.mixing == MixingMode.ONESHOT;
    int p = Math.max(1, numWorkers);
    int rounds = oneShot ? 1 : Math.max(1, settings.rounds);
    boolean momentum = !oneShot && settings.hasMomentum();

    // Tasks running at once: in the JVM of the estimate (local mode: all), on one executor.
    this.running = running(p, cluster);
    long m = Math.min(learner.numFeatures(), data.workerFeatures);
    this.workerCopyBytes = copyBytes(m);
    this.idleCopyBytes = idleCopyBytes(learner, p, cluster);
    int partials = treeAggregatePartials(p, settings.aggregationDepth);

    long perWorkerRows = ceilDiv(rows, p);
    long perWorkerValues = ceilDiv(storedValues, p);
    long touchedByWorker = touchedBound(perWorkerRows, perWorkerValues,
        oneShot ? settings.maxIter : 1);
    long touchedByAll = touchedBound(rows, storedValues, oneShot ? settings.maxIter : 1);
    // One-shot workers return the change of their model (no accumulator travels); a single
    // worker's change carries its new weights too (exactness).
    boolean deltaAverage = averaging && !oneShot;
    this.workerDeltaBytes = deltaBytes(touchedByWorker, deltaAverage, p == 1,
        settings.denseAbove);
    this.mixedDeltaBytes = deltaBytes(touchedByAll, deltaAverage, p == 1, settings.denseAbove);
    this.roundAggregationDepth = roundAggregationDepth(p, workerDeltaBytes,
        settings.aggregationDepth);
    // A depth above 1 only where Spark's rule builds a level (roundAggregationDepth).
    boolean extraLevel = roundAggregationDepth > 1;
    int resultsHeld = partials < p ? p : Math.min(p, cluster.cores);
    this.rounds = rounds;
    this.maxIter = settings.maxIter;
    this.momentum = momentum;
    this.barrierKeepsAverage = averaging && !voting;

    driver.add(new Term(stateBytes, averaging ? "the weights and their averaging accumulator"
        : "the weights"));
    if (initialModel) {
      driver.add(new Term(weightBytes, "the initial model's weights"));
    }
    if (settings.validate) {
      driver.add(new Term(stateBytes, "the best state on validation"));
      driver.add(new Term(2 * weightBytes, "the validated model and its broadcast"));
    }
    if (momentum) {
      driver.add(new Term(weightBytes, "the block momentum's velocity"));
    }
    if (voting) {
      long starts = (long) settings.maxIter * rounds;
      driver.add(new Term(starts * weightBytes, "the vote's " + starts + " start vector"
          + (starts == 1 ? "" : "s")));
    }
    if (oneShot) {
      driver.add(new Term(3 * stateBytes, "the broadcast state, its pieces and the mixed"
          + " state"));
      supportBound = 0;
    } else {
      // Rounds change at most touchedByAll coordinates (plus the look-ahead's, on the support).
      // Coordinates ever changed: no more than the features allow, nor than the rounds mixed.
      long support = Math.min(length, initialModel ? length : Math.min(
          (long) learner.weightRows() * (Math.min(learner.numFeatures(), storedValues) + 1),
          saturatingProduct((long) settings.maxIter * rounds, touchedByAll)));
      supportBound = support;
      long changedPerRound = Math.min(length, touchedByAll + (momentum ? support : 0));
      long changedEver = saturatingProduct((long) settings.maxIter * rounds, changedPerRound);
      boolean fullSnapshot = initialModel || 4 * changedEver > length;
      if (fullSnapshot) {
        driver.add(new Term(DRIVER_SNAPSHOT * weightBytes, "the weights' snapshot broadcast to"
            + " the executors and its pieces"));
      }
      long chain = Math.min(length / 4, changedEver);
      driver.add(new Term(CHAIN_BYTES_PER_ENTRY * chain, "the changes broadcast after it"));
      driver.add(new Term(SUPPORT_BYTES_PER_COORDINATE * support + 2 * ceilDiv(length, 8),
          "the support set"));
    }
    driver.add(new Term(resultsHeld * workerDeltaBytes + (p > 1 ? 2 * mixedDeltaBytes : 0),
        resultsHeld + " worker change" + (resultsHeld == 1 ? "" : "s") + " being mixed"));

    // A task holds the window of chunks it trains on and reads the next ahead: read in place
    // where Spark keeps them in memory, deserialised copies of what it spilled (at most this).
    long windowBytes = settings.order.windowBytes();
    long worker = data.workerBytes;
    long windows = Math.min(worker, windowBytes)
        + Math.min(Math.max(0, worker - windowBytes), windowBytes);
    long trace = voting ? TRACE_BYTES_PER_VALUE * perWorkerValues
        + TRACE_BYTES_PER_UPDATE * perWorkerRows : 0;
    this.voteTraceBytes = trace;
    List<Term> tasks = cluster.local ? driver : executor;
    if (oneShot) {
      if (!cluster.local) {
        executor.add(new Term(2 * stateBytes, "the broadcast state and its pieces"));
      }
      tasks.add(new Term(running * (workerCopyBytes + 8L * learner.weightRows() * (m + 1)),
          "a working copy and its model for each of " + running + " running task"
              + (running == 1 ? "" : "s")));
    } else {
      if (!cluster.local) {
        executor.add(new Term(EXECUTOR_SNAPSHOT * weightBytes + CHAIN_BYTES_PER_ENTRY
            * (length / 4), "the broadcast snapshot and changes"));
      }
      tasks.add(new Term(EXECUTOR_CACHED * weightBytes, "the executor's cached copy of the"
          + " weights"));
      long copies = Math.min(saturatingProduct(p, workerCopyBytes),
          running * workerCopyBytes + idleCopyBytes);
      tasks.add(new Term(copies, "the workers' working copies" + (averaging
          ? " and accumulators" : "") + " (" + learner.weightRows() + " × " + (m + 1)
          + " values each)"));
    }
    tasks.add(new Term(running * 2 * workerDeltaBytes, "their changes and their serialized"
        + " form"));
    tasks.add(new Term(running * windows, "the windows of cached rows they train on and read"
        + " ahead"));
    if (voting) {
      tasks.add(new Term(running * trace, "their vote traces"));
    }
    if (extraLevel) {
      tasks.add(new Term(ceilDiv(p, partials) * workerDeltaBytes, "a tree level's partial"
          + " mix"));
    }
    this.resultBytesPerRound = p * workerDeltaBytes;
  }

  /**
   * Bytes of a worker's working copy over {@code m} features ({@code kernel.LocalWeights}):
   * w, and u when averaging, over K'·(m+1) coordinates and a TouchedSet of them.
   */
  private long copyBytes(long m) {
    return copyBytes(learner, m);
  }

  private static long copyBytes(LearnerConfig learner, long m) {
    long n = (long) learner.weightRows() * (m + 1);
    return 8 * n * (learner.averaging().keepsAverage() ? 2 : 1) + ceilDiv(n, 8);
  }

  /** Tasks of a training over {@code workers} workers running at once in one JVM. */
  private static int running(int workers, ClusterMemory cluster) {
    return Math.min(Math.max(1, workers), cluster.local ? cluster.cores
        : cluster.tasksPerExecutor);
  }

  /**
   * {@link #idleCopyBytes} of {@code learner}'s training over {@code workers} workers on
   * {@code sc}'s cluster: it depends on neither the rows nor the settings, so a stream's
   * micro-batch knows it before its rows are read.
   */
  public static long idleCopyBytes(LearnerConfig learner, int workers, SparkContext sc) {
    return idleCopyBytes(learner, workers, ClusterMemory.of(sc));
  }

  private static long idleCopyBytes(LearnerConfig learner, int workers, ClusterMemory cluster) {
    return running(workers, cluster) * copyBytes(learner, learner.numFeatures());
  }

  /**
   * The coordinates a worker with {@code rows} rows and {@code values} stored values can
   * change in one round ({@code epochs} epochs for one-shot mixing): each update moves the row's
   * non-zeros and the intercept in one weight row (binary) or two (multiclass), and no more
   * coordinates exist than K'·(min(d, values) + 1) or the state's length.
   */
  private long touchedBound(long rows, long values, int epochs) {
    long length = learner.stateLength();
    long byFeatures = (long) learner.weightRows() * (Math.min(learner.numFeatures(), values) + 1);
    long byUpdates = saturatingProduct((learner.isBinary() ? 1L : 2L) * Math.max(1, epochs),
        values + rows);
    return Math.min(length, Math.min(byFeatures, byUpdates));
  }

  /** Bytes of a change of {@code touched} coordinates, as StateDelta stores it. */
  private long deltaBytes(long touched, boolean average, boolean exact, double denseAbove) {
    long length = learner.stateLength();
    int arrays = 1 + (average ? 1 : 0) + (exact ? 1 : 0);
    if (touched > denseAbove * length) {
      return 8L * length * arrays;
    }
    return touched * (4 + 8L * arrays);
  }

  static long saturatingProduct(long a, long b) {
    return b != 0 && a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
  }

  /**
   * The depth at which a mixing round's W worker changes are combined
   * ({@code PartitionJob.aggregate}; {@link #roundAggregationDepth(int, long, int)} of this
   * plan's workers and change bound). ParameterMix makes the mix the same bits either way.
   */
  public int roundAggregationDepth() {
    return roundAggregationDepth;
  }

  /**
   * The depth at which {@code workers} results of up to {@code resultBytes} each are combined:
   * {@code depth} (the aggregationDepth param) where Spark's treeAggregate would build a level
   * and the results could exceed {@link #ROUND_RESULTS_AT_ONCE_BYTES} together, else 1. A tree
   * level is a second stage and a shuffle: worth it where the results together would weigh on
   * the driver, not where they are a few MiB in all: there it tripled a small fit's time on
   * 8 workers (BENCHMARKS.md, issue 31, "a round's results in one stage").
   */
  public static int roundAggregationDepth(int workers, long resultBytes, int depth) {
    boolean level = treeAggregatePartials(workers, depth) < workers;
    return level && saturatingProduct(workers, resultBytes) > ROUND_RESULTS_AT_ONCE_BYTES
        ? depth : 1;
  }

  /**
   * How many partial results Spark's {@code treeAggregate} sends to the driver: its own rule
   * (RDD.treeAggregate): scale = max(⌈P^(1/depth)⌉, 2), and while P &gt; scale + ⌈P/scale⌉ a
   * level divides P by scale.
   */
  public static int treeAggregatePartials(int partitions, int depth) {
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

  /** The cached data a budget left out, for a message ("" when none). */
  private static String cachedNote(long cached) {
    return cached == 0 ? "" : String.format(Locale.ROOT, " and the %,d MiB of cached data in"
        + " Spark's storage memory (unpersist what the training does not need)", mib(cached));
  }

  /**
   * The bytes of a {@code heap} our arrays may take: less Spark's reserve and a tenth that the
   * garbage collector needs free (G1's default G1ReservePercent; our weight vectors and chunks
   * are humongous objects, which need free regions side by side).
   */
  static long budget(long heap) {
    return Math.max(0, heap - SPARK_RESERVED_BYTES - heap / GC_HEADROOM_DIVISOR);
  }

  /**
   * The bytes of storage memory the JVM that runs the training's tasks (the driver in local
   * mode, else each executor) may keep beside the arrays of this plan: {@link Long#MAX_VALUE}
   * when what it holds leaves room enough, −1 when the arrays alone exceed its budget (no
   * spilling helps). The cached chunks above it are the ones to move to disk.
   */
  public long storageCap() {
    long heap = cluster.local ? cluster.driverHeap : cluster.executorHeap;
    long held = cluster.local ? cluster.driverCached : cluster.executorCached;
    long room = budget(heap) - (cluster.local ? driverBytes() : executorBytes());
    if (room < 0) {
      return -1;
    }
    return held <= room ? Long.MAX_VALUE : room;
  }

  /**
   * Logs the estimate and applies {@link #requireFits} as {@link Settings#MEMORY_CHECK} says.
   *
   * @throws IllegalArgumentException as {@link #requireFits}, unless the check only warns
   */
  public void enforce(SparkContext sc) {
    String mode = Settings.read(JavaSparkContext.fromSparkContext(sc), Settings.MEMORY_CHECK,
        "refuse");
    LOG.info(String.format(Locale.ROOT, "Memory plan: about %,d MiB on the driver (budget %,d"
        + " MiB)%s; one copy of the weights is %,d MiB", mib(driverBytes()),
        mib(cluster.driverBudget()), cluster.local ? "" : String.format(Locale.ROOT,
            ", %,d MiB per executor (budget %,d MiB)", mib(executorBytes()),
            mib(cluster.executorBudget())), mib(weightBytes)));
    switch (mode.trim().toLowerCase(Locale.ROOT)) {
      case "refuse":
        requireFits();
        return;
      case "warn":
        try {
          requireFits();
        } catch (IllegalArgumentException e) {
          LOG.warn("{} ({}=warn: training anyway)", e.getMessage(), Settings.MEMORY_CHECK);
        }
        return;
      default:
        throw new IllegalArgumentException(Settings.MEMORY_CHECK + " must be refuse or warn, got '"
            + mode + "'");
    }
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
    if (need > cluster.driverBudget()) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training needs about %,d MiB on the driver, more than the %,d MiB its %,d MiB heap"
              + " leaves after Spark's %d MiB reserve, the garbage collector's tenth%s: %s, and"
              + " at the peak of a mixing round the driver holds %s. %s",
          mib(need), mib(cluster.driverBudget()), mib(cluster.driverHeap),
          mib(SPARK_RESERVED_BYTES), cachedNote(cluster.driverCached), shape(), describe(driver),
          fixes("give the driver more memory (--driver-memory or spark.driver.memory)")));
    }
    long perExecutor = executorBytes();
    if (!cluster.local && perExecutor > cluster.executorBudget()) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training needs about %,d MiB on each executor, more than the %,d MiB that"
              + " spark.executor.memory=%dm leaves after Spark's %d MiB reserve, the garbage"
              + " collector's tenth%s: %s, and each executor holds %s. %s",
          mib(perExecutor), mib(cluster.executorBudget()), mib(cluster.executorHeap),
          mib(SPARK_RESERVED_BYTES), cachedNote(cluster.executorCached), shape(),
          describe(executor),
          fixes("give the executors more memory (spark.executor.memory, --executor-memory) or"
              + " run fewer tasks on each (spark.executor.cores)")));
    }
    if (cluster.maxResultSize > 0 && resultBytesPerRound > cluster.maxResultSize) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Every mixing round can send the driver %,d worker changes of up to %,d MiB"
              + " (%,d MiB), more than spark.driver.maxResultSize=%dm allows, so Spark would"
              + " abort the first epoch: %s. %s",
          numWorkers, mib(workerDeltaBytes), mib(resultBytesPerRound),
          mib(cluster.maxResultSize),
          shape(), fixes("raise spark.driver.maxResultSize (e.g. --conf"
              + " spark.driver.maxResultSize=" + suggestedResultSize() + ", 0 for no limit),"
              + " train on fewer workers (numWorkers)")));
    }
  }

  /**
   * What running an epoch's rounds in barrier stages may do within this plan: whether they fit,
   * what a stage reports, how many epochs it runs ({@link BarrierPlan}).
   */
  public BarrierPlan barrier() {
    return new BarrierPlan(this);
  }

  /**
   * Refuses, before the first epoch, a vote that could outgrow the driver: in the worst case
   * every example is a mistake in every epoch, and the vote keeps each one. Half the heap, since
   * the states need the rest.
   */
  public static void requireVoteFits(int maxIter, int rounds, long rows, long storedValues,
      int stateLength, long driverHeap) {
    // One start vector per mixing round, the traces once per epoch.
    long worst = VotedPerceptron.worstCaseBytes(maxIter, rows, storedValues, 0)
        + 8L * stateLength * maxIter * Math.max(1, rounds);
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
  public static void requireModelLoadFits(String path, int numClasses, int numFeatures) {
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
    return String.format(Locale.ROOT, "with d = %,d features and K = %,d classes, one copy of"
        + " the weights takes %,d MiB", learner.numFeatures(), learner.numClasses(),
        mib(weightBytes));
  }

  private String fixes(String memory) {
    return "Fixes: " + memory + ", use fewer features (hash them into fewer dimensions with"
        + " org.apache.spark.ml.feature.FeatureHasher or HashingTF, e.g. numFeatures = 2^18)"
        + (learner.numClasses() > 2 ? ", or use fewer classes (K)" : "");
  }

  private String suggestedResultSize() {
    long gib = (resultBytesPerRound * 2 + (1L << 30) - 1) >> 30;
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
      if (t.bytes % weightBytes == 0 && t.bytes > 0) {
        sb.append(" (").append(t.bytes / weightBytes).append(t.bytes / weightBytes == 1 ? " copy"
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

  static long mib(long bytes) {
    return (bytes + MIB - 1) / MIB;
  }
}
