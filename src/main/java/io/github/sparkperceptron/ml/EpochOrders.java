package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.SeededShuffle;
import java.util.Arrays;
import java.lang.ref.SoftReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each partition's row order of an epoch, kept on the executor while the epoch's mixing rounds
 * run: a round visits one consecutive slice of the order, and recomputing the whole permutation
 * for every slice would cost O(rows) per round instead of per epoch.
 *
 * <p>The order is a pure function of (shuffle, seed, epoch, partition, rows) ({@link
 * SeededShuffle}), so an executor that lacks it (a new executor, a retried task elsewhere)
 * recomputes exactly the same one; this cache only saves work. It holds at most one order per
 * partition and drops a partition's order of an earlier epoch when the next epoch's arrives; the
 * orders are softly referenced and the cache empties itself past {@value #MAX_KEYS} partitions, so
 * that a long-lived executor running many trainings does not accumulate them.
 */
final class EpochOrders {
  /** More keys than this (many trainings in one long-lived executor) empty the cache. */
  private static final int MAX_KEYS = 4096;
  /** Soft: the orders are a cache, which the collector may reclaim under memory pressure. */
  private static final ConcurrentHashMap<Key, SoftReference<int[]>> ORDERS =
      new ConcurrentHashMap<>();

  private EpochOrders() {
  }

  /** The partition's key within one training (the epoch is the value's, see {@link #of}). */
  private static final class Key {
    final boolean shuffle;
    final long seed;
    final int partition;
    final int rows;

    Key(boolean shuffle, long seed, int partition, int rows) {
      this.shuffle = shuffle;
      this.seed = seed;
      this.partition = partition;
      this.rows = rows;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Key)) {
        return false;
      }
      Key k = (Key) o;
      return shuffle == k.shuffle && seed == k.seed && partition == k.partition && rows == k.rows;
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(new long[] {shuffle ? 1 : 0, seed, partition, rows});
    }
  }

  /**
   * The order of {@code rows} rows of {@code partition} in {@code epoch} (shared: never mutate
   * it). With one round per epoch it is not cached.
   */
  static int[] of(boolean shuffle, long seed, int epoch, int partition, int rows, int rounds) {
    if (rounds == 1) {
      return SeededShuffle.order(shuffle, seed, epoch, partition, rows);
    }
    Key key = new Key(shuffle, seed, partition, rows);
    SoftReference<int[]> ref = ORDERS.get(key);
    int[] cached = ref == null ? null : ref.get();
    // The epoch is stored after the rows (see below), so an order is found only for its epoch.
    if (cached != null && cached[rows] == epoch) {
      return cached;
    }
    int[] order = SeededShuffle.order(shuffle, seed, epoch, partition, rows);
    int[] stored = Arrays.copyOf(order, rows + 1);
    stored[rows] = epoch;
    if (ORDERS.size() >= MAX_KEYS) {
      ORDERS.clear();
    }
    ORDERS.put(key, new SoftReference<>(stored));
    return stored;
  }

  /** Forgets every cached order (the end of a training on this JVM's driver side; tests). */
  static void clear() {
    ORDERS.clear();
  }
}
