package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.train.OnlineTraining.BatchOutcome;

/**
 * Everything a stream's learner must carry from one micro-batch to the next, and what is
 * persisted after each: the kernel's state (w, the averaging accumulator u and the clock c, so
 * that the average runs over every example since the stream began), the model's shape, the id of
 * the last batch applied (what makes a replayed batch recognisable), cumulative counts, and whose
 * state it is (the configuration and the Spark query). Immutable; {@link #after} makes the next.
 */
final class LearnerState {
  /** What {@link StreamingPerceptron#configuration()} said when learning began. */
  final String configuration;
  /** The Spark streaming query that applied the batches, or "" when unknown. */
  final String queryId;
  final long lastBatchId;
  /** Batches applied since the stream began (the publishing cadence counts these). */
  final long batches;
  final long rows;
  final long prequentialCorrect;
  final long updates;
  final int numClasses;
  final int numFeatures;
  final LinearState state;

  LearnerState(String configuration, String queryId, StreamingProgress progress,
      LinearState state) {
    this.configuration = configuration;
    this.queryId = queryId;
    this.lastBatchId = progress.lastBatchId();
    this.batches = progress.batches();
    this.rows = progress.rows();
    this.prequentialCorrect = progress.prequentialCorrect();
    this.updates = progress.updates();
    this.numClasses = progress.numClasses();
    this.numFeatures = progress.numFeatures();
    this.state = state;
  }

  /** The state after applying batch {@code batchId}, whose outcome is {@code outcome}. */
  static LearnerState after(LearnerState previous, String configuration, String queryId,
      long batchId, BatchOutcome outcome) {
    long batches = previous == null ? 0 : previous.batches;
    long rows = previous == null ? 0 : previous.rows;
    long correct = previous == null ? 0 : previous.prequentialCorrect;
    long updates = previous == null ? 0 : previous.updates;
    return new LearnerState(configuration, queryId, new StreamingProgress(batchId, batches + 1,
        rows + outcome.rows, correct + outcome.prequentialCorrect, updates + outcome.updates,
        outcome.numClasses, outcome.numFeatures), outcome.state);
  }

  StreamingProgress progress() {
    return new StreamingProgress(lastBatchId, batches, rows, prequentialCorrect, updates,
        numClasses, numFeatures);
  }
}
