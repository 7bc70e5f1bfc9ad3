package io.github.sparkperceptron.kernel;

/**
 * One epoch's visiting order over a partition's stored rows, with the chunks it is made of, so
 * that the kernel can pull the next chunk into the cache while it visits the current one.
 *
 * <p>A chunked order ({@link VisitOrder}, shuffleScope=chunks) cuts the ring of n stored rows at
 * {@code cut} into chunks of {@code chunkRows} consecutive rows (chunk k: ring positions
 * [kC, min((k+1)C, n)), i.e. stored rows (cut + p) mod n), and visits the chunks in the order
 * {@code chunkOrder}, each whole, its rows in a random order. Any other order (the input order, a
 * full shuffle) is one chunk of n rows with nothing to prefetch.
 */
public final class EpochOrder {
  private final int[] rows;
  private final int chunkRows;
  private final int cut;
  private final int[] chunkOrder;

  private EpochOrder(int[] rows, int chunkRows, int cut, int[] chunkOrder) {
    this.rows = rows;
    this.chunkRows = chunkRows;
    this.cut = cut;
    this.chunkOrder = chunkOrder;
  }

  /** An order without chunk structure: the kernel visits {@code rows} and prefetches nothing. */
  public static EpochOrder of(int[] rows) {
    return new EpochOrder(rows, Math.max(1, rows.length), 0, new int[] {0});
  }

  static EpochOrder chunked(int[] rows, int chunkRows, int cut, int[] chunkOrder) {
    return new EpochOrder(rows, chunkRows, cut, chunkOrder);
  }

  /** The stored rows in visiting order: a permutation of 0 .. n-1. Not a copy. */
  public int[] rows() {
    return rows;
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
    return Math.min(chunkRows, rows.length - chunkStart(i));
  }

  /** The stored row at ring position {@code p} (0 ≤ p &lt; n). */
  int storedRow(int p) {
    int n = rows.length;
    return p < n - cut ? cut + p : p - (n - cut);
  }
}
