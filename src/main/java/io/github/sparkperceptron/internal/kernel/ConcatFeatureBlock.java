package io.github.sparkperceptron.internal.kernel;

import java.util.Objects;

/**
 * Several blocks' rows seen as one block, one after the other: row r of the view is row
 * {@code r − start[p]} of part p. How a worker's epoch visits the chunks of one window (a
 * {@link VisitOrder} over chunks of its rows, each a Spark block of its own) without copying
 * them: every operation is the part's own, on the part's row, so every sum and update is the
 * part's, bit for bit.
 *
 * <p>Costs 8 bytes per row (the row's part and its row in it, looked up per call: two reads
 * where a single block needs none) and nothing per stored value. Not serializable: a view lives
 * inside one task.
 */
final class ConcatFeatureBlock extends FeatureBlock {
  private static final long serialVersionUID = 1L;

  private final transient FeatureBlock[] parts;
  private final transient int[] partOf;
  private final transient int[] rowIn;
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
    this.partOf = new int[rows];
    this.rowIn = new int[rows];
    int r = 0;
    for (int p = 0; p < parts.length; p++) {
      for (int i = 0; i < parts[p].numRows(); i++, r++) {
        partOf[r] = p;
        rowIn[r] = i;
      }
    }
    this.numFeatures = numFeatures;
    this.storedValues = stored;
    this.sizeInBytes = bytes;
    this.maxStoredPerRow = longest;
  }

  @Override
  public int numRows() {
    return partOf.length;
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
    return parts[partOf[row]].dot(rowIn[row], w, offset);
  }

  @Override
  public void addScaled(int row, double alpha, double[] w, int offset) {
    parts[partOf[row]].addScaled(rowIn[row], alpha, w, offset);
  }

  @Override
  public void addScaledTwice(int row, double alpha, double[] w, double beta, double[] u,
      int offset) {
    parts[partOf[row]].addScaledTwice(rowIn[row], alpha, w, beta, u, offset);
  }

  @Override
  public void dotClasses(int row, double[] w, int numClasses, double[] sums) {
    parts[partOf[row]].dotClasses(rowIn[row], w, numClasses, sums);
  }

  @Override
  public void addScaledToPair(int row, double alpha, double[] w, int stride, int up, int down) {
    parts[partOf[row]].addScaledToPair(rowIn[row], alpha, w, stride, up, down);
  }

  @Override
  public void addScaledTwiceToPair(int row, double alpha, double[] w, double beta, double[] u,
      int stride, int up, int down) {
    parts[partOf[row]].addScaledTwiceToPair(rowIn[row], alpha, w, beta, u, stride, up, down);
  }

  @Override
  public void markStoredPair(int row, TouchedSet touched, int stride, int up, int down) {
    parts[partOf[row]].markStoredPair(rowIn[row], touched, stride, up, down);
  }

  @Override
  public double touch(int row) {
    return parts[partOf[row]].touch(rowIn[row]);
  }

  @Override
  public void markStored(int row, TouchedSet touched, int offset) {
    parts[partOf[row]].markStored(rowIn[row], touched, offset);
  }

  @Override
  public double squaredNorm(int row) {
    return parts[partOf[row]].squaredNorm(rowIn[row]);
  }

  @Override
  public void forEachStored(int row, EntryVisitor visitor) {
    parts[partOf[row]].forEachStored(rowIn[row], visitor);
  }

  @Override
  public int copyRow(int row, int[] indices, double[] values) {
    return parts[partOf[row]].copyRow(rowIn[row], indices, values);
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
