package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One worker's training rows as one epoch visits them ({@link EpochPlan}): window after window,
 * each window's chunks read from Spark's cache (memory, or local disk when spilled) and seen as
 * one block ({@link TrainingBlock#concat}), its rows in the window's order. A mixing round visits
 * a consecutive slice of the epoch's visits ({@link #run}), which may begin and end inside a
 * window; the window in hand is kept for the next slice (a barrier task runs every round of the
 * epoch), and the next window is read ahead while the kernel works on this one, so that reading
 * spilled chunks from disk overlaps the arithmetic.
 *
 * <p>Memory: the window in hand and the next one, each at most the order's window bytes of the
 * chunks that Spark keeps on disk (chunks in memory are read in place).
 */
public final class WorkerEpoch {
  /** Reads windows ahead for every task of this JVM (daemon threads, one per core at most). */
  private static final ExecutorService READ_AHEAD = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "spark-perceptron window read-ahead");
    t.setDaemon(true);
    return t;
  });

  private final WorkerBlocks part;
  private final EpochPlan plan;
  private final Orders orders;
  private int heldWindow = -1;
  private TrainingBlock heldRows;
  private EpochOrder heldOrder;
  private int aheadWindow = -1;
  private CompletableFuture<TrainingBlock> ahead;

  private WorkerEpoch(WorkerBlocks part, EpochPlan plan, Orders orders) {
    this.part = part;
    this.plan = plan;
    this.orders = orders;
  }

  /**
   * Where the windows' orders come from: computed from the plan, or kept by the caller between
   * the tasks of an epoch's rounds (an order costs O(rows) to draw).
   */
  @FunctionalInterface
  public interface Orders {
    /** The order of window {@code k} of {@code plan}, whose rows are {@code rows}. */
    EpochOrder of(EpochPlan plan, int k, TrainingBlock rows);
  }

  /** Draws every window's order afresh. */
  public static final Orders DRAWN = (plan, k, rows) -> plan.order(k, rows.features());

  /**
   * Epoch {@code plan} of {@code part}'s training rows ({@link #plan}), the windows' orders from
   * {@code orders}.
   */
  public static WorkerEpoch of(WorkerBlocks part, EpochPlan plan, Orders orders) {
    return new WorkerEpoch(part, plan, orders);
  }

  /** The plan of {@code epoch} over {@code part}'s training rows. */
  public static EpochPlan plan(WorkerBlocks part, VisitOrder visits, int epoch) {
    ChunkRows rows = part.training;
    return EpochPlan.of(visits, epoch, part.worker(), rows.chunkRows(), rows.chunkBytes());
  }

  /** The visits of the epoch (the worker's training rows). */
  public long visits() {
    return plan.rows();
  }

  /** Receives one window's part of a slice of the epoch's visits. */
  @FunctionalInterface
  public interface Visitor {
    /** Visits {@code order.rows()[from .. to)} of {@code rows} (the window's rows as a block). */
    void visit(TrainingBlock rows, EpochOrder order, int from, int to);
  }

  /** The rows of window {@code k}, as one block. */
  public TrainingBlock window(int k) {
    if (k == heldWindow) {
      return heldRows;
    }
    TrainingBlock rows = null;
    if (k == aheadWindow) {
      rows = join(ahead);
      aheadWindow = -1;
      ahead = null;
    }
    if (rows == null) {
      rows = load(k, true);
    }
    heldWindow = k;
    heldRows = rows;
    heldOrder = null;
    return rows;
  }

  /**
   * Window {@code k}'s chunks as one block; with {@code rebuild} false (reading ahead, outside
   * the task's thread) null when a chunk is missing: the task's own read then rebuilds it.
   */
  private TrainingBlock load(int k, boolean rebuild) {
    int[] chunks = plan.chunks(k);
    TrainingBlock[] parts = new TrainingBlock[chunks.length];
    for (int i = 0; i < chunks.length; i++) {
      parts[i] = rebuild ? part.trainingChunk(chunks[i]) : part.training.chunk(chunks[i]);
      if (parts[i] == null) {
        return null;
      }
    }
    return TrainingBlock.concat(parts);
  }

  private static TrainingBlock join(CompletableFuture<TrainingBlock> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading a window of cached rows", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException ? (RuntimeException) cause
          : new IllegalStateException(cause);
    }
  }

  /**
   * Visits {@code from .. to} of the epoch in order, window by window; reads the next window
   * ahead when the slice reaches into it.
   */
  public void run(long from, long to, Visitor visitor) {
    if (from >= to) {
      return;
    }
    int k = plan.windowAt(from);
    while (k < plan.windows() && plan.visitStart(k) < to) {
      long start = plan.visitStart(k);
      long end = plan.visitStart(k + 1);
      if (end > from) {
        TrainingBlock rows = window(k);
        if (heldOrder == null) {
          heldOrder = orders.of(plan, k, rows);
        }
        if (k + 1 < plan.windows() && end < to && aheadWindow != k + 1) {
          int next = k + 1;
          aheadWindow = next;
          ahead = CompletableFuture.supplyAsync(() -> load(next, false), READ_AHEAD);
        }
        visitor.visit(rows, heldOrder, (int) (Math.max(from, start) - start),
            (int) (Math.min(to, end) - start));
      }
      k++;
    }
  }

  /** The order of window {@code k} over its rows (what {@link #run} visits). */
  public EpochOrder order(int k) {
    TrainingBlock rows = window(k);
    if (heldOrder == null) {
      heldOrder = orders.of(plan, k, rows);
    }
    return heldOrder;
  }
}
