package io.github.sparkperceptron.streaming;

import java.util.Locale;

/**
 * What a stream's learner has done since the stream began (across restarts): batches applied,
 * rows learnt, and the cumulative prequential accuracy, i.e. the share of rows the model
 * predicted correctly before it learnt from them, and the batches in which a drift was
 * reported. Immutable.
 */
public final class StreamingProgress {
  private final long lastBatchId;
  private final long batches;
  private final long rows;
  private final long prequentialCorrect;
  private final long updates;
  private final long drifts;
  private final int numClasses;
  private final int numFeatures;

  /** Progress without a drift reported (what a state saved before drift detection holds). */
  StreamingProgress(long lastBatchId, long batches, long rows, long prequentialCorrect,
      long updates, int numClasses, int numFeatures) {
    this(lastBatchId, batches, rows, prequentialCorrect, updates, 0, new int[] {numClasses,
        numFeatures});
  }

  /** @param shape the model's numClasses and numFeatures */
  StreamingProgress(long lastBatchId, long batches, long rows, long prequentialCorrect,
      long updates, long drifts, int[] shape) {
    this.lastBatchId = lastBatchId;
    this.batches = batches;
    this.rows = rows;
    this.prequentialCorrect = prequentialCorrect;
    this.updates = updates;
    this.drifts = drifts;
    this.numClasses = shape[0];
    this.numFeatures = shape[1];
  }

  /** The Spark batch id of the last batch applied. */
  public long lastBatchId() {
    return lastBatchId;
  }

  /** Batches applied since the stream began. */
  public long batches() {
    return batches;
  }

  /** Rows learnt from since the stream began. */
  public long rows() {
    return rows;
  }

  /** Rows predicted correctly by the model as it stood before their batch. */
  public long prequentialCorrect() {
    return prequentialCorrect;
  }

  /** Rows predicted wrongly by the model as it stood before their batch. */
  public long prequentialMistakes() {
    return rows - prequentialCorrect;
  }

  /** {@link #prequentialCorrect()} / {@link #rows()}; NaN before any row. */
  public double prequentialAccuracy() {
    return rows == 0 ? Double.NaN : (double) prequentialCorrect / rows;
  }

  /** Weight updates made (summed over epochs when a batch runs several). */
  public long updates() {
    return updates;
  }

  /** Batches in which the drift detector reported a drift since the stream began. */
  public long drifts() {
    return drifts;
  }

  public int numClasses() {
    return numClasses;
  }

  public int numFeatures() {
    return numFeatures;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%,d batch%s (last id %d), %,d rows, prequential accuracy"
        + " %.4f, %,d updates%s", batches, batches == 1 ? "" : "es", lastBatchId, rows,
        prequentialAccuracy(), updates, drifts == 0 ? ""
            : String.format(Locale.ROOT, ", drift in %,d batch%s", drifts,
                drifts == 1 ? "" : "es"));
  }
}
