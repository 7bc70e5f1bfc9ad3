package io.github.sparkperceptron.io;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Examples read from files: a DataFrame ready for the estimator or model, plus what reading learnt
 * about them.
 *
 * <p>Read for training or evaluation ({@link ReadSpec#labelsChecked()}), the frame has exactly a
 * double {@code label} column and a vector {@code features} column. Read for predictions, it has
 * the input's own columns ({@link #inputColumns()}) plus the feature vector in
 * {@link #featuresCol()}, which is one of the input columns only where the input holds vectors
 * (LIBSVM, a Parquet vector column).
 */
public final class LabeledData {
  private final Dataset<Row> frame;
  private final int numFeatures;
  private final String labelNote;
  private final String featuresCol;
  private final List<String> inputColumns;

  /** Training or evaluation data: columns {@code label} and {@code features}. */
  public LabeledData(Dataset<Row> frame, int numFeatures, String labelNote) {
    this(frame, numFeatures, labelNote, "features", List.of("label", "features"));
  }

  public LabeledData(Dataset<Row> frame, int numFeatures, String labelNote, String featuresCol,
      List<String> inputColumns) {
    this.frame = frame;
    this.numFeatures = numFeatures;
    this.labelNote = labelNote;
    this.featuresCol = featuresCol;
    this.inputColumns = List.copyOf(inputColumns);
  }

  public Dataset<Row> frame() {
    return frame;
  }

  public int numFeatures() {
    return numFeatures;
  }

  /** How labels were mapped on reading (e.g. "labels -1/+1 mapped to 0/1"), or the empty string. */
  public String labelNote() {
    return labelNote;
  }

  /** The column of the frame that holds the feature vectors. */
  public String featuresCol() {
    return featuresCol;
  }

  /** The input's columns, in input order: what a prediction output repeats beside its results. */
  public List<String> inputColumns() {
    return inputColumns;
  }
}
