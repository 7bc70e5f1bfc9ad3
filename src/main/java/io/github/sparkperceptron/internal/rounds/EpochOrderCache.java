package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.lang.ref.SoftReference;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each worker's row order of an epoch, kept on the executor while the epoch's mixing rounds
 * run: a round visits one consecutive slice of the order, and recomputing the whole permutation
 * for every slice would cost O(rows) per round instead of per epoch.
 *
 * <p>The order is a pure function of (shuffle, shuffleScope, seed, epoch, worker) and the
 * block's shape ({@link VisitOrder}), so an executor that lacks it (a new executor, a retried task
 * elsewhere) recomputes exactly the same one; this cache only saves work. It holds at most one
 * order per worker and drops a worker's order of an earlier epoch when the next epoch's
 * arrives; the orders are softly referenced and the cache empties itself past {@value #MAX_KEYS}
 * workers, so that a long-lived executor running many trainings does not accumulate them.
 */
final class EpochOrderCache {
  /** More keys than this (many trainings in one long-lived executor) empty the cache. */
  private static final int MAX_KEYS = 4096;
  /** Soft: the orders are a cache, which the collector may reclaim under memory pressure. */
  private static final ConcurrentHashMap<Key, SoftReference<Cached>> ORDERS =
      new ConcurrentHashMap<>();

  private EpochOrderCache() {
  }

  /** The worker's key within one training (the epoch is the value's, see {@link #of}). */
  private static final class Key {
    final boolean shuffle;
    final String scope;
    final long seed;
    final int worker;
    /** The window of the worker's epoch (kernel.EpochPlan), and how many the epoch has. */
    final int window;
    final int windows;
    final int rows;
    final long storedBytes;

    Key(EpochPlan plan, int worker, int window, TrainingBlock block) {
      // The plan's order: scope auto resolved by the worker's stored chunks.
      VisitOrder order = plan.visits();
      this.shuffle = order.shuffle();
      this.scope = order.scope().paramValue();
      this.seed = order.seed();
      this.worker = worker;
      this.window = window;
      this.windows = plan.windows();
      this.rows = block.numRows();
      // The chunk size follows the block's bytes per row (VisitOrder.chunkRows).
      this.storedBytes = block.features().sizeInBytes();
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Key)) {
        return false;
      }
      Key k = (Key) o;
      return shuffle == k.shuffle && scope.equals(k.scope) && seed == k.seed
          && worker == k.worker && window == k.window && windows == k.windows
          && rows == k.rows
          && storedBytes == k.storedBytes;
    }

    @Override
    public int hashCode() {
      return Objects.hash(shuffle, scope, seed, worker, window, windows, rows, storedBytes);
    }
  }

  /** An epoch's order and the epoch it belongs to. */
  private static final class Cached {
    final int epoch;
    final EpochOrder order;

    Cached(int epoch, EpochOrder order) {
      this.epoch = epoch;
      this.order = order;
    }
  }

  /**
   * The order of window {@code window} of {@code plan} (worker {@code worker}'s epoch
   * {@code epoch}), whose rows are {@code block} (shared: never mutate it). With one round per
   * epoch it is not cached.
   */
  static EpochOrder of(int epoch, int worker, EpochPlan plan, int window, TrainingBlock block,
      int rounds) {
    if (rounds == 1) {
      return plan.order(window, block.features());
    }
    Key key = new Key(plan, worker, window, block);
    SoftReference<Cached> ref = ORDERS.get(key);
    Cached cached = ref == null ? null : ref.get();
    if (cached != null && cached.epoch == epoch) {
      return cached.order;
    }
    EpochOrder order = plan.order(window, block.features());
    if (ORDERS.size() >= MAX_KEYS) {
      ORDERS.clear();
    }
    ORDERS.put(key, new SoftReference<>(new Cached(epoch, order)));
    return order;
  }
}
