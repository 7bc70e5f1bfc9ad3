package io.github.sparkperceptron.internal.kernel;

/**
 * One epoch's visiting order over a worker's stored rows, with the chunks it is made of, so
 * that the kernel can pull the next chunk into the cache while it visits the current one.
 *
 * <p>A chunked order ({@link VisitOrder}, shuffleScope=chunks) cuts the ring of n stored rows at
 * {@code cut} into chunks of {@code chunkRows} consecutive rows (chunk k: ring positions
 * [kC, min((k+1)C, n)), i.e. stored rows (cut + p) mod n), and visits the chunks in the order
 * {@code chunkOrder}, each whole, its rows in a random order. Any other order (the input order, a
 * full shuffle) is one chunk of n rows with nothing to read ahead.
 *
 * <p>An epoch may run in slices (one per mixing round, {@code from .. to} of {@link #rows()}):
 * the order is immutable and shared by the slices, and {@link #readAhead} starts the read-ahead
 * at any visit.
 */
public final class EpochOrder {
  private final int[] rows;
  private final int chunkRows;
  private final int cut;
  private final int[] chunkOrder;
  /** visitStart[i]: the visit at which the i-th visited chunk begins; visitStart[chunks] = n. */
  private final int[] visitStart;

  private EpochOrder(int[] rows, int chunkRows, int cut, int[] chunkOrder) {
    this.rows = rows;
    this.chunkRows = chunkRows;
    this.cut = cut;
    this.chunkOrder = chunkOrder;
    this.visitStart = new int[chunkOrder.length + 1];
    for (int i = 0; i < chunkOrder.length; i++) {
      visitStart[i + 1] = visitStart[i] + chunkLength(i);
    }
  }

  /** An order without chunk structure: the kernel visits {@code rows} and reads nothing ahead. */
  public static EpochOrder of(int[] rows) {
    return new EpochOrder(rows, Math.max(1, rows.length), 0, new int[] {0});
  }

  static EpochOrder chunked(int[] rows, int chunkRows, int cut, int[] chunkOrder) {
    return new EpochOrder(rows, chunkRows, cut, chunkOrder);
  }

  /** The stored rows in visiting order: a permutation of 0 .. n-1. Not a copy: never mutate. */
  public int[] rows() {
    return rows;
  }

  /** How many rows the epoch visits. */
  public int size() {
    return rows.length;
  }

  /** Rows per chunk (n when the order has no chunks). */
  public int chunkRows() {
    return chunkRows;
  }

  /** How many chunks the epoch visits. */
  int chunks() {
    return chunkOrder.length;
  }

  /** The ring position of the first row of the {@code i}-th visited chunk. */
  int chunkStart(int i) {
    return chunkOrder[i] * chunkRows;
  }

  /** The length of the {@code i}-th visited chunk (the last chunk of the ring may be short). */
  int chunkLength(int i) {
    return Math.max(0, Math.min(chunkRows, rows.length - chunkStart(i)));
  }

  /** The stored row at ring position {@code p} (0 ≤ p &lt; n). */
  int storedRow(int p) {
    int n = rows.length;
    return p < n - cut ? cut + p : p - (n - cut);
  }

  /** The visited chunk that holds visit {@code t} (0 ≤ t &lt; n), or the last chunk. */
  int chunkAt(int t) {
    return RangeStarts.holding(visitStart, chunkOrder.length, t);
  }

  /** A read-ahead cursor over {@code rows}, for visits from {@code from} on, in order. */
  ReadAhead readAhead(FeatureBlock rows, int from) {
    return new ReadAhead(this, rows, from);
  }

  /**
   * Reads, at the t-th visit, the stored row of the next chunk that lies as far into that chunk
   * as visit t lies into its own ({@link FeatureBlock#touch}): by the end of a chunk the next one
   * has been read once, in storage order, which the hardware prefetcher streams well. A short
   * chunk (the last of the ring) reads the rest of the next chunk at its start. One cursor per
   * pass (or mixing round); it allocates nothing per row.
   */
  static final class ReadAhead {
    private final EpochOrder order;
    private final FeatureBlock x;
    private int chunk;
    private int chunkBegin;
    private int chunkEnd;
    private int nextStart;
    private int nextLength;
    private double sum;

    private ReadAhead(EpochOrder order, FeatureBlock x, int from) {
      this.order = order;
      this.x = x;
      if (order.size() > 0) {
        enter(order.chunkAt(Math.min(from, order.size() - 1)), from);
      }
    }

    private void enter(int c, int t) {
      chunk = c;
      chunkBegin = order.visitStart[c];
      chunkEnd = order.visitStart[c + 1];
      boolean last = c + 1 >= order.chunks();
      nextStart = last ? 0 : order.chunkStart(c + 1);
      nextLength = last ? 0 : order.chunkLength(c + 1);
      if (t == chunkBegin) {
        for (int i = chunkEnd - chunkBegin; i < nextLength; i++) {
          sum += x.touch(order.storedRow(nextStart + i));
        }
      }
    }

    /** Called before visit {@code t}; visits come in order, one call each. */
    void step(int t) {
      if (t >= chunkEnd) {
        enter(chunk + 1, t);
      }
      int i = t - chunkBegin;
      if (i < nextLength) {
        sum += x.touch(order.storedRow(nextStart + i));
      }
    }

    /** What the reads summed to (meaningless; see {@link FeatureBlock#touch}). */
    double sum() {
      return sum;
    }
  }
}
