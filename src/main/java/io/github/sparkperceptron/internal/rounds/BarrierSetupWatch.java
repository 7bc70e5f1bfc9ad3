package io.github.sparkperceptron.internal.rounds;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.ExceptionFailure;
import org.apache.spark.SparkContext$;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Ends an epoch's barrier job at the first task that could not set its exchange up, so that a
 * firewalled or unreachable peer costs one connect timeout, not one per stage attempt: Spark
 * retries a failed barrier stage as a whole ({@code spark.stage.maxConsecutiveAttempts}, 4 by
 * default), and every attempt would wait out the same timeout against the same firewall.
 *
 * <p>The job is tagged ({@code SparkContext.addJobTag}, on the fitting thread, next to whatever
 * tags the caller set); a listener watches its stages' task ends and, at the first
 * {@link BarrierEpochTask#SETUP_FAILURE}, cancels the tagged job with that failure as the reason,
 * once. Other failures (a task that fails mid-epoch, an executor lost) are left to Spark's
 * retries, which must produce the same model.
 */
final class BarrierSetupWatch extends SparkListener implements AutoCloseable {
  private final SparkContext sc;
  private final String tag;
  private final Set<Integer> stages = ConcurrentHashMap.newKeySet();
  private final AtomicReference<String> failure = new AtomicReference<>();

  private BarrierSetupWatch(SparkContext sc) {
    this.sc = sc;
    this.tag = "spark-perceptron-barrier-" + UUID.randomUUID();
  }

  /** Tags the calling thread's next jobs and starts watching them. */
  static BarrierSetupWatch start(SparkContext sc) {
    BarrierSetupWatch watch = new BarrierSetupWatch(sc);
    sc.addJobTag(watch.tag);
    sc.addSparkListener(watch);
    return watch;
  }

  /** The first setup failure of the watched job (its message's first line), or null. */
  String failure() {
    return failure.get();
  }

  @Override
  public void onJobStart(SparkListenerJobStart start) {
    String tags = start.properties() == null ? null
        : start.properties().getProperty(SparkContext$.MODULE$.SPARK_JOB_TAGS());
    if (tags != null && Set.of(tags.split(SparkContext$.MODULE$.SPARK_JOB_TAGS_SEP()))
        .contains(tag)) {
      for (Object id : CollectionConverters.asJava(start.stageIds())) {
        stages.add((Integer) id);
      }
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (!stages.contains(end.stageId()) || !(end.reason() instanceof ExceptionFailure)) {
      return;
    }
    String description = String.valueOf(((ExceptionFailure) end.reason()).description());
    int at = description.indexOf(BarrierEpochTask.SETUP_FAILURE);
    if (at >= 0) {
      int nl = description.indexOf('\n', at);
      String line = nl < 0 ? description.substring(at) : description.substring(at, nl);
      if (failure.compareAndSet(null, line)) {
        sc.cancelJobsWithTag(tag, line);
      }
    }
  }

  /** Untags the calling thread (the one that started the watch) and stops watching. */
  @Override
  public void close() {
    sc.removeJobTag(tag);
    sc.removeSparkListener(this);
  }
}
