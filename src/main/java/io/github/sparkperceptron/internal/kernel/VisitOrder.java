package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.Objects;

/**
 * The order in which a worker visits its rows, epoch after epoch, and the order in which its
 * block stores them: pure functions of (seed, epoch, worker) and the block's shape, so that a
 * retried or recomputed task sees the same rows in the same order (see {@link SeededShuffle}).
 *
 * <pre>
 * shuffle = false          the input order, every epoch
 * shuffle, scope rows      a fresh uniform permutation of the rows every epoch (Fisher–Yates)
 * shuffle, scope chunks    layout: the block stores the rows in a seeded uniform order π,
 *                          drawn once when it is built (stream (seed, epoch 0, worker));
 *                          each epoch e (stream (seed, e, worker)): cut the ring of stored
 *                          rows into chunks of C consecutive rows at a random place, visit the
 *                          chunks in a random order and the rows of each chunk in a random order
 * shuffle, scope auto      scope rows for a worker whose rows are stored in one chunk,
 *                          scope chunks for a worker of several ({@link #forStoredChunks})
 * </pre>
 *
 * <p>Why chunks: visiting rows in a fresh random order makes every row a cache and TLB miss; the
 * kernel then runs 4-5x slower than in storage order on sparse data (BENCHMARKS.md). Within a
 * chunk the rows lie together in memory (C rows of CSR data are a few tens of KiB), so the
 * epoch reads memory almost sequentially, chunk by chunk.
 *
 * <p>What the perceptron keeps: within one epoch, the sequence of input rows visited is
 * π∘(chunked order); for any fixed chunked order, a uniform π makes it a uniform permutation of
 * the input rows, so label runs, class balance over time and every other within-epoch statistic
 * are those of a full shuffle (a label-sorted input is no problem). What differs from a full
 * shuffle is the dependence between epochs: rows stored within C of each other tend to be
 * visited close together every epoch (the random cut makes the chunks' membership change from
 * epoch to epoch, but neighbours share a chunk with probability 1 − δ/C for distance δ).
 * BENCHMARKS.md measures the held-out accuracy of both scopes.
 *
 * <p>Why auto chooses by the stored chunks: a worker's rows fill one stored chunk (8 MiB,
 * {@link EpochPlan#STORED_CHUNK_BYTES}) before a second begins, so one chunk means rows that a
 * random visit still finds in the last-level cache, where the chunked order is not faster, and
 * several mean a block that a fresh permutation reads at a cache miss per row (the kernel 2.3x
 * slower, BENCHMARKS.md issue 32). The count is a function of the rows alone, known when the
 * first chunk is full or the rows end, before any row is laid out, and on every executor.
 *
 * <p>Cost: the epoch order is one {@code int[n]} per epoch, as for the full shuffle, plus one
 * int per chunk; the layout is one {@code int[n]} while the block is built.
 */
public final class VisitOrder implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The SeededShuffle "epoch" whose stream draws the layout; real epochs count from 1. */
  private static final int LAYOUT_EPOCH = 0;

  /**
   * Bytes of stored rows a chunk aims at: small enough that a chunk and the weights it touches
   * stay in the core's L2 cache (512 KiB here) while it is visited in random order, large enough
   * that the chunks hold a few hundred rows of typical sparse data (BENCHMARKS.md, issue 14:
   * chunk size measurement).
   */
  static final long CHUNK_BYTES = 64 * 1024;
  /** Fewest rows in a chunk, whatever the row size: the window of the within-chunk shuffle. */
  static final int MIN_CHUNK_ROWS = 64;
  /** Most rows in a chunk (very short rows): beyond this a chunk gains nothing in locality. */
  static final int MAX_CHUNK_ROWS = 4096;

  private final boolean shuffle;
  private final ShuffleScope scope;
  private final long seed;
  /** The most bytes of chunks one window of an epoch holds ({@link EpochPlan}). */
  private final long windowBytes;

  private VisitOrder(boolean shuffle, ShuffleScope scope, long seed, long windowBytes) {
    this.shuffle = shuffle;
    this.scope = Objects.requireNonNull(scope, "scope");
    this.seed = seed;
    if (windowBytes < 1) {
      throw new IllegalArgumentException("windowBytes must be >= 1, got " + windowBytes);
    }
    this.windowBytes = windowBytes;
  }

  /** The order of the {@code shuffle}, {@code shuffleScope} and {@code seed} params. */
  public static VisitOrder of(boolean shuffle, ShuffleScope scope, long seed) {
    return new VisitOrder(shuffle, scope, seed, EpochPlan.WINDOW_BYTES);
  }

  /**
   * This order with windows of {@code bytes} (tests and measurements of workers whose rows
   * span several windows, without gigabytes of rows).
   */
  public VisitOrder withWindowBytes(long bytes) {
    return new VisitOrder(shuffle, scope, seed, bytes);
  }

  /** The most bytes of chunks one window of an epoch holds ({@link EpochPlan}). */
  public long windowBytes() {
    return windowBytes;
  }

  public boolean shuffle() {
    return shuffle;
  }

  public ShuffleScope scope() {
    return scope;
  }

  /**
   * This order for a worker whose rows are stored in {@code storedChunks} chunks: scope auto
   * becomes rows for one chunk (or none) and chunks for several; rows and chunks stay as they
   * are.
   */
  public VisitOrder forStoredChunks(int storedChunks) {
    if (scope != ShuffleScope.AUTO) {
      return this;
    }
    ShuffleScope chosen = storedChunks > 1 ? ShuffleScope.CHUNKS : ShuffleScope.ROWS;
    return new VisitOrder(shuffle, chosen, seed, windowBytes);
  }

  public long seed() {
    return seed;
  }

  /**
   * How a worker's block stores its rows: stored row i is input row {@code layout[i]}; or
   * {@code null} when the block keeps the input order. Pass it to
   * {@link TrainingBlockBuilder#build(int[])}. The block is all the worker's rows (one stored
   * chunk, for scope auto).
   */
  public int[] layout(int worker, int numRows) {
    return forStoredChunks(1).layout(worker, 0, numRows);
  }

  /**
   * The layout of chunk {@code chunk} of a worker whose rows are stored in several chunks (see
   * {@link EpochPlan}): chunk 0 is laid out as an unchunked worker's rows, the others each from a
   * stream of their own; {@code null} when the rows keep the input order. Scope auto must be
   * resolved first ({@link #forStoredChunks}).
   */
  public int[] layout(int worker, int chunk, int numRows) {
    requireResolved();
    if (!shuffle || scope != ShuffleScope.CHUNKS) {
      return null;
    }
    SeededShuffle stream = chunk == 0 ? SeededShuffle.forEpoch(seed, LAYOUT_EPOCH, worker)
        : SeededShuffle.forPart(seed, LAYOUT_EPOCH, worker, chunk);
    return stream.permutation(numRows);
  }

  /**
   * The stored rows of {@code rows} (a block built with {@link #layout}) to visit in
   * {@code epoch}, in order: a permutation of 0 .. n-1. The block is all the worker's rows (one
   * stored chunk, for scope auto).
   */
  public EpochOrder epochOrder(int epoch, int worker, FeatureBlock rows) {
    return forStoredChunks(1).epochOrder(SeededShuffle.forEpoch(seed, epoch, worker), rows);
  }

  /**
   * The order of {@code rows} drawn from {@code stream} (a window of a chunked worker's epoch,
   * see {@link EpochPlan}): the input order, a permutation, or the chunked order.
   */
  EpochOrder epochOrder(SeededShuffle stream, FeatureBlock rows) {
    requireResolved();
    int n = rows.numRows();
    if (!shuffle) {
      return EpochOrder.of(identity(n));
    }
    return scope == ShuffleScope.ROWS ? EpochOrder.of(stream.permutation(n))
        : chunked(stream, n, chunkRows(rows));
  }

  /**
   * Rows per chunk for a block: {@link #CHUNK_BYTES} of its average stored row, within
   * [{@link #MIN_CHUNK_ROWS}, {@link #MAX_CHUNK_ROWS}]. A function of the block's shape only (never
   * of the machine it runs on), so that every executor visits the same order.
   */
  public static int chunkRows(FeatureBlock rows) {
    int n = rows.numRows();
    if (n == 0) {
      return MIN_CHUNK_ROWS;
    }
    long bytesPerRow = Math.max(1, rows.sizeInBytes() / n);
    long c = CHUNK_BYTES / bytesPerRow;
    return (int) Math.max(MIN_CHUNK_ROWS, Math.min(MAX_CHUNK_ROWS, c));
  }

  /**
   * The chunked order of {@code n} stored rows in chunks of {@code chunkRows}, drawn from the
   * stream of (seed, epoch, worker).
   */
  public static EpochOrder chunked(long seed, int epoch, int worker, int n, int chunkRows) {
    return chunked(SeededShuffle.forEpoch(seed, epoch, worker), n, chunkRows);
  }

  /**
   * The draws, in this order: the cut (a ring position in [0, n)); the chunks' visiting order (a
   * Fisher–Yates permutation of the chunk indices); then each chunk's rows, as visited, by the
   * inside-out Fisher–Yates shuffle. Chunk k holds ring positions [kC, min((k+1)C, n)), i.e.
   * stored rows (cut + p) mod n; the last chunk may be shorter.
   */
  static EpochOrder chunked(SeededShuffle stream, int n, int chunkRows) {
    if (chunkRows < 1) {
      throw new IllegalArgumentException("chunkRows must be >= 1, got " + chunkRows);
    }
    int[] order = new int[n];
    if (n == 0) {
      return EpochOrder.of(order);
    }
    int cut = stream.nextInt(n);
    int chunks = (int) ((n + (long) chunkRows - 1) / chunkRows);
    int[] chunkOrder = stream.permutation(chunks);
    int t = 0;
    for (int c : chunkOrder) {
      int first = c * chunkRows;
      int length = Math.min(chunkRows, n - first);
      for (int i = 0; i < length; i++) {
        int p = first + i;
        int row = p < n - cut ? cut + p : p - (n - cut);
        int j = stream.nextInt(i + 1);
        order[t + i] = order[t + j];
        order[t + j] = row;
      }
      t += length;
    }
    return EpochOrder.chunked(order, chunkRows, cut, chunkOrder);
  }

  private void requireResolved() {
    if (scope == ShuffleScope.AUTO) {
      throw new IllegalStateException("scope auto depends on the worker's stored chunks:"
          + " take forStoredChunks(count) first");
    }
  }

  private static int[] identity(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }

  @Override
  public String toString() {
    return shuffle ? "shuffle " + scope.paramValue() + ", seed " + seed : "input order";
  }
}
