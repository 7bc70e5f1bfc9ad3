package io.github.sparkperceptron.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Splits the epochs' wall time into what the tasks spent running (the kernel, the state copy,
 * the shuffle order) and everything else (scheduling, broadcast, task and result serialisation,
 * the tree aggregation, the driver's mixing), from Spark's own task metrics: for every job whose
 * description starts with "perceptron epoch" (the estimator names its epoch jobs so; validation
 * jobs excluded) it keeps, per stage, the longest task's executor run time and CPU time.
 */
final class EpochTaskTimes extends SparkListener {
  private final Set<Integer> epochStages = new HashSet<>();
  /** Longest executor run time (ms) per epoch stage, in stage order. */
  private final Map<Integer, Long> longestRun = new HashMap<>();
  /** CPU time (ns) of that longest task, per epoch stage. */
  private final Map<Integer, Long> longestCpu = new HashMap<>();

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
    Long before = longestRun.get(task.stageId());
    if (before == null || m.executorRunTime() > before) {
      longestRun.put(task.stageId(), m.executorRunTime());
      longestCpu.put(task.stageId(), m.executorCpuTime());
    }
  }

  /** Forgets everything recorded so far. */
  synchronized void clear() {
    epochStages.clear();
    longestRun.clear();
    longestCpu.clear();
  }

  /** Per epoch stage seen since {@link #clear}, in order, the longest task's run time (s). */
  synchronized double[] longestTaskSeconds() {
    List<Integer> stages = stages();
    double[] out = new double[stages.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = longestRun.get(stages.get(i)) / 1e3;
    }
    return out;
  }

  /** The CPU seconds of the same tasks: below the run time when the thread had to wait. */
  synchronized double[] longestTaskCpuSeconds() {
    List<Integer> stages = stages();
    double[] out = new double[stages.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = longestCpu.get(stages.get(i)) / 1e9;
    }
    return out;
  }

  private List<Integer> stages() {
    List<Integer> stages = new ArrayList<>(longestRun.keySet());
    stages.sort(null);
    return stages;
  }
}
