package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.blocks.WorkerLayout;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import java.util.List;

/**
 * What a training did and what it learnt, as the mixing loop returns it: the state the model is
 * built from, the vote, the per-epoch history and why it stopped. The Spark face turns it into a
 * model and its {@code PerceptronTrainingSummary}.
 */
public final class TrainingResult {
  private final LinearState finalState;
  private final LinearState modelState;
  private final VotedPerceptron vote;
  private final EpochHistory history;
  private final int modelEpoch;
  private final StopReason stopReason;
  private final int inputPartitions;
  private final int numWorkers;

  TrainingResult(TrainingProgress progress, WorkerLayout layout) {
    this.finalState = progress.state;
    this.modelState = progress.modelState();
    this.vote = progress.finalVote;
    this.history = EpochHistory.of(progress);
    this.modelEpoch = progress.modelEpoch;
    this.stopReason = progress.epochs.isEmpty() ? StopReason.NOTHING_TO_TRAIN
        : progress.stopReason;
    this.inputPartitions = layout.inputPartitions;
    this.numWorkers = layout.numWorkers;
  }

  private TrainingResult(WorkerLayout layout) {
    this.finalState = null;
    this.modelState = null;
    this.vote = null;
    this.history = EpochHistory.none();
    this.modelEpoch = 0;
    this.stopReason = StopReason.NOTHING_TO_TRAIN;
    this.inputPartitions = layout.inputPartitions;
    this.numWorkers = layout.numWorkers;
  }

  /** The result of a training that had nothing to learn (a single class): no epoch, no state. */
  public static TrainingResult nothingToTrain(TrainingInput input) {
    return new TrainingResult(input.layout);
  }

  /** The mixed state after the last epoch run (what a stream carries to its next batch). */
  public LinearState finalState() {
    return finalState;
  }

  /** The model's weights: the last epoch's, or with validation the best epoch's. */
  public double[] modelWeights() {
    return modelState.modelWeights();
  }

  /** With {@code averaging=vote}, the model's vote, else null. */
  public VotedPerceptron vote() {
    return vote;
  }

  /** What the epochs did, epoch by epoch (shared: read only). */
  public EpochHistory history() {
    return history;
  }

  /** Per epoch, the counts and losses summed over the workers (read only). */
  public List<EpochStats> epochs() {
    return history.epochs();
  }

  public int modelEpoch() {
    return modelEpoch;
  }

  public StopReason stopReason() {
    return stopReason;
  }

  /** Partitions of the input, before they were laid out over the workers. */
  public int inputPartitions() {
    return inputPartitions;
  }

  public int numWorkers() {
    return numWorkers;
  }
}
