package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.kernel.EpochStats;

/**
 * How one epoch's mixing rounds run on the cluster: the seam between {@code MixingLoop}'s
 * outline and Spark's scheduling. An implementation runs the R rounds of the epoch from the
 * training's current state and leaves the state mixed after the last round, as if each round had
 * been mixed on the driver (the models must not depend on the implementation, bit for bit).
 * Two implementations: {@link JobPerRound} (one Spark job per round) and {@link BarrierRounds}
 * (all rounds of one or more epochs in one Spark barrier stage, the workers exchanging their
 * changes among themselves, the driver taking the state they ended with or replaying their mixes
 * an epoch at a time); both leave the
 * driver's steps of a round to {@link DriverRounds} and the workers' to {@link WorkerRound}.
 */
public interface EpochRounds {
  /**
   * Runs the rounds of {@code epoch}; on return the training's state is the epoch's mixed state
   * (clock advanced by one epoch's weight), the vote holds the epoch's traces and every
   * coordinate the epoch changed is marked in the training's support set; or, for an epoch of a
   * stage that reports only where it ended (no vote, no per-epoch callback), the state is the
   * stage's start state until its last epoch, which leaves the state where the stage ended, and
   * the outcome carries the epoch's weight change as the workers measured it
   * ({@link Outcome#weightChange}). The caller runs the
   * epochs in order and promises that nothing but this seam changes the state between
   * {@code epoch} and {@code lastEpoch} (no validation, checkpoint or stop decision needs the
   * driver between them), so that they may run together, ahead of their replay.
   *
   * @throws IllegalArgumentException if arithmetic left the doubles' range (see
   *     {@link DriverRounds#requireFinite})
   */
  Outcome run(int epoch, int lastEpoch);

  /**
   * What an epoch did: its counts summed over rounds and workers, each worker's updates, how far
   * it moved the weights, and,
   * for an epoch run in a stage of several, the stage's seconds and epochs (else 0 and 1) and
   * whether the stage ran in this call (its first epoch's replay waited for it).
   */
  final class Outcome {
    public final EpochStats stats;
    public final long[] workerUpdates;
    public final double stageSeconds;
    public final int stageEpochs;
    public final boolean stageRanNow;
    /**
     * The relative change of the weights over the epoch ({@code mixing.WeightChange}, the
     * {@code tol} rule's measure): the driver's, or, for an epoch of a stage that reports only
     * where it ended, the workers' (the same function over the same support and weights).
     */
    public final double weightChange;

    Outcome(EpochStats stats, long[] workerUpdates, double weightChange) {
      this(stats, workerUpdates, 0.0, 1, false, weightChange);
    }

    private Outcome(EpochStats stats, long[] workerUpdates, double stageSeconds,
        int stageEpochs, boolean stageRanNow, double weightChange) {
      this.stats = stats;
      this.workerUpdates = workerUpdates;
      this.stageSeconds = stageSeconds;
      this.stageEpochs = stageEpochs;
      this.stageRanNow = stageRanNow;
      this.weightChange = weightChange;
    }

    /**
     * This outcome of an epoch of a stage that ran {@code epochs} in {@code seconds}, in this
     * call when {@code ranNow}.
     */
    Outcome withStage(double seconds, int epochs, boolean ranNow) {
      return new Outcome(stats, workerUpdates, seconds, epochs, ranNow, weightChange);
    }

    /**
     * The epoch's seconds, from {@code measured} (the call's wall clock): an epoch of a stage
     * of several gets its share of the stage plus its own replay.
     */
    public double seconds(double measured) {
      if (stageEpochs <= 1) {
        return measured;
      }
      return Math.max(0.0, measured - (stageRanNow ? stageSeconds : 0.0))
          + stageSeconds / stageEpochs;
    }
  }
}
