package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.BarrierPath;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The barrier exchange under Spark's own security settings ({@code spark.authenticate} and
 * {@code spark.network.crypto.enabled}, on {@code local[4]}): its frames are sealed and the model
 * is the job-per-round one, bit for bit; an operator who prefers the exchange closed
 * ({@code spark.perceptron.barrier.encryption=jobs}) gets one Spark job per round and one line
 * saying why, and asking for barrier mode then is an error naming both settings.
 */
class BarrierUnderSparkSecurityTest {
  private static SparkSession spark;
  private static final List<TestData.Example> BREAST =
      TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[4]", Map.of("spark.authenticate", "true",
        "spark.network.crypto.enabled", "true"));
  }

  private static PerceptronClassifier momentum() {
    // calibration=none: every row trains, one training per fit (the default holds
    // rows out to calibrate on, or cross-fits small data).
    return new PerceptronClassifier().setCalibration("none")
        .setMixing("momentum").setMixingRounds(3).setMaxIter(2)
        .setTol(0.0).setSeed(12).setNumWorkers(4);
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = m.coefficients().toArray();
    double[] out = Arrays.copyOf(w, w.length + 1);
    out[w.length] = m.intercept();
    return out;
  }

  private static PerceptronClassificationModel fit(String mode, String encryption,
      Dataset<Row> frame) {
    spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, mode);
    spark.sparkContext().setLocalProperty(Settings.BARRIER_ENCRYPTION, encryption);
    try {
      return momentum().fit(frame);
    } finally {
      spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
      spark.sparkContext().setLocalProperty(Settings.BARRIER_ENCRYPTION, null);
    }
  }

  @Test
  void theExchangeIsSealedAndTheModelIsTheJobsOne() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassificationModel sealed;
    List<String> info;
    try (LogCapture log = LogCapture.of(BarrierRounds.class)) {
      sealed = BarrierPath.fit(spark, momentum(), frame);
      info = log.messages(Level.INFO, "Mixing rounds");
    }
    assertTrue(info.size() == 1 && info.get(0).contains("sealed with AES-256-GCM as"
        + " spark.authenticate=true asks"), info.toString());
    assertArrayEquals(weights(fit("jobs", null, frame)), weights(sealed), 0.0);
  }

  @Test
  void anOperatorWhoPrefersJobsGetsJobsAndOneLineWhy() {
    Dataset<Row> frame = TestData.frameInOrder(spark, BREAST, 4);
    PerceptronClassificationModel viaJobs;
    List<String> info;
    try (LogCapture log = LogCapture.of(BarrierRounds.class)) {
      viaJobs = fit("auto", "jobs", frame);
      info = log.messages(Level.INFO);
    }
    assertEquals(1, info.size(), info.toString());
    assertTrue(info.get(0).contains("one Spark job each") && info.get(0).contains(
        "spark.authenticate=true and " + Settings.BARRIER_ENCRYPTION + "=jobs"), info.get(0));
    assertArrayEquals(weights(fit("jobs", null, frame)), weights(viaJobs), 0.0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> fit("barrier", "jobs", frame));
    assertTrue(e.getMessage().contains(Settings.ROUND_EXECUTION + "=barrier")
        && e.getMessage().contains(Settings.BARRIER_ENCRYPTION + "=jobs"), e.getMessage());
  }
}
