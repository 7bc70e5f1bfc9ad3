package io.github.sparkperceptron.internal.kernel;

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
   * {@code b} adds nothing (neither array is modified).
   */
  public static int[] union(int[] a, int[] b) {
    int n = unionSize(a, b);
    if (n == a.length) {
      return a;
    }
    int[] out = new int[n];
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
}
