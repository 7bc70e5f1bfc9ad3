package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.Partitioner;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.collection.Iterator;

/**
 * Which input partitions feed which worker: how the {@code numWorkers} param turns the P
 * partitions of the input into the W training partitions, one perceptron each (McDonald, Hall
 * &amp; Mann 2010 call them shards). Every worker's rows, and their order, are a pure function of
 * the input's partitions; nothing depends on scheduling, hosts or the order in which a shuffle's
 * fetches complete, so reruns give bit-identical models.
 *
 * <pre>
 * W = P   the input's partitions as they are (no coalesce, no shuffle)
 * W &lt; P   worker j reads input partitions ⌊j·P/W⌋ .. ⌊(j+1)·P/W⌋ − 1 one after the other: a
 *         coalesce without a shuffle, grouped by this class rather than by Spark's default
 *         coalescer, which groups partitions by preferred host (so by cluster). When the mixing
 *         rounds are to run in barrier stages, which Spark refuses over a coalesce, the same
 *         groups are gathered through a shuffle instead (GATHER): each input partition is
 *         converted as one piece, the pieces move to their worker, which joins them in input
 *         order: the same rows in the same order, so the same model
 * W &gt; P   input partition p is converted once, its rows dealt round-robin over all W
 *         workers (row r to worker (⌈p·W/P⌉ + r) mod W); one shuffle moves the converted pieces
 *         (primitive arrays), and worker j joins its pieces in input-partition order. Every
 *         worker gets ⌊n/W⌋ rows give or take P, however uneven the input partitions are
 * </pre>
 *
 * <p>Automatic ({@code numWorkers = 0}): W = {@code SparkContext.defaultParallelism} when
 * {@code fit} starts, which is the number of task slots: N for {@code local[N]} and
 * {@code local[N,F]}, the cores of the executors registered so far (at least 2) on a cluster
 * manager, or {@code spark.default.parallelism} when that is set.
 */
public final class WorkerLayout implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(WorkerLayout.class);

  /** How the input's partitions reach the workers. */
  enum Mode {
    /** One worker per input partition. */
    AS_IS,
    /** Contiguous groups of input partitions, no shuffle. */
    COALESCE,
    /** Each input partition dealt to several workers, through a shuffle of converted blocks. */
    SPLIT,
    /**
     * Contiguous groups of input partitions, as {@link #COALESCE} makes them, gathered through a
     * shuffle of converted blocks: a barrier stage runs over it (also where the input's own
     * chain holds a union), not over a coalesce.
     */
    GATHER
  }

  /** The {@code numWorkers} param: 0 for automatic. */
  final int requested;
  /** Task slots of the cluster ({@code defaultParallelism}) when {@code fit} started. */
  final int slots;
  public final int inputPartitions;
  public final int numWorkers;
  final Mode mode;

  private WorkerLayout(int requested, int slots, int inputPartitions) {
    this.requested = requested;
    this.slots = slots;
    this.inputPartitions = inputPartitions;
    this.numWorkers = TrainingPlan.workers(requested, slots);
    // An input without partitions has no rows to distribute; fit reports it as empty.
    this.mode = inputPartitions == 0 || numWorkers == inputPartitions ? Mode.AS_IS
        : numWorkers < inputPartitions ? Mode.COALESCE : Mode.SPLIT;
  }

  private WorkerLayout(WorkerLayout groups, Mode mode) {
    this.requested = groups.requested;
    this.slots = groups.slots;
    this.inputPartitions = groups.inputPartitions;
    this.numWorkers = groups.numWorkers;
    this.mode = mode;
  }

  /**
   * @param requested the {@code numWorkers} param (0: automatic)
   * @param slots the cluster's task slots ({@code SparkContext.defaultParallelism})
   * @param inputPartitions partitions of the input
   */
  static WorkerLayout of(int requested, int slots, int inputPartitions) {
    if (requested < 0) {
      throw new IllegalArgumentException("numWorkers must be >= 0, got " + requested);
    }
    return new WorkerLayout(requested, slots, inputPartitions);
  }

  /**
   * This layout's groups of input partitions (coalesced, or one per worker as they are)
   * gathered through a shuffle: {@link Mode#GATHER}, which a barrier stage accepts. A split
   * layout already moves its rows through a shuffle and stays as it is.
   */
  WorkerLayout gathered() {
    return mode == Mode.SPLIT || inputPartitions == 0 ? this : new WorkerLayout(this, Mode.GATHER);
  }

  /**
   * Coalesce and gather modes: the worker whose group holds input partition {@code p}, the j
   * with ⌊j·P/W⌋ ≤ p &lt; ⌊(j+1)·P/W⌋, that is ⌈(p+1)·W/P⌉ − 1.
   */
  int workerOf(int p) {
    return (int) (((long) (p + 1) * numWorkers + inputPartitions - 1) / inputPartitions) - 1;
  }

  /**
   * Split mode: the worker that gets the first row of input partition {@code p}, ⌈p·W/P⌉, so
   * that the partitions' leftover rows spread over the workers instead of piling up on the
   * first ones.
   */
  int firstWorkerOf(int p) {
    return (int) (((long) p * numWorkers + inputPartitions - 1) / inputPartitions);
  }

  /** Coalesce mode: the first input partition that worker {@code j} reads, ⌊j·P/W⌋. */
  int firstInputOf(int j) {
    return groupStart(j, inputPartitions, numWorkers);
  }

  /** ⌊j·parts/groups⌋: where group j of {@code parts} partitions in {@code groups} starts. */
  private static int groupStart(int j, int parts, int groups) {
    return (int) ((long) j * parts / groups);
  }

  /** How many workers and why, e.g. "numWorkers=0 (auto): 2 workers = the cluster's 2 task slots ...". */
  String describeWorkers() {
    String workers = numWorkers == 1 ? "1 worker" : numWorkers + " workers";
    return requested == 0
        ? String.format(Locale.ROOT, "numWorkers=0 (auto): %s = the cluster's %d task slots"
            + " (SparkContext.defaultParallelism)", workers, slots)
        : String.format(Locale.ROOT, "numWorkers=%d: %s", requested, workers);
  }

  /** The choice in plain words, as logged once per fit. */
  String describe() {
    String head = describeWorkers();
    String input = inputPartitions == 1 ? "the input's 1 partition"
        : "the input's " + inputPartitions + " partitions";
    switch (mode) {
      case COALESCE:
        return String.format(Locale.ROOT, "%s; %s are coalesced into %d (contiguous groups of"
            + " about %d, no shuffle)", head, input, numWorkers, inputPartitions / numWorkers);
      case GATHER:
        return String.format(Locale.ROOT, "%s; %s %s gathered into %d (%s, through one shuffle"
            + " of the converted rows, so that the mixing rounds can run in barrier stages)",
            head, input, inputPartitions == 1 ? "is" : "are", numWorkers,
            numWorkers == inputPartitions ? "one per worker"
                : "contiguous groups of about " + inputPartitions / numWorkers);
      case SPLIT:
        return String.format(Locale.ROOT, "%s; %s %s split into %d (each input partition's"
            + " rows dealt round-robin over the %d workers, then one shuffle of the converted"
            + " rows)", head, input, inputPartitions == 1 ? "is" : "are", numWorkers,
            numWorkers);
      default:
        return String.format(Locale.ROOT, "%s; %s %s used as they are", head, input,
            inputPartitions == 1 ? "is" : "are");
    }
  }

  /**
   * A warning when more workers were asked for than there are task slots to run them at once,
   * or {@code null}.
   */
  String oversubscription() {
    if (requested == 0 || numWorkers <= slots) {
      return null;
    }
    int waves = (numWorkers + slots - 1) / slots;
    return String.format(Locale.ROOT, "numWorkers=%d is more than the cluster's %d task slots"
        + " (SparkContext.defaultParallelism): the workers of every epoch run in %d waves, so an"
        + " epoch takes about %d times as long as with %d workers. The model is the %d-worker"
        + " model either way (accuracy also depends on numWorkers); set numWorkers=0 to match the"
        + " task slots", numWorkers, slots, waves, waves, slots, numWorkers);
  }

  /** Logs the choice (INFO) and any oversubscription (WARN). */
  void log() {
    LOG.info(describe());
    String warning = oversubscription();
    if (warning != null) {
      LOG.warn(warning);
    }
  }

  /** Coalesce mode: the groups of {@link #firstInputOf}, for {@code RDD.coalesce}. */
  PartitionCoalescer coalescer() {
    return new ContiguousGroups();
  }

  /**
   * Split mode without a shuffle: every worker reads every input partition (a coalesce whose W
   * groups each hold all P partitions) and keeps the rows dealt to it, {@link #workerOfRow}. The
   * workers' rows and their order are those of the shuffle's deal; each input partition is read
   * W times instead of once, and each worker sees every row, so it knows every worker's share.
   */
  PartitionCoalescer everyWorkerReadsAll() {
    return new AllToEveryWorker();
  }

  /**
   * Split mode: the worker that gets the row with id {@code rowId}
   * ({@code monotonically_increasing_id}: input partition p in the upper 31 bits, the row's
   * index r in p in the lower 33), (⌈p·W/P⌉ + r) mod W, the deal of the shuffle path.
   */
  int workerOfRow(long rowId) {
    int p = (int) (rowId >>> 33);
    long r = rowId & ((1L << 33) - 1);
    return (int) ((firstWorkerOf(p) + r) % numWorkers);
  }

  /** Split and gather modes: sends the block keyed {@code j} to training partition {@code j}. */
  Partitioner partitioner() {
    return new ByWorker(numWorkers);
  }

  /**
   * Worker j gets input partitions ⌊j·P/W⌋ .. ⌊(j+1)·P/W⌋ − 1, in order. The preferred host of a
   * group (a scheduling hint only, it never changes which rows a worker gets) is the one that
   * holds most of its partitions.
   */
  private static final class ContiguousGroups implements PartitionCoalescer, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
      Partition[] parts = parent.partitions();
      PartitionGroup[] groups = new PartitionGroup[maxPartitions];
      for (int j = 0; j < maxPartitions; j++) {
        int from = groupStart(j, parts.length, maxPartitions);
        int to = groupStart(j + 1, parts.length, maxPartitions);
        Map<String, Integer> hosts = new LinkedHashMap<>();
        for (int i = from; i < to; i++) {
          Iterator<String> it = parent.preferredLocations(parts[i]).iterator();
          while (it.hasNext()) {
            hosts.merge(it.next(), 1, Integer::sum);
          }
        }
        String best = null;
        for (Map.Entry<String, Integer> e : hosts.entrySet()) {
          if (best == null || e.getValue() > hosts.get(best)) {
            best = e.getKey();
          }
        }
        groups[j] = new PartitionGroup(Option.apply(best));
        for (int i = from; i < to; i++) {
          groups[j].partitions().addOne(parts[i]);
        }
      }
      return groups;
    }
  }

  /** W groups, each holding every input partition in order, without a preferred host. */
  private static final class AllToEveryWorker implements PartitionCoalescer, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
      Partition[] parts = parent.partitions();
      PartitionGroup[] groups = new PartitionGroup[maxPartitions];
      for (int j = 0; j < maxPartitions; j++) {
        groups[j] = new PartitionGroup(Option.empty());
        for (Partition part : parts) {
          groups[j].partitions().addOne(part);
        }
      }
      return groups;
    }
  }

  /** Keys are worker indices 0 .. W−1. */
  private static final class ByWorker extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int numWorkers;

    ByWorker(int numWorkers) {
      this.numWorkers = numWorkers;
    }

    @Override
    public int numPartitions() {
      return numWorkers;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ByWorker && ((ByWorker) other).numWorkers == numWorkers;
    }

    @Override
    public int hashCode() {
      return numWorkers;
    }
  }
}
