package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.exchange.ExecutorWeights;
import io.github.sparkperceptron.exchange.WeightShipper;
import io.github.sparkperceptron.exchange.WeightsRef;
import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.EpochOrder;
import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.OnlineLearner;
import io.github.sparkperceptron.kernel.Predictor;
import io.github.sparkperceptron.kernel.TouchedSet;
import io.github.sparkperceptron.kernel.TrainingBlock;
import io.github.sparkperceptron.kernel.VisitOrder;
import io.github.sparkperceptron.kernel.VoteTrace;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.BlockMomentum;
import io.github.sparkperceptron.mixing.MixingMode;
import io.github.sparkperceptron.mixing.ParameterMix;
import io.github.sparkperceptron.mixing.PartitionResult;
import io.github.sparkperceptron.mixing.StateDelta;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distributed training loop: iterative parameter mixing (McDonald, Hall &amp; Mann 2010) over
 * the cached blocks of a {@link TrainingInput}; see {@code io.github.sparkperceptron.mixing} for
 * the mixing rules and how averaging composes with them.
 *
 * <p>An epoch is one or more mixing rounds, each one Spark job: broadcast the weights (block
 * momentum first moves them to its look-ahead point), let every partition run its share of the
 * epoch's rows from them ({@link OnlineLearner}; round r of R visits the r-th consecutive slice of
 * the partition's epoch order), combine the partitions' changes ({@link StateDelta}, only the
 * coordinates each touched) with {@code treeAggregate} into a {@link ParameterMix}
 * (order-independent, so bit-reproducible), apply the mix, destroy the broadcast. With a
 * validation set, a small job after each epoch scores the epoch's model on the held-out rows.
 * One-shot mixing instead runs every epoch inside one job and mixes once. Where Spark allows it,
 * {@link BarrierRounds} runs all of an epoch's rounds inside one barrier stage instead, and the
 * loop replays their mixes from the workers' per-round results with the same code.
 *
 * <p>Why a retried or recomputed task changes nothing: a partition's round is a pure function of
 * the broadcast weights, the partition's rows (cached, or recomputed deterministically from the
 * input) and the row order from {@link VisitOrder}, seeded by (seed, epoch, partition) only; it
 * never reads the task attempt, the executor, the time or any random source of its own.
 */
final class IterativeParameterMixing {
  private static final Logger LOG = LoggerFactory.getLogger(IterativeParameterMixing.class);

  private IterativeParameterMixing() {
  }

  /**
   * Trains; {@code listener} (may be null) is called after every epoch with a model built under
   * {@code uid} (one-shot mixing has a mixed model only at the end: it is called once).
   */
  static TrainingProgress run(JavaSparkContext jsc, TrainingInput input, LearnerConfig learner,
      MixingSettings settings, LinearState initial, Checkpoints checkpoints,
      int checkpointInterval, EpochListener listener, String uid) {
    String previousDescription = jsc.getLocalProperty("spark.job.description");
    try {
      TrainingProgress progress = settings.mixing == MixingMode.ONESHOT
          ? oneShot(jsc, input, learner, settings, initial)
          : iterative(jsc, input, learner, settings, initial, checkpoints, checkpointInterval,
              listener, uid);
      if (listener != null && settings.mixing == MixingMode.ONESHOT) {
        listener.onEpoch(progress.epochsDone, snapshot(learner, progress.state,
            progress.finalVote, uid));
      }
      return progress;
    } finally {
      jsc.setJobDescription(previousDescription);
    }
  }

  private static PerceptronClassificationModel snapshot(LearnerConfig learner, LinearState state,
      VotedPerceptron vote, String uid) {
    return PerceptronClassificationModel.fromStateWeights(uid, learner.numClasses(),
        learner.numFeatures(), state.modelWeights(), vote);
  }

  private static TrainingProgress iterative(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, MixingSettings settings, LinearState initial,
      Checkpoints checkpoints, int checkpointInterval, EpochListener listener, String uid) {
    double totalWeight = input.trainingWeight(learner.classWeights());
    TrainingProgress progress = checkpoints == null ? null : checkpoints.latest();
    if (progress == null) {
      progress = new TrainingProgress(initial, voteBuilder(learner));
      progress.momentum = settings.momentum(learner.stateLength(), initial.weights());
    }
    VotedPerceptron.Builder vote = progress.vote;
    int rounds = settings.rounds;
    int length = learner.stateLength();
    TouchedSet support = new TouchedSet(length);
    double[] startWeights = progress.state.weights();
    // A resumed momentum can hold Δ ≠ 0 where w is 0 again: the look-ahead must visit those too,
    // as the uninterrupted training (whose support holds every coordinate ever changed) does.
    double[] velocity = progress.momentum == null ? null : progress.momentum.velocity();
    for (int j = 0; j < length; j++) {
      if (startWeights[j] != 0.0 || (velocity != null && velocity[j] != 0.0)) {
        support.mark(j);
      }
    }
    try (WeightShipper shipper = new WeightShipper(jsc, uid + "/" + java.util.UUID.randomUUID(),
        length);
        BarrierRounds barrier = BarrierRounds.open(jsc, input, learner, settings, uid)) {
      trainEpochs(jsc, input, learner, settings, checkpoints, checkpointInterval, listener, uid,
          progress, totalWeight, shipper, support, barrier);
      LOG.info("Weights shipped to the executors: {} values in {} snapshot(s) and changes",
          shipper.shippedValues(), shipper.snapshots());
    }
    if (progress.momentum != null && progress.momentum.restarts() > 0) {
      LOG.info("Block momentum restarted {} times (look-aheads that would have broken the"
          + " mistake bound's invariant)", progress.momentum.restarts());
    }
    progress.finalVote = vote == null ? null : vote.build(progress.modelEpoch);
    return progress;
  }

  private static void trainEpochs(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, MixingSettings settings, Checkpoints checkpoints,
      int checkpointInterval, EpochListener listener, String uid, TrainingProgress progress,
      double totalWeight, WeightShipper shipper, TouchedSet support, BarrierRounds barrier) {
    VotedPerceptron.Builder vote = progress.vote;
    int rounds = settings.rounds;
    for (int epoch = progress.epochsDone + 1; epoch <= settings.maxIter; epoch++) {
      long start = System.nanoTime();
      int[] beforeIndex = support.toArray();
      double[] beforeValues = valuesAt(progress.state.weights(), beforeIndex);
      double epochClock = progress.state.clock();
      EpochStats stats = new EpochStats();
      long[] partitionUpdates = new long[input.numPartitions];
      // With a barrier executor the epoch's rounds ran in one barrier stage; the loop below then
      // replays their mixes from the workers' results instead of running a job per round.
      BarrierRounds.Epoch ran = barrier == null ? null
          : barrier.runEpoch(epoch, progress, shipper, support, totalWeight);
      for (int round = 0; round < rounds; round++) {
        jsc.setJobDescription(rounds == 1
            ? String.format(Locale.ROOT, "perceptron epoch %d/%d (%s mixing)", epoch,
                settings.maxIter, settings.mixing.paramValue())
            : String.format(Locale.ROOT, "perceptron epoch %d/%d, round %d/%d (%s mixing)",
                epoch, settings.maxIter, round + 1, rounds, settings.mixing.paramValue()));
        double roundEnd = round == rounds - 1 ? epochClock + totalWeight
            : epochClock + totalWeight * (round + 1) / rounds;
        PartitionResult mixed = mixingRound(jsc, input, learner, settings, progress, vote,
            totalWeight, epoch, round, roundEnd, shipper, support, ran);
        if (vote != null) {
          vote.addEpoch(epoch, mixed.voteTraces());
        }
        EpochStats roundStats = mixed.epochs()[0];
        requireFinite(progress.state, mixed.delta(), roundStats, epoch);
        stats.add(roundStats);
        long[][] byPartition = mixed.updatesByPartition();
        for (int i = 0; i < byPartition.length; i++) {
          partitionUpdates[i] += byPartition[i][0];
        }
      }
      if (ran != null) {
        ran.verify(progress.state.weights(), progress.momentum);
      }
      double change = relativeChange(beforeIndex, beforeValues, support.toArray(),
          progress.state.weights());
      progress.epochsDone = epoch;
      progress.epochs.add(stats);
      progress.weightChanges.add(change);
      progress.partitionUpdates.add(partitionUpdates);
      if (!settings.validate) {
        progress.modelEpoch = epoch;
      }

      double accuracy = Double.NaN;
      if (settings.validate) {
        jsc.setJobDescription(String.format(Locale.ROOT,
            "perceptron epoch %d/%d: validation", epoch, settings.maxIter));
        accuracy = validationAccuracy(jsc, input, learner, settings, progress.state, vote, epoch);
        progress.validationAccuracy.add(accuracy);
        if (accuracy > progress.bestAccuracy) {
          progress.bestAccuracy = accuracy;
          progress.best = progress.state.copy();
          progress.modelEpoch = epoch;
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      progress.seconds.add(seconds);
      logEpoch(epoch, settings.maxIter, stats, change, seconds, accuracy);
      if (listener != null) {
        listener.onEpoch(epoch, snapshot(learner, progress.state,
            vote == null ? null : vote.build(epoch), uid));
      }

      if (stats.updates == 0) {
        progress.stopReason = PerceptronTrainingSummary.StopReason.CONVERGED;
        break;
      }
      if (settings.tol > 0 && change < settings.tol) {
        progress.stopReason = PerceptronTrainingSummary.StopReason.TOL;
        break;
      }
      if (settings.validate && epoch - progress.modelEpoch >= settings.validationPatience) {
        progress.stopReason = PerceptronTrainingSummary.StopReason.VALIDATION;
        LOG.info("No better validation accuracy for {} epochs: returning epoch {}'s model"
            + " (validation accuracy {})", settings.validationPatience, progress.modelEpoch,
            progress.bestAccuracy);
        break;
      }
      if (checkpoints != null && epoch % checkpointInterval == 0 && epoch < settings.maxIter) {
        checkpoints.save(progress);
      }
    }
  }

  private static double[] valuesAt(double[] w, int[] index) {
    double[] out = new double[index.length];
    for (int k = 0; k < index.length; k++) {
      out[k] = w[index[k]];
    }
    return out;
  }

  /**
   * One mixing round: look ahead (block momentum), broadcast, train every partition on its slice,
   * mix the changes, apply them to {@code progress.state} and advance its clock to
   * {@code roundEnd}. Returns the mixed result (its stats, traces and update counts). With
   * {@code ranInBarrier} (the epoch's rounds ran in a barrier stage, {@link BarrierRounds})
   * there is no job: the round's mix comes from the workers' reports instead.
   */
  private static PartitionResult mixingRound(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, MixingSettings settings, TrainingProgress progress,
      VotedPerceptron.Builder vote, double totalWeight, int epoch, int round, double roundEnd,
      WeightShipper shipper, TouchedSet support, BarrierRounds.Epoch ranInBarrier) {
    LinearState state = progress.state;
    if (progress.momentum != null) {
      progress.momentum.lookAhead(state.weights(), state.averageAccumulator(), state.clock(),
          support.toArray(), shipper.changedSet());
    }
    int startVector = vote == null ? -1 : vote.addStartVector(state.weights());
    PartitionResult mixed;
    if (ranInBarrier != null) {
      mixed = ranInBarrier.mixed(round);
    } else {
      boolean exact = input.numPartitions == 1;
      WeightsRef weights = shipper.ship(state.weights());
      JavaRDD<PartitionResult> results = input.partitions.mapPartitionsWithIndex(
          roundTask(weights, learner, settings, totalWeight, epoch, round, state.clock(),
              roundEnd, exact, startVector), true);
      mixed = results.treeAggregate(new ParameterMix(input.numPartitions),
          ParameterMix::add, ParameterMix::merge, settings.aggregationDepth).result();
    }
    StateDelta change = mixed.delta();
    change.applyTo(state.weights(), state.averageAccumulator());
    shipper.changed(change);
    for (int k = 0, n = change.storedEntries(); k < n; k++) {
      support.mark(change.coordinate(k));
    }
    state.setClock(roundEnd);
    if (progress.momentum != null) {
      progress.momentum.afterRound(change, mixed.stepSum());
    }
    return mixed;
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

  private static TrainingProgress oneShot(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, MixingSettings settings, LinearState initial) {
    long start = System.nanoTime();
    jsc.setJobDescription(String.format(Locale.ROOT,
        "perceptron: %d epochs on every partition alone (oneshot mixing)", settings.maxIter));
    double totalWeight = input.trainingWeight(learner.classWeights());
    VotedPerceptron.Builder vote = voteBuilder(learner);
    int startVector = vote == null ? -1 : vote.addStartVector(initial.weights());
    Broadcast<LinearState> broadcast = jsc.broadcast(initial.copy());
    boolean exact = input.numPartitions == 1;
    PartitionResult mixed;
    try {
      JavaRDD<PartitionResult> results = input.partitions.mapPartitionsWithIndex(
          aloneTask(broadcast, learner, settings, totalWeight, exact, startVector), true);
      mixed = results.treeAggregate(new ParameterMix(input.numPartitions), ParameterMix::add,
          ParameterMix::merge, settings.aggregationDepth).result();
    } finally {
      broadcast.destroy();
    }
    EpochStats[] epochs = mixed.epochs();
    // The partitions return their final models (their averages, when averaging), so the mix is
    // a model: its accumulator stays zero.
    LinearState state = initial.copy();
    mixed.delta().applyTo(state.weights(), null);
    state.setClock(initial.clock() + epochs.length * totalWeight);
    for (int e = 0; e < epochs.length; e++) {
      requireFinite(state, mixed.delta(), epochs[e], e + 1);
    }
    TrainingProgress progress = new TrainingProgress(state, vote);
    double seconds = (System.nanoTime() - start) / 1e9;
    for (int e = 0; e < epochs.length; e++) {
      progress.epochs.add(epochs[e]);
      progress.weightChanges.add(Double.NaN);
      progress.seconds.add(seconds / epochs.length);
      progress.partitionUpdates.add(column(mixed.updatesByPartition(), e));
      logEpoch(e + 1, settings.maxIter, epochs[e], Double.NaN, seconds / epochs.length,
          Double.NaN);
    }
    progress.epochsDone = epochs.length;
    progress.modelEpoch = epochs.length;
    if (epochs.length > 0 && epochs[epochs.length - 1].updates == 0) {
      progress.stopReason = PerceptronTrainingSummary.StopReason.CONVERGED;
    }
    if (vote != null) {
      vote.addEpoch(1, mixed.voteTraces());
      progress.finalVote = vote.build(1);
    }
    return progress;
  }

  private static VotedPerceptron.Builder voteBuilder(LearnerConfig learner) {
    return learner.averaging() == Averaging.VOTE
        ? new VotedPerceptron.Builder(learner.numClasses(), learner.numFeatures(),
            learner.fitIntercept())
        : null;
  }

  /**
   * The task body of one mixing round: from the broadcast weights (with a fresh, zero averaging
   * accumulator: the round's δu), visit slice {@code round} of the partition's epoch order and
   * return what changed. Every partition's round spans exactly [startClock, roundEnd] of the
   * averaging clock (its clock runs at T/T_i per unit of sample weight).
   */
  private static Function2<Integer, Iterator<PreparedPartition>, Iterator<PartitionResult>>
      roundTask(WeightsRef weights, LearnerConfig learner, MixingSettings settings,
          double totalWeight, int epoch, int round, double startClock, double roundEnd,
          boolean exact, int startVector) {
    int rounds = settings.rounds;
    double denseAbove = settings.denseAbove;
    return (partition, parts) -> {
      PreparedPartition part = parts.next();
      FaultInjection.beforePartitionEpoch(epoch, partition);
      ExecutorWeights.Working working = ExecutorWeights.checkout(weights,
          learner.averaging().keepsAverage());
      double[] base = working.base();
      double[] w = working.weights();
      double[] u = working.average();
      TouchedSet touched = working.touched();
      LinearState state = new LinearState(w, u, startClock);
      double partitionWeight = part.trainingWeight(learner.classWeights());
      double clockScale = partitionWeight > 0 ? totalWeight / partitionWeight : 0.0;
      TrainingBlock block = part.block;
      VoteTrace trace = startVector >= 0 && block != null
          ? new VoteTrace(block.features(), startVector, startClock) : null;
      EpochStats stats = new EpochStats();
      if (block != null) {
        int n = block.numRows();
        EpochOrder order = EpochOrders.of(settings.order, epoch, partition, block, rounds);
        int from = (int) ((long) n * round / rounds);
        int to = (int) ((long) n * (round + 1) / rounds);
        int failAfter = FaultInjection.rowsBeforeFailure(epoch, partition, to - from);
        if (failAfter >= 0) {
          // The working copy is never released: the retry checks out a clean one.
          OnlineLearner.runEpoch(learner, block, order, from, from + failAfter, state,
              clockScale, stats, trace, touched);
          FaultInjection.failMidEpoch(epoch, partition, failAfter);
        }
        OnlineLearner.runEpoch(learner, block, order, from, to, state, clockScale, stats, trace,
            touched);
      }
      state.setClock(roundEnd);
      int[] written = touched.drain();
      StateDelta delta = StateDelta.between(written, w, base, u, exact, denseAbove);
      ExecutorWeights.release(working, written);
      double mixWeight = settings.mixing.mixWeight(partitionWeight, stats.updates);
      PartitionResult result = new PartitionResult(partition, mixWeight, delta,
          new EpochStats[] {stats});
      if (trace != null) {
        trace.finish(roundEnd, mixWeight);
        result.withVoteTrace(trace);
      }
      return Collections.singletonList(result).iterator();
    };
  }

  /**
   * The task body of one-shot mixing: every epoch over one partition alone, like the serial
   * algorithm (stopping once an epoch makes no update); returns the change from the broadcast
   * weights to its own final model (its average, when averaging), so that mixing averages the
   * partitions' models.
   */
  private static Function2<Integer, Iterator<PreparedPartition>, Iterator<PartitionResult>>
      aloneTask(Broadcast<LinearState> broadcast, LearnerConfig learner, MixingSettings settings,
          double totalWeight, boolean exact, int startVector) {
    return (partition, parts) -> {
      PreparedPartition part = parts.next();
      LinearState initial = broadcast.value();
      LinearState state = initial.copy();
      double startClock = state.clock();
      double partitionWeight = part.trainingWeight(learner.classWeights());
      double clockScale = partitionWeight > 0 ? totalWeight / partitionWeight : 0.0;
      TrainingBlock block = part.block;
      VoteTrace trace = startVector >= 0 && block != null
          ? new VoteTrace(block.features(), startVector, startClock) : null;
      TouchedSet touched = new TouchedSet(state.weights().length);
      List<EpochStats> epochs = new ArrayList<>();
      for (int e = 0; e < settings.maxIter; e++) {
        FaultInjection.beforePartitionEpoch(1 + e, partition);
        EpochStats stats = new EpochStats();
        if (block != null) {
          EpochOrder order = settings.order.epochOrder(1 + e, partition, block.features());
          int failAfter = FaultInjection.rowsBeforeFailure(1 + e, partition, order.size());
          if (failAfter >= 0) {
            OnlineLearner.runEpoch(learner, block, order, 0, failAfter, state, clockScale,
                stats, trace, touched);
            FaultInjection.failMidEpoch(1 + e, partition, failAfter);
          }
          OnlineLearner.runEpoch(learner, block, order, 0, order.size(), state, clockScale,
              stats, trace, touched);
        }
        state.setClock(startClock + (e + 1) * totalWeight);
        epochs.add(stats);
        if (stats.updates == 0) {
          break;
        }
      }
      double[] model = state.modelWeights();
      StateDelta delta = StateDelta.between(touched.drain(), model, initial.weights(), null,
          exact);
      long updates = 0;
      for (EpochStats s : epochs) {
        updates += s.updates;
      }
      double mixWeight = settings.mixing.mixWeight(partitionWeight, updates);
      PartitionResult result = new PartitionResult(partition, mixWeight, delta,
          epochs.toArray(new EpochStats[0]));
      if (trace != null) {
        trace.finish(state.clock(), mixWeight);
        result.withVoteTrace(trace);
      }
      return Collections.singletonList(result).iterator();
    };
  }

  /**
   * The accuracy (weighted by sample weights) on the validation rows of the model this epoch
   * would return. Partition sums come back in partition order and are added in that order, so
   * the value, and the best epoch chosen from it, are reproducible.
   */
  private static double validationAccuracy(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, MixingSettings settings, LinearState state,
      VotedPerceptron.Builder vote, int epoch) {
    Predictor predictor = vote != null
        ? Predictor.voted(vote.build(epoch), settings.threshold)
        : Predictor.linear(learner.numClasses(), learner.numFeatures(), settings.threshold,
            state.modelWeights());
    Broadcast<Predictor> broadcast = jsc.broadcast(predictor);
    try {
      List<double[]> sums = input.partitions.map(part -> part.validation == null
          ? new double[2] : broadcast.value().weightedAccuracy(part.validation)).collect();
      double correct = 0;
      double total = 0;
      for (double[] s : sums) {
        correct += s[0];
        total += s[1];
      }
      return total > 0 ? correct / total : Double.NaN;
    } finally {
      broadcast.destroy();
    }
  }

  /** Entry {@code e} of every row (0 where a partition stopped before epoch e). */
  private static long[] column(long[][] rows, int e) {
    long[] out = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      out[i] = e < rows[i].length ? rows[i][e] : 0;
    }
    return out;
  }

  /** ‖after − before‖₂ / ‖after‖₂ (0 when nothing changed, ∞ when after is 0 but moved). */
  static double relativeChange(double[] before, double[] after) {
    int[] all = new int[after.length];
    for (int j = 0; j < all.length; j++) {
      all[j] = j;
    }
    return relativeChange(all, before, all, after);
  }

  /**
   * ‖after − before‖₂ / ‖after‖₂ where both vectors are zero outside their index sets (increasing;
   * {@code afterIndex} ⊇ {@code beforeIndex}), summed in increasing coordinate order, which adds
   * exactly what the dense sums would: O(non-zero coordinates), not O(K·d).
   */
  static double relativeChange(int[] beforeIndex, double[] beforeValues, int[] afterIndex,
      double[] after) {
    double diff = 0.0;
    double norm = 0.0;
    int k = 0;
    for (int j : afterIndex) {
      double b = 0.0;
      if (k < beforeIndex.length && beforeIndex[k] == j) {
        b = beforeValues[k++];
      }
      double d = after[j] - b;
      diff += d * d;
      norm += after[j] * after[j];
    }
    if (diff == 0.0) {
      return 0.0;
    }
    return norm == 0.0 ? Double.POSITIVE_INFINITY : Math.sqrt(diff / norm);
  }

  private static void logEpoch(int epoch, int maxIter, EpochStats stats, double change,
      double seconds, double validationAccuracy) {
    if (LOG.isInfoEnabled()) {
      LOG.info(String.format(Locale.ROOT,
          "epoch %d/%d: %,d mistakes (%.2f%% of %,d), %,d updates, loss %.6g, hinge %.6g,"
              + " weight change %.3g%s, %.2f s",
          epoch, maxIter, stats.mistakes,
          stats.examples == 0 ? 0.0 : 100.0 * stats.mistakes / stats.examples, stats.examples,
          stats.updates, stats.perceptronLoss, stats.hingeLoss, change,
          Double.isNaN(validationAccuracy) ? ""
              : String.format(Locale.ROOT, ", validation accuracy %.4f", validationAccuracy),
          seconds));
    }
  }
}
