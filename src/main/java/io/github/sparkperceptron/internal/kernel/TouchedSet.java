package io.github.sparkperceptron.internal.kernel;

import java.util.Arrays;

/**
 * The set of state coordinates one worker changed during a mixing round, one bit per
 * coordinate: what lets a worker return only what it changed (O(touched coordinates)) instead
 * of its whole K·(d+1) state.
 *
 * <p>Marking costs one OR per stored value of an updated row, so an epoch's extra work is
 * proportional to its updates' non-zeros; extracting scans one long per 64 coordinates and clears
 * what it read, so the set is empty again afterwards and can be reused for the next round.
 */
public final class TouchedSet {
  private final int size;
  private final long[] bits;
  /** Lowest and highest word index marked since the last extraction (empty when lo > hi). */
  private int lo;
  private int hi;
  private int count;

  /** An empty set over coordinates 0 .. size-1. */
  public TouchedSet(int size) {
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0, got " + size);
    }
    this.size = size;
    this.bits = new long[(size + 63) >>> 6];
    this.lo = Integer.MAX_VALUE;
    this.hi = -1;
  }

  /** The number of coordinates the set ranges over. */
  public int size() {
    return size;
  }

  /** Marks coordinate {@code j}. */
  public void mark(int j) {
    int word = j >>> 6;
    long bit = 1L << j;
    long old = bits[word];
    if ((old & bit) == 0) {
      bits[word] = old | bit;
      count++;
      if (word < lo) {
        lo = word;
      }
      if (word > hi) {
        hi = word;
      }
    }
  }

  /** Marks coordinates {@code from} (inclusive) to {@code to} (exclusive). */
  public void markRange(int from, int to) {
    if (from >= to) {
      return;
    }
    int first = from >>> 6;
    int last = (to - 1) >>> 6;
    for (int word = first; word <= last; word++) {
      long mask = -1L;
      if (word == first) {
        mask &= -1L << from;
      }
      if (word == last) {
        mask &= -1L >>> (63 - ((to - 1) & 63));
      }
      long old = bits[word];
      count += Long.bitCount(mask & ~old);
      bits[word] = old | mask;
    }
    if (first < lo) {
      lo = first;
    }
    if (last > hi) {
      hi = last;
    }
  }

  /** Marks every coordinate of {@code coordinates}. */
  public void markAll(int[] coordinates) {
    for (int j : coordinates) {
      mark(j);
    }
  }

  /** Marked coordinates. */
  public int count() {
    return count;
  }

  /** Whether {@code j} is marked. */
  public boolean contains(int j) {
    return (bits[j >>> 6] & (1L << j)) != 0;
  }

  /**
   * Returns the marked coordinates in increasing order and empties the set; reads only the words
   * between the lowest and highest marked one.
   */
  public int[] drain() {
    int[] out = new int[count];
    int n = 0;
    for (int word = lo; word <= hi; word++) {
      long b = bits[word];
      if (b == 0) {
        continue;
      }
      bits[word] = 0L;
      int base = word << 6;
      while (b != 0) {
        out[n++] = base + Long.numberOfTrailingZeros(b);
        b &= b - 1;
      }
    }
    clearBounds();
    return out;
  }

  /** The marked coordinates in increasing order; the set is left as it is. */
  public int[] toArray() {
    int[] out = new int[count];
    int n = 0;
    for (int word = lo; word <= hi; word++) {
      long b = bits[word];
      int base = word << 6;
      while (b != 0) {
        out[n++] = base + Long.numberOfTrailingZeros(b);
        b &= b - 1;
      }
    }
    return out;
  }
  /** Empties the set (after an aborted round, whatever it held). */
  public void clear() {
    if (hi >= lo) {
      Arrays.fill(bits, lo, hi + 1, 0L);
    }
    clearBounds();
  }

  private void clearBounds() {
    lo = Integer.MAX_VALUE;
    hi = -1;
    count = 0;
  }
}
