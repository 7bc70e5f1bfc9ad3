package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.blocks.BlockEvaluation;
import io.github.sparkperceptron.internal.blocks.PartitionJob;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.exchange.WeightShipper;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.mixing.WeightChange;
import io.github.sparkperceptron.internal.plan.MemoryPlan;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.internal.rounds.BarrierRounds;
import io.github.sparkperceptron.internal.rounds.DriverRounds;
import io.github.sparkperceptron.internal.rounds.EpochRounds;
import io.github.sparkperceptron.internal.rounds.JobPerRound;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The distributed training loop: iterative parameter mixing (McDonald, Hall &amp; Mann 2010) over
 * the cached blocks of a {@link TrainingInput}; see {@code io.github.sparkperceptron.internal.mixing} for
 * the mixing rules and how averaging composes with them.
 *
 * <p>The loop reads as its outline: resume from the latest checkpoint or start from the initial
 * state → for every epoch: run the epoch's mixing rounds ({@link EpochRounds}: all of them in
 * one Spark barrier stage where Spark can run it, {@link BarrierRounds}, else one Spark job per
 * round, {@link JobPerRound}; the same model either way) → measure how far the weights moved →
 * with a validation set, score the epoch's model in a small job → tell the callback → stop (no
 * update, change below {@code tol}, validation patience) or checkpoint. One-shot mixing instead runs every epoch inside
 * one job and mixes once ({@link OneShotMixing}).
 *
 * <p>Why a retried or recomputed task changes nothing: a worker's round is a pure function of
 * the broadcast weights, the worker's rows (cached, or recomputed deterministically from the
 * input) and the row order from {@code VisitOrder}, seeded by (seed, epoch, worker) only; it
 * never reads the task attempt, the executor, the time or any random source of its own.
 */
public final class MixingLoop {
  private static final Logger LOG = LoggerFactory.getLogger(MixingLoop.class);

  final JavaSparkContext jsc;
  final TrainingInput input;
  final LearnerConfig learner;
  final TrainingConfig config;
  final MixingSettings settings;
  /** How the training runs, with the input's data ({@link TrainingPlan#withData}). */
  /** Measured again when {@link #requireMemory} moves cached chunks to disk. */
  TrainingPlan plan;

  /**
   * The loop of the training {@code plan} describes (its settings resolved for the input's data,
   * {@link TrainingPlan#withData}) over {@code input}.
   */
  public MixingLoop(TrainingInput input, TrainingPlan plan) {
    this.jsc = plan.sparkContext();
    this.input = input;
    this.plan = plan;
    this.learner = plan.learner();
    this.config = plan.config();
    this.settings = plan.settings();
  }

  /**
   * Refuses, with a one-line message, a training that {@link MemoryPlan} says cannot fit the
   * driver or the executors; call it before anything of the model's size is allocated.
   */
  public void requireMemory() {
    if (learner.averaging() == Averaging.VOTE) {
      MemoryPlan.requireVoteFits(settings.maxIter, settings.rounds, input.numRows,
          input.storedValues, learner.stateLength(), Runtime.getRuntime().maxMemory());
    }
    long storageCap = plan.memory().storageCap();
    if (storageCap >= 0 && storageCap < Long.MAX_VALUE) {
      long freed = input.spillToDisk(storageCap);
      if (freed > 0) {
        LOG.info(String.format(Locale.ROOT, "Moved %,d MiB of the cached training rows from"
            + " Spark's storage memory to local disk, so that the training's arrays fit the heap"
            + " beside what stays cached (at most %,d MiB)", freed >> 20, storageCap >> 20));
        plan = plan.remeasured();
      }
    }
    plan.memory().enforce(jsc.sc());
    LOG.info(input.describeCache());
  }

  /**
   * Trains from {@code initial} (or from the latest checkpoint of this training, when the
   * configuration checkpoints); {@code callback} (may be null) is told about every epoch
   * (one-shot mixing has a mixed model only at the end: it is told once).
   *
   * @param fingerprint identifies the training in its checkpoints (asked for only when it
   *     checkpoints)
   */
  public TrainingResult run(LinearState initial, Supplier<String> fingerprint,
      EpochCallback callback) {
    Checkpoints checkpoints = checkpoints(fingerprint);
    String previousDescription = jsc.getLocalProperty("spark.job.description");
    TrainingResult result;
    try {
      TrainingProgress progress;
      if (settings.mixing == MixingMode.ONESHOT) {
        progress = new OneShotMixing(this).run(initial);
        if (callback != null) {
          callback.onEpoch(progress.epochsDone, progress.state, progress.finalVote);
        }
      } else {
        progress = iterative(initial, checkpoints, callback);
      }
      result = new TrainingResult(progress, input.layout);
    } finally {
      jsc.setJobDescription(previousDescription);
    }
    if (checkpoints != null) {
      checkpoints.clear();
    }
    return result;
  }

  /**
   * A stream's micro-batch: its epochs from the stream's own {@code progress} (the state and block
   * momentum the previous batch left, and {@link TrainingProgress#written}), {@code shipper} and
   * {@code support}, which outlive the batch: the executors keep their copies of the weights, so
   * the batch's first round ships only what changed since the previous batch's last. No
   * checkpoints (the stream saves its own state), no callback.
   *
   * <p>The rounds run as one Spark job each ({@link JobPerRound}), never in a barrier stage
   * ({@link BarrierRounds}): a batch of several rounds already takes a job to convert and score
   * before them, a barrier stage would open a rendezvous and ship block momentum's Δ whole for
   * every batch, and the stream's split layout, dealt without a shuffle, is a coalesce, which
   * Spark refuses under a barrier stage. The models are the same bits either way.
   */
  TrainingResult runStreamBatch(TrainingProgress progress, WeightShipper shipper,
      TouchedSet support) {
    String previousDescription = jsc.getLocalProperty("spark.job.description");
    try {
      DriverRounds driver = driverRounds(progress, shipper, support);
      new Epochs(progress, driver, null, null).run(new JobPerRound(driver));
    } finally {
      jsc.setJobDescription(previousDescription);
    }
    return new TrainingResult(progress, input.layout);
  }

  /** The driver's side of this training's rounds, from {@code progress}. */
  DriverRounds driverRounds(TrainingProgress progress, WeightShipper shipper,
      TouchedSet support) {
    return new DriverRounds(input, plan, progress, shipper, support);
  }

  /**
   * The checkpoints of this training, or null when {@code checkpointDir} is unset, checkpoints
   * are off (interval −1) or there is nothing to checkpoint (one-shot mixing is one job).
   */
  private Checkpoints checkpoints(Supplier<String> fingerprint) {
    if (config.checkpointDir.isEmpty() || config.checkpointInterval < 1) {
      return null;
    }
    if (settings.mixing == MixingMode.ONESHOT) {
      LOG.warn("checkpointDir is ignored with mixing=oneshot: its training is a single Spark job");
      return null;
    }
    return new Checkpoints(jsc.hadoopConfiguration(), config.checkpointDir, fingerprint.get(),
        CheckpointFormat.Shape.of(learner, input.numWorkers, settings),
        config.checkpointInterval);
  }

  private TrainingProgress iterative(LinearState initial, Checkpoints checkpoints,
      EpochCallback callback) {
    TrainingProgress progress = checkpoints == null ? null : checkpoints.latest();
    if (progress == null) {
      progress = new TrainingProgress(initial, voteBuilder(learner));
      progress.momentum = settings.momentum(learner.stateLength(), initial.weights());
    }
    int length = learner.stateLength();
    TouchedSet support = new TouchedSet(length);
    double[] startWeights = progress.state.weights();
    // A resumed momentum can hold Δ ≠ 0 where w is 0 again: the look-ahead must visit those too,
    // as the uninterrupted training (whose support holds every coordinate ever changed) does;
    // and Δ = −0.0 (a decayed step that underflowed), which a restart, clearing Δ on the
    // support only, must set to +0.0 as the uninterrupted training does.
    double[] velocity = progress.momentum == null ? null : progress.momentum.velocity();
    for (int j = 0; j < length; j++) {
      if (startWeights[j] != 0.0
          || (velocity != null && Double.doubleToRawLongBits(velocity[j]) != 0L)) {
        support.mark(j);
      }
    }
    try (WeightShipper shipper = new WeightShipper(jsc, config.name + "/" + UUID.randomUUID(),
        length)) {
      DriverRounds driver = driverRounds(progress, shipper, support);
      JobPerRound jobs = new JobPerRound(driver);
      // A callback sees every epoch's state: the barrier stages then report every round's mix
      // for the driver to replay, instead of only where they ended.
      try (BarrierRounds barrier = BarrierRounds.open(driver, jobs, callback != null)) {
        new Epochs(progress, driver, checkpoints, callback).run(barrier != null ? barrier : jobs);
      }
      LOG.info("Weights shipped to the executors: {} values in {} snapshot(s) and changes",
          shipper.shippedValues(), shipper.snapshots());
    }
    if (progress.momentum != null && progress.momentum.restarts() > 0) {
      LOG.info("Block momentum restarted {} times (look-aheads that would have broken the"
          + " mistake bound's invariant)", progress.momentum.restarts());
    }
    VotedPerceptron.Builder vote = progress.vote;
    progress.finalVote = vote == null ? null : vote.build(progress.modelEpoch);
    return progress;
  }

  /** The epochs of one iterative training: what happens around each epoch's rounds. */
  private final class Epochs {
    private final TrainingProgress progress;
    /** The driver's side of the rounds, which keeps the support's coordinates. */
    private final DriverRounds driver;
    private final Checkpoints checkpoints;
    private final EpochCallback callback;

    Epochs(TrainingProgress progress, DriverRounds driver, Checkpoints checkpoints,
        EpochCallback callback) {
      this.progress = progress;
      this.driver = driver;
      this.checkpoints = checkpoints;
      this.callback = callback;
    }

    void run(EpochRounds rounds) {
      for (int epoch = progress.epochsDone + 1; epoch <= settings.maxIter; epoch++) {
        long start = System.nanoTime();
        EpochRounds.Outcome outcome = rounds.run(epoch, lastTogether(epoch));
        double change = outcome.weightChange;
        progress.epochsDone = epoch;
        progress.epochs.add(outcome.stats);
        progress.weightChanges.add(change);
        progress.workerUpdates.add(outcome.workerUpdates);
        double accuracy = settings.validate ? validate(epoch) : Double.NaN;
        if (!settings.validate) {
          progress.modelEpoch = epoch;
        }
        double seconds = outcome.seconds((System.nanoTime() - start) / 1e9);
        progress.seconds.add(seconds);
        logEpoch(epoch, settings.maxIter, outcome.stats, change, seconds, accuracy);
        if (callback != null) {
          VotedPerceptron.Builder vote = progress.vote;
          callback.onEpoch(epoch, progress.state, vote == null ? null : vote.build(epoch));
        }
        if (stops(epoch, outcome.stats, change)) {
          break;
        }
        if (checkpoints != null && checkpoints.due(epoch) && epoch < settings.maxIter) {
          checkpoints.save(progress);
        }
      }
    }

    /**
     * The last epoch that may run together with {@code epoch}, ahead of the driver's steps
     * between them: none may need the driver in between (validation scores every epoch's
     * model; a checkpoint saves the state after a due epoch).
     */
    private int lastTogether(int epoch) {
      if (settings.validate) {
        return epoch;
      }
      int last = settings.maxIter;
      if (checkpoints != null) {
        for (int e = epoch; e < last; e++) {
          if (checkpoints.due(e)) {
            return e;
          }
        }
      }
      return last;
    }

    /** Scores the epoch's model on the validation rows and keeps the best state so far. */
    private double validate(int epoch) {
      jsc.setJobDescription(String.format(Locale.ROOT,
          "perceptron epoch %d/%d: validation", epoch, settings.maxIter));
      double accuracy = validationAccuracy(progress.state, progress.vote, epoch);
      progress.validationAccuracy.add(accuracy);
      if (accuracy > progress.bestAccuracy) {
        progress.bestAccuracy = accuracy;
        progress.best = progress.state.copy();
        progress.modelEpoch = epoch;
      }
      return accuracy;
    }

    /** Whether training stops after {@code epoch}, and why ({@code progress.stopReason}). */
    private boolean stops(int epoch, EpochStats stats, double change) {
      if (stats.updates == 0) {
        progress.stopReason = StopReason.CONVERGED;
        return true;
      }
      if (settings.tol > 0 && change < settings.tol) {
        progress.stopReason = StopReason.TOL;
        return true;
      }
      if (settings.validate && epoch - progress.modelEpoch >= settings.validationPatience) {
        progress.stopReason = StopReason.VALIDATION;
        LOG.info("No better validation accuracy for {} epochs: returning epoch {}'s model"
            + " (validation accuracy {})", settings.validationPatience, progress.modelEpoch,
            progress.bestAccuracy);
        return true;
      }
      return false;
    }
  }

  static VotedPerceptron.Builder voteBuilder(LearnerConfig learner) {
    return learner.averaging() == Averaging.VOTE
        ? new VotedPerceptron.Builder(learner.numClasses(), learner.numFeatures(),
            learner.fitIntercept())
        : null;
  }

  /**
   * The accuracy (weighted by sample weights) on the validation rows of the model this epoch
   * would return. Worker sums come back in worker order and are added in that order, so the
   * value, and the best epoch chosen from it, are reproducible.
   */
  private double validationAccuracy(LinearState state, VotedPerceptron.Builder vote, int epoch) {
    Predictor predictor = vote != null
        ? Predictor.voted(vote.build(epoch), settings.threshold)
        : Predictor.linear(learner.numClasses(), learner.numFeatures(), settings.threshold,
            state.modelWeights());
    Broadcast<Predictor> broadcast = jsc.broadcast(predictor);
    try {
      List<double[]> sums = PartitionJob.map(input.blocks, part ->
          BlockEvaluation.weightedAccuracy(part.validationChunks(), broadcast.value()));
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

  static void logEpoch(int epoch, int maxIter, EpochStats stats, double change,
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
