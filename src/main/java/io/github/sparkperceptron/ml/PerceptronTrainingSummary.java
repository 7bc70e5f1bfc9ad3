package io.github.sparkperceptron.ml;

import java.io.Serializable;
import java.util.Arrays;

/**
 * What training did, epoch by epoch: available from {@link PerceptronClassificationModel#summary()}
 * on a freshly trained model (as for Spark's own models, not after loading). Every per-epoch array
 * has {@link #totalIterations()} entries; counts and losses are summed over partitions and measured
 * by the partitions during the epoch, before each example's update (no extra pass over the data).
 *
 * <p>It is a Spark ML {@code Summary} and {@code TrainingSummary}, the types whose
 * {@code objectiveHistory} and {@code totalIterations} a Spark Connect client may fetch.
 */
public final class PerceptronTrainingSummary implements Serializable,
    org.apache.spark.ml.util.Summary, org.apache.spark.ml.classification.TrainingSummary {
  private static final long serialVersionUID = 1L;

  /** Why training stopped. */
  public enum StopReason {
    /** {@code maxIter} epochs ran. */
    MAX_ITER,
    /** An epoch made no update on any partition. */
    CONVERGED,
    /** An epoch changed the mixed weights by less than {@code tol}, relative to their norm. */
    TOL,
    /** {@code validationPatience} epochs brought no better validation accuracy. */
    VALIDATION,
    /** Nothing to train: {@code maxIter} is 0, or the data hold a single class. */
    NOTHING_TO_TRAIN
  }

  private final long[] updates;
  private final long[] mistakes;
  private final long[] examples;
  private final double[] objective;
  private final double[] perceptronLoss;
  private final double[] hingeLoss;
  private final double[] weightChange;
  private final double[] epochSeconds;
  private final long[][] partitionUpdates;
  private final double[] validationAccuracy;
  private final int modelEpoch;
  private final StopReason stopReason;
  private final int numPartitions;
  private final int numWorkers;

  PerceptronTrainingSummary(long[] updates, long[] mistakes, long[] examples,
      double[] objective, double[] perceptronLoss, double[] hingeLoss, double[] weightChange, double[] epochSeconds,
      long[][] partitionUpdates, double[] validationAccuracy, int modelEpoch,
      StopReason stopReason, int numPartitions, int numWorkers) {
    this.updates = updates;
    this.mistakes = mistakes;
    this.examples = examples;
    this.objective = objective;
    this.perceptronLoss = perceptronLoss;
    this.hingeLoss = hingeLoss;
    this.weightChange = weightChange;
    this.epochSeconds = epochSeconds;
    this.partitionUpdates = partitionUpdates;
    this.validationAccuracy = validationAccuracy;
    this.modelEpoch = modelEpoch;
    this.stopReason = stopReason;
    this.numPartitions = numPartitions;
    this.numWorkers = numWorkers;
  }

  /** Epochs run. */
  @Override
  public int totalIterations() {
    return updates.length;
  }

  /**
   * Per epoch, the updates: examples that changed the weights, summed over partitions. For the
   * {@code perceptron} rule an update is a mistake (margin ≤ 0), so this equals
   * {@link #mistakesHistory()}; the passive-aggressive rules also update on correctly classified
   * examples whose margin is below 1.
   */
  public long[] updatesHistory() {
    return updates.clone();
  }

  /**
   * Per epoch, the mistakes: examples whose margin was ≤ 0 (misclassified, a zero margin counted
   * as an error) when the partition visited them, summed over partitions.
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
   * Per epoch, the updates of each worker's partition (k_i,n in McDonald et al. 2010, who count
   * mistakes of the perceptron rule): shows how evenly the workers learn and gives the
   * mistake-weighted mixing weights μ_i,n = k_i,n / Σ_j k_j,n. Each row has
   * {@link #numWorkers()} entries and sums to that epoch's {@link #updatesHistory()}.
   */
  public long[][] partitionUpdatesHistory() {
    long[][] out = new long[partitionUpdates.length][];
    for (int e = 0; e < out.length; e++) {
      out[e] = partitionUpdates[e].clone();
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

  /** Whether some epoch made no update on any partition. */
  public boolean converged() {
    return stopReason == StopReason.CONVERGED;
  }

  public StopReason stopReason() {
    return stopReason;
  }

  /**
   * Partitions of the input dataset given to {@code fit}, before they were coalesced or split
   * into {@link #numWorkers()} training partitions.
   */
  public int numPartitions() {
    return numPartitions;
  }

  /**
   * Perceptrons trained in parallel and mixed after every epoch: the {@code numWorkers} param,
   * or with {@code numWorkers = 0} the cluster's task slots when {@code fit} started. Every
   * per-partition history ({@link #partitionUpdatesHistory()}) has one entry per worker.
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
