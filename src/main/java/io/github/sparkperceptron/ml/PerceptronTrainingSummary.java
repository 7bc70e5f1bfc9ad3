package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.engine.TrainingResult;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.classification.TrainingSummary;
import org.apache.spark.ml.util.Summary;

/**
 * What training did, epoch by epoch: available from {@link PerceptronClassificationModel#summary()}
 * on a freshly trained model (as for Spark's own models, not after loading). Every per-epoch array
 * has {@link #totalIterations()} entries; counts and losses are summed over workers and measured
 * by the workers during the epoch, before each example's update (no extra pass over the data).
 *
 * <p>It is a Spark ML {@code Summary} and {@code TrainingSummary}, the types whose
 * {@code objectiveHistory} and {@code totalIterations} a Spark Connect client may fetch.
 */
public final class PerceptronTrainingSummary implements Serializable, Summary,
    TrainingSummary {
  private static final long serialVersionUID = 1L;

  private final long[] updates;
  private final long[] mistakes;
  private final long[] examples;
  private final double[] objective;
  private final double[] perceptronLoss;
  private final double[] hingeLoss;
  private final double[] weightChange;
  private final double[] epochSeconds;
  private final long[][] workerUpdates;
  private final double[] validationAccuracy;
  private final int modelEpoch;
  private final StopReason stopReason;
  private final int numInputPartitions;
  private final int numWorkers;

  /**
   * The summary of {@code result}.
   *
   * @param passiveAggressive whether the update rule descends the hinge loss (pa, pa1, pa2),
   *     else the perceptron loss: what {@link #objectiveHistory()} reports
   */
  PerceptronTrainingSummary(TrainingResult result, boolean passiveAggressive) {
    List<EpochStats> epochs = result.epochs();
    int n = epochs.size();
    this.updates = new long[n];
    this.mistakes = new long[n];
    this.examples = new long[n];
    this.objective = new double[n];
    this.perceptronLoss = new double[n];
    this.hingeLoss = new double[n];
    for (int e = 0; e < n; e++) {
      EpochStats s = epochs.get(e);
      updates[e] = s.updates;
      mistakes[e] = s.mistakes;
      examples[e] = s.examples;
      perceptronLoss[e] = s.perceptronLoss;
      hingeLoss[e] = s.hingeLoss;
      double descended = passiveAggressive ? s.hingeLoss : s.perceptronLoss;
      objective[e] = s.weightSeen > 0 ? descended / s.weightSeen : 0.0;
    }
    this.weightChange = result.weightChanges();
    this.epochSeconds = result.epochSeconds();
    this.workerUpdates = result.workerUpdates();
    this.validationAccuracy = result.validationAccuracy();
    this.modelEpoch = result.modelEpoch();
    this.stopReason = result.stopReason();
    this.numInputPartitions = result.inputPartitions();
    this.numWorkers = result.numWorkers();
  }

  /**
   * The numbers a summary consists of, as {@link TrainingSummaryFile} stores them (Spark Connect
   * moves a fitted model to disk and back, and the summary must survive the trip).
   */
  static final class Numbers {
    long[] updates;
    long[] mistakes;
    long[] examples;
    double[] objective;
    double[] perceptronLoss;
    double[] hingeLoss;
    double[] weightChange;
    double[] epochSeconds;
    long[][] workerUpdates;
    double[] validationAccuracy;
    int modelEpoch;
    StopReason stopReason;
    int numInputPartitions;
    int numWorkers;
  }

  /** The summary of {@code n}, as read back from a summary file (the arrays are taken). */
  PerceptronTrainingSummary(Numbers n) {
    this.updates = n.updates;
    this.mistakes = n.mistakes;
    this.examples = n.examples;
    this.objective = n.objective;
    this.perceptronLoss = n.perceptronLoss;
    this.hingeLoss = n.hingeLoss;
    this.weightChange = n.weightChange;
    this.epochSeconds = n.epochSeconds;
    this.workerUpdates = n.workerUpdates;
    this.validationAccuracy = n.validationAccuracy;
    this.modelEpoch = n.modelEpoch;
    this.stopReason = n.stopReason;
    this.numInputPartitions = n.numInputPartitions;
    this.numWorkers = n.numWorkers;
  }

  /** The summary's numbers, for its file (shared arrays: the file only reads them). */
  Numbers numbers() {
    Numbers n = new Numbers();
    n.updates = updates;
    n.mistakes = mistakes;
    n.examples = examples;
    n.objective = objective;
    n.perceptronLoss = perceptronLoss;
    n.hingeLoss = hingeLoss;
    n.weightChange = weightChange;
    n.epochSeconds = epochSeconds;
    n.workerUpdates = workerUpdates;
    n.validationAccuracy = validationAccuracy;
    n.modelEpoch = modelEpoch;
    n.stopReason = stopReason;
    n.numInputPartitions = numInputPartitions;
    n.numWorkers = numWorkers;
    return n;
  }

  /** Epochs run. */
  @Override
  public int totalIterations() {
    return updates.length;
  }

  /**
   * Per epoch, the updates: examples that changed the weights, summed over workers. For the
   * {@code perceptron} rule an update is a mistake (margin ≤ 0), so this equals
   * {@link #mistakesHistory()}; the passive-aggressive rules also update on correctly classified
   * examples whose margin is below 1.
   */
  public long[] updatesHistory() {
    return updates.clone();
  }

  /**
   * Per epoch, the mistakes: examples whose margin was ≤ 0 (misclassified, a zero margin counted
   * as an error) when the worker visited them, summed over workers.
   */
  public long[] mistakesHistory() {
    return mistakes.clone();
  }

  /** Per epoch, the examples visited (zero-weight examples are skipped). */
  public long[] examplesHistory() {
    return examples.clone();
  }

  /**
   * Per epoch, the objective the update rule descends, per unit of sample weight, as Spark's
   * {@code objectiveHistory} (e.g. LinearSVC's mean hinge loss): Σ s·ℓ / Σ s over the examples
   * visited, s the sample weight (times the class weight), with
   * <ul>
   *   <li>{@code updateRule=perceptron}: the perceptron loss ℓ = max(0, −margin), whose
   *       subgradient step is the perceptron update (see {@link #perceptronLossHistory()});</li>
   *   <li>{@code pa}, {@code pa1}, {@code pa2}: the hinge loss ℓ = max(0, 1 − margin) that the
   *       passive-aggressive updates bound (Crammer et al. 2006; see
   *       {@link #hingeLossHistory()}).</li>
   * </ul>
   * Like the other histories it is measured online, on each example before its update, so it
   * costs no extra pass; it is not the loss of the mixed model at the end of the epoch.
   */
  @Override
  public double[] objectiveHistory() {
    return objective.clone();
  }

  /** Per epoch, Σ s·max(0, −margin): the perceptron criterion, summed (not averaged). */
  public double[] perceptronLossHistory() {
    return perceptronLoss.clone();
  }

  /** Per epoch, Σ s·max(0, 1 − margin): the hinge loss, summed (not averaged). */
  public double[] hingeLossHistory() {
    return hingeLoss.clone();
  }

  /** Per epoch, ‖w_n − w_(n−1)‖ / ‖w_n‖ of the mixed (not averaged) weights. */
  public double[] weightChangeHistory() {
    return weightChange.clone();
  }

  /** Per epoch, wall-clock seconds on the driver, the Spark job included. */
  public double[] epochSeconds() {
    return epochSeconds.clone();
  }

  /**
   * Per epoch, the updates of each worker (k_i,n in McDonald et al. 2010, who count mistakes of
   * the perceptron rule): shows how evenly the workers learn and gives the mistake-weighted
   * mixing weights μ_i,n = k_i,n / Σ_j k_j,n. Each row has {@link #numWorkers()} entries and
   * sums to that epoch's {@link #updatesHistory()}.
   */
  public long[][] workerUpdatesHistory() {
    long[][] out = new long[workerUpdates.length][];
    for (int e = 0; e < out.length; e++) {
      out[e] = workerUpdates[e].clone();
    }
    return out;
  }

  /**
   * Per epoch, the accuracy (weighted by sample weights) of that epoch's model on the rows that
   * {@code validationIndicatorCol} marks; empty when no validation column was set.
   */
  public double[] validationHistory() {
    return validationAccuracy.clone();
  }

  /**
   * The epoch whose model was returned: the last one run, or with a validation column the one
   * with the best validation accuracy (the earliest among equals).
   */
  public int modelEpoch() {
    return modelEpoch;
  }

  /** Whether some epoch made no update on any worker. */
  public boolean converged() {
    return stopReason == StopReason.CONVERGED;
  }

  public StopReason stopReason() {
    return stopReason;
  }

  /**
   * Partitions of the input dataset given to {@code fit}, before they were coalesced or split
   * over the {@link #numWorkers()} workers.
   */
  public int numInputPartitions() {
    return numInputPartitions;
  }

  /**
   * Perceptrons trained in parallel and mixed after every epoch: the {@code numWorkers} param,
   * or with {@code numWorkers = 0} the cluster's task slots when {@code fit} started. Every
   * per-worker history ({@link #workerUpdatesHistory()}) has one entry per worker.
   */
  public int numWorkers() {
    return numWorkers;
  }

  @Override
  public String toString() {
    return "PerceptronTrainingSummary{epochs=" + totalIterations() + ", stop=" + stopReason
        + ", workers=" + numWorkers + ", updates=" + Arrays.toString(updates)
        + ", mistakes=" + Arrays.toString(mistakes) + "}";
  }
}
