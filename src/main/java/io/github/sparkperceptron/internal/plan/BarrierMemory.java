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
  /** Whether the tasks keep the averaging accumulator u (a stage that may report its end). */
  private final boolean keepsAverage;
  /**
   * Whether the stage reports its end state whatever its mixes ({@link StageReport#END}): its
   * results are one state, not every round's mix.
   */
  private final boolean reportsEnd;

  BarrierMemory(MemoryPlan plan, boolean keepsAverage) {
    this(plan, keepsAverage, false);
  }

  BarrierMemory(MemoryPlan plan, boolean keepsAverage, boolean reportsEnd) {
    this.plan = plan;
    this.keepsAverage = keepsAverage;
    this.reportsEnd = reportsEnd;
  }

  /** Bytes a worker's report of one round takes besides any change (stats, μ, framing). */
  static final long REPORT_BYTES_PER_ROUND = 512;

  /** Bytes per support coordinate in a barrier task: the support and the moved coordinates. */
  static final long BYTES_PER_SUPPORT = 3 * 4;

  /** The audited changes stay within about 1/{@value} of a stage's reported mixes. */
  static final int AUDIT_SHARE_DENOMINATOR = 4;

  /**
   * Why the epoch's rounds cannot run in one barrier stage ({@code BarrierRounds}) within the
   * memory this plan allows, or null. Beyond the job-per-round path's arrays, each barrier task
   * holds the round's mixed weights beside its training copy (w), with block momentum its Δ
   * (w), where it keeps it the averaging accumulator u (w, and its shipped copy) (private
   * copies the executor keeps for the training's next epoch and hands the next task,
   * {@code ExecutorWeights.checkoutWhole}), the support and the coordinates its
   * weights moved as sorted int arrays (12 B per support coordinate: two arrays and the union
   * being made), and the epoch's R mixed changes (counted whole for one task: each reports
   * about R/W of them, the rounds taken in turn); the epoch's reports reach the driver at once,
   * through a task per worker: R mixed changes, W·R small reports, with a vote the workers'
   * traces, and the audited round's W changes ({@link #auditedEpochs}: a stage's first epoch is
   * always audited), held serialised and deserialised on the executors and on the driver, and
   * counted against {@code spark.driver.maxResultSize}.
   */
  String problem() {
    long epochResults = stageResults(1);
    if (plan.cluster.maxResultSize > 0 && epochResults > plan.cluster.maxResultSize) {
      return String.format(Locale.ROOT, "an epoch's %d mixed changes of up to %,d MiB each,"
          + " with its audited round's %d changes, would exceed spark.driver.maxResultSize=%dm",
          plan.rounds, mib(plan.mixedDeltaBytes), plan.numWorkers,
          mib(plan.cluster.maxResultSize));
    }
    long driverNeed = driverBytes(1);
    if (driverNeed > plan.cluster.driverBudget()) {
      return String.format(Locale.ROOT, "the barrier tasks' extra copies of the weights and the"
          + " epoch's %d mixed changes (and its audited round) would need about %,d MiB on the"
          + " driver, more than its %,d MiB budget", plan.rounds, mib(driverNeed),
          mib(plan.cluster.driverBudget()));
    }
    if (!plan.cluster.local && executorBytes(1) > plan.cluster.executorBudget()) {
      return String.format(Locale.ROOT, "the barrier tasks' extra copies of the weights and the"
          + " epoch's %d mixed changes (and its audited round) would need about %,d MiB on an"
          + " executor, more than its %,d MiB budget", plan.rounds, mib(executorBytes(1)),
          mib(plan.cluster.executorBudget()));
    }
    return null;
  }

  /**
   * How many epochs one barrier stage may run (at least 1, at most maxIter): each epoch's
   * reports ({@link #problem}'s epoch results) and the stage's audited changes stay in the
   * stage's result until the driver replays them, so the stage's E epochs' results must fit the
   * driver, an executor (counted as if one worker reported every mix) and
   * {@code spark.driver.maxResultSize}, as one epoch's do. The largest such E, found by
   * bisection: the results grow with E. A stage that reports its end whatever its mixes holds
   * one state, so only its rounds' small reports grow with E.
   */
  int epochsPerStage() {
    int fits = 1;
    int tooMany = plan.maxIter + 1;
    while (tooMany - fits > 1) {
      int epochs = fits + (tooMany - fits) / 2;
      if (stageFits(epochs)) {
        fits = epochs;
      } else {
        tooMany = epochs;
      }
    }
    return fits;
  }

  private boolean stageFits(int epochs) {
    long results = stageResults(epochs);
    if (plan.cluster.maxResultSize > 0 && results > plan.cluster.maxResultSize) {
      return false;
    }
    if (driverBytes(epochs) > plan.cluster.driverBudget()) {
      return false;
    }
    return plan.cluster.local || executorBytes(epochs) <= plan.cluster.executorBudget();
  }

  /**
   * How many epochs of a barrier stage of {@code epochs} epochs of {@code rounds} rounds over
   * {@code workers} workers are audited ({@code rounds.MixAudit}, where every worker sends its own
   * change of one round beside the reported mixes): max(1, ⌈E·R / (4·W)⌉), at most E, so that
   * the audited changes (W per audited round) stay within about a quarter of the stage's E·R
   * reported mixes.
   */
  static int auditedEpochs(int epochs, int rounds, int workers) {
    long reported = (long) epochs * rounds;
    long perAuditedRound = (long) AUDIT_SHARE_DENOMINATOR * workers;
    long budget = (reported + perAuditedRound - 1) / perAuditedRound;
    return (int) Math.min(epochs, Math.max(1, budget));
  }

  /**
   * Bytes of the results of a stage of {@code epochs} epochs: per epoch R mixed changes, W·R
   * small reports and, with a vote, the W workers' traces (at worst); and the audited epochs' W
   * changes of one worker's size each.
   */
  private long stageResults(int epochs) {
    if (reportsEnd) {
      // One state, the rounds' small reports, and one audited round: its W changes and its mix.
      return capped(saturatingProduct(saturatingProduct(epochs,
          (long) plan.numWorkers * plan.rounds), REPORT_BYTES_PER_ROUND) + endStateBytes()
          + saturatingProduct(plan.numWorkers, plan.workerDeltaBytes) + plan.mixedDeltaBytes);
    }
    long perEpoch = saturatingProduct(plan.rounds, plan.mixedDeltaBytes)
        + saturatingProduct((long) plan.numWorkers * plan.rounds, REPORT_BYTES_PER_ROUND)
        + saturatingProduct(plan.numWorkers, plan.voteTraceBytes);
    long auditedChanges = (long) auditedEpochs(epochs, plan.rounds, plan.numWorkers)
        * plan.numWorkers;
    long sum = saturatingProduct(epochs, perEpoch)
        + saturatingProduct(auditedChanges, plan.workerDeltaBytes);
    return capped(sum);
  }

  /** Capped so that the two or three copies the estimates add stay in range (an overflow too). */
  private static long capped(long sum) {
    return sum < 0 ? Long.MAX_VALUE / 8 : Math.min(sum, Long.MAX_VALUE / 8);
  }

  /**
   * Bytes of a stage's end state at worst ({@code rounds.BarrierEpochTask.EndState}): per
   * support coordinate its index, w, and u and Δ where the tasks keep them.
   */
  long endStateBytes() {
    long perCoordinate = 4 + 8 + (keepsAverage ? 8 : 0) + (plan.momentum ? 8 : 0);
    return saturatingProduct(Math.min(plan.learner.stateLength(), plan.supportBound),
        perCoordinate);
  }

  /**
   * Whether a stage's results and arrays fit the driver, an executor and
   * {@code spark.driver.maxResultSize} ({@link #problem}'s tests, without the message).
   */
  boolean fits() {
    return stageFits(1);
  }

  /**
   * The barrier tasks' own arrays: per running task w, momentum's Δ, u where the stage may
   * report its end state (averaging without a vote) and the support; and that u's shipped copy,
   * which the executor caches for the training (one w).
   */
  private long taskBytes() {
    long length = plan.learner.stateLength();
    long average = keepsAverage ? plan.weightBytes : 0;
    long perTask = plan.weightBytes + (plan.momentum ? plan.weightBytes : 0) + average
        + BYTES_PER_SUPPORT * Math.min(length, plan.supportBound);
    return saturatingProduct(plan.running, perTask) + average;
  }

  /**
   * The driver's bytes with a barrier stage of {@code epochs} epochs: its arrays, u's shipped
   * snapshot where the stage may report its end state (a copy and its pieces), the stage's
   * results serialised and deserialised, and in local mode the tasks and the workers' results.
   */
  private long driverBytes(int epochs) {
    long results = stageResults(epochs);
    long averageSnapshot = keepsAverage
        ? saturatingProduct(MemoryPlan.DRIVER_SNAPSHOT, plan.weightBytes) : 0;
    return plan.driverBytes() + averageSnapshot + 2 * results
        + (plan.cluster.local ? taskBytes() + results : 0);
  }

  /** An executor's bytes with a barrier stage of {@code epochs} epochs (not local mode). */
  private long executorBytes(int epochs) {
    return plan.executorBytes() + taskBytes()
        + 2 * stageResults(epochs);
  }
}
