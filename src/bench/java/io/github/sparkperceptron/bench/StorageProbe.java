package io.github.sparkperceptron.bench;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockUpdated;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockUpdatedInfo;
import org.apache.spark.storage.RDDBlockId;

/**
 * Watches Spark's block manager for cached RDD blocks, so that the benchmark can read how many
 * bytes the training blocks took while {@code fit} held them (the estimator unpersists them before
 * it returns, so {@code getRDDStorageInfo()} afterwards would show nothing). The sizes are the
 * block manager's own (memory size from Spark's SizeEstimator, plus disk size), the numbers the
 * storage tab and {@code getRDDStorageInfo()} add up.
 */
final class StorageProbe extends SparkListener {
  /** Current bytes of every cached block, per RDD id and partition. */
  private final Map<Integer, Map<Integer, Long>> blocks = new HashMap<>();
  /** Largest total seen per RDD id. */
  private final Map<Integer, Long> peak = new HashMap<>();
  private final Map<Integer, Boolean> onDisk = new HashMap<>();

  @Override
  public synchronized void onBlockUpdated(SparkListenerBlockUpdated event) {
    BlockUpdatedInfo info = event.blockUpdatedInfo();
    BlockId id = info.blockId();
    if (!(id instanceof RDDBlockId)) {
      return;
    }
    RDDBlockId rdd = (RDDBlockId) id;
    Map<Integer, Long> parts = blocks.computeIfAbsent(rdd.rddId(), k -> new HashMap<>());
    long bytes = info.memSize() + info.diskSize();
    if (info.diskSize() > 0) {
      onDisk.put(rdd.rddId(), true);
    }
    if (bytes == 0) {
      parts.remove(rdd.splitIndex());
    } else {
      parts.put(rdd.splitIndex(), bytes);
    }
    long total = 0;
    for (long b : parts.values()) {
      total += b;
    }
    peak.merge(rdd.rddId(), total, Math::max);
  }

  /** The RDD ids that have had cached blocks so far. */
  synchronized Set<Integer> seen() {
    return new HashSet<>(peak.keySet());
  }

  /** Σ of the peak sizes of the RDDs cached since {@code before} was taken. */
  synchronized long peakBytesSince(Set<Integer> before) {
    long total = 0;
    for (Map.Entry<Integer, Long> e : peak.entrySet()) {
      if (!before.contains(e.getKey())) {
        total += e.getValue();
      }
    }
    return total;
  }

  /** Whether some block of an RDD cached since {@code before} went to disk. */
  synchronized boolean spilledSince(Set<Integer> before) {
    for (Integer id : onDisk.keySet()) {
      if (!before.contains(id)) {
        return true;
      }
    }
    return false;
  }
}
