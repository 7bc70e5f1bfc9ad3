package io.github.sparkperceptron.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once learning across restarts: a stream stopped between batches and restarted ends with
 * the model of an uninterrupted stream, bit for bit; a batch that was applied but not committed
 * (what a driver killed at that moment leaves) is replayed by Spark and not applied again; the
 * state of another training or another query is refused. (A real SIGKILL of a driver is in
 * {@code jobs.StreamTrainKillTest}.)
 */
class StreamingRestartTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static List<List<String>> batches;
  /** The model after the 4 batches of an uninterrupted stream, and after its first 3. */
  private static double[] uninterrupted;
  private static double[] afterThree;

  @TempDir
  Path tmp;

  /** Averaged perceptron, mistake-weighted mixing, shuffled batches: the defaults. */
  private static StreamingPerceptron trainer(Path checkpoint) {
    return new StreamingPerceptron(new PerceptronClassifier().setSeed(3))
        .setCheckpointLocation(checkpoint.toString());
  }

  private static StreamingPerceptron run(StreamingPerceptron trainer, StreamInput input)
      throws Exception {
    trainer.start(input.stream(), Trigger.AvailableNow());
    trainer.awaitTermination();
    return trainer;
  }

  @BeforeAll
  static void uninterruptedStream(@TempDir Path dir) throws Exception {
    batches = StreamInput.slices(StreamInput.lines("breast_cancer", "train.libsvm"), 4);
    StreamInput input = new StreamInput(SPARK, dir, 30);
    List<double[]> models = new ArrayList<>();
    StreamingPerceptron trainer = trainer(dir.resolve("ckpt"));
    trainer.addListener(report -> models.add(weights(trainer.latestModel())));
    for (List<String> batch : batches) {
      input.add(batch);
    }
    run(trainer, input);
    assertEquals(4, models.size());
    uninterrupted = models.get(3);
    afterThree = models.get(2);
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }

  @Test
  void aStreamStoppedBetweenBatchesAndRestartedEndsWithTheUninterruptedModel() throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    Path checkpoint = tmp.resolve("ckpt");
    input.add(batches.get(0));
    input.add(batches.get(1));
    run(trainer(checkpoint), input);

    input.add(batches.get(2));
    input.add(batches.get(3));
    StreamingPerceptron restarted = trainer(checkpoint);
    run(restarted, input);

    assertArrayEquals(uninterrupted, weights(restarted.latestModel()), 0.0);
    StreamingProgress progress = restarted.progress();
    assertEquals(4, progress.batches());
    assertEquals(3, progress.lastBatchId());
    assertEquals(batches.stream().mapToInt(List::size).sum(), progress.rows());
  }

  /**
   * Deleting Spark's commit of the last batch recreates what a driver killed after applying the
   * batch but before Spark committed it leaves behind: on restart Spark runs that batch again,
   * and the learner, whose state already holds it, must skip it.
   */
  @Test
  void aBatchAppliedButNotCommittedIsReplayedBySparkAndNotAppliedTwice() throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    Path checkpoint = tmp.resolve("ckpt");
    for (int b = 0; b < 3; b++) {
      input.add(batches.get(b));
    }
    StreamingPerceptron first = run(trainer(checkpoint), input);
    assertArrayEquals(afterThree, weights(first.latestModel()), 0.0);
    Path commits = checkpoint.resolve("query/commits");
    assertTrue(Files.exists(commits.resolve("2")), "Spark committed batch 2");
    Files.delete(commits.resolve("2"));
    Files.deleteIfExists(commits.resolve(".2.crc"));

    List<BatchReport> reports = new ArrayList<>();
    StreamingPerceptron restarted = trainer(checkpoint).addListener(reports::add);
    run(restarted, input);
    boolean replayed = false;
    for (StreamingQueryProgress p : restarted.query().recentProgress()) {
      // The skipped batch never reads its rows, so Spark counts 0 input rows for it.
      replayed |= p.batchId() == 2 && p.numInputRows() == 0;
    }
    assertTrue(replayed, "Spark ran batch 2 again");
    assertTrue(reports.isEmpty(), "the replayed batch was not applied");
    assertArrayEquals(afterThree, weights(restarted.latestModel()), 0.0);
    assertEquals(3, restarted.progress().batches());
    assertTrue(Files.exists(commits.resolve("2")), "and Spark committed it this time");

    // And the stream goes on from there to the uninterrupted model.
    input.add(batches.get(3));
    StreamingPerceptron last = run(trainer(checkpoint), input);
    assertArrayEquals(uninterrupted, weights(last.latestModel()), 0.0);
  }

  @Test
  void theStateOfAnotherTrainingOrAnotherQueryIsRefused() throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    Path checkpoint = tmp.resolve("ckpt");
    input.add(batches.get(0));
    run(trainer(checkpoint), input);

    StreamingPerceptron otherParams = new StreamingPerceptron(new PerceptronClassifier()
        .setSeed(3).setStepSize(0.5)).setCheckpointLocation(checkpoint.toString());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> otherParams.start(input.stream()));
    assertTrue(e.getMessage().contains("holds the learner state of another training: stepSize"
        + " was 1.0 there, 0.5 now"), e.getMessage());

    // Another stream's query checkpoint in place of this one's: batch ids start again.
    StreamInput otherInput = new StreamInput(SPARK, tmp.resolve("other"), 30);
    otherInput.add(batches.get(1));
    Path otherCheckpoint = tmp.resolve("other-ckpt");
    run(trainer(otherCheckpoint), otherInput);
    deleteTree(checkpoint.resolve("query"));
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> trainer(checkpoint).start(input.stream()));
    assertTrue(missing.getMessage().contains("but no query checkpoint"), missing.getMessage());

    Files.move(otherCheckpoint.resolve("query"), checkpoint.resolve("query"));
    otherInput.add(batches.get(2));
    StreamingPerceptron mixedUp = trainer(checkpoint);
    mixedUp.start(otherInput.stream(), Trigger.AvailableNow());
    StreamingQueryException failed = assertThrows(StreamingQueryException.class,
        mixedUp::awaitTermination);
    String message = StreamingPerceptronTest.rootMessage(failed);
    assertTrue(message.contains("was written by streaming query")
        && message.contains("the query checkpoint was replaced"), message);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths.sorted((a, b) -> b.compareTo(a))::iterator) {
        Files.delete(p);
      }
    }
  }
}
