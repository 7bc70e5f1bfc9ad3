package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
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
  /** The input's feature column names, or empty when the input held vectors. */
  private final List<String> names;
  /** What the input calls the first feature of a vector: 1 (LIBSVM) or 0. */
  private final int firstIndex;
  /** weights[k][j]: class k's weight of feature j (one row for a binary model). */
  final double[][] weights;
  final double[] intercepts;

  private Coefficients(List<String> names, int firstIndex, double[][] weights,
      double[] intercepts) {
    this.names = names;
    this.firstIndex = firstIndex;
    this.weights = weights;
    this.intercepts = intercepts;
  }

  /**
   * @param names the input's feature column names, or empty when the input held vectors
   * @param firstIndex what the input calls the first feature of a vector: 1 (LIBSVM) or 0
   */
  static Coefficients of(PerceptronClassificationModel model, List<String> names, int firstIndex) {
    int d = model.numFeatures();
    Matrix m = model.coefficientMatrix();
    double[][] weights = new double[m.numRows()][d];
    for (int k = 0; k < weights.length; k++) {
      for (int j = 0; j < d; j++) {
        weights[k][j] = m.apply(k, j);
      }
    }
    return new Coefficients(names.size() == d ? names : List.of(), firstIndex, weights,
        model.interceptVector().toArray());
  }

  /** How many features the model has. */
  int numFeatures() {
    return weights[0].length;
  }

  /** Feature {@code j}'s name: its column name, else its index as the input counts it. */
  String name(int j) {
    return names.isEmpty() ? String.valueOf(j + firstIndex) : names.get(j);
  }

  /** How many weights there are: features × classes (× 1 for a binary model). */
  long count() {
    return (long) weights.length * numFeatures();
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
    int shown = Math.min(n, numFeatures());
    if (binary()) {
      sb.append(String.format(Locale.ROOT, "Largest weights (%d of %,d features; intercept %.4g):",
          shown, numFeatures(), intercepts[0]));
      appendLargest(sb, weights[0], shown);
      return sb.append('\n').toString();
    }
    sb.append(String.format(Locale.ROOT, "Largest weights per class (%d of %,d features):%n",
        shown, numFeatures()));
    for (int k = 0; k < weights.length; k++) {
      sb.append(String.format(Locale.ROOT, "  class %d (intercept %.4g):", k, intercepts[k]));
      appendLargest(sb, weights[k], shown);
      sb.append('\n');
    }
    return sb.toString();
  }

  private void appendLargest(StringBuilder sb, double[] w, int n) {
    int[] largest = largest(w, n);
    for (int i = 0; i < n; i++) {
      int j = largest[i];
      sb.append(String.format(Locale.ROOT, "%s %s %.4g", i == 0 ? "" : ",", name(j), w[j]));
    }
  }

  /**
   * The indices of {@code w}'s {@code n} entries of largest magnitude, largest first, ties in
   * feature order (so the report is the same on every run): one pass keeping the n best, no
   * boxed index per feature (a model may have 2^25 of them).
   */
  static int[] largest(double[] w, int n) {
    int[] top = new int[n];
    if (n == 0) {
      return top;
    }
    int kept = 0;
    for (int j = 0; j < w.length; j++) {
      double a = Math.abs(w[j]);
      if (kept == n && !(a > Math.abs(w[top[n - 1]]))) {
        continue;
      }
      // A later feature passes only a strictly larger one: ties stay in feature order.
      int at = kept == n ? n - 1 : kept++;
      while (at > 0 && a > Math.abs(w[top[at - 1]])) {
        top[at] = top[at - 1];
        at--;
      }
      top[at] = j;
    }
    return top;
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
    for (int j = 0; j < numFeatures(); j++) {
      names.add(name(j));
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
