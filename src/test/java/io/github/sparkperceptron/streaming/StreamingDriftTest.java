package io.github.sparkperceptron.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.drift.DriftDetector;
import io.github.sparkperceptron.internal.drift.DriftDetectors;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drift detection wired into a stream: six batches, three from one hidden hyperplane and three
 * with its labels inverted (an abrupt change at batch 3). The detector is fed each applied batch's
 * prequential errors exactly once, in order (the flags equal a fresh detector fed the reports'
 * counts); the change is reported in batch 3 and in none before; a restart, even one that makes
 * Spark replay an applied batch, neither forgets nor repeats a detection; {@code reset} learns
 * the drift batch with a fresh model.
 */
class StreamingDriftTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final int D = 10;
  private static List<List<String>> batches;

  @TempDir
  Path tmp;

  @BeforeAll
  static void abruptChange() {
    batches = new ArrayList<>();
    List<TestData.Example> rows = TestData.separable(1, 3000, D, 0.05, 2).examples;
    for (int concept = 0; concept < 2; concept++) {
      List<String> lines = new ArrayList<>();
      for (TestData.Example e : rows.subList(concept * 1500, (concept + 1) * 1500)) {
        // The second concept is the first with every label inverted.
        StringBuilder line = new StringBuilder((e.label == 1.0) == (concept == 0) ? "1" : "0");
        double[] x = e.features.toArray();
        for (int j = 0; j < D; j++) {
          line.append(' ').append(j + 1).append(':').append(String.format(Locale.ROOT, "%.6f",
              x[j]));
        }
        lines.add(line.toString());
      }
      batches.addAll(StreamInput.slices(lines, 3));
    }
  }

  private StreamingPerceptron trainer(Path checkpoint, String detector, String policy) {
    return new StreamingPerceptron(new PerceptronClassifier().setSeed(2).setNumWorkers(2))
        .setCheckpointLocation(checkpoint.toString()).setDriftDetector(detector)
        .setOnDrift(policy);
  }

  private static List<BatchReport> run(StreamingPerceptron trainer, StreamInput input)
      throws Exception {
    List<BatchReport> reports = new ArrayList<>();
    trainer.addListener(reports::add);
    trainer.start(input.stream(), Trigger.AvailableNow());
    trainer.awaitTermination();
    return reports;
  }

  private static boolean[] flags(List<BatchReport> reports) {
    boolean[] out = new boolean[reports.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = reports.get(i).drift();
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"adwin", "page-hinkley"})
  void theChangeIsReportedInItsBatchAndTheDetectorIsFedEveryBatchOnce(String detector)
      throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, D);
    batches.forEach(input::add);
    List<BatchReport> reports = run(trainer(tmp.resolve("ckpt"), detector, "report"), input);
    assertEquals(6, reports.size());
    DriftDetector reference = DriftDetectors.create(detector);
    boolean[] expected = new boolean[6];
    for (int b = 0; b < 6; b++) {
      BatchReport r = reports.get(b);
      expected[b] = reference.addBatch(r.rows(), r.prequentialMistakes()) > 0;
    }
    assertArrayEquals(expected, flags(reports));
    assertArrayEquals(new boolean[] {false, false, false, true}, Arrays.copyOf(flags(reports),
        4), "drift in batch 3, where the concept changes, and in none before");
    long drifts = 0;
    for (boolean f : expected) {
      drifts += f ? 1 : 0;
    }
    assertEquals(drifts, reports.get(5).cumulative().drifts());
    assertFalse(reports.get(3).freshModel(), "report changes nothing");
    assertTrue(reports.get(3).toString().contains("drift detected"), reports.get(3).toString());
  }

  /**
   * Stopped after batch 1, then killed (as far as Spark knows) after applying batch 3 but before
   * committing it: the restarts replay batch 3, which is skipped, and the stream ends with the
   * flags, drift count and model of the uninterrupted run.
   */
  @Test
  void aRestartNeitherForgetsNorRepeatsADetection() throws Exception {
    StreamInput whole = new StreamInput(SPARK, tmp.resolve("whole"), D);
    batches.forEach(whole::add);
    StreamingPerceptron reference = trainer(tmp.resolve("whole-ckpt"), "adwin", "report");
    List<BatchReport> uninterrupted = run(reference, whole);

    StreamInput input = new StreamInput(SPARK, tmp, D);
    Path checkpoint = tmp.resolve("ckpt");
    List<BatchReport> seen = new ArrayList<>();
    for (int b = 0; b < 2; b++) {
      input.add(batches.get(b));
    }
    seen.addAll(run(trainer(checkpoint, "adwin", "report"), input));
    input.add(batches.get(2));
    input.add(batches.get(3));
    seen.addAll(run(trainer(checkpoint, "adwin", "report"), input));
    Path commit = checkpoint.resolve("query/commits/3");
    assertTrue(Files.exists(commit));
    Files.delete(commit);
    Files.deleteIfExists(checkpoint.resolve("query/commits/.3.crc"));
    input.add(batches.get(4));
    input.add(batches.get(5));
    StreamingPerceptron last = trainer(checkpoint, "adwin", "report");
    seen.addAll(run(last, input));

    assertEquals(6, seen.size(), "batch 3 was replayed but not applied again");
    assertArrayEquals(flags(uninterrupted), flags(seen));
    assertEquals(uninterrupted.get(5).cumulative().drifts(), last.progress().drifts());
    assertArrayEquals(weights(reference.latestModel()), weights(last.latestModel()), 0.0);
  }

  /**
   * With {@code reset}, the batch in which the drift is found is learnt by a fresh model (its
   * report says so), and only that batch (what a fresh model is: OnlineTrainingTest).
   */
  @Test
  void resetLearnsTheDriftBatchWithAFreshModel() throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, D);
    batches.forEach(input::add);
    Path checkpoint = tmp.resolve("ckpt");
    List<BatchReport> reports = run(trainer(checkpoint, "adwin", "reset"), input);
    assertArrayEquals(new boolean[] {false, false, false, true}, Arrays.copyOf(flags(reports),
        4));
    assertTrue(reports.get(3).freshModel());
    for (int b = 0; b < 6; b++) {
      assertEquals(reports.get(b).drift(), reports.get(b).freshModel(), "batch " + b);
    }
    assertTrue(reports.get(3).toString().contains("learnt by a fresh model"));
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }
}
