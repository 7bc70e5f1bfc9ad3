package io.github.sparkperceptron.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Fits with every epoch's mixing rounds forced into a barrier stage
 * ({@code spark.perceptron.roundExecution=barrier}, a local property of the fitting thread) and
 * fails unless they really ran there: one successful barrier stage per epoch the model reports,
 * none falling back to a job per round (which the library would do, with one log line, when a
 * stage cannot be placed or its tasks cannot connect). So a test that compares such a fit with
 * an oracle compares the barrier path, not a fall-back.
 */
public final class BarrierPath {
  /** The library's key (train/RoundExecution). */
  public static final String MODE_KEY = "spark.perceptron.roundExecution";

  private BarrierPath() {
  }

  /** Counts the barrier stages that completed without failure. */
  private static final class Counter extends SparkListener {
    final AtomicInteger barrierStages = new AtomicInteger();

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
   * ran in one barrier stage.
   */
  public static PerceptronClassificationModel fit(SparkSession spark,
      PerceptronClassifier estimator, Dataset<Row> frame) {
    Counter counter = new Counter();
    spark.sparkContext().addSparkListener(counter);
    spark.sparkContext().setLocalProperty(MODE_KEY, "barrier");
    PerceptronClassificationModel model;
    try {
      model = estimator.fit(frame);
      SparkTestSupport.awaitListeners(spark);
    } finally {
      spark.sparkContext().setLocalProperty(MODE_KEY, null);
      spark.sparkContext().removeSparkListener(counter);
    }
    assertEquals(model.summary().totalIterations(), counter.barrierStages.get(),
        "every epoch in one barrier stage (none fell back to a job per round)");
    return model;
  }
}
