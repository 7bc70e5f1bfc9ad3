package io.github.sparkperceptron.internal.kernel;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Accumulates rows (sparse or dense) into one {@link TrainingBlock}, choosing CSR or dense storage
 * by density when the block is built. Growth doubles the arrays, so appending is amortised O(1)
 * per value; {@link #build()} trims them to size.
 */
public final class TrainingBlockBuilder {
  /** Dense storage pays off when stored non-zeros reach this share of the n × d entries. */
  private static final double DENSE_SHARE = 2.0 / 3.0;

  private int numFeatures;
  /** The largest feature index added, or −1. */
  private int maxIndex = -1;
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
   * Sets the width of the rows, for rows added before it was known (a LIBSVM file's largest index
   * is known only once every line is read). Only the storage choice of {@link #build} and the
   * dense rows added after it depend on the width.
   *
   * @throws IllegalArgumentException if a row added so far has an index at or above it
   */
  public void setNumFeatures(int width) {
    if (width <= maxIndex) {
      throw new IllegalArgumentException("a row has feature index " + maxIndex
          + ", beyond a width of " + width);
    }
    this.numFeatures = width;
  }

  /**
   * Bytes the rows added so far take in sparse (CSR) form: what a chunk of rows is measured by
   * (a dense block of the same rows takes at most 1.5 times as much).
   */
  public long storedBytes() {
    return 4L * (numRows + 1) + 12L * nnz + 4L * numRows + (weights == null ? 0 : 8L * numRows);
  }

  /** The stored values (non-zeros) added so far. */
  public int storedValues() {
    return nnz;
  }

  /** The largest feature index stored so far, or −1. */
  public int maxIndex() {
    return maxIndex;
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
    if (length > 0 && rowIndices[length - 1] > maxIndex) {
      maxIndex = rowIndices[length - 1];
    }
    endRow(label, weight);
  }

  /** Appends a dense row of {@code numFeatures} values; zeros are dropped. */
  public void addDense(int label, double weight, double[] rowValues) {
    ensureEntries(numFeatures);
    maxIndex = Math.max(maxIndex, numFeatures - 1);
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
      throw new IllegalStateException("a worker holds more than " + (Integer.MAX_VALUE - 8)
          + " non-zeros; train on more workers (numWorkers), each of which then holds fewer");
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

  /** Builds the block, rows in the order they were added; the builder is done afterwards. */
  public TrainingBlock build() {
    return build(null);
  }

  /**
   * Builds the block with its rows stored in the order {@code layout}: stored row i is the
   * {@code layout[i]}-th row added ({@code null}: the order they were added). The builder must
   * not be used afterwards.
   *
   * <p>Memory: the permuted arrays are the trimmed copies that {@link #build()} makes anyway, so
   * a layout adds only the {@code int[n]} of the layout itself to the builder's peak.
   *
   * @throws IllegalArgumentException if {@code layout} is not a permutation of the rows
   */
  public TrainingBlock build(int[] layout) {
    return build(layout, false);
  }

  /**
   * {@link #build(int[])} with the rows numbered by the block's own features: a CSR block's
   * indices become 0 .. m−1 over the m distinct features it holds, in increasing global order
   * ({@link LocalFeatures#renumber}), and the block keeps the map. A dense block keeps its d
   * columns (identity map): its kernel adds 0·w for every column, and dropping the all-zero ones
   * could turn a NaN margin into a finite one. The storage choice (CSR or dense) is the one
   * {@link #build(int[])} makes, so every sum and update of the kernel is the same, bit for bit.
   */
  public TrainingBlock buildLocal(int[] layout) {
    return build(layout, true);
  }

  private TrainingBlock build(int[] layout, boolean local) {
    if (layout != null) {
      requirePermutation(layout, numRows);
    }
    int[] finalLabels = new int[numRows];
    double[] finalWeights = weights == null ? null : new double[numRows];
    for (int i = 0; i < numRows; i++) {
      int from = layout == null ? i : layout[i];
      finalLabels[i] = labels[from];
      if (finalWeights != null) {
        finalWeights[i] = weights[from];
      }
    }
    long cells = (long) numRows * numFeatures;
    FeatureBlock features;
    LocalFeatures map = null;
    if (numRows > 0 && cells <= Integer.MAX_VALUE - 8 && nnz >= DENSE_SHARE * cells) {
      double[] dense = new double[(int) cells];
      for (int r = 0; r < numRows; r++) {
        int from = layout == null ? r : layout[r];
        int base = r * numFeatures;
        for (int k = rowStart[from]; k < rowStart[from + 1]; k++) {
          dense[base + indices[k]] = values[k];
        }
      }
      features = new DenseFeatureBlock(numRows, numFeatures, dense);
      map = local ? LocalFeatures.identity(numFeatures) : null;
    } else if (layout == null) {
      int[] idx = Arrays.copyOf(indices, nnz);
      map = local ? LocalFeatures.renumber(numFeatures, idx, nnz) : null;
      features = new CsrFeatureBlock(local ? map.size() : numFeatures,
          Arrays.copyOf(rowStart, numRows + 1), idx, Arrays.copyOf(values, nnz));
    } else {
      int[] start = new int[numRows + 1];
      int[] idx = new int[nnz];
      double[] val = new double[nnz];
      for (int r = 0; r < numRows; r++) {
        int from = rowStart[layout[r]];
        int length = rowStart[layout[r] + 1] - from;
        System.arraycopy(indices, from, idx, start[r], length);
        System.arraycopy(values, from, val, start[r], length);
        start[r + 1] = start[r] + length;
      }
      map = local ? LocalFeatures.renumber(numFeatures, idx, nnz) : null;
      features = new CsrFeatureBlock(local ? map.size() : numFeatures, start, idx, val);
    }
    indices = null;
    values = null;
    return new TrainingBlock(features, finalLabels, finalWeights, map);
  }

  private static void requirePermutation(int[] layout, int numRows) {
    if (layout.length != numRows) {
      throw new IllegalArgumentException("a layout of " + layout.length + " rows for a block of "
          + numRows + " rows");
    }
    BitSet seen = new BitSet(numRows);
    for (int r : layout) {
      if (r < 0 || r >= numRows || seen.get(r)) {
        throw new IllegalArgumentException("the layout is not a permutation of 0.." + (numRows - 1)
            + ": " + r + (r < 0 || r >= numRows ? " is out of range" : " appears twice"));
      }
      seen.set(r);
    }
  }
}
