package io.github.sparkperceptron.internal.kernel;

import java.util.Arrays;

/**
 * One epoch of one worker over rows stored in chunks (each a Spark block of its own, at most a
 * few MiB; see {@code internal.blocks}): which chunks the epoch visits together, as windows, and
 * the order of the rows within each window ({@link VisitOrder}). A pure function of (shuffle,
 * scope, seed, epoch, worker) and the chunks' row counts and sizes, so that every executor and
 * every retry visits the same rows in the same order.
 *
 * <pre>
 * all chunks ≤ WINDOW_BYTES     one window: the worker's rows in storage order, visited in the
 *                               order VisitOrder gives n rows: the order of an unchunked worker,
 *                               row for row
 * more (shuffle)                the chunks in a random order (a stream of its own), cut into
 *                               windows of at most WINDOW_BYTES (one chunk at least); each window
 *                               holds its chunks in storage order and is visited in the order
 *                               VisitOrder gives its rows (rows: a fresh permutation of the
 *                               window; chunks: the chunked order), from a stream of its own
 * no shuffle                    every chunk a window, in storage order: the input order
 * </pre>
 *
 * <p>Why windows: a permutation of all rows needs them all in memory at once, and a worker's rows
 * may exceed memory; a window needs at most WINDOW_BYTES (the rest stay cached or spilled where
 * Spark keeps them), and a random set of chunks visited in a random order is a uniform shuffle
 * of the rows inside it. What a window loses against one permutation: rows of different windows
 * never interleave within an epoch, so a worker's data sorted by label over more than a window
 * sees long runs of one class; shuffle such data once (e.g. {@code Dataset.repartition}) before
 * training, as with any out-of-core SGD.
 */
public final class EpochPlan {
  /**
   * The most bytes of stored rows one window holds (several chunks at once in a task's memory,
   * and the next window read ahead: two windows per running task). A constant of the order, never
   * of the machine, so that models do not depend on where they train.
   */
  public static final long WINDOW_BYTES = 64L << 20;
  /**
   * Bytes of stored rows per chunk (CSR: 12 per stored value, about 8 per row): small enough that
   * a task holds a few while converting and Spark spills them one by one, large enough that the
   * block manager's work per block is noise beside reading it (BENCHMARKS.md, issue 29). A
   * constant of the order too: shuffleScope=auto chooses by a worker's count of chunks
   * ({@link VisitOrder#forStoredChunks}).
   */
  public static final long STORED_CHUNK_BYTES = 8L << 20;

  private final VisitOrder visits;
  private final int epoch;
  private final int worker;
  /** The chunks of each window, in storage order. */
  private final int[][] windows;
  /** visitStart[k]: the epoch's visit at which window k begins; visitStart[windows] = rows. */
  private final long[] visitStart;

  private EpochPlan(VisitOrder visits, int epoch, int worker, int[][] windows,
      int[] chunkRows) {
    this.visits = visits;
    this.epoch = epoch;
    this.worker = worker;
    this.windows = windows;
    this.visitStart = new long[windows.length + 1];
    for (int k = 0; k < windows.length; k++) {
      long rows = 0;
      for (int c : windows[k]) {
        rows += chunkRows[c];
      }
      visitStart[k + 1] = visitStart[k] + rows;
    }
  }

  /**
   * The plan of {@code epoch} for {@code worker}, whose rows lie in chunks of {@code chunkRows}
   * rows and {@code chunkBytes} bytes (storage order).
   */
  public static EpochPlan of(VisitOrder visits, int epoch, int worker, int[] chunkRows,
      long[] chunkBytes) {
    int chunks = chunkRows.length;
    visits = visits.forStoredChunks(chunks);
    if (chunkBytes.length != chunks) {
      throw new IllegalArgumentException(chunks + " chunks with " + chunkBytes.length + " sizes");
    }
    long total = 0;
    for (long b : chunkBytes) {
      total += b;
    }
    int[][] windows;
    if (!visits.shuffle()) {
      windows = new int[chunks][];
      for (int c = 0; c < chunks; c++) {
        windows[c] = new int[] {c};
      }
    } else if (total <= visits.windowBytes() || chunks <= 1) {
      windows = new int[][] {identity(chunks)};
    } else {
      int[] order = SeededShuffle.forPart(visits.seed(), epoch, worker, 0).permutation(chunks);
      int[][] cut = new int[chunks][];
      int count = 0;
      int from = 0;
      while (from < chunks) {
        long bytes = chunkBytes[order[from]];
        int to = from + 1;
        while (to < chunks && bytes + chunkBytes[order[to]] <= visits.windowBytes()) {
          bytes += chunkBytes[order[to]];
          to++;
        }
        int[] window = Arrays.copyOfRange(order, from, to);
        Arrays.sort(window);
        cut[count++] = window;
        from = to;
      }
      windows = Arrays.copyOf(cut, count);
    }
    return new EpochPlan(visits, epoch, worker, windows, chunkRows);
  }

  /** The order's settings for this worker's stored chunks (scope auto resolved). */
  public VisitOrder visits() {
    return visits;
  }

  /** Windows the epoch visits, one after the other. */
  public int windows() {
    return windows.length;
  }

  /** The chunks of window {@code k}, in storage order (shared: never mutate). */
  public int[] chunks(int k) {
    return windows[k];
  }

  /** The epoch's visit at which window {@code k} begins ({@code k = windows()}: the rows). */
  public long visitStart(int k) {
    return visitStart[k];
  }

  /** The rows the epoch visits. */
  public long rows() {
    return visitStart[windows.length];
  }

  /** The window that holds visit {@code t} (0 ≤ t &lt; rows). */
  public int windowAt(long t) {
    int k = Arrays.binarySearch(visitStart, t);
    if (k < 0) {
      k = -k - 2;
    }
    while (k + 1 < visitStart.length - 1 && visitStart[k + 1] == t) {
      k++; // empty windows (chunks without rows) are skipped
    }
    return k;
  }

  /**
   * The order in which window {@code k} is visited, over {@code rows}: the window's chunks one
   * after the other (as {@link TrainingBlock#concat} views them).
   */
  public EpochOrder order(int k, FeatureBlock rows) {
    if (windows.length == 1) {
      // One window: the unchunked worker's order (VisitOrder's own stream), row for row.
      return visits.epochOrder(epoch, worker, rows);
    }
    return visits.epochOrder(SeededShuffle.forPart(visits.seed(), epoch, worker, k + 1), rows);
  }

  private static int[] identity(int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }
}
