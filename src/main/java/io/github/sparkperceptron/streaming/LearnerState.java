package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.engine.MomentumState;
import io.github.sparkperceptron.internal.kernel.LinearState;
import java.util.Locale;

/**
 * Everything a stream's learner must carry from one micro-batch to the next, and what is
 * persisted after each: the kernel's state (w, the averaging accumulator u and the clock c, so
 * that the average runs over every example since the stream began), block momentum's velocity
 * and masses (mixing=momentum), the drift detector's state, the model's shape, the id of the last
 * batch applied (what makes a replayed batch recognisable), cumulative counts, and whose state it
 * is (the configuration and the Spark query). {@link #after} makes the next; the arrays of the
 * kernel's state and the momentum are the training's own (the next batch changes them), so a
 * state is saved, and a model built from it, before the next batch starts.
 */
final class LearnerState {
  /** What {@link StreamingPerceptron#configuration()} said when learning began. */
  final String configuration;
  /** The Spark streaming query that applied the batches, or "" when unknown. */
  final String queryId;
  /**
   * The id of the last batch applied (what makes a replayed batch recognisable), the counts since
   * the stream began (the publishing cadence counts its batches) and the model's shape.
   */
  final StreamingProgress progress;
  final LinearState state;
  /** Block momentum's velocity, masses and bound (its β is each batch's own), or null. */
  final MomentumState momentum;
  /** The drift detector's state ({@code DriftDetector.encode}), or null without one. */
  final double[] drift;

  LearnerState(String configuration, String queryId, StreamingProgress progress,
      LinearState state, MomentumState momentum, double[] drift) {
    this.configuration = configuration;
    this.queryId = queryId;
    this.progress = progress;
    this.state = state;
    this.momentum = momentum;
    this.drift = drift;
  }

  /** A state without momentum or drift detector (what formats 1 and 2 held). */
  LearnerState(String configuration, String queryId, StreamingProgress progress,
      LinearState state) {
    this(configuration, queryId, progress, state, null, null);
  }

  /**
   * Refuses batches of query {@code queryId} (null: outside a query) when this state was written
   * by another query: Spark numbers a new query's batches from the beginning again, so the state
   * could not tell new batches from applied ones.
   */
  void requireWrittenBy(String queryId, String location) {
    if (queryId != null && !this.queryId.isEmpty() && !this.queryId.equals(queryId)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "The learner state in '%s'"
          + " was written by streaming query %s, but batches now come from query %s: the query"
          + " checkpoint was replaced, so Spark numbers batches from the beginning again and"
          + " the state cannot tell new batches from applied ones. Restore the query checkpoint"
          + " (%s/), or delete the whole checkpoint location to learn from scratch",
          location, this.queryId, queryId, StreamingPerceptron.QUERY_DIR));
    }
  }
}
