package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything the mixing loop knows after some epochs: the mixed state, the best state so far on
 * validation data, the vote collected so far and the per-epoch history. A checkpoint holds all of
 * it ({@link CheckpointFormat} writes it field by field), so a resumed training continues exactly
 * where the interrupted one stood.
 */
public final class TrainingProgress {
  /** Epochs completed. */
  public int epochsDone;
  /** The mixed state after the last completed epoch. */
  public LinearState state;
  /** With validation: the state of the best epoch so far (else null). */
  public LinearState best;
  public double bestAccuracy = Double.NEGATIVE_INFINITY;
  /** The epoch whose model is returned (the last one run, or the best on validation). */
  public int modelEpoch;
  /** The block momentum's state (mixing=momentum with several workers), else null. */
  public BlockMomentum momentum;
  /**
   * On a stream, every coordinate of w, u and the momentum's Δ the driver wrote since the
   * learner state was last saved (what the next change record holds); null for {@code fit}.
   */
  public TouchedSet written;
  /** The vote collected so far (averaging=vote), else null. */
  public VotedPerceptron.Builder vote;
  /** The vote assembled for the returned model, set when training ends (never checkpointed). */
  public VotedPerceptron finalVote;

  public final List<EpochStats> epochs = new ArrayList<>();
  public final List<Double> weightChanges = new ArrayList<>();
  public final List<Double> seconds = new ArrayList<>();
  /** Per epoch, the updates of each worker. */
  public final List<long[]> workerUpdates = new ArrayList<>();
  /** Per epoch, the model's accuracy on the validation rows (empty without validation). */
  public final List<Double> validationAccuracy = new ArrayList<>();
  public StopReason stopReason = StopReason.MAX_ITER;

  public TrainingProgress(LinearState initial, VotedPerceptron.Builder vote) {
    this.state = initial;
    this.vote = vote;
  }

  /** The state the model is built from: the best epoch's with validation, else the last. */
  public LinearState modelState() {
    return best != null ? best : state;
  }
}
