package io.github.sparkperceptron.internal.io;

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

  // Not final only so that the with-methods can change a fresh copy; never changed after.
  private String labelCol = "label";
  private String[] featureCols = new String[0];
  private String featuresCol = "features";
  private int numFeatures = -1;
  private int numClasses = -1;
  private boolean labelsChecked = true;
  private String widthSource = "";
  private String weightCol = "";

  private ReadSpec() {
  }

  private ReadSpec copy() {
    ReadSpec c = new ReadSpec();
    c.labelCol = labelCol;
    c.featureCols = featureCols;
    c.featuresCol = featuresCol;
    c.numFeatures = numFeatures;
    c.numClasses = numClasses;
    c.labelsChecked = labelsChecked;
    c.widthSource = widthSource;
    c.weightCol = weightCol;
    return c;
  }

  /**
   * Labelled data for training or evaluation: label column {@code label}, features in every other
   * column (CSV) or in the vector column {@code features} (Parquet), widths learnt from the data.
   */
  public static ReadSpec labelled() {
    return new ReadSpec();
  }

  public ReadSpec withLabelCol(String column) {
    ReadSpec c = copy();
    c.labelCol = column;
    return c;
  }

  /** Numeric feature columns in vector order (CSV, Parquet); empty for the format's default. */
  public ReadSpec withFeatureCols(List<String> columns) {
    ReadSpec c = copy();
    c.featureCols = columns.toArray(new String[0]);
    return c;
  }

  /** The vector column of Parquet input, used when no feature columns are named. */
  public ReadSpec withFeaturesCol(String column) {
    ReadSpec c = copy();
    c.featuresCol = column;
    return c;
  }

  /**
   * The number of features every row must have.
   *
   * @param source whose width it is, for messages: "the model", "the training data"
   */
  public ReadSpec withNumFeatures(int count, String source) {
    ReadSpec c = copy();
    c.numFeatures = count;
    c.widthSource = source;
    return c;
  }

  /** The model's number of classes: labels must then be below it. */
  public ReadSpec withNumClasses(int count) {
    ReadSpec c = copy();
    c.numClasses = count;
    return c;
  }

  /**
   * Labels passed through unchecked and unmapped, and optional in CSV and Parquet input: the
   * data are only to be scored.
   */
  public ReadSpec withLabelsPassedThrough() {
    ReadSpec c = copy();
    c.labelsChecked = false;
    return c;
  }

  /**
   * A numeric column of sample weights to keep beside the label and features (CSV and Parquet
   * training data), or the empty string for none. It is neither the label nor a feature.
   */
  public ReadSpec withWeightCol(String column) {
    ReadSpec c = copy();
    c.weightCol = column == null ? "" : column;
    return c;
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
