package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.engine.OnlineTraining.BatchOutcome;
import java.util.Locale;

/**
 * What a stream's learner has done since the stream began (across restarts): batches applied,
 * rows learnt, and the cumulative prequential accuracy, i.e. the share of rows the model
 * predicted correctly before it learnt from them, and the batches in which a drift was
 * reported. Immutable.
 */
public final class StreamingProgress {
  private final long lastBatchId;
  private final Tally tally;
  private final int numClasses;
  private final int numFeatures;

  /**
   * What the batches applied so far add up to: the one tally of a stream, which the learner
   * state carries and saves, and this class and the batch reports show.
   */
  record Tally(long batches, long rows, long prequentialCorrect, long updates, long drifts) {
    static final Tally NONE = new Tally(0, 0, 0, 0, 0);

    /** This tally and one more batch: what it did, and whether a drift was reported in it. */
    Tally plus(BatchOutcome outcome, boolean drift) {
      return new Tally(batches + 1, rows + outcome.rows,
          prequentialCorrect + outcome.prequentialCorrect, updates + outcome.updates,
          drifts + (drift ? 1 : 0));
    }
  }

  /** After batch {@code lastBatchId}, with a model of {@code numClasses} × {@code numFeatures}. */
  StreamingProgress(long lastBatchId, Tally tally, int numClasses, int numFeatures) {
    this.lastBatchId = lastBatchId;
    this.tally = tally;
    this.numClasses = numClasses;
    this.numFeatures = numFeatures;
  }

  /**
   * The progress after batch {@code batchId} did {@code outcome} ({@code previous} null: the
   * stream's first batch) with a model of {@code numClasses} × {@code numFeatures}.
   */
  static StreamingProgress after(StreamingProgress previous, long batchId, BatchOutcome outcome,
      boolean drift, int numClasses, int numFeatures) {
    Tally before = previous == null ? Tally.NONE : previous.tally;
    return new StreamingProgress(batchId, before.plus(outcome, drift), numClasses, numFeatures);
  }

  Tally tally() {
    return tally;
  }

  /** The Spark batch id of the last batch applied. */
  public long lastBatchId() {
    return lastBatchId;
  }

  /** Batches applied since the stream began. */
  public long batches() {
    return tally.batches();
  }

  /** Rows learnt from since the stream began. */
  public long rows() {
    return tally.rows();
  }

  /** Rows predicted correctly by the model as it stood before their batch. */
  public long prequentialCorrect() {
    return tally.prequentialCorrect();
  }

  /** Rows predicted wrongly by the model as it stood before their batch. */
  public long prequentialMistakes() {
    return rows() - prequentialCorrect();
  }

  /** {@link #prequentialCorrect()} / {@link #rows()}; NaN before any row. */
  public double prequentialAccuracy() {
    return rows() == 0 ? Double.NaN : (double) prequentialCorrect() / rows();
  }

  /** Weight updates made (summed over epochs when a batch runs several). */
  public long updates() {
    return tally.updates();
  }

  /** Batches in which the drift detector reported a drift since the stream began. */
  public long drifts() {
    return tally.drifts();
  }

  public int numClasses() {
    return numClasses;
  }

  public int numFeatures() {
    return numFeatures;
  }

  @Override
  public String toString() {
    long batches = tally.batches();
    long drifts = tally.drifts();
    return String.format(Locale.ROOT, "%,d batch%s (last id %d), %,d rows, prequential accuracy"
        + " %.4f, %,d updates%s", batches, batches == 1 ? "" : "es", lastBatchId, tally.rows(),
        prequentialAccuracy(), tally.updates(), drifts == 0 ? ""
            : String.format(Locale.ROOT, ", drift in %,d batch%s", drifts,
                drifts == 1 ? "" : "es"));
  }
}
