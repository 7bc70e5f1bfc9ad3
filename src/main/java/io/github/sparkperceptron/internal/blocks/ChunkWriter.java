package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Turns one worker's rows of one kind, as they arrive, into chunks of about
 * {@link EpochPlan#STORED_CHUNK_BYTES} each, every chunk stored as a Spark block of its own
 * ({@link ChunkStore}) as soon as it is full: converting holds one chunk in progress beyond what
 * Spark already keeps, whatever the worker's share of the data, and a worker's stored values are
 * bounded by the disk alone (a chunk's by an int).
 *
 * <pre>
 * one chunk      (a worker's rows under STORED_CHUNK_BYTES) built as an unchunked worker's
 *                block was:
 *                stored in the visit order's layout, numbered by the worker's own features
 * several        each chunk laid out by a stream of its own (VisitOrder#layout), numbered by the
 *                model's features while the worker's are not known; at the end, when the worker
 *                holds at most half of d, every chunk is read back once and renumbered by the
 *                worker's own features, so that its working copies stay of its size (hashed
 *                features: K'·(m+1), not K'·(d+1)); otherwise they keep the model's numbers
 * </pre>
 *
 * <p>Rows only scored and validation rows keep the input order and the model's numbers.
 */
final class ChunkWriter {
  /** The widest model whose features a worker's chunks are tracked for (2^27: a 16 MiB set). */
  private static final int MAX_TRACKED_WIDTH = 1 << 27;

  private final ChunkStore store;
  /** Where sealed chunks go instead of the store (pieces on their way through a shuffle). */
  private final Consumer<TrainingBlock> sink;
  private final int worker;
  /** The training rows' visit order (their layout), or null: input order. */
  private final VisitOrder order;
  /** Whether the rows are numbered by the worker's own features (training rows). */
  private final boolean local;
  private final long chunkBytes;
  /** The rows' width, or −1 until it is known (a text read: the largest index + 1). */
  private int width;
  private TrainingBlockBuilder builder;
  private int[] rows = new int[0];
  private long[] bytes = new long[0];
  private long storedValues;
  /** The features the sealed chunks hold (a bit per feature), or null: not tracked. */
  private long[] seen = new long[0];
  /** A single chunk's own feature map, kept when it was built numbered by it. */
  private LocalFeatures singleChunkFeatures;

  /**
   * @param width the rows' width, or −1 to take it when the rows are finished
   * @param order the training rows' visit order (null: rows kept in input order, numbered by the
   *     model's features)
   */
  ChunkWriter(ChunkStore store, int worker, int width, VisitOrder order, boolean local,
      long chunkBytes) {
    this(store, null, worker, width, order, local, chunkBytes);
  }

  /**
   * A writer that hands every sealed chunk to {@code sink} (rows in input order, the model's
   * numbers): pieces of a worker's rows that travel through a shuffle.
   */
  static ChunkWriter toSink(Consumer<TrainingBlock> sink, int width,
      long chunkBytes) {
    return new ChunkWriter(null, sink, 0, width, null, false, chunkBytes);
  }

  private ChunkWriter(ChunkStore store, Consumer<TrainingBlock> sink,
      int worker, int width, VisitOrder order, boolean local, long chunkBytes) {
    this.store = store;
    this.sink = sink;
    this.worker = worker;
    this.width = width;
    this.order = order;
    this.local = local;
    this.chunkBytes = chunkBytes;
  }

  private TrainingBlockBuilder builder() {
    if (builder == null) {
      builder = new TrainingBlockBuilder(Math.max(width, 0));
    }
    return builder;
  }

  /** Appends a sparse row (indices increasing, below the width; zeros dropped). */
  void addSparse(int label, double weight, int[] indices, double[] values, int nnz) {
    sealIfFull();
    builder().addSparse(label, weight, indices, values, nnz);
  }

  /** Appends a dense row of the width's values (zeros dropped). */
  void addDense(int label, double weight, double[] values) {
    sealIfFull();
    builder().addDense(label, weight, values);
  }

  /** Appends the stored rows of {@code block} (numbered by the model's features). */
  void addAll(TrainingBlock block, int[] indices, double[] values) {
    for (int r = 0; r < block.numRows(); r++) {
      int n = block.features().copyRow(r, indices, values);
      addSparse(block.label(r), block.weight(r), indices, values, n);
    }
  }

  /** The largest feature index of the rows so far, or −1. */
  int maxIndex() {
    int most = builder == null ? -1 : builder.maxIndex();
    return Math.max(most, seen == null ? -1 : highestSeen());
  }

  long rows() {
    long n = builder == null ? 0 : builder.numRows();
    for (int r : rows) {
      n += r;
    }
    return n;
  }

  /**
   * Seals the chunk in progress once it is full, when the next row arrives: so that a worker's
   * rows that end exactly at a full first chunk are still one chunk sealed last (scope auto's
   * choice is known at every seal).
   */
  private void sealIfFull() {
    if (builder != null && builder.storedBytes() >= chunkBytes) {
      seal(false);
    }
  }

  /**
   * Stores the chunk in progress. The last chunk of a worker that never filled one is built as an
   * unchunked worker's block was (the layout of all its rows, its own feature numbers).
   */
  private void seal(boolean last) {
    int c = rows.length;
    int n = builder.numRows();
    // A text read's rows before their width is known: this chunk as wide as its own rows.
    builder.setNumFeatures(Math.max(Math.max(width, 0), builder.maxIndex() + 1));
    // Scope auto's choice: the rows end in their first chunk (one chunk), or they filled it.
    int[] layout = order == null ? null
        : order.forStoredChunks(last && c == 0 ? 1 : 2).layout(worker, c, n);
    TrainingBlock chunk;
    if (last && c == 0 && local) {
      chunk = builder.buildLocal(layout);
      singleChunkFeatures = chunk.localFeatures();
      chunk = chunk.withLocalFeatures(null);
    } else {
      chunk = builder.build(layout);
      if (local) {
        track(chunk);
      }
    }
    if (sink != null) {
      sink.accept(chunk);
    } else {
      store.put(worker, c, chunk);
    }
    rows = Arrays.copyOf(rows, c + 1);
    bytes = Arrays.copyOf(bytes, c + 1);
    rows[c] = n;
    bytes[c] = chunk.sizeInBytes();
    storedValues += chunk.features().storedValues();
    builder = null;
  }

  /** Marks the features of a chunk numbered by the model's features. */
  private void track(TrainingBlock chunk) {
    if (seen == null) {
      return;
    }
    int most = chunk.features().numFeatures();
    if (most > MAX_TRACKED_WIDTH) {
      seen = null;
      return;
    }
    if ((most + 63) >>> 6 > seen.length) {
      seen = Arrays.copyOf(seen, (most + 63) >>> 6);
    }
    long[] s = seen;
    FeatureBlock.EntryVisitor mark =
        (j, v) -> s[j >>> 6] |= 1L << j;
    for (int r = 0; r < chunk.numRows(); r++) {
      chunk.features().forEachStored(r, mark);
    }
  }

  private int highestSeen() {
    for (int w = seen.length - 1; w >= 0; w--) {
      if (seen[w] != 0) {
        return (w << 6) + 63 - Long.numberOfLeadingZeros(seen[w]);
      }
    }
    return -1;
  }

  /**
   * Seals the last chunk and returns the worker's chunks at {@code finalWidth} (the rows' width,
   * or −1 for the width of the rows seen: a text read's), renumbered by the worker's own
   * features where that pays (see the class).
   */
  ChunkRows finish(int finalWidth) {
    if (finalWidth >= 0) {
      width = Math.max(finalWidth, width);
    }
    if (builder != null && builder.numRows() > 0) {
      seal(true);
    }
    builder = null;
    if (width < 0) {
      width = maxIndex() + 1;
    }
    LocalFeatures features = null;
    if (local) {
      features = rows.length == 0 ? LocalFeatures.none(width)
          : singleChunkFeatures != null ? singleChunkFeatures.atGlobalWidth(width)
          : renumbered();
    }
    return new ChunkRows(store, worker, rows, bytes, width, features);
  }

  /** Storage order of all stored values, summed over the chunks. */
  long storedValues() {
    return storedValues;
  }

  /**
   * The several chunks' feature map: when the worker holds at most half of the model's features,
   * each chunk read back, renumbered by them (the rows in their stored order, built again at the
   * worker's width m: CSR, since m ≥ the chunk's own features) and stored in place of itself.
   */
  private LocalFeatures renumbered() {
    if (seen == null) {
      return LocalFeatures.identity(width);
    }
    int m = 0;
    int[] rankBefore = new int[seen.length];
    for (int w = 0; w < seen.length; w++) {
      rankBefore[w] = m;
      m += Long.bitCount(seen[w]);
    }
    if (2L * m > width) {
      return LocalFeatures.identity(width);
    }
    int[] globalIndex = new int[m];
    int l = 0;
    for (int w = 0; w < seen.length; w++) {
      long b = seen[w];
      while (b != 0) {
        globalIndex[l++] = (w << 6) + Long.numberOfTrailingZeros(b);
        b &= b - 1;
      }
    }
    storedValues = 0;
    for (int c = 0; c < rows.length; c++) {
      TrainingBlock chunk = store.get(worker, c);
      if (chunk == null) {
        throw new IllegalStateException("chunk " + c + " of worker " + worker + " was lost"
            + " while its rows were being converted");
      }
      int longest = Math.max(1, chunk.features().maxStoredPerRow());
      int[] indices = new int[longest];
      double[] values = new double[longest];
      TrainingBlockBuilder local = new TrainingBlockBuilder(m);
      for (int r = 0; r < chunk.numRows(); r++) {
        int n = chunk.features().copyRow(r, indices, values);
        for (int k = 0; k < n; k++) {
          int g = indices[k];
          indices[k] = rankBefore[g >>> 6] + Long.bitCount(seen[g >>> 6] & ((1L << g) - 1));
        }
        local.addSparse(chunk.label(r), chunk.weight(r), indices, values, n);
      }
      TrainingBlock renumbered = local.build();
      store.replace(worker, c, renumbered);
      bytes[c] = renumbered.sizeInBytes();
      storedValues += renumbered.features().storedValues();
    }
    return new LocalFeatures(width, globalIndex);
  }
}
