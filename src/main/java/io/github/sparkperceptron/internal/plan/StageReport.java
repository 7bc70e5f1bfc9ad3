package io.github.sparkperceptron.internal.plan;

/**
 * What a barrier stage's tasks send the driver after the stage ({@code rounds.BarrierEpochTask}),
 * from which the driver takes the training's state: every round's mix, which it replays round by
 * round, or the state the workers ended the stage with, which it adopts. Both give the same
 * model bit for bit; they differ in what travels and what the driver recomputes, and the memory
 * plan ({@link BarrierPlan#stageReport}) bounds a stage's epochs by what it reports.
 */
public enum StageReport {
  /**
   * Every round's mix: where the driver needs every round's state (a vote's start vectors, an
   * epoch listener), where the averaging accumulator's copies do not fit the plan, and after a
   * stage of {@link #SMALLER} whose mixes were the smaller report.
   */
  MIXES,
  /**
   * The end state or every round's mix, whichever takes fewer bytes (without block momentum:
   * the driver's replay of a round costs what the round's mix holds).
   */
  SMALLER,
  /**
   * The end state, however small the mixes (block momentum): the driver's replay would move
   * the weights, the averaging accumulator and Δ at every support coordinate in every round
   * (the look-ahead), so adopting the state once costs it less than replaying any stage of two
   * rounds or more; a stage's results are then one state, whatever its number of epochs.
   */
  END;

  /** Whether the stage may report where it ended (its tasks keep the averaging accumulator). */
  public boolean mayReportEnd() {
    return this != MIXES;
  }
}
