package io.github.sparkperceptron.bench;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockUpdated;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockUpdatedInfo;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a fit moved between driver and executors, from Spark's own accounting: the bytes of the
 * broadcast pieces the driver's block manager stored (TorrentBroadcast's serialised, compressed
 * chunks: what an executor fetches; with {@code local[N]} the tasks read the driver's copy) and,
 * for the epoch jobs (job description "perceptron epoch ...", validation excluded), the tasks'
 * {@code resultSize} (the serialised task results the driver received) and the longest task's
 * run time per epoch stage.
 */
final class ExchangeMetrics extends SparkListener {
  private final Set<Integer> epochStages = new HashSet<>();
  private long broadcastBytes;
  private long resultBytes;
  private long epochTasks;
  private final Map<Integer, Long> longest = new HashMap<>();

  @Override
  public synchronized void onJobStart(SparkListenerJobStart job) {
    String description = job.properties() == null ? null
        : job.properties().getProperty("spark.job.description");
    if (description != null && description.startsWith("perceptron epoch")
        && !description.contains("validation")) {
      for (Object id : CollectionConverters.asJava(job.stageIds())) {
        epochStages.add((Integer) id);
      }
    }
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd task) {
    TaskMetrics m = task.taskMetrics();
    if (m == null || !epochStages.contains(task.stageId())) {
      return;
    }
    resultBytes += m.resultSize();
    epochTasks++;
    longest.merge(task.stageId(), m.executorRunTime(), Math::max);
  }

  @Override
  public synchronized void onBlockUpdated(SparkListenerBlockUpdated event) {
    BlockUpdatedInfo info = event.blockUpdatedInfo();
    BlockId id = info.blockId();
    long bytes = info.memSize() + info.diskSize();
    if (id.isBroadcast() && id.name().contains("piece") && bytes > 0) {
      broadcastBytes += bytes;
    }
  }

  synchronized void clear() {
    epochStages.clear();
    broadcastBytes = 0;
    resultBytes = 0;
    epochTasks = 0;
    longest.clear();
  }

  /** Bytes of the broadcast pieces stored since {@link #clear()}. */
  synchronized long broadcastBytes() {
    return broadcastBytes;
  }

  /** Σ resultSize of the epoch tasks since {@link #clear()}. */
  synchronized long resultBytes() {
    return resultBytes;
  }

  synchronized long epochTasks() {
    return epochTasks;
  }

  /** Epoch stages seen since {@link #clear()} (several per epoch with mixing rounds). */
  synchronized int epochStages() {
    return longest.size();
  }

  /** Longest task run time per epoch stage, in stage order (s). */
  synchronized double[] longestTaskSeconds() {
    return longest.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .mapToDouble(e -> e.getValue() / 1e3).toArray();
  }
}
