package io.github.sparkperceptron.internal.io;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which fields of a CSV file's lines hold the label and the features, resolved once on the
 * driver from the header row and a {@link ReadSpec}, then shipped to the executors.
 */
final class CsvLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The header's column names, in file order. */
  final String[] names;
  /** The label's field, or −1 (predictions from unlabelled data). */
  final int labelIndex;
  /** The features' fields, in vector order. */
  final int[] featureIndices;
  /** The sample weight's field, or −1 (no weight column). */
  final int weightIndex;

  private CsvLayout(String[] names, int labelIndex, int[] featureIndices, int weightIndex) {
    this.names = names;
    this.labelIndex = labelIndex;
    this.featureIndices = featureIndices;
    this.weightIndex = weightIndex;
  }

  /**
   * Resolves the header row.
   *
   * @throws IllegalArgumentException with the reason (no place) when the header does not fit
   */
  static CsvLayout of(String header, ReadSpec spec) {
    CsvParser parser = new CsvParser();
    String error = parser.split(header);
    if (error != null) {
      throw new IllegalArgumentException("the header row is not valid CSV: " + error);
    }
    if (parser.isBlank()) {
      throw new IllegalArgumentException("the header row is empty; the first line of a CSV file"
          + " must name its columns");
    }
    String[] names = new String[parser.size()];
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.length; i++) {
      names[i] = parser.field(i);
      if (names[i].isEmpty()) {
        throw new IllegalArgumentException("column " + (i + 1) + " of the header row has no name");
      }
      if (!seen.add(names[i])) {
        throw new IllegalArgumentException("the header row names column '"
            + NumberText.shown(names[i]) + "' twice");
      }
    }
    List<String> columns = Arrays.asList(names);
    int label = columns.indexOf(spec.labelCol());
    if (label < 0 && spec.labelsChecked()) {
      throw new IllegalArgumentException("the header row has no label column '"
          + spec.labelCol() + "' (--label-col); its columns are " + shownList(columns));
    }
    int weight = -1;
    if (!spec.weightCol().isEmpty()) {
      weight = columns.indexOf(spec.weightCol());
      if (weight < 0) {
        throw new IllegalArgumentException("the header row has no weight column '"
            + spec.weightCol() + "' (--weight-col); its columns are " + shownList(columns));
      }
      if (weight == label) {
        throw new IllegalArgumentException("column '" + spec.weightCol() + "' is the label"
            + " (--label-col) and may not also be the weight (--weight-col)");
      }
      if (spec.featureCols().contains(spec.weightCol())) {
        throw new IllegalArgumentException("column '" + spec.weightCol() + "' is the weight"
            + " (--weight-col) and may not also be a feature (--feature-cols)");
      }
    }
    List<Integer> features = new ArrayList<>();
    if (spec.featureCols().isEmpty()) {
      for (int i = 0; i < names.length; i++) {
        if (i != label && i != weight) {
          features.add(i);
        }
      }
      if (features.isEmpty()) {
        throw new IllegalArgumentException("the header row has no column besides the label '"
            + spec.labelCol() + "'" + (weight < 0 ? "" : " and the weight '" + spec.weightCol()
            + "'") + ", so there are no features");
      }
    } else {
      for (String f : spec.featureCols()) {
        int i = columns.indexOf(f);
        if (i < 0) {
          throw new IllegalArgumentException("the header row has no feature column '" + f
              + "' (--feature-cols); its columns are " + shownList(columns));
        }
        if (i == label) {
          throw new IllegalArgumentException("column '" + f + "' is the label (--label-col) and"
              + " may not also be a feature (--feature-cols)");
        }
        if (features.contains(i)) {
          throw new IllegalArgumentException("feature column '" + f + "' is named twice in"
              + " --feature-cols");
        }
        features.add(i);
      }
    }
    if (spec.numFeatures() >= 0 && features.size() != spec.numFeatures()) {
      throw new IllegalArgumentException("there are " + features.size() + " feature columns, but"
          + " " + spec.widthSource() + " has " + spec.numFeatures() + " features; name the"
          + " same feature columns as in training (--feature-cols)");
    }
    int[] featureIndices = new int[features.size()];
    for (int k = 0; k < featureIndices.length; k++) {
      featureIndices[k] = features.get(k);
    }
    return new CsvLayout(names, label, featureIndices, weight);
  }

  private static String shownList(List<String> columns) {
    List<String> shown = new ArrayList<>();
    for (String c : columns.subList(0, Math.min(columns.size(), 20))) {
      shown.add(NumberText.shown(c));
    }
    return shown + (columns.size() > 20 ? " (first 20 of " + columns.size() + ")" : "");
  }

  /** The names of the feature columns, in vector order. */
  List<String> featureNames() {
    List<String> out = new ArrayList<>();
    for (int f : featureIndices) {
      out.add(names[f]);
    }
    return out;
  }

  /** Whether field {@code i} is a feature. */
  boolean isFeature(int i) {
    for (int f : featureIndices) {
      if (f == i) {
        return true;
      }
    }
    return false;
  }
}
