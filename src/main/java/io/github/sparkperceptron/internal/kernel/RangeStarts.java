package io.github.sparkperceptron.internal.kernel;

/**
 * Consecutive ranges of positions given by their first positions, non-decreasing (an empty range
 * starts where the next one does): which range holds a position. What a view of several blocks
 * ({@link ConcatFeatureBlock}: its parts' first rows) and a chunked visiting order
 * ({@link EpochOrder}: its chunks' first visits) both ask for every row or chunk.
 */
final class RangeStarts {
  private RangeStarts() {
  }

  /**
   * The range among the first {@code count} that holds {@code position}: the last
   * {@code i < count} with {@code starts[i] ≤ position}, or 0 when none is (or count is 0).
   * Searched by halves.
   */
  static int holding(int[] starts, int count, int position) {
    int lo = 0;
    int hi = count - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= position) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
