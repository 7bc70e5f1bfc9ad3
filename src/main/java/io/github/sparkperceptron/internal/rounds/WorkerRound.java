package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.blocks.WorkerEpoch;
import io.github.sparkperceptron.internal.exchange.ExecutorWeights;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.LocalWeights;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.kernel.StateLayout;
import io.github.sparkperceptron.internal.kernel.VoteTrace;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import java.io.Serializable;

/**
 * One worker's side of the mixing rounds of one epoch (McDonald, Hall &amp; Mann 2010, iterative
 * parameter mixing: every worker runs its share of the epoch from the round's mixed weights and
 * returns what it changed), whichever executor runs the rounds: a task of {@link JobPerRound}
 * runs one round, a task of {@link BarrierRounds} all of them. The one place that holds the
 * worker's working copy of the weights.
 *
 * <pre>
 * start     check out the worker's working copy of the shipped weights (ExecutorWeights): the
 *           worker's own m features, feature-major for K &gt; 2 (LocalWeights); the round's
 *           weights are the base (the shipped ones, all K'·(d+1); a private copy of them when the
 *           base moves)
 * run(r)    from the base with a zero averaging accumulator, visit slice r of R of the worker's
 *           epoch order (OnlineLearner, on the copy's coordinates); the worker's change is the
 *           StateDelta between the copy and the base at the coordinates written, in the model's
 *           class-major coordinates; the copy is then the base again
 * moveBase  (whole-epoch tasks) the base moves by the round's mix or block momentum's
 *           look-ahead, the copy follows it at the coordinates that moved and it holds
 * release   hand the copy back, with coordinates where it may differ from the shipped weights (a
 *           whole-stage task's caller keeps them: the support, where every move happens)
 * </pre>
 *
 * <p>The worker's block numbers its rows by the worker's features (monotone, see
 * {@link LocalFeatures}) and the copy holds K'·(m+1) values in the feature-major layout
 * ({@link StateLayout}): the kernel adds the same products in the same order as on a global
 * class-major copy, so the change and every model are the same bits, while a row's K scores read
 * nnz runs of K weights and the copy's size follows the worker's features, not d.
 *
 * <p>Every worker's round spans exactly [startClock, roundEnd] of the averaging clock (its clock
 * runs at T/T_i per unit of sample weight). A round is a pure function of the base, the worker's
 * block and the epoch order ({@code VisitOrder}, seeded by seed, epoch and worker), so a retried
 * or recomputed task returns the same bits. A task that fails never releases its copy, so a
 * half-trained copy never reaches a later round.
 */
final class WorkerRound {
  /** Moved coordinates from 1/this of the copy's weights on are followed by one gather. */
  private static final int GATHER_FROM_SHARE = 16;
  private final LearnerConfig learner;
  private final MixingSettings settings;
  private final int worker;
  private final int workers;
  /** The epoch the rounds belong to (a whole-stage task moves on, {@link #nextEpoch}). */
  private int epoch;
  /** The worker's cached rows (their chunks read window by window). */
  private final WorkerBlocks part;
  /** T/T_i: how far the averaging clock moves per unit of this worker's sample weight. */
  private final double clockScale;
  /** The worker's training weight T_i, for its mixing weight μ_i. */
  private final double workerWeight;
  /** With one worker the change is kept exact (see {@link StateDelta#between}). */
  private final boolean exact;
  private final ExecutorWeights.WorkerCopy working;
  private final LocalWeights copy;
  /** The round's weights the copy trains from (shared and read-only unless it moves). */
  private final double[] base;
  /** A whole-epoch task's private base (pooled on the executor), else null. */
  private final ExecutorWeights.WholeCopy movingBase;
  /**
   * Whether this is a whole-stage task, whose base moves (its caller keeps where: a superset of
   * the coordinates it moved, handed to {@link #release}).
   */
  private final boolean moves;
  /** The epoch's visits of the worker's rows, window by window (made at the first round). */
  private WorkerEpoch visits;

  private WorkerRound(Spec spec, WorkerBlocks part, int worker, int epoch,
      WeightsRef weights, boolean movingBase) {
    this.learner = spec.learner;
    this.settings = spec.settings;
    this.worker = worker;
    this.workers = spec.workers;
    this.epoch = epoch;
    this.part = part;
    this.workerWeight = part.trainingWeight(learner.classWeights());
    this.clockScale = workerWeight > 0 ? spec.totalWeight / workerWeight : 0.0;
    this.exact = spec.workers == 1;
    LocalFeatures features = part.features(learner.numFeatures());
    this.working = ExecutorWeights.checkout(weights, worker, learner, features,
        StateLayout.FEATURE_MAJOR, spec.idleCopyBytes);
    this.copy = working.weights();
    this.movingBase = movingBase ? ExecutorWeights.checkoutWhole(weights) : null;
    this.base = movingBase ? this.movingBase.values() : working.base();
    this.moves = movingBase;
  }

  /**
   * What every worker's rounds share: the learner, the settings, W, T = Σ T_i and the bytes of
   * idle working copies an executor may keep ({@link MemoryPlan#idleCopyBytes}).
   */
  static final class Spec implements Serializable {
    private static final long serialVersionUID = 2L;
    final LearnerConfig learner;
    final MixingSettings settings;
    final int workers;
    final double totalWeight;
    final long idleCopyBytes;

    Spec(LearnerConfig learner, MixingSettings settings, int workers, double totalWeight,
        long idleCopyBytes) {
      this.learner = learner;
      this.settings = settings;
      this.workers = workers;
      this.totalWeight = totalWeight;
      this.idleCopyBytes = idleCopyBytes;
    }
  }

  /**
   * The worker's side of one round of {@code epoch} from {@code weights} (a task of
   * {@link JobPerRound}); fails on purpose first where a recovery test asks
   * ({@link FaultInjection}).
   */
  static WorkerRound forRound(Spec spec, WorkerBlocks part, int worker, int epoch,
      WeightsRef weights) {
    FaultInjection.beforeWorkerEpoch(epoch, worker);
    return new WorkerRound(spec, part, worker, epoch, weights, false);
  }

  /**
   * The worker's side of all rounds of {@code epoch} from the epoch's {@code weights} (a task of
   * {@link BarrierRounds}): its base moves by each round's mix ({@link #moveBase}).
   */
  static WorkerRound forEpoch(Spec spec, WorkerBlocks part, int worker, int epoch,
      WeightsRef weights) {
    FaultInjection.beforeWorkerEpoch(epoch, worker);
    return new WorkerRound(spec, part, worker, epoch, weights, true);
  }

  /**
   * Runs round {@code round} of the epoch's R: slice r of the worker's epoch order from the base
   * with a zero accumulator. Returns the worker's result (μ_i, its change from the base, its
   * stats, its vote trace when {@code startVector} ≥ 0); the copy equals the base again after.
   *
   * @param startVector the vote's index of the round's start vector, or −1 without a vote
   */
  WorkerResult run(int round, double startClock, double roundEnd, int startVector) {
    LinearState state = copy.state(startClock);
    boolean learns = part.hasTrainingRows();
    VoteTrace trace = startVector >= 0 && learns
        ? new VoteTrace(null, null, startVector, startClock) : null;
    EpochStats stats = new EpochStats();
    if (learns) {
      int rounds = settings.rounds;
      if (visits == null) {
        visits = WorkerEpoch.of(part, WorkerEpoch.plan(part, settings.order, epoch),
            (plan, k, rows) -> EpochOrderCache.of(epoch, worker, plan, k, rows, rounds));
      }
      long n = visits.visits();
      long from = n * round / rounds;
      long to = n * (round + 1) / rounds;
      LearnerConfig local = copy.config();
      WorkerEpoch.Visitor kernel = (rows, order, a, b) -> {
        if (trace != null) {
          trace.readFrom(rows.features(), rows.localFeatures());
        }
        OnlineLearner.runEpoch(local, rows, order, a, b, state, clockScale, stats, trace,
            copy.touched());
      };
      if (FaultInjection.failsMidRound(epoch, worker, workers, round, rounds, moves)) {
        // The copy is never released: a retry checks out a clean one.
        long half = (to - from) / 2;
        visits.run(from, from + half, kernel);
        FaultInjection.failMidEpoch(epoch, worker, (int) half);
      }
      visits.run(from, to, kernel);
    }
    LocalWeights.Touched written = copy.drainTouched();
    StateDelta delta = StateDelta.between(written.global, written.local, copy.weights(), base,
        copy.average(), exact, settings.denseAbove);
    copy.reset(base, written);
    double mixWeight = settings.mixing.mixWeight(workerWeight, stats.updates);
    WorkerResult result = new WorkerResult(worker, mixWeight, delta, new EpochStats[] {stats});
    if (trace != null) {
      trace.finish(roundEnd, mixWeight);
      result.withVoteTrace(trace);
    }
    return result;
  }

  /**
   * Moves a whole-stage task on to {@code next}, the epoch after the current one: its rounds
   * visit that epoch's order, from the base where the last epoch left it.
   */
  void nextEpoch(int next) {
    requireMovingBase();
    if (next != epoch + 1) {
      throw new IllegalStateException("epoch " + next + " does not follow epoch " + epoch);
    }
    FaultInjection.beforeWorkerEpoch(next, worker);
    epoch = next;
    visits = null;
  }

  /**
   * The round's base weights: shared and read-only for a one-round task; a whole-epoch task's
   * own, which block momentum's look-ahead may change in place (then {@link #baseMoved}).
   */
  double[] base() {
    return base;
  }

  /**
   * Moves the base by the round's mixed change, and the copy with it, and the averaging
   * accumulator {@code average} by the change's averaging part (may be null: not kept); returns
   * the change's coordinates (increasing).
   */
  int[] moveBase(StateDelta mix, double[] average) {
    requireMovingBase();
    mix.applyTo(base, average);
    int[] coordinates = mix.coordinates();
    baseMoved(coordinates, coordinates.length);
    return coordinates;
  }

  /**
   * The base changed in place at the first {@code count} of {@code coordinates} (increasing):
   * the copy follows it there.
   */
  void baseMoved(int[] coordinates, int count) {
    requireMovingBase();
    // The copy equals the base everywhere else, so one gather of its K'·(m+1) values serves as
    // well, and costs less from a 16th of them on: a moved coordinate's search and scattered
    // write cost several gathers (CopyRefreshBenchmark, BENCHMARKS.md issue 32).
    if ((long) count * GATHER_FROM_SHARE > copy.size()) {
      copy.refreshAll(base);
    } else {
      copy.refresh(base, coordinates, count);
    }
  }

  private void requireMovingBase() {
    if (!moves) {
      throw new IllegalStateException("the base of a one-round task does not move");
    }
  }

  /**
   * Hands the copy back to the executor's pool: it equals the base, which differs from the
   * shipped weights at most at {@code differsAt} (increasing; a one-round task's base never
   * moves: pass {@link SortedCoordinates#NONE}).
   */
  void release(int[] differsAt) {
    if (!moves && differsAt.length > 0) {
      throw new IllegalStateException("the base of a one-round task does not move");
    }
    ExecutorWeights.release(working, differsAt);
    if (movingBase != null) {
      ExecutorWeights.releaseWhole(movingBase, differsAt);
    }
  }
}
