package io.github.sparkperceptron.train;

import io.github.sparkperceptron.exchange.ExecutorWeights;
import io.github.sparkperceptron.exchange.WeightShipper;
import io.github.sparkperceptron.exchange.WeightsRef;
import io.github.sparkperceptron.kernel.EpochOrder;
import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.OnlineLearner;
import io.github.sparkperceptron.kernel.TouchedSet;
import io.github.sparkperceptron.kernel.TrainingBlock;
import io.github.sparkperceptron.kernel.VoteTrace;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.ParameterMix;
import io.github.sparkperceptron.mixing.WorkerResult;
import io.github.sparkperceptron.mixing.StateDelta;
import java.util.Collections;
import java.util.Iterator;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;

/**
 * The epoch's rounds as one Spark job each: look ahead (block momentum), ship the weights, let
 * every worker run its slice of the epoch's rows from them ({@link OnlineLearner}; round r of R
 * visits the r-th consecutive slice of the worker's epoch order), combine the workers' changes
 * ({@link StateDelta}, only the coordinates each touched) with {@code treeAggregate} into a
 * {@link ParameterMix} (order-independent, so bit-reproducible), apply the mix.
 */
final class JobPerRound implements EpochRounds {
  private final JavaSparkContext jsc;
  private final TrainingInput input;
  private final LearnerConfig learner;
  private final MixingSettings settings;
  private final TrainingProgress progress;
  private final WeightShipper shipper;
  /** Every coordinate any round changed: where the weights can be non-zero. */
  private final TouchedSet support;
  /** T = Σ_i T_i: how far one epoch moves the averaging clock. */
  private final double totalWeight;

  JobPerRound(MixingLoop loop, TrainingProgress progress, WeightShipper shipper,
      TouchedSet support) {
    this.jsc = loop.jsc;
    this.input = loop.input;
    this.learner = loop.learner;
    this.settings = loop.settings;
    this.progress = progress;
    this.shipper = shipper;
    this.support = support;
    this.totalWeight = input.trainingWeight(learner.classWeights());
  }

  @Override
  public Outcome run(int epoch) {
    int rounds = settings.rounds;
    double epochClock = progress.state.clock();
    EpochStats stats = new EpochStats();
    long[] workerUpdates = new long[input.numWorkers];
    for (int round = 0; round < rounds; round++) {
      jsc.setJobDescription(rounds == 1
          ? String.format(Locale.ROOT, "perceptron epoch %d/%d (%s mixing)", epoch,
              settings.maxIter, settings.mixing.paramValue())
          : String.format(Locale.ROOT, "perceptron epoch %d/%d, round %d/%d (%s mixing)",
              epoch, settings.maxIter, round + 1, rounds, settings.mixing.paramValue()));
      double roundEnd = round == rounds - 1 ? epochClock + totalWeight
          : epochClock + totalWeight * (round + 1) / rounds;
      WorkerResult mixed = mixingRound(epoch, round, roundEnd);
      if (progress.vote != null) {
        progress.vote.addEpoch(epoch, mixed.voteTraces());
      }
      EpochStats roundStats = mixed.epochs()[0];
      stats.add(roundStats);
      long[][] byWorker = mixed.updatesByWorker();
      for (int i = 0; i < byWorker.length; i++) {
        workerUpdates[i] += byWorker[i][0];
      }
    }
    return new Outcome(stats, workerUpdates);
  }

  /**
   * One mixing round: look ahead (block momentum), broadcast, train every worker on its slice,
   * mix the changes, apply them to the training's state and advance its clock to
   * {@code roundEnd}. Returns the mixed result (its stats, traces and update counts).
   */
  private WorkerResult mixingRound(int epoch, int round, double roundEnd) {
    LinearState state = progress.state;
    if (progress.momentum != null) {
      if (progress.written != null) {
        // The look-ahead moves w, u and Δ only where Δ ≠ 0, and a restart zeroes Δ there.
        double[] velocity = progress.momentum.velocity();
        for (int j : support.toArray()) {
          if (velocity[j] != 0.0) {
            progress.written.mark(j);
          }
        }
      }
      progress.momentum.lookAhead(state.weights(), state.averageAccumulator(), state.clock(),
          support.toArray(), shipper.changedSet());
    }
    VotedPerceptron.Builder vote = progress.vote;
    int startVector = vote == null ? -1 : vote.addStartVector(state.weights());
    WeightsRef weights = shipper.ship(state.weights());
    RoundTask task = new RoundTask(new RoundSpec(learner, settings, input.numWorkers,
        totalWeight), weights, epoch, round, startVector, state.clock(), roundEnd);
    JavaRDD<WorkerResult> results = input.blocks.mapPartitionsWithIndex(task, true);
    WorkerResult mixed = results.treeAggregate(new ParameterMix(input.numWorkers),
        ParameterMix::add, ParameterMix::merge, settings.aggregationDepth).result();
    applyMix(mixed, epoch, roundEnd);
    return mixed;
  }

  /**
   * The driver's side of a round once its workers' changes are mixed: checks the arithmetic,
   * applies the mix to the training's state, records the coordinates it wrote (for the next
   * shipment, the support and, on a stream, the state's next change record), advances the clock
   * to {@code roundEnd} and lets block momentum take its step.
   */
  void applyMix(WorkerResult mixed, int epoch, double roundEnd) {
    LinearState state = progress.state;
    StateDelta change = mixed.delta();
    change.applyTo(state.weights(), state.averageAccumulator());
    requireFinite(state, change, mixed.epochs()[0], epoch);
    shipper.changed(change);
    for (int k = 0, n = change.storedEntries(); k < n; k++) {
      support.mark(change.coordinate(k));
      if (progress.written != null) {
        progress.written.mark(change.coordinate(k));
      }
    }
    state.setClock(roundEnd);
    if (progress.momentum != null) {
      progress.momentum.afterRound(change, mixed.stepSum());
    }
  }

  /** T = Σ_i T_i, how far one epoch moves the averaging clock. */
  double totalWeight() {
    return totalWeight;
  }

  /**
   * Fails the training with a clear message when arithmetic left the doubles' range: on
   * pathological data (feature values near 1e154 and beyond, whose products overflow) margins
   * become infinite or NaN, and such examples silently stop teaching the perceptron; weights
   * themselves can overflow too. Either would otherwise yield a useless model without a word.
   * Only the coordinates the round changed are checked: the others were checked before.
   */
  static void requireFinite(LinearState state, StateDelta changed, EpochStats stats, int epoch) {
    if (stats.nonFiniteMargins > 0) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training diverged in epoch %d: %,d examples had an infinite or undefined margin (the"
              + " feature values are too large for double arithmetic). Scale the features"
              + " first, e.g. with org.apache.spark.ml.feature.StandardScaler or MaxAbsScaler",
          epoch, stats.nonFiniteMargins));
    }
    double[] w = state.weights();
    double[] u = state.averageAccumulator();
    int n = changed.storedEntries();
    for (int k = 0; k < n; k++) {
      int j = changed.coordinate(k);
      if (!Double.isFinite(w[j]) || (u != null && !Double.isFinite(u[j]))) {
        throw new IllegalArgumentException(String.format(Locale.ROOT,
            "Training diverged in epoch %d: the weights overflowed to %s (the feature values are"
                + " too large for double arithmetic). Scale the features first, e.g. with"
                + " org.apache.spark.ml.feature.StandardScaler or MaxAbsScaler, or lower stepSize",
            epoch, Double.isFinite(w[j]) ? "infinity in the averaging accumulator" : w[j]));
      }
    }
  }

  /** What every worker's round shares: the learner, the settings, W and T = Σ T_i. */
  static final class RoundSpec implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final LearnerConfig learner;
    final MixingSettings settings;
    final int workers;
    final double totalWeight;

    RoundSpec(LearnerConfig learner, MixingSettings settings, int workers, double totalWeight) {
      this.learner = learner;
      this.settings = settings;
      this.workers = workers;
      this.totalWeight = totalWeight;
    }
  }

  /**
   * The task body of one mixing round: from the shipped weights (with a fresh, zero averaging
   * accumulator: the round's δu), visit slice {@code round} of the worker's epoch order and
   * return what changed. Every worker's round spans exactly [startClock, roundEnd] of the
   * averaging clock (its clock runs at T/T_i per unit of sample weight).
   */
  static final class RoundTask
      implements Function2<Integer, Iterator<PreparedPartition>, Iterator<WorkerResult>> {
    private static final long serialVersionUID = 1L;
    private final WeightsRef weights;
    private final LearnerConfig learner;
    private final MixingSettings settings;
    private final double totalWeight;
    /** With one worker the change is kept exact (see {@link StateDelta#between}). */
    private final boolean exact;
    private final int epoch;
    private final int round;
    /** The vote's start vector of this round, or −1 without a vote. */
    private final int startVector;
    private final double startClock;
    private final double roundEnd;

    RoundTask(RoundSpec spec, WeightsRef weights, int epoch, int round, int startVector,
        double startClock, double roundEnd) {
      this.weights = weights;
      this.learner = spec.learner;
      this.settings = spec.settings;
      this.totalWeight = spec.totalWeight;
      this.exact = spec.workers == 1;
      this.epoch = epoch;
      this.round = round;
      this.startVector = startVector;
      this.startClock = startClock;
      this.roundEnd = roundEnd;
    }

    @Override
    public Iterator<WorkerResult> call(Integer worker, Iterator<PreparedPartition> parts) {
      return Collections.singletonList(run(worker, parts.next())).iterator();
    }

    /** Worker {@code worker}'s round on its training partition {@code part}. */
    WorkerResult run(int worker, PreparedPartition part) {
      FaultInjection.beforeWorkerEpoch(epoch, worker);
      ExecutorWeights.Working working = ExecutorWeights.checkout(weights,
          learner.averaging().keepsAverage());
      double[] base = working.base();
      double[] w = working.weights();
      double[] u = working.average();
      TouchedSet touched = working.touched();
      LinearState state = new LinearState(w, u, startClock);
      double workerWeight = part.trainingWeight(learner.classWeights());
      double clockScale = workerWeight > 0 ? totalWeight / workerWeight : 0.0;
      TrainingBlock block = part.block;
      VoteTrace trace = startVector >= 0 && block != null
          ? new VoteTrace(block.features(), startVector, startClock) : null;
      EpochStats stats = new EpochStats();
      if (block != null) {
        int rounds = settings.rounds;
        int n = block.numRows();
        EpochOrder order = EpochOrderCache.of(settings.order, epoch, worker, block, rounds);
        int from = (int) ((long) n * round / rounds);
        int to = (int) ((long) n * (round + 1) / rounds);
        int failAfter = FaultInjection.rowsBeforeFailure(epoch, worker, to - from);
        if (failAfter >= 0) {
          // The working copy is never released: the retry checks out a clean one.
          OnlineLearner.runEpoch(learner, block, order, from, from + failAfter, state,
              clockScale, stats, trace, touched);
          FaultInjection.failMidEpoch(epoch, worker, failAfter);
        }
        OnlineLearner.runEpoch(learner, block, order, from, to, state, clockScale, stats, trace,
            touched);
      }
      state.setClock(roundEnd);
      int[] written = touched.drain();
      StateDelta delta = StateDelta.between(written, w, base, u, exact, settings.denseAbove);
      ExecutorWeights.release(working, written);
      double mixWeight = settings.mixing.mixWeight(workerWeight, stats.updates);
      WorkerResult result = new WorkerResult(worker, mixWeight, delta,
          new EpochStats[] {stats});
      if (trace != null) {
        trace.finish(roundEnd, mixWeight);
        result.withVoteTrace(trace);
      }
      return result;
    }
  }
}
