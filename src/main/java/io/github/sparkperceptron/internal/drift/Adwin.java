package io.github.sparkperceptron.internal.drift;

import java.util.Locale;

/**
 * ADWIN, the adaptive sliding window: it keeps the longest recent window of the error stream in
 * which no two sub-windows have significantly different means, and drops the older part of the
 * window whenever a split shows a difference; a cut that drops a stretch of lower error is a
 * drift.
 *
 * <pre>
 * Bifet &amp; Gavaldà, "Learning from Time-Changing Data with Adaptive Windowing", SIAM SDM 2007:
 *   ADWIN (section 3) and ADWIN2 (section 4, the exponential histogram).
 *
 * window W of n rows, split into an older W₀ (n₀ rows, mean μ̂₀) and a newer W₁ (n₁, μ̂₁):
 *   cut when |μ̂₀ − μ̂₁| &gt; ε_cut,
 *   ε_cut = √((2/m)·σ̂²_W·ln(2/δ')) + (2/(3m))·ln(2/δ'),   1/m = 1/n₀' + 1/n₁',  δ' = δ / ln n
 * (the paper's Bernstein-type bound, section 3.2, with σ̂²_W the window's variance; δ' = δ / ln n
 * because ADWIN2 tests O(log n) splits, not n).
 * </pre>
 *
 * <p><b>Exponential histogram (ADWIN2).</b> The window is stored as buckets of 2^i rows, at most
 * {@code maxBuckets} M of each size (M + 1 of a size merge their two oldest into one of the next
 * size), each bucket holding its rows' sum and their sum of squared deviations (merged with the
 * parallel-variance formula). A window of n rows takes at most M·⌈log₂ n⌉ buckets: O(log n)
 * memory, here arrays sized once for windows up to 2^63 rows, so nothing is allocated per row.
 * Splits are tested at bucket boundaries only, every {@code clock} rows, once the window holds
 * more than {@code minWindow} rows; after a cut the oldest bucket is dropped and the splits are
 * tested again, until none cuts.
 *
 * <p><b>Conventions the paper leaves open,</b> taken from the authors' implementation (MOA's
 * {@code ADWIN}, also River's): clock 32, M = 5, minWindow 10; a split is tested only when both
 * sub-windows hold more than {@code minSubWindow} + 1 rows, and ε_cut counts n_i' =
 * n_i − minSubWindow + 1 rows for each, which makes short sub-windows harder to cut. With these,
 * the cuts are those of MOA's ADWIN, row for row (tested against it).
 *
 * <p><b>Guarantee</b> (Theorem 3.1, for values in [0, 1]): while the mean is constant, a check
 * cuts with probability at most δ (false positives); a change of the mean by more than 2·ε_cut
 * between two sub-windows is cut with probability at least 1 − δ.
 *
 * <p>Cost: O(1) amortised per row to insert, O(log n) per check (every {@code clock} rows), and
 * O(log n) more per bucket dropped.
 */
public final class Adwin implements DriftDetector {
  /** The detector's name and its code in {@link #encode()}. */
  public static final String NAME = "adwin";
  static final double KIND = 2;
  static final double FORMAT = 1;
  /** Bucket sizes 2^0 .. 2^62: enough for any window a long can count. */
  private static final int MAX_LEVELS = 63;
  private static final int HEADER = 15;

  private final double delta;
  private final int clock;
  private final int maxBuckets;
  private final int minWindow;
  private final int minSubWindow;

  /** Bucket sums: level i's buckets at [i·(M+1), i·(M+1) + counts[i]), oldest first. */
  private final double[] sums;
  /** Each bucket's sum of squared deviations from its own mean. */
  private final double[] squares;
  private final int[] counts;
  /** Levels in use (the highest holds the oldest, largest buckets). */
  private int levels = 1;

  private long width;
  private double total;
  /** Σ (x − mean)² over the window. */
  private double variance;
  private long rows;
  private long cuts;
  private long detections;
  private long lastDetectionRow = -1;

  /** ADWIN with confidence δ and the reference implementation's other settings. */
  public Adwin(double delta) {
    this(delta, 32, 5, 10, 5);
  }

  /**
   * @param delta δ in (0, 1): the false-positive bound per check
   * @param clock test the splits every this many rows (≥ 1)
   * @param maxBuckets M, buckets kept per size (≥ 2)
   * @param minWindow no test until the window holds more rows than this (≥ 1)
   * @param minSubWindow see the class documentation (≥ 1)
   */
  public Adwin(double delta, int clock, int maxBuckets, int minWindow, int minSubWindow) {
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("ADWIN's delta must be in (0, 1), got " + delta);
    }
    if (clock < 1 || maxBuckets < 2 || minWindow < 1 || minSubWindow < 1) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "ADWIN needs clock >= 1,"
          + " maxBuckets >= 2, minWindow >= 1 and minSubWindow >= 1, got %d, %d, %d, %d", clock,
          maxBuckets, minWindow, minSubWindow));
    }
    this.delta = delta;
    this.clock = clock;
    this.maxBuckets = maxBuckets;
    this.minWindow = minWindow;
    this.minSubWindow = minSubWindow;
    this.sums = new double[MAX_LEVELS * (maxBuckets + 1)];
    this.squares = new double[sums.length];
    this.counts = new int[MAX_LEVELS];
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean add(double error) {
    if (!(error >= 0 && error <= 1)) {
      throw new IllegalArgumentException("A row's error must be in [0, 1], got " + error);
    }
    long row = rows++;
    insert(error);
    if (rows % clock != 0 || width <= minWindow) {
      return false;
    }
    if (shrink()) {
      detections++;
      lastDetectionRow = row;
      return true;
    }
    return false;
  }

  private void insert(double x) {
    width++;
    if (width > 1) {
      // Welford's update of the sum of squared deviations.
      double d = x - total / (width - 1);
      variance += (width - 1) * d * d / width;
    }
    total += x;
    append(0, x, 0.0);
    int stride = maxBuckets + 1;
    for (int level = 0; counts[level] == stride; level++) {
      if (level + 1 == levels) {
        levels++;
      }
      int at = level * stride;
      double size = (double) (1L << level);
      double meanDiff = sums[at] / size - sums[at + 1] / size;
      append(level + 1, sums[at] + sums[at + 1],
          squares[at] + squares[at + 1] + size * size * meanDiff * meanDiff / (2 * size));
      removeOldest(level, 2);
    }
  }

  private void append(int level, double sum, double square) {
    int at = level * (maxBuckets + 1) + counts[level]++;
    sums[at] = sum;
    squares[at] = square;
  }

  private void removeOldest(int level, int how) {
    int at = level * (maxBuckets + 1);
    int left = counts[level] - how;
    System.arraycopy(sums, at + how, sums, at, left);
    System.arraycopy(squares, at + how, squares, at, left);
    counts[level] = left;
  }

  /**
   * Tests every split at a bucket boundary, oldest first; at the first that cuts, drops the oldest
   * bucket and starts again. Returns whether some cut dropped rows of lower mean than the rest.
   */
  private boolean shrink() {
    boolean increased = false;
    boolean cut = true;
    while (cut) {
      cut = false;
      long n0 = 0;
      long n1 = width;
      double s0 = 0.0;
      double s1 = total;
      scan:
      for (int level = levels - 1; level >= 0; level--) {
        long size = 1L << level;
        int base = level * (maxBuckets + 1);
        for (int k = 0; k < counts[level]; k++) {
          n0 += size;
          n1 -= size;
          s0 += sums[base + k];
          s1 -= sums[base + k];
          if (level == 0 && k == counts[0] - 1) {
            break scan;
          }
          double older = s0 / n0;
          double newer = s1 / n1;
          if (n0 > minSubWindow + 1 && n1 > minSubWindow + 1 && cuts(n0, n1, older - newer)) {
            cuts++;
            cut = true;
            if (newer > older) {
              increased = true;
            }
            dropOldestBucket();
            break scan;
          }
        }
      }
    }
    return increased;
  }

  private boolean cuts(long n0, long n1, double meanDifference) {
    double n = width;
    double logTerm = Math.log(2 * Math.log(n) / delta);
    double inverseM = 1.0 / (n0 - minSubWindow + 1) + 1.0 / (n1 - minSubWindow + 1);
    double epsilon = Math.sqrt(2 * inverseM * (variance / n) * logTerm)
        + 2.0 / 3.0 * logTerm * inverseM;
    return Math.abs(meanDifference) > epsilon;
  }

  private void dropOldestBucket() {
    int level = levels - 1;
    int at = level * (maxBuckets + 1);
    double size = (double) (1L << level);
    double sum = sums[at];
    width -= 1L << level;
    total -= sum;
    double meanDiff = sum / size - total / width;
    variance -= squares[at] + size * width * meanDiff * meanDiff / (size + width);
    removeOldest(level, 1);
    if (counts[level] == 0 && levels > 1) {
      levels--;
    }
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public long detections() {
    return detections;
  }

  @Override
  public long lastDetectionRow() {
    return lastDetectionRow;
  }

  /** Cuts made so far, in either direction (a detection is a check with a cut upwards). */
  public long cuts() {
    return cuts;
  }

  /** The window's length in rows. */
  public long width() {
    return width;
  }

  /** The window's mean error. */
  @Override
  public double errorRate() {
    return width == 0 ? 0.0 : total / width;
  }

  /** The window's variance σ̂²_W. */
  public double variance() {
    return width == 0 ? 0.0 : variance / width;
  }

  /** Buckets in the exponential histogram now. */
  public int buckets() {
    int b = 0;
    for (int level = 0; level < levels; level++) {
      b += counts[level];
    }
    return b;
  }

  public double delta() {
    return delta;
  }

  public int clock() {
    return clock;
  }

  /**
   * {@code [kind=2, format=1, δ, clock, M, minWindow, minSubWindow, rows, width, total, variance,
   * cuts, detections, lastDetectionRow, levels]}, then for each level from size 1 up: its bucket
   * count and that many (sum, squared deviations) pairs, oldest first.
   */
  @Override
  public double[] encode() {
    double[] s = new double[HEADER + levels + 2 * buckets()];
    double[] header = {KIND, FORMAT, delta, clock, maxBuckets, minWindow, minSubWindow, rows,
        width, total, variance, cuts, detections, lastDetectionRow, levels};
    System.arraycopy(header, 0, s, 0, HEADER);
    int p = HEADER;
    for (int level = 0; level < levels; level++) {
      s[p++] = counts[level];
      int at = level * (maxBuckets + 1);
      for (int k = 0; k < counts[level]; k++) {
        s[p++] = sums[at + k];
        s[p++] = squares[at + k];
      }
    }
    return s;
  }

  static Adwin decode(double[] s) {
    if (s.length < HEADER) {
      throw new IllegalArgumentException("Not an ADWIN state: " + s.length + " values, its header"
          + " alone has " + HEADER);
    }
    Adwin a = new Adwin(s[2], (int) DriftDetectors.count(s, 3, NAME),
        (int) DriftDetectors.count(s, 4, NAME), (int) DriftDetectors.count(s, 5, NAME),
        (int) DriftDetectors.count(s, 6, NAME));
    a.rows = DriftDetectors.count(s, 7, NAME);
    a.width = DriftDetectors.count(s, 8, NAME);
    a.total = s[9];
    a.variance = s[10];
    a.cuts = DriftDetectors.count(s, 11, NAME);
    a.detections = DriftDetectors.count(s, 12, NAME);
    a.lastDetectionRow = (long) s[13];
    long levelCount = DriftDetectors.count(s, 14, NAME);
    if (levelCount < 1 || levelCount > MAX_LEVELS) {
      throw new IllegalArgumentException("Not an ADWIN state: " + levelCount + " bucket sizes");
    }
    a.levels = (int) levelCount;
    int p = HEADER;
    long rowsInBuckets = 0;
    for (int level = 0; level < a.levels; level++) {
      if (p >= s.length) {
        throw new IllegalArgumentException("Not an ADWIN state: it ends inside its buckets");
      }
      long count = DriftDetectors.count(s, p++, NAME);
      if (count > a.maxBuckets || p + 2 * count > s.length) {
        throw new IllegalArgumentException("Not an ADWIN state: bucket size 2^" + level
            + " has " + count + " buckets (at most " + a.maxBuckets + ", or past its end)");
      }
      a.counts[level] = (int) count;
      int at = level * (a.maxBuckets + 1);
      for (int k = 0; k < count; k++) {
        a.sums[at + k] = s[p++];
        a.squares[at + k] = s[p++];
      }
      rowsInBuckets += count << level;
    }
    if (p != s.length || rowsInBuckets != a.width || a.width > a.rows
        || a.lastDetectionRow >= a.rows || a.lastDetectionRow < -1) {
      throw new IllegalArgumentException("Not an ADWIN state: its buckets hold " + rowsInBuckets
          + " rows, its window " + a.width + ", of " + a.rows + " rows seen");
    }
    return a;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "adwin(delta=%s, clock=%d, maxBuckets=%d)", delta, clock,
        maxBuckets);
  }
}
