package io.github.sparkperceptron.kernel;

import java.util.Arrays;

/**
 * Accumulates rows (sparse or dense) into one {@link TrainingBlock}, choosing CSR or dense storage
 * by density when the block is built. Growth doubles the arrays, so appending is amortised O(1)
 * per value; {@link #build()} trims them to size.
 */
public final class TrainingBlockBuilder {
  /** Dense storage pays off when stored non-zeros reach this share of the n × d entries. */
  private static final double DENSE_SHARE = 2.0 / 3.0;

  private final int numFeatures;
  private int[] rowStart = new int[17];
  private int[] indices = new int[64];
  private double[] values = new double[64];
  private int[] labels = new int[16];
  private double[] weights;
  private int numRows;
  private int nnz;

  public TrainingBlockBuilder(int numFeatures) {
    if (numFeatures < 0) {
      throw new IllegalArgumentException("numFeatures must be >= 0, got " + numFeatures);
    }
    this.numFeatures = numFeatures;
  }

  public int numRows() {
    return numRows;
  }

  /**
   * Appends a sparse row. Zero values are dropped; indices must be strictly increasing and below
   * {@code numFeatures} (checked by the caller, which can name the offending input row).
   */
  public void addSparse(int label, double weight, int[] rowIndices, double[] rowValues, int length) {
    ensureEntries(length);
    for (int k = 0; k < length; k++) {
      double v = rowValues[k];
      if (v != 0.0) {
        indices[nnz] = rowIndices[k];
        values[nnz] = v;
        nnz++;
      }
    }
    endRow(label, weight);
  }

  /** Appends a dense row of {@code numFeatures} values; zeros are dropped. */
  public void addDense(int label, double weight, double[] rowValues) {
    ensureEntries(numFeatures);
    for (int j = 0; j < numFeatures; j++) {
      double v = rowValues[j];
      if (v != 0.0) {
        indices[nnz] = j;
        values[nnz] = v;
        nnz++;
      }
    }
    endRow(label, weight);
  }

  private void endRow(int label, double weight) {
    if (numRows + 2 > rowStart.length) {
      rowStart = Arrays.copyOf(rowStart, grow(rowStart.length, numRows + 2));
    }
    if (numRows + 1 > labels.length) {
      labels = Arrays.copyOf(labels, grow(labels.length, numRows + 1));
    }
    if (weight != 1.0 && weights == null) {
      weights = new double[labels.length];
      Arrays.fill(weights, 0, numRows, 1.0);
    }
    if (weights != null) {
      if (weights.length < labels.length) {
        weights = Arrays.copyOf(weights, labels.length);
      }
      weights[numRows] = weight;
    }
    labels[numRows] = label;
    numRows++;
    rowStart[numRows] = nnz;
  }

  private void ensureEntries(int more) {
    long needed = (long) nnz + more;
    if (needed > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a partition holds more than " + (Integer.MAX_VALUE - 8)
          + " non-zeros; repartition the input into more partitions");
    }
    if (needed > indices.length) {
      int size = grow(indices.length, (int) needed);
      indices = Arrays.copyOf(indices, size);
      values = Arrays.copyOf(values, size);
    }
  }

  private static int grow(int current, int needed) {
    long doubled = Math.max((long) current * 2, needed);
    return (int) Math.min(doubled, Integer.MAX_VALUE - 8);
  }

  /** Builds the block; the builder must not be used afterwards. */
  public TrainingBlock build() {
    int[] finalLabels = Arrays.copyOf(labels, numRows);
    double[] finalWeights = weights == null ? null : Arrays.copyOf(weights, numRows);
    long cells = (long) numRows * numFeatures;
    FeatureBlock features;
    if (numRows > 0 && cells <= Integer.MAX_VALUE - 8 && nnz >= DENSE_SHARE * cells) {
      double[] dense = new double[(int) cells];
      for (int r = 0; r < numRows; r++) {
        int base = r * numFeatures;
        for (int k = rowStart[r]; k < rowStart[r + 1]; k++) {
          dense[base + indices[k]] = values[k];
        }
      }
      features = new DenseFeatureBlock(numRows, numFeatures, dense);
    } else {
      features = new CsrFeatureBlock(numFeatures, Arrays.copyOf(rowStart, numRows + 1),
          Arrays.copyOf(indices, nnz), Arrays.copyOf(values, nnz));
    }
    indices = null;
    values = null;
    return new TrainingBlock(features, finalLabels, finalWeights);
  }
}
