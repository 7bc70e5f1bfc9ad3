package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.engine.OnlineTraining.BatchOutcome;
import java.util.Locale;

/**
 * What one micro-batch did: its size, its prequential ("test then train") accuracy, i.e. the
 * share of its rows that the model predicted correctly before learning from them, the training
 * work, the time it took, whether the drift detector reported a drift in it (and whether it was
 * then learnt by a fresh model), and the stream's cumulative progress after it. Given to
 * {@link BatchListener}s and logged, one line per batch. Immutable.
 */
public final class BatchReport {
  private final long batchId;
  /** What the batch did, as the engine tallied it. */
  private final BatchOutcome outcome;
  private final double seconds;
  private final boolean published;
  private final boolean drift;
  private final StreamingProgress cumulative;

  BatchReport(long batchId, BatchOutcome outcome, double seconds, boolean published,
      boolean drift, StreamingProgress cumulative) {
    this.batchId = batchId;
    this.outcome = outcome;
    this.seconds = seconds;
    this.published = published;
    this.drift = drift;
    this.cumulative = cumulative;
  }

  /** Spark's id of the micro-batch. */
  public long batchId() {
    return batchId;
  }

  public long rows() {
    return outcome.rows;
  }

  /** Rows the model predicted correctly before learning from this batch. */
  public long prequentialCorrect() {
    return outcome.prequentialCorrect;
  }

  public long prequentialMistakes() {
    return outcome.rows - outcome.prequentialCorrect;
  }

  /** {@link #prequentialCorrect()} / {@link #rows()}; NaN for a batch without rows. */
  public double prequentialAccuracy() {
    return outcome.rows == 0 ? Double.NaN : (double) outcome.prequentialCorrect / outcome.rows;
  }

  /** Weight updates made while learning from the batch (all its epochs). */
  public long updates() {
    return outcome.updates;
  }

  /**
   * Examples with margin ≤ 0 met in the batch's first epoch, each against the weights of that
   * moment: the perceptron's own online mistake count (under mixing, per worker's weights).
   */
  public long onlineMistakes() {
    return outcome.onlineMistakes;
  }

  public int epochs() {
    return outcome.epochs;
  }

  /** Workers (perceptrons mixed) the batch was trained on. */
  public int workers() {
    return outcome.workers;
  }

  /**
   * Wall time of the batch: reading, validation, scoring, training and saving the state (a
   * publication runs in the background, after the batch).
   */
  public double seconds() {
    return seconds;
  }

  /**
   * Whether this batch's model was handed to the publisher, which writes it in the background;
   * if a later batch's model arrives before it is written, the later one is written instead (the
   * latest model wins).
   */
  public boolean published() {
    return published;
  }

  /**
   * Whether the drift detector reported a drift in this batch's prequential errors (always false
   * without a detector).
   */
  public boolean drift() {
    return drift;
  }

  /**
   * Whether this batch was learnt by a fresh model (zero weights, average and clock) because a
   * drift was reported in it and the policy is {@code onDrift=reset}.
   */
  public boolean freshModel() {
    return outcome.freshModel;
  }

  /** The stream's progress after this batch, since it began. */
  public StreamingProgress cumulative() {
    return cumulative;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "batch %d: %,d rows, prequential accuracy %.4f (%,d"
        + " mistakes), %,d updates, %.2f s; since the start: %,d rows, prequential accuracy"
        + " %.4f%s%s", batchId, outcome.rows, prequentialAccuracy(), prequentialMistakes(),
        outcome.updates, seconds, cumulative.rows(), cumulative.prequentialAccuracy(),
        !drift ? "" : outcome.freshModel ? "; drift detected: learnt by a fresh model"
            : "; drift detected",
        published ? "; model published" : "");
  }
}
