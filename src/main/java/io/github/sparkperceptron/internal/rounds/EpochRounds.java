package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.kernel.EpochStats;

/**
 * How one epoch's mixing rounds run on the cluster: the seam between {@link MixingLoop}'s
 * outline and Spark's scheduling. An implementation runs the R rounds of the epoch from the
 * training's current state and leaves the state mixed after the last round, as if each round had
 * been mixed on the driver (the models must not depend on the implementation, bit for bit).
 * Two implementations: {@link JobPerRound} (one Spark job per round) and {@link BarrierRounds}
 * (all rounds in one Spark barrier stage, the workers exchanging their changes among
 * themselves); both leave the driver's steps of a round to {@link DriverRounds} and the workers'
 * to {@link WorkerRound}.
 */
public interface EpochRounds {
  /**
   * Runs the rounds of {@code epoch}; on return the training's state is the epoch's mixed state
   * (clock advanced by one epoch's weight), the vote holds the epoch's traces and every
   * coordinate the epoch changed is marked in the training's support set.
   *
   * @throws IllegalArgumentException if arithmetic left the doubles' range (see
   *     {@link DriverRounds#requireFinite})
   */
  Outcome run(int epoch);

  /** What an epoch did: its counts summed over rounds and workers, and each worker's updates. */
  final class Outcome {
    public final EpochStats stats;
    public final long[] workerUpdates;

    Outcome(EpochStats stats, long[] workerUpdates) {
      this.stats = stats;
      this.workerUpdates = workerUpdates;
    }
  }
}
