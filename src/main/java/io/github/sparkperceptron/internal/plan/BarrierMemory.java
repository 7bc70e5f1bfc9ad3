package io.github.sparkperceptron.internal.plan;

import static io.github.sparkperceptron.internal.plan.MemoryPlan.mib;
import static io.github.sparkperceptron.internal.plan.MemoryPlan.saturatingProduct;

import java.util.Locale;

/**
 * What running an epoch's rounds in one barrier stage ({@code rounds.BarrierRounds}) adds to a
 * {@link MemoryPlan}: whether the stage fits, and how many epochs one stage may run before the
 * driver must replay their reports. The plan's own terms (the job-per-round path's arrays) are
 * the base it adds to.
 */
final class BarrierMemory {
  private final MemoryPlan plan;

  BarrierMemory(MemoryPlan plan) {
    this.plan = plan;
  }

  /** Bytes a worker's report of one round takes besides any change (stats, μ, framing). */
  static final long REPORT_BYTES_PER_ROUND = 512;

  /** Bytes per support coordinate in a barrier task: the support and the moved coordinates. */
  static final long BYTES_PER_SUPPORT = 3 * 4;

  /**
   * Why the epoch's rounds cannot run in one barrier stage ({@code BarrierRounds}) within the
   * memory this plan allows, or null. Beyond the job-per-round path's arrays, each barrier task
   * holds the round's mixed weights beside its training copy (w), with block momentum its Δ
   * (w) (both private copies the executor keeps for the training's next epoch and hands the
   * next task, {@code ExecutorWeights.checkoutWhole}), the support and the coordinates its
   * weights moved as sorted int arrays (12 B per support coordinate: two arrays and the union
   * being made), and the epoch's R mixed changes (counted whole for one task: each reports
   * about R/W of them, the rounds taken in turn); the epoch's reports reach the driver at once,
   * through a task per worker: R mixed changes and W·R small reports, held serialised and
   * deserialised on the executors and on the driver, and counted against
   * {@code spark.driver.maxResultSize}.
   */
  String problem() {
    long epochResults = epochResults();
    if (plan.cluster.maxResultSize > 0 && epochResults > plan.cluster.maxResultSize) {
      return String.format(Locale.ROOT, "an epoch's %d mixed changes of up to %,d MiB each"
          + " would exceed spark.driver.maxResultSize=%dm", plan.rounds,
          mib(plan.mixedDeltaBytes), mib(plan.cluster.maxResultSize));
    }
    long driverNeed = driverBytes(1);
    if (driverNeed > plan.cluster.driverBudget()) {
      return String.format(Locale.ROOT, "the barrier tasks' extra copies of the weights and the"
          + " epoch's %d mixed changes would need about %,d MiB on the driver, more than its"
          + " %,d MiB budget", plan.rounds, mib(driverNeed),
          mib(plan.cluster.driverBudget()));
    }
    if (!plan.cluster.local && executorBytes(1) > plan.cluster.executorBudget()) {
      return String.format(Locale.ROOT, "the barrier tasks' extra copies of the weights and the"
          + " epoch's %d mixed changes would need about %,d MiB on an executor, more than its"
          + " %,d MiB budget", plan.rounds, mib(executorBytes(1)),
          mib(plan.cluster.executorBudget()));
    }
    return null;
  }

  /**
   * How many epochs one barrier stage may run (at least 1, at most maxIter): each epoch's
   * reports ({@link #problem}'s epoch results) stay in the stage's result until the
   * driver replays them, so the stage's E epochs' results must fit the driver, an executor
   * (counted as if one worker reported every mix) and {@code spark.driver.maxResultSize}, as
   * one epoch's do.
   */
  int epochsPerStage() {
    long epochResults = Math.max(1, epochResults());
    long most = plan.maxIter;
    if (plan.cluster.maxResultSize > 0) {
      most = Math.min(most, plan.cluster.maxResultSize / epochResults);
    }
    long driverRoom = plan.cluster.driverBudget() - driverBytes(0);
    most = Math.min(most, driverRoom / ((plan.cluster.local ? 3 : 2) * epochResults));
    if (!plan.cluster.local) {
      most = Math.min(most, (plan.cluster.executorBudget() - executorBytes(0))
          / (2 * epochResults));
    }
    return (int) Math.max(1, most);
  }

  /** Bytes of one epoch's reports: R mixed changes and W·R small reports. */
  private long epochResults() {
    return saturatingProduct(plan.rounds, plan.mixedDeltaBytes)
        + saturatingProduct((long) plan.numWorkers * plan.rounds, REPORT_BYTES_PER_ROUND);
  }

  /** The barrier tasks' own arrays: per running task w, momentum's Δ and the support. */
  private long taskBytes() {
    long length = plan.learner.stateLength();
    long perTask = plan.weightBytes + (plan.momentum ? plan.weightBytes : 0)
        + BYTES_PER_SUPPORT * Math.min(length, plan.supportBound);
    return saturatingProduct(plan.running, perTask);
  }

  /**
   * The driver's bytes with a barrier stage of {@code epochs} epochs: its arrays, the stage's
   * results serialised and deserialised, and in local mode the tasks and the workers' results.
   */
  private long driverBytes(int epochs) {
    long results = saturatingProduct(epochs, epochResults());
    return plan.driverBytes() + 2 * results + (plan.cluster.local ? taskBytes() + results : 0);
  }

  /** An executor's bytes with a barrier stage of {@code epochs} epochs (not local mode). */
  private long executorBytes(int epochs) {
    return plan.executorBytes() + taskBytes()
        + 2 * saturatingProduct(epochs, epochResults());
  }
}
