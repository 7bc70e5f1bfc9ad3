package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.io.Serializable;

/**
 * One worker's rows of one kind (training, validation, or rows only to be scored) as the chunks
 * {@link ChunkWriter} stored: how many rows and bytes each chunk holds, the rows' width and how
 * they number their features. Small (two numbers per chunk): it travels with the worker's facts
 * in Spark's cache, the chunks themselves in {@link ChunkStore}.
 *
 * <p>A chunk is stored without its feature map: the map is the worker's, held here once. The
 * rows of a worker whose chunks number their features by the model's numbers may be narrower
 * than the input (a LIBSVM file read in one pass: a worker sees only its own largest index);
 * they are read at the input's width ({@link #widened}): a sparse chunk as it is, a dense one
 * built again, as a conversion at that width would have built it.
 */
final class ChunkRows implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ChunkStore store;
  private final int worker;
  private final int[] rows;
  private final long[] bytes;
  /** The rows' width: the model's d once the input's width is known. */
  private final int width;
  /**
   * The worker's feature numbers: its own (the rows number their features 0 .. m−1), the
   * identity over d (the model's numbers, for a worker whose rows span several chunks and most
   * of d), or null (rows only scored, or validation rows: the model's numbers, no map).
   */
  private final LocalFeatures features;

  ChunkRows(ChunkStore store, int worker, int[] rows, long[] bytes, int width,
      LocalFeatures features) {
    this.store = store;
    this.worker = worker;
    this.rows = rows;
    this.bytes = bytes;
    this.width = width;
    this.features = features;
  }

  int worker() {
    return worker;
  }

  int chunks() {
    return rows.length;
  }

  /** Rows of every chunk, in storage order (shared: never mutate). */
  int[] chunkRows() {
    return rows;
  }

  /** Bytes of every chunk, in storage order (shared: never mutate). */
  long[] chunkBytes() {
    return bytes;
  }

  long numRows() {
    long n = 0;
    for (int r : rows) {
      n += r;
    }
    return n;
  }

  long sizeInBytes() {
    long n = 0;
    for (long b : bytes) {
      n += b;
    }
    return n;
  }

  int width() {
    return width;
  }

  /** The worker's feature map (see the field), or null. */
  LocalFeatures features() {
    return features;
  }

  /**
   * Chunk {@code c} as the kernel reads it, at the rows' width with the worker's feature map;
   * null when no executor keeps it any more (the caller rebuilds the worker's chunks).
   */
  TrainingBlock chunk(int c) {
    TrainingBlock stored = store.get(worker, c);
    if (stored == null) {
      return null;
    }
    if (features == null || features.isIdentity()) {
      TrainingBlock wide = stored.widened(width);
      return features == null ? wide : wide.withLocalFeatures(features);
    }
    return stored.withLocalFeatures(features);
  }

  /**
   * Moves these rows' chunks, the last first, from this executor's storage memory to its disk
   * ({@link ChunkStore#spill}) while the storage memory holds more than {@code cap} bytes;
   * returns the bytes freed.
   */
  long spillWhileAbove(long cap) {
    long freed = 0;
    for (int c = rows.length - 1; c >= 0 && ChunkStore.storageMemoryUsed() > cap; c--) {
      freed += store.spill(worker, c);
    }
    return freed;
  }

  /** These rows read at {@code newWidth} (at least their width), without touching a chunk. */
  ChunkRows widened(int newWidth) {
    if (newWidth < width) {
      throw new IllegalArgumentException("cannot widen rows of " + width + " features to "
          + newWidth);
    }
    if (newWidth == width) {
      return this;
    }
    LocalFeatures map = features == null ? null : features.isIdentity()
        ? LocalFeatures.identity(newWidth) : features.atGlobalWidth(newWidth);
    return new ChunkRows(store, worker, rows, bytes, newWidth, map);
  }
}
