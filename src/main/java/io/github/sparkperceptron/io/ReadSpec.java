package io.github.sparkperceptron.io;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * What a reader should make of a file: which columns hold the label and the features (CSV and
 * Parquet), how many features and classes the rows must fit (a model's, or −1 to learn them from
 * the data), and whether the labels are class indices to check or merely passed through (for
 * predictions). Immutable; the {@code with} methods return changed copies.
 */
public final class ReadSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String labelCol;
  private final String[] featureCols;
  private final String featuresCol;
  private final int numFeatures;
  private final int numClasses;
  private final boolean labelsChecked;
  private final String widthSource;
  private final String weightCol;

  private ReadSpec(String labelCol, String[] featureCols, String featuresCol, int numFeatures,
      int numClasses, boolean labelsChecked, String widthSource, String weightCol) {
    this.labelCol = labelCol;
    this.featureCols = featureCols;
    this.featuresCol = featuresCol;
    this.numFeatures = numFeatures;
    this.numClasses = numClasses;
    this.labelsChecked = labelsChecked;
    this.widthSource = widthSource;
    this.weightCol = weightCol;
  }

  /**
   * Labelled data for training or evaluation: label column {@code label}, features in every other
   * column (CSV) or in the vector column {@code features} (Parquet), widths learnt from the data.
   */
  public static ReadSpec labelled() {
    return new ReadSpec("label", new String[0], "features", -1, -1, true, "", "");
  }

  public ReadSpec withLabelCol(String column) {
    return new ReadSpec(column, featureCols, featuresCol, numFeatures, numClasses, labelsChecked,
        widthSource, weightCol);
  }

  /** Numeric feature columns in vector order (CSV, Parquet); empty for the format's default. */
  public ReadSpec withFeatureCols(List<String> columns) {
    return new ReadSpec(labelCol, columns.toArray(new String[0]), featuresCol, numFeatures,
        numClasses, labelsChecked, widthSource, weightCol);
  }

  /** The vector column of Parquet input, used when no feature columns are named. */
  public ReadSpec withFeaturesCol(String column) {
    return new ReadSpec(labelCol, featureCols, column, numFeatures, numClasses, labelsChecked,
        widthSource, weightCol);
  }

  /**
   * The number of features every row must have.
   *
   * @param source whose width it is, for messages: "the model", "the training data"
   */
  public ReadSpec withNumFeatures(int count, String source) {
    return new ReadSpec(labelCol, featureCols, featuresCol, count, numClasses, labelsChecked,
        source, weightCol);
  }

  /** The model's number of classes: labels must then be below it. */
  public ReadSpec withNumClasses(int count) {
    return new ReadSpec(labelCol, featureCols, featuresCol, numFeatures, count, labelsChecked,
        widthSource, weightCol);
  }

  /**
   * Labels passed through unchecked and unmapped, and optional in CSV and Parquet input: the
   * data are only to be scored.
   */
  public ReadSpec withLabelsPassedThrough() {
    return new ReadSpec(labelCol, featureCols, featuresCol, numFeatures, numClasses, false,
        widthSource, weightCol);
  }

  /**
   * A numeric column of sample weights to keep beside the label and features (CSV and Parquet
   * training data), or the empty string for none. It is neither the label nor a feature.
   */
  public ReadSpec withWeightCol(String column) {
    return new ReadSpec(labelCol, featureCols, featuresCol, numFeatures, numClasses, labelsChecked,
        widthSource, column == null ? "" : column);
  }

  /** The sample weight column, or the empty string for none. */
  public String weightCol() {
    return weightCol;
  }

  public String labelCol() {
    return labelCol;
  }

  public List<String> featureCols() {
    return List.of(featureCols);
  }

  public String featuresCol() {
    return featuresCol;
  }

  /** The required number of features, or −1 to take it from the data. */
  public int numFeatures() {
    return numFeatures;
  }

  /** The number of classes labels must fit, or −1 when only class-index form is checked. */
  public int numClasses() {
    return numClasses;
  }

  /** Whether labels are class indices to check (and −1/+1 files mapped to 0/1). */
  public boolean labelsChecked() {
    return labelsChecked;
  }

  /** Whose feature count {@link #numFeatures()} is, for messages; empty when inferred. */
  String widthSource() {
    return widthSource.isEmpty() ? "the model or training data" : widthSource;
  }

  @Override
  public String toString() {
    return "ReadSpec[labelCol=" + labelCol + ", featureCols=" + Arrays.toString(featureCols)
        + ", featuresCol=" + featuresCol + ", numFeatures=" + numFeatures + ", numClasses="
        + numClasses + ", labelsChecked=" + labelsChecked + ", weightCol=" + weightCol + "]";
  }
}
