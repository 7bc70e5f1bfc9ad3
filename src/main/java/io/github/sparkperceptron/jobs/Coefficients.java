package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.linalg.Matrix;

/**
 * A model's learned weights as a user reads them: each feature by the name it has in the input (a
 * CSV or Parquet column) or else by its index as the input counts it (1-based in LIBSVM files,
 * 0-based positions in a Parquet vector column). The report shows the largest by magnitude; the
 * metrics JSON has all of them. A binary model has one weight vector and intercept; a multiclass
 * model one per class. A voted model's weights are its averaged weights (the vote's linear
 * summary), as {@link PerceptronClassificationModel#coefficients()} says.
 */
final class Coefficients {
  /** The features' names, in vector order. */
  final String[] features;
  /** weights[k][j]: class k's weight of feature j (one row for a binary model). */
  final double[][] weights;
  final double[] intercepts;

  private Coefficients(String[] features, double[][] weights, double[] intercepts) {
    this.features = features;
    this.weights = weights;
    this.intercepts = intercepts;
  }

  /**
   * @param names the input's feature column names, or empty when the input held vectors
   * @param firstIndex what the input calls the first feature of a vector: 1 (LIBSVM) or 0
   */
  static Coefficients of(PerceptronClassificationModel model, List<String> names, int firstIndex) {
    int d = model.numFeatures();
    String[] features = new String[d];
    for (int j = 0; j < d; j++) {
      features[j] = names.size() == d ? names.get(j) : String.valueOf(j + firstIndex);
    }
    Matrix m = model.coefficientMatrix();
    double[][] weights = new double[m.numRows()][d];
    for (int k = 0; k < weights.length; k++) {
      for (int j = 0; j < d; j++) {
        weights[k][j] = m.apply(k, j);
      }
    }
    return new Coefficients(features, weights, model.interceptVector().toArray());
  }

  /** How many weights there are: features × classes (× 1 for a binary model). */
  long count() {
    return (long) weights.length * features.length;
  }

  boolean binary() {
    return weights.length == 1;
  }

  /**
   * The {@code n} weights of largest magnitude, per class for a multiclass model, as
   * "name weight" pairs: a line for a binary model, a line per class otherwise.
   */
  String describeLargest(int n) {
    StringBuilder sb = new StringBuilder();
    int shown = Math.min(n, features.length);
    if (binary()) {
      sb.append(String.format(Locale.ROOT, "Largest weights (%d of %,d features; intercept %.4g):",
          shown, features.length, intercepts[0]));
      appendLargest(sb, weights[0], shown);
      return sb.append('\n').toString();
    }
    sb.append(String.format(Locale.ROOT, "Largest weights per class (%d of %,d features):%n",
        shown, features.length));
    for (int k = 0; k < weights.length; k++) {
      sb.append(String.format(Locale.ROOT, "  class %d (intercept %.4g):", k, intercepts[k]));
      appendLargest(sb, weights[k], shown);
      sb.append('\n');
    }
    return sb.toString();
  }

  private void appendLargest(StringBuilder sb, double[] w, int n) {
    Integer[] order = new Integer[w.length];
    for (int j = 0; j < w.length; j++) {
      order[j] = j;
    }
    // Largest magnitude first; ties in feature order, so the report is the same on every run.
    Arrays.sort(order, Comparator.comparingDouble((Integer j) -> -Math.abs(w[j]))
        .thenComparingInt(j -> j));
    for (int i = 0; i < n; i++) {
      int j = order[i];
      sb.append(String.format(Locale.ROOT, "%s %s %.4g", i == 0 ? "" : ",", features[j], w[j]));
    }
  }

  /**
   * At most this many weights go into the metrics JSON (about 20 MB of text); a larger model's
   * are in the saved model, which says so instead.
   */
  static final long MAX_IN_JSON = 1_000_000;

  /**
   * {"features": [names], "intercept": b, "weights": [w]} for a binary model;
   * {"features": [names], "intercepts": [b per class], "weights": [[w] per class]} otherwise;
   * {"omitted": "..."} beyond {@link #MAX_IN_JSON} weights.
   */
  void writeTo(ObjectNode node) {
    if (count() > MAX_IN_JSON) {
      node.put("omitted", String.format(Locale.ROOT, "%,d weights, more than the %,d written"
          + " here; PerceptronClassificationModel.load(model).coefficientMatrix() has them all",
          count(), MAX_IN_JSON));
      return;
    }
    ArrayNode names = node.putArray("features");
    for (String f : features) {
      names.add(f);
    }
    if (binary()) {
      Json.putNumber(node, "intercept", intercepts[0]);
      putAll(node.putArray("weights"), weights[0]);
      return;
    }
    putAll(node.putArray("intercepts"), intercepts);
    ArrayNode rows = node.putArray("weights");
    for (double[] row : weights) {
      putAll(rows.addArray(), row);
    }
  }

  private static void putAll(ArrayNode array, double[] values) {
    for (double v : values) {
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        array.addNull();
      } else {
        array.add(v);
      }
    }
  }
}
