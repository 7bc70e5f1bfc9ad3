package io.github.sparkperceptron.internal.kernel;

import java.util.Objects;

/**
 * Sparse rows in compressed sparse row (CSR) form: row r owns entries
 * {@code rowStart[r] .. rowStart[r+1]-1} of {@code indices} and {@code values}, indices strictly
 * increasing within a row. Costs 12 bytes per stored value plus 4 per row.
 */
final class CsrFeatureBlock extends FeatureBlock {
  private static final long serialVersionUID = 1L;

  private final int numFeatures;
  private final int[] rowStart;
  private final int[] indices;
  private final double[] values;

  /**
   * Wraps the arrays without copying; the caller hands them over.
   *
   * @throws IllegalArgumentException if the arrays do not describe {@code rowStart.length - 1}
   *     rows of {@code numFeatures} features
   */
  public CsrFeatureBlock(int numFeatures, int[] rowStart, int[] indices, double[] values) {
    this.numFeatures = numFeatures;
    this.rowStart = Objects.requireNonNull(rowStart, "rowStart");
    this.indices = Objects.requireNonNull(indices, "indices");
    this.values = Objects.requireNonNull(values, "values");
    int nnz = rowStart[rowStart.length - 1];
    if (rowStart[0] != 0 || nnz > indices.length || nnz > values.length) {
      throw new IllegalArgumentException("inconsistent CSR arrays: rowStart[0]=" + rowStart[0]
          + ", rowStart[last]=" + nnz + ", indices=" + indices.length + ", values=" + values.length);
    }
  }

  /** The same rows, said to be {@code width} features wide (the arrays are shared). */
  CsrFeatureBlock withNumFeatures(int width) {
    return new CsrFeatureBlock(width, rowStart, indices, values);
  }

  @Override
  public int numRows() {
    return rowStart.length - 1;
  }

  @Override
  public int numFeatures() {
    return numFeatures;
  }

  @Override
  public long storedValues() {
    return rowStart[rowStart.length - 1];
  }

  @Override
  public double dot(int row, double[] w, int offset) {
    final int[] idx = indices;
    final double[] val = values;
    final int end = rowStart[row + 1];
    double sum = 0.0;
    for (int k = rowStart[row]; k < end; k++) {
      sum += val[k] * w[offset + idx[k]];
    }
    return sum;
  }

  @Override
  public void addScaled(int row, double alpha, double[] w, int offset) {
    final int[] idx = indices;
    final double[] val = values;
    final int end = rowStart[row + 1];
    for (int k = rowStart[row]; k < end; k++) {
      w[offset + idx[k]] += alpha * val[k];
    }
  }

  @Override
  public void addScaledTwice(int row, double alpha, double[] w, double beta, double[] u,
      int offset) {
    final int[] idx = indices;
    final double[] val = values;
    final int end = rowStart[row + 1];
    for (int k = rowStart[row]; k < end; k++) {
      int j = offset + idx[k];
      double v = val[k];
      w[j] += alpha * v;
      u[j] += beta * v;
    }
  }

  @Override
  public void dotClasses(int row, double[] w, int numClasses, double[] sums) {
    ClassSums.sparse(indices, values, rowStart[row], rowStart[row + 1], w, numClasses, sums);
  }

  @Override
  public void addScaledToPair(int row, double alpha, double[] w, int stride, int up, int down) {
    final int[] idx = indices;
    final double[] val = values;
    final double negAlpha = -alpha;
    final int end = rowStart[row + 1];
    for (int k = rowStart[row]; k < end; k++) {
      final int base = idx[k] * stride;
      final double v = val[k];
      w[base + up] += alpha * v;
      w[base + down] += negAlpha * v;
    }
  }

  @Override
  public void addScaledTwiceToPair(int row, double alpha, double[] w, double beta, double[] u,
      int stride, int up, int down) {
    final int[] idx = indices;
    final double[] val = values;
    final double negAlpha = -alpha;
    final double negBeta = -beta;
    final int end = rowStart[row + 1];
    for (int k = rowStart[row]; k < end; k++) {
      final int base = idx[k] * stride;
      final double v = val[k];
      w[base + up] += alpha * v;
      u[base + up] += beta * v;
      w[base + down] += negAlpha * v;
      u[base + down] += negBeta * v;
    }
  }

  @Override
  public void markStoredPair(int row, TouchedSet touched, int stride, int up, int down) {
    final int[] idx = indices;
    final int end = rowStart[row + 1];
    for (int k = rowStart[row]; k < end; k++) {
      final int base = idx[k] * stride;
      touched.mark(base + up);
      touched.mark(base + down);
    }
  }

  @Override
  public double touch(int row) {
    final int start = rowStart[row];
    final int end = rowStart[row + 1];
    if (end == start) {
      return 0.0;
    }
    // 8 doubles or 16 ints fill a line: a step of 8 reads every line of values, indices alike.
    double sum = values[end - 1] + indices[end - 1];
    for (int k = start; k < end; k += 8) {
      sum += values[k] + indices[k];
    }
    return sum;
  }

  @Override
  public void markStored(int row, TouchedSet touched, int offset) {
    final int[] idx = indices;
    final int end = rowStart[row + 1];
    for (int k = rowStart[row]; k < end; k++) {
      touched.mark(offset + idx[k]);
    }
  }

  @Override
  public double squaredNorm(int row) {
    final double[] val = values;
    final int end = rowStart[row + 1];
    double sum = 0.0;
    for (int k = rowStart[row]; k < end; k++) {
      sum += val[k] * val[k];
    }
    return sum;
  }

  @Override
  public void forEachStored(int row, EntryVisitor visitor) {
    for (int k = rowStart[row]; k < rowStart[row + 1]; k++) {
      visitor.accept(indices[k], values[k]);
    }
  }

  @Override
  public int copyRow(int row, int[] rowIndices, double[] rowValues) {
    int from = rowStart[row];
    int n = rowStart[row + 1] - from;
    System.arraycopy(indices, from, rowIndices, 0, n);
    System.arraycopy(values, from, rowValues, 0, n);
    return n;
  }

  @Override
  public int maxStoredPerRow() {
    int most = 0;
    for (int r = 0; r + 1 < rowStart.length; r++) {
      most = Math.max(most, rowStart[r + 1] - rowStart[r]);
    }
    return most;
  }

  @Override
  public long sizeInBytes() {
    return 4L * rowStart.length + 4L * indices.length + 8L * values.length;
  }
}
