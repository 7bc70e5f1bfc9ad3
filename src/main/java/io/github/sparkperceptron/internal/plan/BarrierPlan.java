package io.github.sparkperceptron.internal.plan;

/**
 * What a training's barrier stages ({@code rounds.BarrierRounds}) may do within its
 * {@link MemoryPlan}: whether an epoch's rounds fit one stage at all, what a stage reports
 * ({@link StageReport}), and how many epochs one stage may run. Each answer is
 * {@link BarrierMemory}'s arithmetic for the stage's arrays and results, taken with the
 * averaging accumulator kept or not and the end state reported or not.
 */
public final class BarrierPlan {
  private final MemoryPlan plan;

  BarrierPlan(MemoryPlan plan) {
    this.plan = plan;
  }

  /**
   * Why the epoch's rounds cannot run in one barrier stage within the memory the plan allows,
   * or null ({@link BarrierMemory#problem}): its tasks without the averaging accumulator, as a
   * stage that reports every round's mix runs them.
   */
  public String problem() {
    return new BarrierMemory(plan, false).problem();
  }

  /**
   * Whether a barrier stage may also keep the averaging accumulator u, so that it can report
   * the state it ended with instead of every round's mix ({@code rounds.BarrierEpochTask}): u's
   * copies fit beside the rest (always without averaging, which keeps no u).
   */
  public boolean mayReportEnd() {
    return new BarrierMemory(plan, plan.barrierKeepsAverage).problem() == null;
  }

  /**
   * What a training's barrier stages report where nothing needs every round's state (no vote,
   * no epoch listener): {@link StageReport#END} with block momentum where the end state at its
   * largest (the support bound's coordinates) fits the driver, the executors and
   * {@code spark.driver.maxResultSize}; else {@link StageReport#SMALLER} where u's copies fit
   * ({@link #mayReportEnd}); else {@link StageReport#MIXES}.
   */
  public StageReport stageReport() {
    if (!mayReportEnd()) {
      return StageReport.MIXES;
    }
    return plan.momentum && new BarrierMemory(plan, plan.barrierKeepsAverage, true).fits()
        ? StageReport.END : StageReport.SMALLER;
  }

  /**
   * How many epochs one barrier stage that reports {@code report} may run
   * ({@link BarrierMemory#epochsPerStage}): its tasks keep u where it may report its end (with
   * averaging), and a stage that reports its end state whatever its mixes holds one state, not
   * every round's mix, so only its rounds' small reports grow with its epochs.
   */
  public int epochsPerStage(StageReport report) {
    return new BarrierMemory(plan, report.mayReportEnd() && plan.barrierKeepsAverage,
        report == StageReport.END).epochsPerStage();
  }

  /**
   * How many of a barrier stage's {@code epochs} epochs the driver audits, the count the stage's
   * memory is planned for ({@link BarrierMemory#auditedEpochs}).
   */
  public static int auditedEpochs(int epochs, int rounds, int workers) {
    return BarrierMemory.auditedEpochs(epochs, rounds, workers);
  }
}
