package io.github.sparkperceptron.io;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Labelled examples read from files: a DataFrame with a double {@code label} column and a vector
 * {@code features} column, ready for the estimator, plus what reading learnt about them.
 */
public final class LabeledData {
  private final Dataset<Row> frame;
  private final int numFeatures;
  private final String labelNote;

  public LabeledData(Dataset<Row> frame, int numFeatures, String labelNote) {
    this.frame = frame;
    this.numFeatures = numFeatures;
    this.labelNote = labelNote;
  }

  /** Columns {@code label} (double) and {@code features} (vector). */
  public Dataset<Row> frame() {
    return frame;
  }

  public int numFeatures() {
    return numFeatures;
  }

  /** How labels were mapped on reading (e.g. "−1/+1 mapped to 0/1"), or the empty string. */
  public String labelNote() {
    return labelNote;
  }
}
