package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.EpochOrder;
import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.OnlineLearner;
import io.github.sparkperceptron.kernel.Predictor;
import io.github.sparkperceptron.kernel.TrainingBlock;
import io.github.sparkperceptron.kernel.VisitOrder;
import io.github.sparkperceptron.kernel.VoteTrace;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.MixingMode;
import io.github.sparkperceptron.mixing.ParameterMix;
import io.github.sparkperceptron.mixing.PartitionResult;
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
 * <p>Each epoch is one Spark job: broadcast the mixed state, run one epoch on every partition from
 * it ({@link OnlineLearner}), combine the partitions with {@code treeAggregate} into a
 * {@link ParameterMix} (order-independent, so bit-reproducible), destroy the broadcast. With a
 * validation set, a second small job scores the epoch's model on the held-out rows. One-shot
 * mixing instead runs every epoch inside one job and mixes once.
 *
 * <p>Why a retried or recomputed task changes nothing: a partition epoch is a pure function of the
 * broadcast state, the partition's rows (cached, or recomputed deterministically from the input)
 * and the row order from {@link VisitOrder}, seeded by (seed, epoch, partition) only; it never
 * reads the task attempt, the executor, the time or any random source of its own.
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
    }
    VotedPerceptron.Builder vote = progress.vote;
    for (int epoch = progress.epochsDone + 1; epoch <= settings.maxIter; epoch++) {
      long start = System.nanoTime();
      jsc.setJobDescription(String.format(Locale.ROOT, "perceptron epoch %d/%d (%s mixing)",
          epoch, settings.maxIter, settings.mixing.paramValue()));
      LinearState before = progress.state;
      int startVector = vote == null ? -1 : vote.addStartVector(before.weights());
      Broadcast<LinearState> broadcast = jsc.broadcast(before);
      PartitionResult mixed;
      try {
        JavaRDD<PartitionResult> results = input.partitions.mapPartitionsWithIndex(
            partitionEpochs(broadcast, learner, settings, totalWeight, epoch, 1, startVector),
            true);
        mixed = results.treeAggregate(new ParameterMix(input.numPartitions), ParameterMix::add,
            ParameterMix::merge, settings.aggregationDepth).result();
      } finally {
        broadcast.destroy();
      }
      requireFinite(mixed.state(), mixed.epochs()[0], epoch);
      double change = relativeChange(before.weights(), mixed.state().weights());
      progress.state = mixed.state();
      progress.epochsDone = epoch;
      if (vote != null) {
        vote.addEpoch(epoch, mixed.voteTraces());
      }
      EpochStats stats = mixed.epochs()[0];
      progress.epochs.add(stats);
      progress.weightChanges.add(change);
      progress.partitionUpdates.add(column(mixed.updatesByPartition(), 0));
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
          progress.best = progress.state;
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
    progress.finalVote = vote == null ? null : vote.build(progress.modelEpoch);
    return progress;
  }

  /**
   * Fails the training with a clear message when arithmetic left the doubles' range: on
   * pathological data (feature values near 1e154 and beyond, whose products overflow) margins
   * become infinite or NaN, and such examples silently stop teaching the perceptron; weights
   * themselves can overflow too. Either would otherwise yield a useless model without a word.
   */
  static void requireFinite(LinearState state, EpochStats stats, int epoch) {
    if (stats.nonFiniteMargins > 0) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Training diverged in epoch %d: %,d examples had an infinite or undefined margin (the"
              + " feature values are too large for double arithmetic). Scale the features"
              + " first, e.g. with org.apache.spark.ml.feature.StandardScaler or MaxAbsScaler",
          epoch, stats.nonFiniteMargins));
    }
    double[] w = state.weights();
    double[] u = state.averageAccumulator();
    for (int j = 0; j < w.length; j++) {
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
    Broadcast<LinearState> broadcast = jsc.broadcast(initial);
    PartitionResult mixed;
    try {
      JavaRDD<PartitionResult> results = input.partitions.mapPartitionsWithIndex(
          partitionEpochs(broadcast, learner, settings, totalWeight, 1, settings.maxIter,
              startVector), true);
      mixed = results.treeAggregate(new ParameterMix(input.numPartitions), ParameterMix::add,
          ParameterMix::merge, settings.aggregationDepth).result();
    } finally {
      broadcast.destroy();
    }
    EpochStats[] epochs = mixed.epochs();
    for (int e = 0; e < epochs.length; e++) {
      requireFinite(mixed.state(), epochs[e], e + 1);
    }
    TrainingProgress progress = new TrainingProgress(mixed.state(), vote);
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
   * The task body: {@code localEpochs} epochs over one partition, starting at global epoch
   * {@code firstEpoch} from the broadcast state. With more than one local epoch (one-shot mixing)
   * the partition trains alone like the serial algorithm: it stops once an epoch makes no update,
   * and it returns its own final model (its average, when averaging) with u = 0, so that mixing
   * averages the partitions' models.
   */
  private static Function2<Integer, Iterator<PreparedPartition>, Iterator<PartitionResult>>
      partitionEpochs(Broadcast<LinearState> broadcast, LearnerConfig learner,
          MixingSettings settings, double totalWeight, int firstEpoch, int localEpochs,
          int startVector) {
    return (partition, parts) -> {
      PreparedPartition part = parts.next();
      LinearState state = broadcast.value().copy();
      double startClock = state.clock();
      double partitionWeight = part.trainingWeight(learner.classWeights());
      double clockScale = partitionWeight > 0 ? totalWeight / partitionWeight : 0.0;
      TrainingBlock block = part.block;
      VoteTrace trace = startVector >= 0 && block != null
          ? new VoteTrace(block.features(), startVector, startClock) : null;
      List<EpochStats> epochs = new ArrayList<>();
      long updates = 0;
      for (int e = 0; e < localEpochs; e++) {
        FaultInjection.beforePartitionEpoch(firstEpoch + e, partition);
        EpochStats stats = new EpochStats();
        if (block != null) {
          EpochOrder order = settings.order.epochOrder(firstEpoch + e, partition, block.features());
          OnlineLearner.runEpoch(learner, block, order, state, clockScale, stats, trace);
        }
        // Every partition's epoch spans exactly [c, c + T] of the averaging clock.
        state.setClock(startClock + (e + 1) * totalWeight);
        epochs.add(stats);
        updates += stats.updates;
        if (localEpochs > 1 && stats.updates == 0) {
          break;
        }
      }
      if (localEpochs > 1 && state.averageAccumulator() != null) {
        double[] model = state.modelWeights();
        state = new LinearState(model, new double[model.length], state.clock());
      }
      double mixWeight = settings.mixing.mixWeight(partitionWeight, updates);
      PartitionResult result = new PartitionResult(partition, mixWeight, state,
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
    double diff = 0.0;
    double norm = 0.0;
    for (int j = 0; j < after.length; j++) {
      double d = after[j] - before[j];
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
