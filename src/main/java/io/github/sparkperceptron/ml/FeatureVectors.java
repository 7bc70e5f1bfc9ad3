package io.github.sparkperceptron.ml;

import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;

/** Dot products between Spark vectors and weight rows, without allocating. */
final class FeatureVectors {
  private FeatureVectors() {
  }

  /** Σ_j x_j · w[offset + j] over the stored entries of x, in increasing index order. */
  static double dot(Vector x, double[] w, int offset) {
    double sum = 0.0;
    if (x instanceof DenseVector) {
      double[] v = ((DenseVector) x).values();
      for (int j = 0; j < v.length; j++) {
        sum += v[j] * w[offset + j];
      }
    } else {
      SparseVector sv = (SparseVector) x;
      int[] idx = sv.indices();
      double[] v = sv.values();
      for (int k = 0; k < idx.length; k++) {
        sum += v[k] * w[offset + idx[k]];
      }
    }
    return sum;
  }
}
