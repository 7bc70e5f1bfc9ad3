package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;

/**
 * The feature rows of one worker, stored once per training in primitive arrays.
 *
 * <p>The three operations are the only ones the learners need, so that the learners never see
 * the storage layout. Every method reads or writes {@code numFeatures} consecutive slots of a
 * weight array starting at {@code offset}; the bias slot that follows them is the caller's.
 * Sums run in increasing feature order, so a sparse and a dense block holding the same rows give
 * the same results (skipped zeros add nothing).
 */
public abstract class FeatureBlock implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Rows in the block. */
  public abstract int numRows();

  /** Length of every row (the model's {@code d}). */
  public abstract int numFeatures();

  /** Stored values: the non-zeros of a sparse block, {@code numRows * numFeatures} of a dense one. */
  public abstract long storedValues();

  /** Returns Σ_j x[row, j] · w[offset + j]. */
  public abstract double dot(int row, double[] w, int offset);

  /** Performs w[offset + j] += alpha · x[row, j] for every stored j. */
  public abstract void addScaled(int row, double alpha, double[] w, int offset);

  /**
   * Performs w[offset + j] += alpha · x[row, j] and u[offset + j] += beta · x[row, j] in one pass
   * over the row: the averaged perceptron's update touches both arrays with the same pattern.
   */
  public abstract void addScaledTwice(int row, double alpha, double[] w, double beta, double[] u,
      int offset);

  /**
   * Every class's dot product with the row over a feature-major state (feature j's K weights at
   * {@code w[j·numClasses ..]}, see {@link ClassSums}): {@code sums[k]} = Σ_j x[row, j] ·
   * w[j·numClasses + k], with the products and the order of {@link #dot}, so the same bits.
   */
  public abstract void dotClasses(int row, double[] w, int numClasses, double[] sums);

  /**
   * The multiclass update of a feature-major state in one pass over the row:
   * w[j·stride + up] += alpha · x[row, j] and w[j·stride + down] += (−alpha) · x[row, j] for every
   * stored j; the expressions {@link #addScaled} evaluates on the class-major rows up and down.
   */
  public abstract void addScaledToPair(int row, double alpha, double[] w, int stride, int up,
      int down);

  /**
   * {@link #addScaledToPair} on w with {@code alpha} and on u with {@code beta} in the same pass:
   * the averaged perceptron's multiclass update of a feature-major state, the expressions of
   * {@link #addScaledTwice}.
   */
  public abstract void addScaledTwiceToPair(int row, double alpha, double[] w, double beta,
      double[] u, int stride, int up, int down);

  /**
   * Marks in {@code touched} the coordinates {@code j·stride + up} and {@code j·stride + down}
   * that {@link #addScaledToPair} writes.
   */
  public abstract void markStoredPair(int row, TouchedSet touched, int stride, int up, int down);

  /**
   * Reads the row's storage, one value per 64-byte cache line, and returns a sum of what it read
   * (meaningless; it only keeps the JIT compiler from dropping the reads). The kernel calls it on
   * the rows of the next chunk, in storage order, so that the hardware prefetcher streams them
   * into the cache before the chunk is visited in random order: Java has no prefetch instruction.
   */
  public abstract double touch(int row);

  /**
   * Marks in {@code touched} the coordinates {@code offset + j} that an update with this row
   * writes: the stored entries of a sparse row, all {@code numFeatures} slots of a dense one.
   */
  public abstract void markStored(int row, TouchedSet touched, int offset);

  /** Returns ‖x[row]‖². */
  public abstract double squaredNorm(int row);

  /**
   * Calls {@code visitor} with the stored (index, value) pairs of one row, in increasing index
   * order. For code outside the inner loops (vote recording, tests, conversions).
   */
  public abstract void forEachStored(int row, EntryVisitor visitor);

  /** Receives one stored entry of a row. */
  @FunctionalInterface
  public interface EntryVisitor {
    void accept(int index, double value);
  }

  /**
   * Copies the stored entries of a row into the buffers (each at least
   * {@link #maxStoredPerRow()} long), in increasing index order; returns how many.
   */
  public abstract int copyRow(int row, int[] indices, double[] values);

  /**
   * The most entries {@link #copyRow} writes for any row: what its buffers need, which for wide
   * sparse data is far below {@link #numFeatures()}.
   */
  public abstract int maxStoredPerRow();

  /** Bytes held by the arrays of this block (what a cache of it costs). */
  public abstract long sizeInBytes();
}
