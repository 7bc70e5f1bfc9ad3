package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.engine.EpochHistory;
import io.github.sparkperceptron.internal.engine.TrainingResult;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import java.io.Serializable;
import java.util.Arrays;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
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

  /** What the epochs did (the arrays below are drawn from it). */
  private final EpochHistory history;
  /** Whether the update rule descends the hinge loss (pa, pa1, pa2), else the perceptron loss. */
  private final boolean passiveAggressive;
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
    this(result.history(), passiveAggressive, result.modelEpoch(), result.stopReason(),
        result.inputPartitions(), result.numWorkers());
  }

  /** The summary of a history and its outcome (as a summary's file holds them). */
  PerceptronTrainingSummary(EpochHistory history, boolean passiveAggressive, int modelEpoch,
      StopReason stopReason, int numInputPartitions, int numWorkers) {
    this.history = history;
    this.passiveAggressive = passiveAggressive;
    this.modelEpoch = modelEpoch;
    this.stopReason = stopReason;
    this.numInputPartitions = numInputPartitions;
    this.numWorkers = numWorkers;
  }

  /** What the epochs did, for the summary's file (shared: read only). */
  EpochHistory history() {
    return history;
  }

  /** For the summary's file. */
  boolean passiveAggressive() {
    return passiveAggressive;
  }

  /** One figure of every epoch's stats. */
  private long[] perEpoch(ToLongFunction<EpochStats> figure) {
    return history.epochs().stream().mapToLong(figure).toArray();
  }

  private double[] perEpochDouble(ToDoubleFunction<EpochStats> figure) {
    return history.epochs().stream().mapToDouble(figure).toArray();
  }

  /** Epochs run. */
  @Override
  public int totalIterations() {
    return history.size();
  }

  /**
   * Per epoch, the updates: examples that changed the weights, summed over workers. For the
   * {@code perceptron} rule an update is a mistake (margin ≤ 0), so this equals
   * {@link #mistakesHistory()}; the passive-aggressive rules also update on correctly classified
   * examples whose margin is below 1.
   */
  public long[] updatesHistory() {
    return perEpoch(s -> s.updates);
  }

  /**
   * Per epoch, the mistakes: examples whose margin was ≤ 0 (misclassified, a zero margin counted
   * as an error) when the worker visited them, summed over workers.
   */
  public long[] mistakesHistory() {
    return perEpoch(s -> s.mistakes);
  }

  /** Per epoch, the examples visited (zero-weight examples are skipped). */
  public long[] examplesHistory() {
    return perEpoch(s -> s.examples);
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
    return perEpochDouble(s -> s.weightSeen > 0
        ? (passiveAggressive ? s.hingeLoss : s.perceptronLoss) / s.weightSeen : 0.0);
  }

  /** Per epoch, Σ s·max(0, −margin): the perceptron criterion, summed (not averaged). */
  public double[] perceptronLossHistory() {
    return perEpochDouble(s -> s.perceptronLoss);
  }

  /** Per epoch, Σ s·max(0, 1 − margin): the hinge loss, summed (not averaged). */
  public double[] hingeLossHistory() {
    return perEpochDouble(s -> s.hingeLoss);
  }

  /** Per epoch, ‖w_n − w_(n−1)‖ / ‖w_n‖ of the mixed (not averaged) weights. */
  public double[] weightChangeHistory() {
    return history.weightChanges().clone();
  }

  /** Per epoch, wall-clock seconds on the driver, the Spark job included. */
  public double[] epochSeconds() {
    return history.seconds().clone();
  }

  /**
   * Per epoch, the updates of each worker (k_i,n in McDonald et al. 2010, who count mistakes of
   * the perceptron rule): shows how evenly the workers learn and gives the mistake-weighted
   * mixing weights μ_i,n = k_i,n / Σ_j k_j,n. Each row has {@link #numWorkers()} entries and
   * sums to that epoch's {@link #updatesHistory()}.
   */
  public long[][] workerUpdatesHistory() {
    long[][] rows = history.workerUpdates();
    long[][] out = new long[rows.length][];
    for (int e = 0; e < out.length; e++) {
      out[e] = rows[e].clone();
    }
    return out;
  }

  /**
   * Per epoch, the accuracy (weighted by sample weights) of that epoch's model on the rows that
   * {@code validationIndicatorCol} marks; empty when no validation column was set.
   */
  public double[] validationHistory() {
    return history.validationAccuracy().clone();
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
        + ", workers=" + numWorkers + ", updates=" + Arrays.toString(updatesHistory())
        + ", mistakes=" + Arrays.toString(mistakesHistory()) + "}";
  }
}
