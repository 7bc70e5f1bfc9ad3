package io.github.sparkperceptron.internal.kernel;

import java.util.Objects;

/**
 * Dense rows stored row after row: row r is {@code values[r*d .. r*d+d-1]}. Chosen over CSR when
 * at least two thirds of the entries are non-zero, where 8 bytes per entry beat 12 per non-zero.
 */
public final class DenseFeatureBlock extends FeatureBlock {
  private static final long serialVersionUID = 1L;

  private final int numRows;
  private final int numFeatures;
  private final double[] values;

  /** Wraps {@code values} (length {@code numRows * numFeatures}) without copying. */
  public DenseFeatureBlock(int numRows, int numFeatures, double[] values) {
    this.numRows = numRows;
    this.numFeatures = numFeatures;
    this.values = Objects.requireNonNull(values, "values");
    if ((long) numRows * numFeatures != values.length) {
      throw new IllegalArgumentException("dense block of " + numRows + " x " + numFeatures
          + " needs " + ((long) numRows * numFeatures) + " values, got " + values.length);
    }
  }

  @Override
  public int numRows() {
    return numRows;
  }

  @Override
  public int numFeatures() {
    return numFeatures;
  }

  @Override
  public long storedValues() {
    return values.length;
  }

  @Override
  public double dot(int row, double[] w, int offset) {
    final double[] val = values;
    final int d = numFeatures;
    final int base = row * d;
    double sum = 0.0;
    for (int j = 0; j < d; j++) {
      sum += val[base + j] * w[offset + j];
    }
    return sum;
  }

  @Override
  public void addScaled(int row, double alpha, double[] w, int offset) {
    final double[] val = values;
    final int d = numFeatures;
    final int base = row * d;
    for (int j = 0; j < d; j++) {
      w[offset + j] += alpha * val[base + j];
    }
  }

  @Override
  public void addScaledTwice(int row, double alpha, double[] w, double beta, double[] u,
      int offset) {
    final double[] val = values;
    final int d = numFeatures;
    final int base = row * d;
    for (int j = 0; j < d; j++) {
      double v = val[base + j];
      w[offset + j] += alpha * v;
      u[offset + j] += beta * v;
    }
  }

  @Override
  public void dotClasses(int row, double[] w, int numClasses, double[] sums) {
    ClassSums.dense(values, row * numFeatures, numFeatures, w, numClasses, sums);
  }

  @Override
  public void addScaledToPair(int row, double alpha, double[] w, int stride, int up, int down) {
    final double[] val = values;
    final int d = numFeatures;
    final int rowBase = row * d;
    final double negAlpha = -alpha;
    for (int j = 0; j < d; j++) {
      final int base = j * stride;
      final double v = val[rowBase + j];
      w[base + up] += alpha * v;
      w[base + down] += negAlpha * v;
    }
  }

  @Override
  public void addScaledTwiceToPair(int row, double alpha, double[] w, double beta, double[] u,
      int stride, int up, int down) {
    final double[] val = values;
    final int d = numFeatures;
    final int rowBase = row * d;
    final double negAlpha = -alpha;
    final double negBeta = -beta;
    for (int j = 0; j < d; j++) {
      final int base = j * stride;
      final double v = val[rowBase + j];
      w[base + up] += alpha * v;
      u[base + up] += beta * v;
      w[base + down] += negAlpha * v;
      u[base + down] += negBeta * v;
    }
  }

  @Override
  public void markStoredPair(int row, TouchedSet touched, int stride, int up, int down) {
    for (int j = 0; j < numFeatures; j++) {
      touched.mark(j * stride + up);
      touched.mark(j * stride + down);
    }
  }

  @Override
  public double touch(int row) {
    final double[] val = values;
    final int d = numFeatures;
    final int base = row * d;
    if (d == 0) {
      return 0.0;
    }
    double sum = val[base + d - 1];
    for (int j = 0; j < d; j += 8) {
      sum += val[base + j];
    }
    return sum;
  }

  @Override
  public void markStored(int row, TouchedSet touched, int offset) {
    touched.markRange(offset, offset + numFeatures);
  }

  @Override
  public double squaredNorm(int row) {
    final double[] val = values;
    final int d = numFeatures;
    final int base = row * d;
    double sum = 0.0;
    for (int j = 0; j < d; j++) {
      sum += val[base + j] * val[base + j];
    }
    return sum;
  }

  @Override
  public void forEachStored(int row, EntryVisitor visitor) {
    final int base = row * numFeatures;
    for (int j = 0; j < numFeatures; j++) {
      visitor.accept(j, values[base + j]);
    }
  }

  @Override
  public int copyRow(int row, int[] rowIndices, double[] rowValues) {
    final int base = row * numFeatures;
    int n = 0;
    for (int j = 0; j < numFeatures; j++) {
      if (values[base + j] != 0.0) {
        rowIndices[n] = j;
        rowValues[n] = values[base + j];
        n++;
      }
    }
    return n;
  }

  @Override
  public int maxStoredPerRow() {
    return numRows() == 0 ? 0 : numFeatures;
  }

  @Override
  public long sizeInBytes() {
    return 8L * values.length;
  }
}
