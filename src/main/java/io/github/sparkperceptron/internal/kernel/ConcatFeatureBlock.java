package io.github.sparkperceptron.internal.kernel;

import java.util.Objects;

/**
 * Several blocks' rows seen as one block, one after the other: row r of the view is row
 * {@code r − start[p]} of part p. How a worker's epoch visits the chunks of one window (a
 * {@link VisitOrder} over chunks of its rows, each a Spark block of its own) without copying
 * them: every operation is the part's own, on the part's row, so every sum and update is the
 * part's, bit for bit.
 *
 * <p>A row's part is found from the parts' first rows ({@link #part}): a few comparisons
 * against a small array that stays in the L1 cache. A table per row (its part and its row in it)
 * cost two reads per call from arrays of 8 bytes a row, which a shuffled epoch over tens of MB of
 * rows keeps evicting (BENCHMARKS.md, issue 32). Costs nothing per row or stored value. Not
 * serializable: a view lives inside one task.
 */
final class ConcatFeatureBlock extends FeatureBlock {
  private static final long serialVersionUID = 1L;
  /** Up to this many parts, a row's part is counted in one pass; beyond, searched by halves. */
  private static final int COUNTED_PARTS = 8;

  private final transient FeatureBlock[] parts;
  /** The first row of each part, then the view's row count: parts.length + 1 entries. */
  private final transient int[] start;
  private final int numFeatures;
  private final long storedValues;
  private final long sizeInBytes;
  private final int maxStoredPerRow;

  /**
   * @param parts the blocks, in the view's order, all of {@code numFeatures} features (taken)
   */
  ConcatFeatureBlock(FeatureBlock[] parts, int numFeatures) {
    this.parts = Objects.requireNonNull(parts, "parts");
    int rows = 0;
    long stored = 0;
    long bytes = 0;
    int longest = 0;
    for (FeatureBlock p : parts) {
      if (p.numFeatures() != numFeatures) {
        throw new IllegalArgumentException("a part of " + p.numFeatures() + " features in a view"
            + " of " + numFeatures);
      }
      rows = Math.addExact(rows, p.numRows());
      stored += p.storedValues();
      bytes += p.sizeInBytes();
      longest = Math.max(longest, p.maxStoredPerRow());
    }
    this.start = new int[parts.length + 1];
    for (int p = 0; p < parts.length; p++) {
      start[p + 1] = start[p] + parts[p].numRows();
    }
    this.numFeatures = numFeatures;
    this.storedValues = stored;
    this.sizeInBytes = bytes;
    this.maxStoredPerRow = longest;
  }

  /**
   * The part that holds view row {@code row}: the last part whose first row is at most
   * {@code row} (an empty part shares its first row with the next, which holds the row).
   */
  private int part(int row) {
    int[] first = start;
    int n = parts.length;
    if (n <= COUNTED_PARTS) {
      int p = 0;
      for (int i = 1; i < n; i++) {
        p += row >= first[i] ? 1 : 0;
      }
      return p;
    }
    return RangeStarts.holding(first, n, row);
  }

  @Override
  public int numRows() {
    return start[parts.length];
  }

  @Override
  public int numFeatures() {
    return numFeatures;
  }

  @Override
  public long storedValues() {
    return storedValues;
  }

  @Override
  public double dot(int row, double[] w, int offset) {
    int p = part(row);
    return parts[p].dot(row - start[p], w, offset);
  }

  @Override
  public void addScaled(int row, double alpha, double[] w, int offset) {
    int p = part(row);
    parts[p].addScaled(row - start[p], alpha, w, offset);
  }

  @Override
  public void addScaledTwice(int row, double alpha, double[] w, double beta, double[] u,
      int offset) {
    int p = part(row);
    parts[p].addScaledTwice(row - start[p], alpha, w, beta, u, offset);
  }

  @Override
  public void dotClasses(int row, double[] w, int numClasses, double[] sums) {
    int p = part(row);
    parts[p].dotClasses(row - start[p], w, numClasses, sums);
  }

  @Override
  public void addScaledToPair(int row, double alpha, double[] w, int stride, int up, int down) {
    int p = part(row);
    parts[p].addScaledToPair(row - start[p], alpha, w, stride, up, down);
  }

  @Override
  public void addScaledTwiceToPair(int row, double alpha, double[] w, double beta, double[] u,
      int stride, int up, int down) {
    int p = part(row);
    parts[p].addScaledTwiceToPair(row - start[p], alpha, w, beta, u, stride, up, down);
  }

  @Override
  public void markStoredPair(int row, TouchedSet touched, int stride, int up, int down) {
    int p = part(row);
    parts[p].markStoredPair(row - start[p], touched, stride, up, down);
  }

  @Override
  public double touch(int row) {
    int p = part(row);
    return parts[p].touch(row - start[p]);
  }

  @Override
  public void markStored(int row, TouchedSet touched, int offset) {
    int p = part(row);
    parts[p].markStored(row - start[p], touched, offset);
  }

  @Override
  public double squaredNorm(int row) {
    int p = part(row);
    return parts[p].squaredNorm(row - start[p]);
  }

  @Override
  public void forEachStored(int row, EntryVisitor visitor) {
    int p = part(row);
    parts[p].forEachStored(row - start[p], visitor);
  }

  @Override
  public int copyRow(int row, int[] indices, double[] values) {
    int p = part(row);
    return parts[p].copyRow(row - start[p], indices, values);
  }

  @Override
  public int maxStoredPerRow() {
    return maxStoredPerRow;
  }

  @Override
  public long sizeInBytes() {
    return sizeInBytes;
  }
}
