package io.github.sparkperceptron.internal.evaluation;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One partition's confusion matrix as it is counted: C[label][prediction] += weight per row.
 * Dense (K² doubles) for up to {@value #DENSE_CLASSES} classes; above, only the cells that occur,
 * in an open-addressing table keyed by label·K + prediction (the rows of a partition meet far
 * fewer than K² cells when K is large). Adding a row allocates only when the table grows.
 */
public final class ConfusionCounts implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Up to this many classes the matrix is dense. */
  static final int DENSE_CLASSES = 64;

  private final int numClasses;
  /** Dense: K² cells, row-major; {@code null} when sparse. */
  private final double[] dense;
  /** Sparse: the cells' keys (−1 for a free slot) and weights. */
  private long[] keys;
  private double[] weights;
  private int used;

  public ConfusionCounts(int numClasses) {
    this.numClasses = numClasses;
    if (numClasses <= DENSE_CLASSES) {
      dense = new double[numClasses * numClasses];
    } else {
      dense = null;
      keys = new long[64];
      Arrays.fill(keys, -1L);
      weights = new double[64];
    }
  }

  /** Adds a row of class {@code label} predicted as {@code prediction}, both in 0 .. K−1. */
  public void add(int label, int prediction, double weight) {
    if (dense != null) {
      dense[label * numClasses + prediction] += weight;
      return;
    }
    long key = (long) label * numClasses + prediction;
    int slot = slot(keys, key);
    if (keys[slot] < 0) {
      keys[slot] = key;
      if (++used * 2 > keys.length) {
        grow();
        slot = slot(keys, key);
      }
    }
    weights[slot] += weight;
  }

  private static int slot(long[] table, long key) {
    int mask = table.length - 1;
    int i = (int) (key * 0x9E3779B97F4A7C15L >>> 40) & mask;
    while (table[i] >= 0 && table[i] != key) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void grow() {
    long[] oldKeys = keys;
    double[] oldWeights = weights;
    keys = new long[oldKeys.length * 2];
    Arrays.fill(keys, -1L);
    weights = new double[keys.length];
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] >= 0) {
        int slot = slot(keys, oldKeys[i]);
        keys[slot] = oldKeys[i];
        weights[slot] = oldWeights[i];
      }
    }
  }

  /** Adds this partition's cells to {@code matrix} ([label][prediction]). */
  public void addTo(double[][] matrix) {
    if (dense != null) {
      for (int i = 0; i < numClasses; i++) {
        for (int j = 0; j < numClasses; j++) {
          matrix[i][j] += dense[i * numClasses + j];
        }
      }
      return;
    }
    for (int s = 0; s < keys.length; s++) {
      if (keys[s] >= 0) {
        matrix[(int) (keys[s] / numClasses)][(int) (keys[s] % numClasses)] += weights[s];
      }
    }
  }
}
