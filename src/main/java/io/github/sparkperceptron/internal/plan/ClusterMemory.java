package io.github.sparkperceptron.internal.plan;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.storage.BlockStatus;
import org.apache.spark.storage.StorageStatus;
import scala.collection.Iterator;

/**
 * What Spark tells about the memory where a training runs, for {@link MemoryPlan}: local mode or
 * not, the task slots, the driver's and an executor's heap, the tasks an executor runs at once,
 * {@code spark.driver.maxResultSize}, and what each JVM's storage memory holds or may come to
 * hold again ({@link #storageHeld}), all read from the {@code SparkContext} at one moment.
 */
final class ClusterMemory {
  final boolean local;
  /** Tasks that run at once in the whole application (local mode: the local master's cores). */
  final int cores;
  final long driverHeap;
  final long executorHeap;
  /** Tasks that run at once on one executor (spark.executor.cores / spark.task.cpus, or 1). */
  final int tasksPerExecutor;
  /** spark.driver.maxResultSize in bytes, 0 for none. */
  final long maxResultSize;
  /**
   * Bytes Spark's storage memory holds now: on the driver (local mode: the one JVM), and on
   * the executor that holds most. Cached data (the training's own chunks among them) do not
   * yield their memory to our arrays: Spark evicts them only for its own storage and
   * execution, never for an allocation of ours.
   */
  final long driverCached;
  final long executorCached;

  ClusterMemory(boolean local, int cores, long driverHeap, long executorHeap,
      int tasksPerExecutor, long maxResultSize) {
    this(local, cores, new long[] {driverHeap, executorHeap, 0, 0}, tasksPerExecutor,
        maxResultSize);
  }

  /** {@code memory}: the driver's and an executor's heap, then their cached bytes. */
  private ClusterMemory(boolean local, int cores, long[] memory, int tasksPerExecutor,
      long maxResultSize) {
    this.local = local;
    this.cores = cores;
    this.driverHeap = memory[0];
    this.executorHeap = memory[1];
    this.driverCached = memory[2];
    this.executorCached = memory[3];
    this.tasksPerExecutor = tasksPerExecutor;
    this.maxResultSize = maxResultSize;
  }

  /** This cluster with {@code driver} and {@code executor} bytes of cached data in memory. */
  ClusterMemory withCached(long driver, long executor) {
    return new ClusterMemory(local, cores, new long[] {driverHeap, executorHeap, driver, executor},
        tasksPerExecutor, maxResultSize);
  }

  /** Bytes the driver's arrays may take: its heap less Spark's reserve and cached data. */
  long driverBudget() {
    return Math.max(0, MemoryPlan.budget(driverHeap) - driverCached);
  }

  /** Bytes an executor's arrays may take (not in local mode, where the driver is it). */
  long executorBudget() {
    return Math.max(0, MemoryPlan.budget(executorHeap) - executorCached);
  }

  static ClusterMemory of(SparkContext sc) {
    SparkConf conf = sc.getConf();
    int taskCpus = Math.max(1, conf.getInt("spark.task.cpus", 1));
    int executorCores = conf.getInt("spark.executor.cores", -1);
    int taskSlots = Math.max(1, (sc.isLocal() ? localCores(sc.master())
        : sc.defaultParallelism()) / (sc.isLocal() ? 1 : taskCpus));
    long driverCached = 0;
    long executorCached = 0;
    for (StorageStatus s : sc.env().blockManager().master().getStorageStatus()) {
      if (s.blockManagerId().isDriver()) {
        driverCached = storageHeld(s);
      } else {
        executorCached = Math.max(executorCached, storageHeld(s));
      }
    }
    return new ClusterMemory(sc.isLocal(), taskSlots, Runtime.getRuntime().maxMemory(),
        conf.getSizeAsBytes("spark.executor.memory", "1g"),
        executorCores > 0 ? Math.max(1, executorCores / taskCpus) : 1,
        conf.getSizeAsBytes("spark.driver.maxResultSize", "1g"))
        .withCached(driverCached, executorCached);
  }

  /**
   * The storage memory a block manager holds now, and may come to hold: blocks at a level
   * with memory that Spark evicted to disk are cached in memory again when a task reads them
   * (BlockManager.maybeCacheDiskValuesInMemory), as far as the storage region allows.
   */
  private static long storageHeld(StorageStatus status) {
    long evicted = 0;
    Iterator<BlockStatus> blocks = status.rddBlocks().valuesIterator();
    while (blocks.hasNext()) {
      BlockStatus block = blocks.next();
      if (block.storageLevel().useMemory() && block.memSize() == 0) {
        evicted += block.diskSize();
      }
    }
    return Math.max(status.memUsed(), Math.min(status.maxMem(), status.memUsed() + evicted));
  }

  /** The N of local[N] or local[N,F] (local[*]: the machine's processors; local: 1). */
  static int localCores(String master) {
    Matcher m = Pattern
        .compile("local\\[(\\*|\\d+)(,\\s*\\d+)?\\]").matcher(master.trim());
    if (!m.matches()) {
      return 1;
    }
    return m.group(1).equals("*") ? Runtime.getRuntime().availableProcessors()
        : Math.max(1, Integer.parseInt(m.group(1)));
  }
}
