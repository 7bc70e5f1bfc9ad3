package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.io.Serializable;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.memory.MemoryManager;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockResult;
import org.apache.spark.storage.BlockStatus;
import org.apache.spark.storage.RDDBlockId;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.storage.StorageStatus;
import scala.Option;
import scala.collection.Iterator;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * Where the chunks of one kind of cached rows live: Spark's block manager, every chunk a block of
 * its own at the training's storage level, so that Spark keeps in memory what fits and spills
 * the rest to local disk chunk by chunk, and reads a spilled chunk back alone.
 *
 * <p>The chunks are named as the partitions of a placeholder RDD that is never computed (its id
 * reserves the name space: block {@code rdd_<space>_<worker·2^16 + chunk>}): Spark's memory store
 * never evicts a block to make room for another block of the same RDD, so chunks that are read
 * back from disk do not push the ones in memory out (no thrashing: the same chunks stay in
 * memory every epoch), and removing the placeholder RDD's blocks removes every chunk on every
 * executor ({@link #remove}). Chunks of lost executors are rebuilt from the input by the worker
 * that misses them (see {@link WorkerBlocksRdd}).
 */
final class ChunkStore implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Chunks per worker: 2^16, of at most {@link EpochPlan#STORED_CHUNK_BYTES} each. */
  static final int MAX_CHUNKS = 1 << 16;
  /** Workers a store can name: the block index is an int. */
  static final int MAX_WORKERS = Integer.MAX_VALUE / MAX_CHUNKS;
  private static final ClassTag<TrainingBlock> TAG = ClassTag$.MODULE$.apply(TrainingBlock.class);

  private final int space;
  private final StorageLevel level;

  private ChunkStore(int space, StorageLevel level) {
    this.space = space;
    this.level = level;
  }

  /** A new store for chunks kept at {@code level}. */
  static ChunkStore create(JavaSparkContext jsc, StorageLevel level) {
    return new ChunkStore(jsc.emptyRDD().id(), level);
  }

  StorageLevel level() {
    return level;
  }

  private static BlockId id(int space, int worker, int chunk) {
    if (worker < 0 || worker >= MAX_WORKERS || chunk < 0 || chunk >= MAX_CHUNKS) {
      throw new IllegalArgumentException("chunk " + chunk + " of worker " + worker + " is beyond"
          + " " + MAX_CHUNKS + " chunks of " + MAX_WORKERS + " workers");
    }
    return new RDDBlockId(space, worker * MAX_CHUNKS + chunk);
  }

  private static BlockManager blockManager() {
    SparkEnv env = SparkEnv.get();
    if (env == null) {
      throw new IllegalStateException("no Spark environment in this JVM");
    }
    return env.blockManager();
  }

  /**
   * Stores chunk {@code chunk} of {@code worker} (a chunk already stored is kept). At a level
   * that uses memory and disk, a chunk that the storage memory has no room for goes to disk
   * directly, at the disk half of the level: what Spark would do after trying to unroll it in
   * memory, without the try and its warning, and without trying (and warning) again every time
   * the chunk is read back from disk.
   */
  void put(int worker, int chunk, TrainingBlock rows) {
    BlockManager manager = blockManager();
    StorageLevel at = level;
    if (level.useMemory() && level.useDisk() && !level.useOffHeap()
        && !roomInStorageMemory(rows.sizeInBytes())) {
      at = StorageLevel.apply(true, false, false, false, level.replication());
    }
    if (!manager.putSingle(id(space, worker, chunk), rows, at, true, TAG)) {
      throw new IllegalStateException("Spark's block manager did not store chunk " + chunk
          + " of worker " + worker + " at storage level " + level.description());
    }
  }

  /**
   * Whether this executor's storage memory has room for {@code bytes} more now (with a margin:
   * the memory store's estimate of an object graph exceeds its arrays' bytes).
   */
  private static boolean roomInStorageMemory(long bytes) {
    MemoryManager memory = SparkEnv.get().memoryManager();
    return memory.maxOnHeapStorageMemory() - memory.onHeapStorageMemoryUsed()
        > bytes + bytes / 4;
  }

  /**
   * Moves chunk {@code chunk} of {@code worker} from this executor's storage memory to its local
   * disk, for good (at the disk half of the level, so that reading it does not cache it in memory
   * again); returns the bytes of storage memory it freed: 0 when this executor keeps the chunk
   * only on disk, or not at all.
   */
  long spill(int worker, int chunk) {
    BlockManager manager = blockManager();
    BlockId id = id(space, worker, chunk);
    Option<BlockStatus> status = manager.getStatus(id);
    if (status.isEmpty() || status.get().memSize() == 0) {
      return 0;
    }
    TrainingBlock rows = get(worker, chunk);
    if (rows == null) {
      return 0;
    }
    manager.removeBlock(id, true);
    StorageLevel disk = StorageLevel.apply(true, false, false, false, level.replication());
    if (!manager.putSingle(id, rows, disk, true, TAG)) {
      throw new IllegalStateException("Spark's block manager did not store chunk " + chunk
          + " of worker " + worker + " on disk");
    }
    return status.get().memSize();
  }

  /** Bytes of storage memory this executor uses now (every block, ours and Spark's). */
  static long storageMemoryUsed() {
    return SparkEnv.get().memoryManager().onHeapStorageMemoryUsed();
  }

  /** Stores {@code rows} as chunk {@code chunk} of {@code worker} in place of what it held. */
  void replace(int worker, int chunk, TrainingBlock rows) {
    blockManager().removeBlock(id(space, worker, chunk), true);
    put(worker, chunk, rows);
  }

  /**
   * Chunk {@code chunk} of {@code worker}: from this executor's memory or disk, else fetched from
   * the executor that keeps it; null when no executor does (it was lost with its executor, or
   * dropped at a storage level without disk).
   */
  TrainingBlock get(int worker, int chunk) {
    Option<BlockResult> found = blockManager().get(id(space, worker, chunk), TAG);
    if (found.isEmpty()) {
      return null;
    }
    Iterator<Object> values = found.get().data();
    TrainingBlock rows = (TrainingBlock) values.next();
    // Reading to the end releases the block's read lock (Spark's CompletionIterator).
    while (values.hasNext()) {
      values.next();
    }
    return rows;
  }

  /** Bytes of this store's chunks that the executors keep on local disk (spilled), now. */
  long diskBytes(JavaSparkContext jsc) {
    long bytes = 0;
    for (StorageStatus s : jsc.sc().env().blockManager().master().getStorageStatus()) {
      bytes += s.diskUsedByRdd(space);
    }
    return bytes;
  }

  /** Removes every chunk of this store from every executor (asynchronously). */
  void remove(JavaSparkContext jsc) {
    jsc.sc().env().blockManager().master().removeRdd(space, false);
  }
}
