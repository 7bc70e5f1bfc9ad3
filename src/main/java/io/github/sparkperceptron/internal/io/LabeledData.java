package io.github.sparkperceptron.internal.io;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Examples read from files: a DataFrame ready for the estimator or model, plus what reading learnt
 * about them. A driver-side value (it holds a DataFrame), so a record.
 *
 * <p>Read for training or evaluation ({@link ReadSpec#labelsChecked()}), the frame has exactly a
 * double {@code label} column and a vector {@code features} column, plus the double weight column
 * {@link #weightCol()} when the spec names one. Read for predictions, it has the input's own
 * columns ({@link #inputColumns()}) plus the feature vector in {@link #featuresCol()}, which is one
 * of the input columns only where the input holds vectors (LIBSVM, a Parquet vector column).
 *
 * @param frame the rows
 * @param numFeatures the length of every feature vector
 * @param labelNote how labels were mapped on reading (e.g. "labels -1/+1 mapped to 0/1"), or the
 *     empty string
 * @param featuresCol the column of the frame that holds the feature vectors
 * @param inputColumns the input's columns, in input order: what a prediction output repeats
 *     beside its results
 * @param weightCol the frame's column of sample weights, or the empty string when it has none
 * @param featureNames the input column each feature came from (CSV columns, Parquet columns
 *     assembled into the vector), in vector order; empty when the input held vectors (LIBSVM, a
 *     Parquet vector column)
 */
public record LabeledData(Dataset<Row> frame, int numFeatures, String labelNote,
    String featuresCol, List<String> inputColumns, String weightCol, List<String> featureNames) {

  public LabeledData {
    inputColumns = List.copyOf(inputColumns);
    featureNames = List.copyOf(featureNames);
  }

  /** Data without weights or feature names. */
  public LabeledData(Dataset<Row> frame, int numFeatures, String labelNote, String featuresCol,
      List<String> inputColumns) {
    this(frame, numFeatures, labelNote, featuresCol, inputColumns, "", List.of());
  }

  /** Training or evaluation data: columns {@code label} and {@code features}. */
  public LabeledData(Dataset<Row> frame, int numFeatures, String labelNote) {
    this(frame, numFeatures, labelNote, "features", List.of("label", "features"));
  }

  /** The same data, whose frame has the sample weight column {@code column}. */
  LabeledData withWeightCol(String column) {
    return new LabeledData(frame, numFeatures, labelNote, featuresCol, inputColumns, column,
        featureNames);
  }

  /** The same data, whose features are the input's columns {@code names}, in vector order. */
  LabeledData withFeatureNames(List<String> names) {
    return new LabeledData(frame, numFeatures, labelNote, featuresCol, inputColumns, weightCol,
        names);
  }
}
