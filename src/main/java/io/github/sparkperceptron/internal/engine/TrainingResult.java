package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.blocks.WorkerLayout;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import java.util.Collections;
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
  private final List<EpochStats> epochs;
  private final double[] weightChanges;
  private final double[] epochSeconds;
  private final long[][] workerUpdates;
  private final double[] validationAccuracy;
  private final int modelEpoch;
  private final StopReason stopReason;
  private final int inputPartitions;
  private final int numWorkers;

  TrainingResult(TrainingProgress progress, WorkerLayout layout) {
    this.finalState = progress.state;
    this.modelState = progress.modelState();
    this.vote = progress.finalVote;
    this.epochs = Collections.unmodifiableList(progress.epochs);
    this.weightChanges = toArray(progress.weightChanges);
    this.epochSeconds = toArray(progress.seconds);
    this.workerUpdates = progress.workerUpdates.toArray(new long[0][]);
    this.validationAccuracy = toArray(progress.validationAccuracy);
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
    this.epochs = Collections.emptyList();
    this.weightChanges = new double[0];
    this.epochSeconds = new double[0];
    this.workerUpdates = new long[0][];
    this.validationAccuracy = new double[0];
    this.modelEpoch = 0;
    this.stopReason = StopReason.NOTHING_TO_TRAIN;
    this.inputPartitions = layout.inputPartitions;
    this.numWorkers = layout.numWorkers;
  }

  /** The result of a training that had nothing to learn (a single class): no epoch, no state. */
  public static TrainingResult nothingToTrain(TrainingInput input) {
    return new TrainingResult(input.layout);
  }

  private static double[] toArray(List<Double> values) {
    double[] out = new double[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
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

  /** Per epoch, the counts and losses summed over the workers (read only). */
  public List<EpochStats> epochs() {
    return epochs;
  }

  /** Per epoch, ‖w_n − w_(n−1)‖ / ‖w_n‖ of the mixed weights (NaN for one-shot mixing). */
  public double[] weightChanges() {
    return weightChanges.clone();
  }

  public double[] epochSeconds() {
    return epochSeconds.clone();
  }

  /** Per epoch, the updates of each worker. */
  public long[][] workerUpdates() {
    long[][] out = new long[workerUpdates.length][];
    for (int e = 0; e < out.length; e++) {
      out[e] = workerUpdates[e].clone();
    }
    return out;
  }

  /** Per epoch, the accuracy on the validation rows (empty without them). */
  public double[] validationAccuracy() {
    return validationAccuracy.clone();
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
