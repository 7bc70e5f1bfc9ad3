package io.github.sparkperceptron.internal.kernel;

import java.util.Arrays;

/**
 * Sets of state coordinates held as strictly increasing {@code int[]}: what a task keeps where a
 * {@link TouchedSet} (one bit per coordinate, K'·(d+1)/8 bytes, and a scan of every word between
 * the lowest and the highest mark) would cost O(d) on a huge model for a few thousand
 * coordinates. Operations cost O(elements), never O(d).
 */
public final class SortedCoordinates {
  private SortedCoordinates() {
  }

  /** The empty set. */
  public static final int[] NONE = new int[0];

  /**
   * The union of two strictly increasing arrays, strictly increasing; {@code a} itself when
   * {@code b} adds nothing (neither array is modified). O(|a| + |b|), or O(|b|·log(|a|/|b|))
   * probes plus the copy when {@code b} is much the smaller ({@link #gallops}): a training's
   * support against one round's mix, a few thousand coordinates against millions.
   */
  public static int[] union(int[] a, int[] b) {
    int n = unionSize(a, b);
    if (n == a.length) {
      return a;
    }
    int[] out = new int[n];
    if (gallops(a.length, b.length)) {
      // Runs of a between b's new coordinates are copied whole.
      int x = 0;
      int probe = 0;
      int k = 0;
      for (int jb : b) {
        int at = search(a, probe, jb);
        if (at >= 0) {
          probe = at + 1;
          continue;
        }
        int insert = -at - 1;
        probe = insert;
        System.arraycopy(a, x, out, k, insert - x);
        k += insert - x;
        out[k++] = jb;
        x = insert;
      }
      System.arraycopy(a, x, out, k, a.length - x);
      return out;
    }
    int x = 0;
    int y = 0;
    for (int k = 0; k < n; k++) {
      int ja = x < a.length ? a[x] : Integer.MAX_VALUE;
      int jb = y < b.length ? b[y] : Integer.MAX_VALUE;
      int j = Math.min(ja, jb);
      if (ja == j) {
        x++;
      }
      if (jb == j) {
        y++;
      }
      out[k] = j;
    }
    return out;
  }

  /** The size of the union of two strictly increasing arrays, without building it. */
  public static int unionSize(int[] a, int[] b) {
    if (gallops(a.length, b.length)) {
      return a.length + missing(a, b);
    }
    if (gallops(b.length, a.length)) {
      return b.length + missing(b, a);
    }
    return mergedSize(a, b);
  }

  /** The union's size by merging: one step per element of both arrays. */
  static int mergedSize(int[] a, int[] b) {
    int x = 0;
    int y = 0;
    int n = 0;
    while (x < a.length && y < b.length) {
      if (a[x] == b[y]) {
        x++;
        y++;
      } else if (a[x] < b[y]) {
        x++;
      } else {
        y++;
      }
      n++;
    }
    return n + (a.length - x) + (b.length - y);
  }

  /**
   * Whether searching {@code small} elements in {@code large} costs less than merging the two:
   * a search gallops over the gap to the next element, about log2 of the mean gap plus two
   * probes, each a dependent load where the merge streams. Measured on a support of 4.2 million
   * of 2^24 coordinates (SupportUnionBenchmark; BENCHMARKS.md, issue 32), the search wins up to
   * a mix of about a 30th of the support (100,000 coordinates, not 200,000): hence large ≥
   * 4·small·(2 + log2 of the gap).
   */
  private static boolean gallops(int large, int small) {
    return small > 0 && 4L * small * (2 + log2(large / small)) < large;
  }

  private static int log2(int n) {
    return 31 - Integer.numberOfLeadingZeros(Math.max(1, n));
  }

  /** How many elements of {@code b} are not in {@code a} (both strictly increasing). */
  static int missing(int[] a, int[] b) {
    int x = 0;
    int count = 0;
    for (int jb : b) {
      int at = search(a, x, jb);
      if (at >= 0) {
        x = at + 1;
      } else {
        count++;
        x = -at - 1;
      }
    }
    return count;
  }

  /**
   * The index of {@code key} in {@code a[from..]} (strictly increasing), or −(insertion
   * point) − 1 as {@link Arrays#binarySearch(int[], int, int, int)}: a galloping
   * search (Bentley &amp; Yao 1976), doubling its step from {@code from} until it passes the
   * key, then a binary search over the last step, so that successive keys cost the log of
   * their gap, not of the array.
   */
  static int search(int[] a, int from, int key) {
    int low = from;
    int step = 1;
    int high = from;
    while (high < a.length && a[high] < key) {
      low = high + 1;
      high = (int) Math.min((long) from + step, a.length);
      step <<= 1;
    }
    return Arrays.binarySearch(a, low, Math.min(high + 1, a.length), key);
  }
}
