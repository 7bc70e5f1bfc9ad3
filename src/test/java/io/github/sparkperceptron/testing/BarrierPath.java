package io.github.sparkperceptron.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Fits with every epoch's mixing rounds forced into barrier stages
 * ({@code spark.perceptron.roundExecution=barrier}, a local property of the fitting thread) and
 * fails unless they really ran there: every epoch the model reports inside a barrier stage that
 * completed (a stage runs one epoch or several, its job's description names them), and no job
 * of a round (which the library would run, with one log line, when a stage cannot be placed or
 * its tasks cannot connect). So a test that compares such a fit with an oracle compares the
 * barrier path, not a fall-back.
 */
public final class BarrierPath {
  /** The library's key (train/RoundExecution). */

  private BarrierPath() {
  }

  /** Barrier stage: "perceptron epoch 3/10: ..." or "perceptron epochs 1-10/10: ...". */
  private static final Pattern STAGE = Pattern.compile(
      "perceptron epochs? (\\d+)(?:-(\\d+))?/\\d+: .*barrier stage.*");

  /** Counts the barrier stages that completed, the epochs they ran, and the rounds' jobs. */
  private static final class Counter extends SparkListener {
    final AtomicInteger barrierStages = new AtomicInteger();
    final AtomicInteger roundJobs = new AtomicInteger();
    final Set<Integer> epochs = ConcurrentHashMap.newKeySet();

    @Override
    public void onJobStart(SparkListenerJobStart start) {
      String description = start.properties() == null ? null
          : start.properties().getProperty("spark.job.description");
      if (description == null || !description.startsWith("perceptron epoch")
          || description.contains("validation")) {
        return;
      }
      Matcher m = STAGE.matcher(description);
      if (!m.matches()) {
        roundJobs.incrementAndGet();
        return;
      }
      int first = Integer.parseInt(m.group(1));
      int last = m.group(2) == null ? first : Integer.parseInt(m.group(2));
      for (int e = first; e <= last; e++) {
        epochs.add(e);
      }
    }

    @Override
    public void onStageCompleted(SparkListenerStageCompleted completed) {
      StageInfo info = completed.stageInfo();
      boolean barrier = CollectionConverters.asJava(info.rddInfos()).stream()
          .anyMatch(r -> r.isBarrier());
      if (barrier && info.failureReason().isEmpty()) {
        barrierStages.incrementAndGet();
      }
    }
  }

  /**
   * {@code estimator.fit(frame)} on the barrier path, asserting that each of the model's epochs
   * ran in a barrier stage and none in jobs of a round.
   */
  public static PerceptronClassificationModel fit(SparkSession spark,
      PerceptronClassifier estimator, Dataset<Row> frame) {
    Counter counter = new Counter();
    spark.sparkContext().addSparkListener(counter);
    spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, "barrier");
    PerceptronClassificationModel model;
    try {
      model = estimator.fit(frame);
      SparkTestSupport.awaitListeners(spark);
    } finally {
      spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
      spark.sparkContext().removeSparkListener(counter);
    }
    assertEquals(0, counter.roundJobs.get(), "no epoch fell back to a job per round");
    assertTrue(counter.barrierStages.get() >= 1, "a barrier stage completed");
    for (int e = 1; e <= model.summary().totalIterations(); e++) {
      assertTrue(counter.epochs.contains(e), "epoch " + e + " ran in a barrier stage");
    }
    return model;
  }
}
