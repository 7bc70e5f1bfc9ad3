package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.exchange.ExecutorWeights;
import io.github.sparkperceptron.internal.exchange.PeerLinks;
import io.github.sparkperceptron.internal.exchange.Rendezvous;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.RoundTree;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WeightChange;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.RoundExecution;
import io.github.sparkperceptron.internal.plan.Settings;
import java.io.IOException;
import java.io.Serializable;
import java.net.ConnectException;
import java.util.Collections;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.LongAccumulator;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * The body of one barrier task: all R mixing rounds of each of a stage's epochs on one worker.
 * Every worker starts from the stage's shipped weights (and block momentum's state), runs each
 * round with the code a task of the job-per-round path runs ({@link WorkerRound}), and the
 * workers exchange their changes and mix them along {@link RoundTree}, so that every worker
 * applies the same mixed change and block momentum's look-ahead and after-round step run
 * identically on every worker: the workers hold the driver's weights of every round without a Spark job per round,
 * and go on to the next epoch without one either.
 *
 * <p>The workers end the stage early, all after the same epoch, where the driver's stopping rules
 * will stop: an epoch whose mixes moved no weight by an update (every round's Σ μ_i·m_i is 0),
 * or whose relative change of the weights is below {@code tol} ({@link WeightChange}, the
 * driver's own function over the same support). The driver's rules decide after its replay; an
 * epoch it needs beyond the stage runs in the next one, and epochs past its stop are dropped.
 *
 * <p>Returns, once per stage, what the job-per-round path would have collected round by round
 * (the worker's stats and vote trace of each round of each epoch), a digest of the worker's
 * weights after each epoch, and either the state the workers ended the stage with (worker
 * {@value #END_REPORTER}: w, and the averaging accumulator u and block momentum's Δ, which every
 * worker moves as the driver's replay would) or every round's mix (each from the round's
 * reporter), from which the driver replays the epochs: the end state always with block
 * momentum (whose replay would run a look-ahead over the whole support in every round, where
 * adopting the end state is one pass), else whichever is smaller ({@link #reportsEnd}); only the
 * mixes where the stage may not report its end (a vote, an epoch listener).
 * {@link BarrierRounds} checks the digests against each other and the driver's state.
 *
 * <p>A retried stage starts again from the shipped weights: nothing here survives a failed
 * attempt (the weights' working copies of a failed task are never released).
 */
final class BarrierEpochTask extends AbstractFunction1<Iterator<WorkerBlocks>,
    Iterator<BarrierEpochTask.Output>> implements Serializable {
  private static final long serialVersionUID = 2L;

  /** Marks failures to set the exchange up, which the driver answers by leaving barrier mode. */
  static final String SETUP_FAILURE = "[barrier exchange setup]";

  /**
   * The worker that reports the mixed change of round {@code round} of the stage's epoch
   * {@code e}: the rounds taken in turn, so that each of the W workers sends the driver about
   * 1/W of the stage's mixes and the stage's outputs travel in W task results of about one size
   * ({@link StageOutputs}).
   */
  static int reporter(int e, int round, int rounds, int workers) {
    return (int) (((long) e * rounds + round) % workers);
  }

  /** The worker that reports a stage's end state, where the stage reports it. */
  static final int END_REPORTER = 0;

  /**
   * Whether a stage that may report where it ended does: where its end state, at the
   * {@code support} coordinates it ends with (an index and w, u with {@code averaging}, Δ with
   * {@code momentum} per coordinate), takes no more bytes than the {@code mixEntries} entries of
   * its rounds' mixes (an index, w and u each). Every worker decides alike: all hold the same
   * support and mixes. Small models with many rounds report their end (the mixes repeat every
   * coordinate every round); a huge, hashed model whose rounds by now touch few of its millions
   * of coordinates reports its mixes, and the driver replays them. The rule of stages without
   * block momentum: with it a stage reports its end whatever the mixes ({@link EndReport}).
   */
  static boolean reportsEnd(int support, long mixEntries, boolean averaging, boolean momentum) {
    long endBytes = (long) support * (4 + 8 + (averaging ? 8 : 0) + (momentum ? 8 : 0));
    long mixBytes = mixEntries * (4 + 8 + (averaging ? 8 : 0));
    return endBytes <= mixBytes;
  }

  /** What one worker reports after the stage: per epoch it ran (index e: firstEpoch + e). */
  static final class Output implements Serializable {
    private static final long serialVersionUID = 3L;
    final int worker;
    /**
     * The worker's own result of each round of each epoch: its stats and vote trace, and its
     * change only in an audited round ({@link MixAudit}): the reported mixes carry the rest.
     */
    final WorkerResult[][] rounds;
    /**
     * The round's mixed change where this worker is the round's {@link #reporter}; null in the
     * other rounds (every worker holds the same mix: RoundTree).
     */
    final StateDelta[][] mixes;
    /**
     * {@link BarrierStage#digest} of the worker's weights after each epoch's last round over
     * the support (elsewhere they are the shipped weights).
     */
    final long[] weightsDigests;
    /** Block momentum after each epoch: M, m_Δ and restarts (0 without momentum). */
    final double[] momentumMass;
    final double[] velocityMass;
    final long[] restarts;
    /**
     * The relative change of the weights over each epoch ({@link WeightChange}, the driver's
     * {@code tol} measure over the same support), for a stage that reports its end state only.
     */
    final double[] weightChanges;
    /**
     * Where a stage that reports its end state ({@link StageStart#endReport},
     * {@link #reportsEnd}) left the training, from worker {@value #END_REPORTER} only (null
     * elsewhere, and in a stage that reports its mixes).
     */
    EndState end;

    Output(int worker, int epochs, int rounds) {
      this.worker = worker;
      this.rounds = new WorkerResult[epochs][rounds];
      this.mixes = new StateDelta[epochs][rounds];
      this.weightsDigests = new long[epochs];
      this.momentumMass = new double[epochs];
      this.velocityMass = new double[epochs];
      this.restarts = new long[epochs];
      this.weightChanges = new double[epochs];
    }

    /** How many epochs the worker ran: the stage's, or fewer when it ended early. */
    int epochs() {
      return rounds.length;
    }

    /** This output cut to its first {@code epochs} epochs (the stage ended early). */
    Output firstEpochs(int epochs) {
      Output cut = new Output(worker, epochs, rounds.length == 0 ? 0 : rounds[0].length);
      for (int e = 0; e < epochs; e++) {
        cut.rounds[e] = rounds[e];
        cut.mixes[e] = mixes[e];
        cut.weightsDigests[e] = weightsDigests[e];
        cut.momentumMass[e] = momentumMass[e];
        cut.velocityMass[e] = velocityMass[e];
        cut.restarts[e] = restarts[e];
        cut.weightChanges[e] = weightChanges[e];
      }
      cut.end = end;
      return cut;
    }
  }

  /**
   * Where a stage left the training: its support (increasing), and w, u (null without averaging)
   * and block momentum's Δ (null without momentum) at its coordinates (outside it they are the
   * shipped values), and momentum's masses and restarts after its last epoch (0 without).
   */
  static final class EndState implements Serializable {
    private static final long serialVersionUID = 1L;
    final int[] support;
    final double[] weights;
    final double[] average;
    final double[] velocity;
    final double momentumMass;
    final double velocityMass;
    final long restarts;

    EndState(int[] support, double[] w, double[] u, BlockMomentum m) {
      this.support = support;
      this.weights = WeightChange.valuesAt(w, support);
      this.average = u == null ? null : WeightChange.valuesAt(u, support);
      this.velocity = m == null ? null : WeightChange.valuesAt(m.velocity(), support);
      this.momentumMass = m == null ? 0.0 : m.mass();
      this.velocityMass = m == null ? 0.0 : m.velocityMass();
      this.restarts = m == null ? 0L : m.restarts();
    }
  }

  /**
   * How a stage may report where it ended instead of every round's mix: the shipped averaging
   * accumulator u (null without averaging), which its workers then move as the driver's replay
   * would; and whether it reports its end whatever its mixes ({@code always}, block momentum:
   * {@code plan.StageReport.END}; then its tasks keep no mix but the audited round's) or only where
   * that state is the smaller report ({@link #reportsEnd}).
   */
  static final class EndReport implements Serializable {
    private static final long serialVersionUID = 2L;
    final WeightsRef average;
    final boolean always;

    EndReport(WeightsRef average, boolean always) {
      this.average = average;
      this.always = always;
    }
  }

  /** The averaging clock at a stage's start and at the end of every round of its epochs. */
  static final class Clock implements Serializable {
    private static final long serialVersionUID = 1L;
    final double start;
    /** Per epoch e of the stage (its e-th), per round. */
    final double[][] roundEnds;

    Clock(double start, double[][] roundEnds) {
      this.start = start;
      this.roundEnds = roundEnds;
    }

    /** The clock at the start of the stage's epoch {@code e}. */
    double epochStart(int e) {
      return e == 0 ? start : roundEnds[e - 1][roundEnds[e - 1].length - 1];
    }
  }

  /**
   * Where the stage starts and what it runs: its first epoch, the averaging clock at the start
   * and at the end of every round of each of its epochs (the driver's values, e: the stage's
   * e-th epoch), the vote's index of the stage's first start vector (−1 without a vote; round r
   * of epoch e uses first + e·R + r), the shipped weights, for each epoch the round whose own
   * changes every worker reports beside the round's mix ({@link MixAudit}; −1: none), and the
   * driver's support set (increasing): where the weights can be non-zero, and so where every
   * move of the weights happens.
   *
   * <p>{@code endReport}: how the stage may report where it ended instead of every round's mix
   * for the driver to replay; null: it reports its mixes (a vote, an epoch listener, u's copies
   * beyond the memory plan, or an earlier stage of the training whose mixes were smaller).
   */
  static final class StageStart implements Serializable {
    private static final long serialVersionUID = 2L;
    final int firstEpoch;
    final Clock clock;
    final int firstStartVector;
    final WeightsRef weights;
    final int[] auditRounds;
    final Broadcast<int[]> support;
    final EndReport endReport;

    StageStart(int firstEpoch, Clock clock, int firstStartVector, WeightsRef weights,
        int[] auditRounds, Broadcast<int[]> support, EndReport endReport) {
      this.firstEpoch = firstEpoch;
      this.clock = clock;
      this.firstStartVector = firstStartVector;
      this.weights = weights;
      this.auditRounds = auditRounds;
      this.support = support;
      this.endReport = endReport;
    }

    int epochs() {
      return clock.roundEnds.length;
    }

    int rounds() {
      return clock.roundEnds[0].length;
    }
  }

  /**
   * Block momentum's state at the start of the stage: β, ρ, the initial ‖w‖², M, m_Δ and the
   * restarts, and its Δ (shipped like the weights).
   */
  static final class MomentumStart implements Serializable {
    private static final long serialVersionUID = 1L;
    final double beta;
    final double rho;
    final double initialSquaredNorm;
    final double mass;
    final double velocityMass;
    final long restarts;
    final WeightsRef velocity;

    MomentumStart(BlockMomentum m, WeightsRef velocity) {
      this.beta = m.momentum();
      this.rho = m.normBound();
      this.initialSquaredNorm = m.initialSquaredNorm();
      this.mass = m.mass();
      this.velocityMass = m.velocityMass();
      this.restarts = m.restarts();
      this.velocity = velocity;
    }
  }

  private final WorkerRound.Spec spec;
  private final int workers;
  private final StageStart start;
  /** The stage's first epoch (for messages and the fault-injection hooks of set-up). */
  private final int epoch;
  /** Null without momentum. */
  private final MomentumStart momentum;
  private final RoundExecution execution;
  /** The driver's rendezvous. */
  private final Rendezvous.Ticket rendezvous;
  private final LongAccumulator bytesExchanged;

  /**
   * @param momentum block momentum's state at the epoch's start, or null without momentum
   * @param rendezvous the driver's rendezvous
   * @param bytesExchanged counts the bytes the workers send each other (for measurements)
   */
  BarrierEpochTask(WorkerRound.Spec spec, StageStart start, MomentumStart momentum,
      RoundExecution execution, Rendezvous.Ticket rendezvous, LongAccumulator bytesExchanged) {
    this.spec = spec;
    this.workers = spec.workers;
    this.start = start;
    this.epoch = start.firstEpoch;
    this.momentum = momentum;
    this.execution = execution;
    this.rendezvous = rendezvous;
    this.bytesExchanged = bytesExchanged;
  }

  @Override
  public Iterator<Output> apply(Iterator<WorkerBlocks> parts) {
    BarrierTaskContext context = BarrierTaskContext.get();
    int worker = context.partitionId();
    WorkerRound work = WorkerRound.forEpoch(spec, parts.next(), worker, epoch, start.weights);
    Exchanger exchanger = exchanger(context, worker);
    try {
      return CollectionConverters.asScala(Collections.singletonList(
          runRounds(worker, work, exchanger)).iterator());
    } catch (IOException e) {
      throw new IllegalStateException("Mixing round exchange of epoch " + epoch + " failed on"
          + " worker " + worker + ": " + e.getMessage(), e);
    } finally {
      exchanger.close();
    }
  }

  /** One round's exchange on one worker: its leaf in, the round's mix out. */
  private interface Exchanger {
    RoundTree.Mixed mix(WorkerResult leaf) throws IOException;

    /** Bytes this worker sent the others so far, framing included. */
    long bytesSent();

    void close();
  }

  private Exchanger exchanger(BarrierTaskContext context, int worker) {
    PeerLinks links;
    try {
      if (FaultInjection.barrierSetupFails()) {
        throw new ConnectException("injected: connection refused ("
            + Settings.TEST_INJECT_FAILURE + "=barrier-setup)");
      }
      long group = ((long) context.stageId() << 32) | context.stageAttemptNumber();
      String host = hostOf(context.getTaskInfos()[worker].address());
      PeerLinks.Seat seat = new PeerLinks.Seat(group, workers, worker, host, bindHost(host),
          RoundTree.maxFrameBytes(spec.learner.stateLength()));
      int blackHole = FaultInjection.advertisedPort();
      links = PeerLinks.connect(rendezvous, blackHole > 0 ? seat.advertising(blackHole) : seat,
          context::isInterrupted);
    } catch (IOException e) {
      throw new IllegalStateException(SETUP_FAILURE + " worker " + worker + " of epoch "
          + epoch + ": " + e.getMessage(), e);
    }
    return new Exchanger() {
      @Override
      public RoundTree.Mixed mix(WorkerResult leaf) throws IOException {
        return RoundTree.allReduce(leaf, workers, links);
      }

      @Override
      public long bytesSent() {
        return links.bytesSent();
      }

      @Override
      public void close() {
        links.close();
      }
    };
  }

  /**
   * The address this executor's listeners bind to: Spark's bind address for it when one is set
   * ({@code spark.executor.bindAddress}; {@code spark.driver.bindAddress} in local mode, where
   * the driver runs the tasks), else the host Spark tells others to reach it at; never every
   * interface.
   */
  static String bindHost(String advertised) {
    SparkEnv env = SparkEnv.get();
    String key = "driver".equals(env.executorId()) ? "spark.driver.bindAddress"
        : "spark.executor.bindAddress";
    return env.conf().get(key, advertised);
  }

  /** The host of an executor address "host:port" ("[v6]:port" for IPv6). */
  static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    String host = colon > 0 ? address.substring(0, colon) : address;
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1)
        : host;
  }

  /**
   * The length of a buffer that follows the support, for {@code needed} coordinates: a quarter
   * more, so that a support that keeps growing by a few coordinates a round (a hashed model's
   * later epochs) does not allocate a new buffer of millions every round, each zeroed in fresh
   * memory (BENCHMARKS.md, issue 32, twenty-third stop).
   */
  static int withHeadroom(int needed) {
    return (int) Math.min(Integer.MAX_VALUE - 8, needed + (long) needed / 4);
  }

  /**
   * The stage's epochs on this worker, each one's rounds. Mirrors the job-per-round path step
   * for step: the driver's look-ahead (here on the worker's base weights), the worker's round
   * ({@link WorkerRound#run}, a task's round of the job-per-round path), the mix, the worker's
   * weights moved by it, and block momentum's after-round step; the vote's start vectors are the
   * driver's (index base + e·R + r).
   */
  private Output runRounds(int worker, WorkerRound work, Exchanger exchanger)
      throws IOException {
    int epochs = start.epochs();
    int rounds = start.rounds();
    // The round's mixed weights, which the driver holds.
    double[] mixed = work.base();
    BlockMomentum m = null;
    ExecutorWeights.WholeCopy velocity = null;
    // Where w or Δ can be non-zero (increasing): the driver's support set, kept as an array so
    // that a round costs what it touched, not a scan of K'·(d+1)/64 words.
    // Every move of the base happens inside it: the digest's and the release's coordinates.
    int[] support = start.support.value();
    // The look-ahead's moved coordinates, grown with the support and reused round after round.
    int[] jumped = SortedCoordinates.NONE;
    if (momentum != null) {
      velocity = ExecutorWeights.checkoutWhole(momentum.velocity);
      m = BlockMomentum.resume(velocity.values(), momentum.beta, momentum.rho,
          momentum.initialSquaredNorm, momentum.mass, momentum.velocityMass, momentum.restarts);
    }
    // A stage that reports its end state moves u as the driver's replay would (the look-ahead's
    // jumps at the round's clock, each mix's averaging part), so that the end state it reports
    // is the replay's, bit for bit.
    boolean mayReportEnd = start.endReport != null;
    boolean reportsEndAlways = mayReportEnd && start.endReport.always;
    ExecutorWeights.WholeCopy averageCopy = !mayReportEnd || start.endReport.average == null
        ? null : ExecutorWeights.checkoutWhole(start.endReport.average);
    double[] average = averageCopy == null ? null : averageCopy.values();
    double tol = spec.settings.tol;
    // Entries of the stage's mixes so far: every worker holds every mix, so all count alike.
    long mixEntries = 0;
    // The weights at the support at the epoch's start, for the relative change the driver's
    // rules read; the epoch's end values are written beside them in the same pass, and the
    // two buffers trade places for the next epoch.
    boolean measuresChange = tol > 0 || mayReportEnd;
    double[] beforeValues = null;
    double[] afterValues = new double[0];
    Output out = new Output(worker, epochs, rounds);
    boolean averaging = spec.learner.averaging().keepsAverage();
    int ran = 0;
    boolean converged = false;
    while (ran < epochs && !converged) {
      int e = ran;
      int epochNumber = start.firstEpoch + e;
      if (e > 0) {
        work.nextEpoch(epochNumber);
      }
      double[] roundEnds = start.clock.roundEnds[e];
      double epochClock = start.clock.epochStart(e);
      boolean updated = false;
      int[] beforeIndex = support;
      if (measuresChange && beforeValues == null) {
        beforeValues = WeightChange.valuesAt(mixed, support);
      }
      for (int round = 0; round < rounds; round++) {
        double clock = round == 0 ? epochClock : roundEnds[round - 1];
        if (m != null) {
          if (jumped.length < support.length) {
            jumped = new int[withHeadroom(support.length)];
          }
          int moved = m.lookAheadInto(mixed, average, clock, support, jumped);
          if (moved >= 0) {
            work.baseMoved(jumped, moved);
          }
        }
        FaultInjection.beforeBarrierRound(epochNumber, worker, workers, round, rounds);
        WorkerResult leaf = work.run(round, clock, roundEnds[round],
            start.firstStartVector >= 0 ? start.firstStartVector + e * rounds + round : -1);
        RoundTree.Mixed mix = exchanger.mix(leaf);
        // Every worker reads the same mixed Σ μ_i·m_i: all end the stage after the same epoch.
        updated |= mix.stepSum() != 0.0;
        StateDelta change = FaultInjection.appliedMix(mix.delta());
        int[] changed = work.moveBase(change, average);
        support = SortedCoordinates.union(support, changed);
        if (m != null) {
          m.afterRound(change, mix.stepSum(), support);
        }
        // The driver mixes the stats and takes the change from the round's reporter; in the
        // audited round every worker's own change goes along, for the driver to re-mix
        // (MixAudit).
        if (round != start.auditRounds[e]) {
          leaf.withChange(StateDelta.none(mixed.length, averaging));
        }
        if (worker == reporter(e, round, rounds, workers)
            && (!reportsEndAlways || round == start.auditRounds[e])) {
          out.mixes[e][round] = FaultInjection.reportedMix(change);
        }
        mixEntries += change.storedEntries();
        out.rounds[e][round] = leaf;
      }
      out.weightsDigests[e] = FaultInjection.reportedDigest(epochNumber, worker, workers,
          BarrierStage.digest(mixed, average, support));
      if (m != null) {
        out.momentumMass[e] = m.mass();
        out.velocityMass[e] = m.velocityMass();
        out.restarts[e] = m.restarts();
      }
      // The driver's rules (MixingLoop): no update, or a relative change below tol, which
      // both sides compute from the same weights over the same support.
      double change = Double.NaN;
      if (measuresChange) {
        if (afterValues.length < support.length) {
          afterValues = new double[withHeadroom(support.length)];
        }
        change = WeightChange.relative(beforeIndex, beforeValues, support, mixed, afterValues);
        double[] next = afterValues;
        afterValues = beforeValues;
        beforeValues = next;
      }
      out.weightChanges[e] = change;
      converged = !updated || (tol > 0 && change < tol);
      ran++;
    }
    if (reportsEndAlways || mayReportEnd && reportsEnd(support.length, mixEntries,
        average != null, velocity != null)) {
      // The driver takes the end state and needs no mix but the audited round's.
      for (int e = 0; e < ran; e++) {
        for (int round = 0; round < rounds; round++) {
          if (round != start.auditRounds[e]) {
            out.mixes[e][round] = null;
          }
        }
      }
      if (worker == END_REPORTER) {
        out.end = new EndState(support, mixed, average, m);
      }
    }
    work.release(support);
    if (averageCopy != null) {
      // u moved only on the support, as w did.
      ExecutorWeights.releaseWhole(averageCopy, support);
    }
    if (velocity != null) {
      // Δ changed only on the support: the look-ahead writes it there, a mix where it moved w.
      ExecutorWeights.releaseWhole(velocity, support);
    }
    bytesExchanged.add(exchanger.bytesSent());
    return ran == epochs ? out : out.firstEpochs(ran);
  }
}
