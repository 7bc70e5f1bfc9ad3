package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.blocks.PartitionJob;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.blocks.WorkerEpoch;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.LocalWeights;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.StateLayout;
import io.github.sparkperceptron.internal.kernel.VoteTrace;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.rounds.DriverRounds;
import io.github.sparkperceptron.internal.rounds.FaultInjection;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;

/**
 * One-shot parameter mixing (McDonald, Hall &amp; Mann 2010, "parameter mixing"): every worker
 * trains alone for all the epochs inside one Spark job, and the workers' final models are mixed
 * once at the end. Cheap (one job) but, unlike iterative mixing, without a mistake bound for the
 * mix.
 */
final class OneShotMixing {
  private final MixingLoop loop;

  OneShotMixing(MixingLoop loop) {
    this.loop = loop;
  }

  TrainingProgress run(LinearState initial) {
    MixingSettings settings = loop.settings;
    LearnerConfig learner = loop.learner;
    TrainingInput input = loop.input;
    long start = System.nanoTime();
    loop.jsc.setJobDescription(String.format(Locale.ROOT,
        "perceptron: %d epochs on every worker alone (oneshot mixing)", settings.maxIter));
    double totalWeight = input.trainingWeight(learner.classWeights());
    VotedPerceptron.Builder vote = MixingLoop.voteBuilder(learner);
    int startVector = vote == null ? -1 : vote.addStartVector(initial.weights());
    Broadcast<LinearState> broadcast = loop.jsc.broadcast(initial.copy());
    boolean exact = input.numWorkers == 1;
    WorkerResult mixed;
    try {
      mixed = PartitionJob.aggregate(input.blocks.rdd(),
          aloneTask(broadcast, learner, settings, totalWeight, exact, startVector),
          new ParameterMix(input.numWorkers), ParameterMix::add, ParameterMix::merge,
          loop.plan.memory().roundAggregationDepth()).result();
    } finally {
      broadcast.destroy();
    }
    EpochStats[] epochs = mixed.epochs();
    // The workers return their final models (their averages, when averaging), so the mix is a
    // model: its accumulator stays zero.
    LinearState state = initial.copy();
    mixed.delta().applyTo(state.weights(), null);
    state.setClock(initial.clock() + epochs.length * totalWeight);
    for (int e = 0; e < epochs.length; e++) {
      DriverRounds.requireFinite(state, mixed.delta(), epochs[e], e + 1);
    }
    TrainingProgress progress = new TrainingProgress(state, vote);
    double seconds = (System.nanoTime() - start) / 1e9;
    for (int e = 0; e < epochs.length; e++) {
      progress.epochs.add(epochs[e]);
      progress.weightChanges.add(Double.NaN);
      progress.seconds.add(seconds / epochs.length);
      progress.workerUpdates.add(column(mixed.updatesByWorker(), e));
      MixingLoop.logEpoch(e + 1, settings.maxIter, epochs[e], Double.NaN,
          seconds / epochs.length, Double.NaN);
    }
    progress.epochsDone = epochs.length;
    progress.modelEpoch = epochs.length;
    if (epochs.length > 0 && epochs[epochs.length - 1].updates == 0) {
      progress.stopReason = StopReason.CONVERGED;
    }
    if (vote != null) {
      vote.addEpoch(1, mixed.voteTraces());
      progress.finalVote = vote.build(1);
    }
    return progress;
  }

  /** Entry {@code e} of every row (0 where a worker stopped before epoch e). */
  private static long[] column(long[][] rows, int e) {
    long[] out = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      out[i] = e < rows[i].length ? rows[i][e] : 0;
    }
    return out;
  }

  /**
   * The task body: every epoch over one worker's rows alone, like the serial algorithm (stopping
   * once an epoch makes no update); returns the change from the broadcast weights to its own
   * final model (its average, when averaging), so that mixing averages the workers' models.
   */
  private static Function2<Integer, Iterator<WorkerBlocks>, Iterator<WorkerResult>>
      aloneTask(Broadcast<LinearState> broadcast, LearnerConfig learner, MixingSettings settings,
          double totalWeight, boolean exact, int startVector) {
    return (worker, parts) -> {
      WorkerBlocks part = parts.next();
      LinearState initial = broadcast.value();
      boolean learns = part.hasTrainingRows();
      // The worker trains on its own features, feature-major for K > 2 (as a round does, see
      // WorkerRound): the same bits as on a global copy.
      LocalWeights copy = new LocalWeights(learner, part.features(learner.numFeatures()),
          StateLayout.FEATURE_MAJOR);
      copy.load(initial.weights(), initial.averageAccumulator());
      LinearState state = copy.state(initial.clock());
      double startClock = state.clock();
      double workerWeight = part.trainingWeight(learner.classWeights());
      double clockScale = workerWeight > 0 ? totalWeight / workerWeight : 0.0;
      VoteTrace trace = startVector >= 0 && learns
          ? new VoteTrace(null, null, startVector, startClock) : null;
      EpochStats[] currentStats = new EpochStats[1];
      WorkerEpoch.Visitor kernel = (rows, order, from, to) -> {
        if (trace != null) {
          trace.readFrom(rows.features(), rows.localFeatures());
        }
        OnlineLearner.runEpoch(copy.config(), rows, order, from, to, state, clockScale,
            currentStats[0], trace, copy.touched());
      };
      List<EpochStats> epochs = new ArrayList<>();
      for (int e = 0; e < settings.maxIter; e++) {
        FaultInjection.beforeWorkerEpoch(1 + e, worker);
        EpochStats stats = new EpochStats();
        currentStats[0] = stats;
        if (learns) {
          WorkerEpoch visits = WorkerEpoch.of(part, WorkerEpoch.plan(part, settings.order, 1 + e),
              WorkerEpoch.DRAWN);
          long n = visits.visits();
          int failAfter = FaultInjection.rowsBeforeFailure(1 + e, worker,
              (int) Math.min(n, Integer.MAX_VALUE));
          if (failAfter >= 0) {
            visits.run(0, failAfter, kernel);
            FaultInjection.failMidEpoch(1 + e, worker, failAfter);
          }
          visits.run(0, n, kernel);
        }
        state.setClock(startClock + (e + 1) * totalWeight);
        epochs.add(stats);
        if (stats.updates == 0) {
          break;
        }
      }
      LocalWeights.Touched written = copy.drainTouched();
      StateDelta delta = StateDelta.between(written.global, written.local, state.modelWeights(),
          initial.weights(), null, exact, StateDelta.DENSE_ABOVE);
      long updates = 0;
      for (EpochStats s : epochs) {
        updates += s.updates;
      }
      double mixWeight = settings.mixing.mixWeight(workerWeight, updates);
      WorkerResult result = new WorkerResult(worker, mixWeight, delta,
          epochs.toArray(new EpochStats[0]));
      if (trace != null) {
        trace.finish(state.clock(), mixWeight);
        result.withVoteTrace(trace);
      }
      return Collections.singletonList(result).iterator();
    };
  }
}
