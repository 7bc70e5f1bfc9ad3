package io.github.sparkperceptron.io;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Examples read from files: a DataFrame ready for the estimator or model, plus what reading learnt
 * about them. A driver-side value (it holds a DataFrame), so a record.
 *
 * <p>Read for training or evaluation ({@link ReadSpec#labelsChecked()}), the frame has exactly a
 * double {@code label} column and a vector {@code features} column. Read for predictions, it has
 * the input's own columns ({@link #inputColumns()}) plus the feature vector in
 * {@link #featuresCol()}, which is one of the input columns only where the input holds vectors
 * (LIBSVM, a Parquet vector column).
 *
 * @param frame the rows
 * @param numFeatures the length of every feature vector
 * @param labelNote how labels were mapped on reading (e.g. "labels -1/+1 mapped to 0/1"), or the
 *     empty string
 * @param featuresCol the column of the frame that holds the feature vectors
 * @param inputColumns the input's columns, in input order: what a prediction output repeats
 *     beside its results
 */
public record LabeledData(Dataset<Row> frame, int numFeatures, String labelNote,
    String featuresCol, List<String> inputColumns) {

  public LabeledData {
    inputColumns = List.copyOf(inputColumns);
  }

  /** Training or evaluation data: columns {@code label} and {@code features}. */
  public LabeledData(Dataset<Row> frame, int numFeatures, String labelNote) {
    this(frame, numFeatures, labelNote, "features", List.of("label", "features"));
  }
}
