package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.exchange.WeightShipper;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WeightChange;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The driver's side of an epoch's mixing rounds, whichever executor runs the workers' side
 * ({@link WorkerRound}): per round, block momentum's look-ahead, the vote's start vector, the
 * round's mix of the workers' changes ({@link ParameterMix}), applied to the training's state,
 * the clock advanced, momentum's after-round step. {@link JobPerRound} gets each round's mix from
 * a Spark job; {@link BarrierRounds} from the reports of the barrier stage that ran the whole
 * epoch, replaying the rounds with this same code, so the two paths' models are the same bits.
 */
public final class DriverRounds {
  final JavaSparkContext jsc;
  final TrainingInput input;
  final LearnerConfig learner;
  final MixingSettings settings;
  /** How the training runs, with its data. */
  final TrainingPlan plan;
  /** The training's name, for the shippers' keys. */
  final String trainingName;
  final TrainingProgress progress;
  final WeightShipper shipper;
  /** Every coordinate any round changed: where the weights can be non-zero. */
  final TouchedSet support;
  /**
   * {@link #support} as an increasing array, merged with each round's change ({@link #apply}):
   * reading it costs what it holds, where {@code support.toArray()} scans K'·(d+1)/64 words.
   */
  private int[] supportCoordinates;
  /** T = Σ_i T_i: how far one epoch moves the averaging clock. */
  final double totalWeight;
  /** What the workers' rounds share. */
  final WorkerRound.Spec workerSpec;

  public DriverRounds(TrainingInput input, TrainingPlan plan, TrainingProgress progress,
      WeightShipper shipper, TouchedSet support) {
    this.jsc = plan.sparkContext();
    this.input = input;
    this.plan = plan;
    this.learner = plan.learner();
    this.settings = plan.settings();
    this.trainingName = plan.config().name;
    this.progress = progress;
    this.shipper = shipper;
    this.support = support;
    this.totalWeight = input.trainingWeight(learner.classWeights());
    this.workerSpec = new WorkerRound.Spec(learner, settings, input.numWorkers, totalWeight,
        plan.memory().idleCopyBytes);
  }

  /** Where the workers' side of a round comes from. */
  interface Workers {
    /**
     * Round {@code round}'s result mixed over the workers ({@link ParameterMix#result()}),
     * every worker having run its slice from the training's current weights.
     *
     * @param startVector the vote's index of the round's start vector, or −1 without a vote
     */
    WorkerResult mixed(int epoch, int round, int startVector, double startClock,
        double roundEnd);
  }

  /**
   * Runs the rounds of {@code epoch} with the workers' mixes from {@code workers}: the
   * {@link EpochRounds#run} contract.
   */
  EpochRounds.Outcome run(int epoch, Workers workers) {
    int rounds = settings.rounds;
    int[] beforeIndex = supportCoordinates();
    double[] beforeValues = WeightChange.valuesAt(progress.state.weights(), beforeIndex);
    double epochClock = progress.state.clock();
    EpochStats stats = new EpochStats();
    long[] workerUpdates = new long[input.numWorkers];
    for (int round = 0; round < rounds; round++) {
      WorkerResult mixed = round(epoch, round, roundEnd(epochClock, round), workers);
      if (progress.vote != null) {
        progress.vote.addEpoch(epoch, mixed.voteTraces());
      }
      count(mixed, stats, workerUpdates);
    }
    double change = WeightChange.relative(beforeIndex, beforeValues, supportCoordinates(),
        progress.state.weights());
    return new EpochRounds.Outcome(stats, workerUpdates, change);
  }

  /**
   * The counts of {@code epoch}'s rounds, mixed from the workers' reports, without moving the
   * training's state: the epochs of a barrier stage that reports where it ended, whose state the
   * driver takes once, after the stage's last epoch ({@link #adopt}). {@code epochClock} is the
   * averaging clock at the epoch's start, {@code weightChange} the epoch's change as the workers
   * measured it. No vote: its start vectors need every round's weights.
   */
  EpochRounds.Outcome tally(int epoch, double epochClock, double weightChange,
      Workers workers) {
    int rounds = settings.rounds;
    EpochStats stats = new EpochStats();
    long[] workerUpdates = new long[input.numWorkers];
    for (int round = 0; round < rounds; round++) {
      double start = round == 0 ? epochClock : roundEnd(epochClock, round - 1);
      WorkerResult mixed = workers.mixed(epoch, round, -1, start, roundEnd(epochClock, round));
      requireFiniteMargins(mixed.epochs()[0], epoch);
      count(mixed, stats, workerUpdates);
    }
    return new EpochRounds.Outcome(stats, workerUpdates, weightChange);
  }

  private static void count(WorkerResult mixed, EpochStats stats, long[] workerUpdates) {
    stats.add(mixed.epochs()[0]);
    long[][] byWorker = mixed.updatesByWorker();
    for (int i = 0; i < byWorker.length; i++) {
      workerUpdates[i] += byWorker[i][0];
    }
  }

  /**
   * Takes the state a barrier stage ended with, after its last epoch, {@code epoch}: w, u (null
   * without averaging) and block momentum's Δ (null without momentum) at the stage's end
   * support (increasing; a superset of the driver's support: every coordinate any round of the
   * stage changed), momentum's masses and restarts, and the averaging clock {@code clock}.
   * Outside the end support the stage moved nothing. The same state as the replay of the
   * stage's rounds ({@link #run}) would leave, bit for bit: the workers ran the replay's own
   * steps (BarrierEpochTask).
   */
  void adopt(int epoch, BarrierEpochTask.EndState end, double clock) {
    LinearState state = progress.state;
    double[] w = state.weights();
    double[] u = state.averageAccumulator();
    if ((u == null) != (end.average == null)
        || (progress.momentum == null) != (end.velocity == null)) {
      throw new IllegalStateException("the barrier stage of epoch " + epoch + " reported "
          + (end.average == null ? "no" : "an") + " averaging accumulator and "
          + (end.velocity == null ? "no" : "a") + " momentum Δ for a training that keeps "
          + (u == null ? "no" : "one") + " and " + (progress.momentum == null ? "no" : "one"));
    }
    int[] endSupport = end.support;
    for (int k = 0; k < endSupport.length; k++) {
      int j = endSupport[k];
      w[j] = end.weights[k];
      if (u != null) {
        u[j] = end.average[k];
      }
      requireFiniteAt(state, j, epoch);
    }
    shipper.changedSet().markAll(endSupport);
    support.markAll(endSupport);
    if (progress.written != null) {
      progress.written.markAll(endSupport);
    }
    supportCoordinates = endSupport;
    state.setClock(clock);
    if (progress.momentum != null) {
      progress.momentum.adoptAt(endSupport, end.velocity, end.momentumMass, end.velocityMass,
          end.restarts);
    }
  }

  /**
   * The averaging clock at the end of round {@code round} of the epoch that starts at
   * {@code epochClock}: each round spans T/R, the last one ends the epoch exactly at + T. Both
   * executors use this one expression, so their clocks agree bit for bit.
   */
  double roundEnd(double epochClock, int round) {
    int rounds = settings.rounds;
    return round == rounds - 1 ? epochClock + totalWeight
        : epochClock + totalWeight * (round + 1) / rounds;
  }

  /**
   * One mixing round: look ahead (block momentum), the vote's start vector, the workers' mix,
   * applied to the training's state ({@link #apply}), whose clock moves to {@code roundEnd}.
   * Returns the mixed result (its stats, traces and update counts).
   */
  private WorkerResult round(int epoch, int round, double roundEnd, Workers workers) {
    LinearState state = progress.state;
    if (progress.momentum != null) {
      if (progress.written != null) {
        // The look-ahead moves w, u and Δ only where Δ ≠ 0, and a restart zeroes Δ there.
        double[] velocity = progress.momentum.velocity();
        for (int j : supportCoordinates()) {
          if (velocity[j] != 0.0) {
            progress.written.mark(j);
          }
        }
      }
      progress.momentum.lookAhead(state.weights(), state.averageAccumulator(), state.clock(),
          supportCoordinates(), shipper.changedSet());
    }
    VotedPerceptron.Builder vote = progress.vote;
    int startVector = vote == null ? -1 : vote.addStartVector(state.weights());
    WorkerResult mixed = workers.mixed(epoch, round, startVector, state.clock(), roundEnd);
    apply(mixed, epoch, roundEnd);
    return mixed;
  }

  /**
   * The driver's side of a round once its workers' changes are mixed ({@code mixed}): applies
   * the mix to the training's state, checks the arithmetic ({@link #requireFinite}), records the
   * coordinates it wrote (for the next shipment, the support and, on a stream, the state's next
   * change record, {@link TrainingProgress#written}), advances the clock to {@code roundEnd} and
   * lets block momentum take its step. A stream's one-job micro-batch, whose round ran in the
   * job that scored it, applies its mix here too.
   */
  public void apply(WorkerResult mixed, int epoch, double roundEnd) {
    LinearState state = progress.state;
    StateDelta change = mixed.delta();
    change.applyTo(state.weights(), state.averageAccumulator());
    requireFinite(state, change, mixed.epochs()[0], epoch);
    shipper.changed(change);
    int[] changed = change.coordinates();
    support.markAll(changed);
    if (progress.written != null) {
      progress.written.markAll(changed);
    }
    if (supportCoordinates != null) {
      supportCoordinates = SortedCoordinates.union(supportCoordinates, changed);
    }
    state.setClock(roundEnd);
    if (progress.momentum != null) {
      // Δ can be non-zero only on the support: a reset (a round without updates) clears it there.
      double stepSum = mixed.stepSum();
      progress.momentum.afterRound(change, stepSum,
          stepSum == 0.0 ? supportCoordinates() : null);
    }
  }

  /**
   * The support's coordinates, increasing (shared: read only). Kept by {@link #apply}; read
   * from the set again if something else marked it (its count tells).
   */
  public int[] supportCoordinates() {
    if (supportCoordinates == null || supportCoordinates.length != support.count()) {
      supportCoordinates = support.toArray();
    }
    return supportCoordinates;
  }

  /**
   * Fails the training with a clear message when arithmetic left the doubles' range: on
   * pathological data (feature values near 1e154 and beyond, whose products overflow) margins
   * become infinite or NaN, and such examples silently stop teaching the perceptron; weights
   * themselves can overflow too. Either would otherwise yield a useless model without a word.
   * Only the coordinates the round changed are checked: the others were checked before.
   */
  public static void requireFinite(LinearState state, StateDelta changed, EpochStats stats, int epoch) {
    requireFiniteMargins(stats, epoch);
    int n = changed.storedEntries();
    for (int k = 0; k < n; k++) {
      requireFiniteAt(state, changed.coordinate(k), epoch);
    }
  }

  private static void requireFiniteMargins(EpochStats stats, int epoch) {
    if (stats.nonFiniteMargins > 0) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training diverged in epoch %d: %,d examples had an infinite or undefined margin (the"
              + " feature values are too large for double arithmetic). Scale the features"
              + " first, e.g. with org.apache.spark.ml.feature.StandardScaler or MaxAbsScaler",
          epoch, stats.nonFiniteMargins));
    }
  }

  /** The weights' part of {@link #requireFinite}: w and u at coordinate {@code j}. */
  private static void requireFiniteAt(LinearState state, int j, int epoch) {
    double[] w = state.weights();
    double[] u = state.averageAccumulator();
    if (!Double.isFinite(w[j]) || (u != null && !Double.isFinite(u[j]))) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training diverged in epoch %d: the weights overflowed to %s (the feature values are"
              + " too large for double arithmetic). Scale the features first, e.g. with"
              + " org.apache.spark.ml.feature.StandardScaler or MaxAbsScaler, or lower stepSize",
          epoch, Double.isFinite(w[j]) ? "infinity in the averaging accumulator" : w[j]));
    }
  }
}
