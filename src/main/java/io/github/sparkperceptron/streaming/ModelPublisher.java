package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.store.AtomicFiles;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a stream's models to a fixed path while readers may load it, in the background, off
 * the batches' critical path: a batch hands over its model and goes on; one publisher thread
 * writes it. The latest model wins: a model handed over while another is being written waits, and
 * is replaced by any newer one handed over before its turn, so the thread never falls behind the
 * stream by more than one model, and a reader never sees an older model after a newer one.
 *
 * <p>At most one publication starts per interval ({@code minInterval}): a model handed over
 * sooner waits (replaced by newer ones) until the interval has passed, or until someone waits for
 * the publisher ({@link #awaitIdle}, {@link #close}), which publishes it at once. A save is a few
 * Spark jobs of its own: on a small cluster, one per batch of a fast stream took a core and a task
 * slot from the batches themselves (BENCHMARKS "Issue 20": a 1-row batch's fixed cost).
 *
 * <p>Each model is saved complete under a temporary sibling name, then swapped in
 * ({@link AtomicFiles#swapIn}) by two renames (the old version aside, the new one into place) and
 * the old version deleted, so a reader finds either the previous complete model or the new one:
 * never a torn one. Only a load that overlaps the swap itself (two renames) can fail, and succeeds
 * when retried. If the driver dies between the two renames, the next {@link #recover} puts the
 * previous version back.
 *
 * <p>A failed publication is reported at the next hand-over or wait ({@link #submit},
 * {@link #awaitIdle}): the stream stops, as it would have had the batch published inline.
 */
final class ModelPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(ModelPublisher.class);
  /** The publisher thread's Spark job group, so its jobs are told apart from the batches'. */
  static final String JOB_GROUP = "spark-perceptron publisher";

  private final SparkSession spark;
  private final String target;
  private final LearnerStateStore store;
  private final Thread thread;
  /** The model waiting for its turn, or null. */
  private PerceptronClassificationModel pending;
  private long pendingBatch = -1;
  private boolean writing;
  private RuntimeException failure;
  private long publishedBatch;
  private boolean closed;
  /** The threads in {@link #awaitIdle}: while any waits, the interval does not hold a model back. */
  private int waiters;
  private final long minIntervalNanos;
  /** When the next publication may start (System.nanoTime()). */
  private long nextStart;

  /**
   * @param publishedBatch the batch whose model {@code target} holds already, or −1
   * @param minIntervalSeconds the least time between the starts of two publications (0: none)
   */
  ModelPublisher(SparkSession spark, String target, LearnerStateStore store,
      long publishedBatch, double minIntervalSeconds) {
    this.minIntervalNanos = (long) (minIntervalSeconds * 1e9);
    this.nextStart = System.nanoTime();
    this.spark = spark;
    this.target = target;
    this.store = store;
    this.publishedBatch = publishedBatch;
    this.thread = new Thread(this::run, "spark-perceptron publisher " + target);
    thread.setDaemon(true);
    thread.start();
  }

  /** The batch whose model was last written (or was there at the start), or −1. */
  synchronized long publishedBatch() {
    return publishedBatch;
  }

  /** The batch whose model was last handed over (written, being written or waiting), or −1. */
  synchronized long latestBatch() {
    return pendingBatch >= 0 ? pendingBatch : publishedBatch;
  }

  /**
   * Hands over the model of batch {@code batchId} (replacing a model still waiting).
   *
   * @throws RuntimeException the failure of an earlier publication
   */
  synchronized void submit(long batchId, PerceptronClassificationModel model) {
    rethrow();
    if (pending != null) {
      LOG.debug("The model of batch {} is replaced by batch {}'s before it was published",
          pendingBatch, batchId);
    }
    pending = model;
    pendingBatch = batchId;
    notifyAll();
  }

  /**
   * Waits until every model handed over is written.
   *
   * @throws RuntimeException the failure of a publication
   */
  synchronized void awaitIdle() {
    waiters++;
    notifyAll();
    try {
      while ((pending != null || writing) && failure == null) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("Interrupted while waiting for the model's"
              + " publication", e);
        }
      }
    } finally {
      waiters--;
    }
    rethrow();
  }

  /** Stops the thread once idle (the models handed over are written first). */
  void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void rethrow() {
    if (failure != null) {
      RuntimeException e = failure;
      failure = null;
      throw e;
    }
  }

  private void run() {
    SparkContext sc = spark.sparkContext();
    // Not the stream's: a thread inherits its creator's local properties, and the query's job
    // group (which stopping the query cancels) or its SQL execution must not reach these jobs.
    sc.setJobGroup(JOB_GROUP, "publish the stream's model to " + target, false);
    sc.clearJobTags();
    sc.setLocalProperty("spark.sql.execution.id", null);
    sc.setLocalProperty("sql.streaming.queryId", null);
    sc.setLocalProperty("streaming.sql.batchId", null);
    while (true) {
      PerceptronClassificationModel model;
      long batchId;
      synchronized (this) {
        while (true) {
          if (pending == null && closed) {
            return;
          }
          long early = nextStart - System.nanoTime();
          if (pending != null && (closed || waiters > 0 || early <= 0)) {
            break;
          }
          try {
            // Woken by a hand-over, a waiter or close(); else when the interval has passed.
            wait(pending == null ? 0 : Math.max(1, early / 1_000_000));
          } catch (InterruptedException e) {
            return;
          }
        }
        model = pending;
        batchId = pendingBatch;
        pending = null;
        writing = true;
        nextStart = System.nanoTime() + minIntervalNanos;
      }
      try {
        publish(spark, model, target);
        store.markPublished(batchId, target);
        LOG.info("Published the model of batch {} to {}", batchId, target);
        synchronized (this) {
          publishedBatch = batchId;
        }
      } catch (RuntimeException e) {
        LOG.error("Could not publish the model of batch {} to {}: {}", batchId, target,
            e.getMessage());
        synchronized (this) {
          failure = e;
        }
      } finally {
        synchronized (this) {
          writing = false;
          if (pendingBatch == batchId) {
            pendingBatch = -1;
          }
          notifyAll();
        }
      }
    }
  }

  /** Writes {@code model} to {@code target} now: saved aside, then swapped in. */
  static void publish(SparkSession spark, PerceptronClassificationModel model, String target) {
    Path dst = new Path(target);
    Path temporary = AtomicFiles.temporarySibling(dst);
    FileSystem fs;
    try {
      fs = dst.getFileSystem(spark.sparkContext().hadoopConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach the model path '" + target + "'", e);
    }
    try {
      model.write().session(spark).save(temporary.toString());
      AtomicFiles.swapIn(fs, temporary, dst);
    } catch (IOException e) {
      AtomicFiles.discard(fs, temporary);
      throw new UncheckedIOException("Cannot publish the model to '" + target + "'", e);
    } catch (RuntimeException e) {
      AtomicFiles.discard(fs, temporary);
      throw e;
    }
  }

  /**
   * Cleans up after a driver that died while publishing to {@code target}: restores the previous
   * version if the new one never arrived, and removes leftover temporary and old versions.
   */
  static void recover(SparkSession spark, String target) {
    Path dst = new Path(target);
    try {
      FileSystem fs = dst.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (AtomicFiles.recoverSwap(fs, dst)) {
        LOG.warn("Restored the previously published model {} (the last publication was"
            + " interrupted)", dst);
      }
    } catch (IOException e) {
      LOG.warn("Could not check {} for an interrupted publication: {}", target, e.getMessage());
    }
  }
}
