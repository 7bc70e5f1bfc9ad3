package io.github.sparkperceptron.train;

import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.BlockMomentum;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything the mixing loop knows after some epochs: the mixed state, the best state so far on
 * validation data, the vote collected so far and the per-epoch history. A checkpoint holds all of
 * it ({@link CheckpointFormat} writes it field by field), so a resumed training continues exactly
 * where the interrupted one stood.
 */
final class TrainingProgress {
  /** Epochs completed. */
  int epochsDone;
  /** The mixed state after the last completed epoch. */
  LinearState state;
  /** With validation: the state of the best epoch so far (else null). */
  LinearState best;
  double bestAccuracy = Double.NEGATIVE_INFINITY;
  /** The epoch whose model is returned (the last one run, or the best on validation). */
  int modelEpoch;
  /** The block momentum's state (mixing=momentum with several workers), else null. */
  BlockMomentum momentum;
  /**
   * On a stream, every coordinate of w, u and the momentum's Δ the driver wrote since the
   * learner state was last saved (what the next change record holds); null for {@code fit}.
   */
  io.github.sparkperceptron.kernel.TouchedSet written;
  /** The vote collected so far (averaging=vote), else null. */
  VotedPerceptron.Builder vote;
  /** The vote assembled for the returned model, set when training ends (never checkpointed). */
  VotedPerceptron finalVote;

  final List<EpochStats> epochs = new ArrayList<>();
  final List<Double> weightChanges = new ArrayList<>();
  final List<Double> seconds = new ArrayList<>();
  /** Per epoch, the updates of each worker. */
  final List<long[]> workerUpdates = new ArrayList<>();
  /** Per epoch, the model's accuracy on the validation rows (empty without validation). */
  final List<Double> validationAccuracy = new ArrayList<>();
  StopReason stopReason = StopReason.MAX_ITER;

  TrainingProgress(LinearState initial, VotedPerceptron.Builder vote) {
    this.state = initial;
    this.vote = vote;
  }

  /** The state the model is built from: the best epoch's with validation, else the last. */
  LinearState modelState() {
    return best != null ? best : state;
  }
}
