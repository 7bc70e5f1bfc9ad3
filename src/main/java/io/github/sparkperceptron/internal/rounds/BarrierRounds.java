package io.github.sparkperceptron.internal.rounds;

import static io.github.sparkperceptron.internal.plan.Settings.BARRIER_PORT;
import static io.github.sparkperceptron.internal.plan.Settings.ROUND_EXECUTION;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.exchange.Rendezvous;
import io.github.sparkperceptron.internal.exchange.WeightShipper;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.exchange.WireSettings;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.BarrierPlan;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.plan.RoundExecution.Mode;
import io.github.sparkperceptron.internal.plan.RoundExecution;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.internal.plan.StageReport;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.io.IOException;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.LongAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * Runs all mixing rounds of an epoch inside one Spark barrier stage, so that a round costs the
 * exchange of the workers' sparse changes instead of a Spark job (issue 18).
 *
 * <pre>
 * per epoch:  ship the epoch's weights (and block momentum's Δ) to the executors once
 *             one barrier stage of W tasks ({@link BarrierEpochTask}): each task registers with
 *               the driver's {@link Rendezvous}, connects to its neighbours in
 *               {@link io.github.sparkperceptron.internal.mixing.RoundTree}'s tree, then for r = 1..R:
 *               look ahead (momentum), run the worker's round ({@link WorkerRound}, the code a
 *               job-per-round task runs), all-reduce the changes along ParameterMix's tree,
 *               move the worker's weights by the mix, momentum's after-round step
 *             the W tasks' results come back once, in the tasks' own results
 *               ({@link StageOutputs}: the stage runs as a ShuffleMapStage, which Spark retries
 *               as a whole, with nothing to read it back): every round's counts, a digest per
 *               epoch, and either the state the workers ended with (w, u, Δ on the support) or
 *               every round's mix, whichever is smaller ({@link BarrierEpochTask#reportsEnd})
 *             the driver tallies the epochs' counts, and takes the end state after the last;
 *               or replays the epochs round by round from the mixes with the job-per-round
 *               path's driver steps ({@link DriverRounds}); and checks that every worker ended
 *               every epoch with the same weights, u and momentum (digests), its own included
 * </pre>
 *
 * <p>So the model is the job-per-round path's model bit for bit by construction: where the
 * driver replays, its state is computed by the same code from the same per-round results; where
 * it takes the end state, the workers computed it with the same code (the look-ahead, the mix
 * applied to w and u, momentum's step: {@link BarrierEpochTask}) from the same per-round
 * mixes, which are the same because every worker starts each round from the driver's weights
 * of that round. Why the end state, where it is smaller: every round's mix of a small model
 * holds most of its coordinates, so a stage of E epochs of R rounds sent E·R full-width changes
 * to the driver (26 MB for 10 epochs at d = 2^16), which the driver then replayed; the state is
 * one such change (BENCHMARKS.md, issue 32, tenth stop, measures it). With block momentum
 * always ({@link StageReport#END}): the replay's look-ahead moves w, u and Δ at every support
 * coordinate in every round, so a hashed model whose later rounds touch a few thousand of its
 * millions of coordinates still cost the driver a pass over them per round, where adopting the
 * end state is one pass per stage; and a stage's results are then one state whatever its
 * epochs, so one stage runs them all where the memory plan allows (BENCHMARKS.md, issue 32,
 * twenty-third stop). Without momentum the smaller report: a hashed model's later mixes
 * replay at what they touch, and after a stage whose mixes were the smaller report, the
 * training's later stages report their mixes without keeping u.
 * A callback that sees every epoch's state, or a vote (whose start vectors are every round's
 * weights), keeps the replay.
 * A failed task fails the stage; Spark runs it again from the shipped weights (up to
 * {@code spark.stage.maxConsecutiveAttempts}); a task of the failed attempt that had already
 * finished delivered what its retry delivers, bit for bit.
 *
 * <p>When barrier mode is used ({@link RoundExecution}: {@code auto}, the default;
 * {@code barrier} to require it; {@code jobs} for one Spark job per round): with more than one
 * round per epoch, dynamic allocation off, at most as many workers as the cluster has task slots (Spark's own
 * {@code maxNumConcurrentTasks}: a barrier stage needs all W tasks running at once, and Spark
 * would otherwise retry the job for up to 10 minutes before failing), and training partitions
 * whose RDD chain Spark accepts for a barrier stage (every RDD of the stage with W partitions:
 * no coalesce, union or partition pruning), and memory for the stage's extra arrays
 * ({@link BarrierPlan#problem}). Otherwise one INFO line says why, and the rounds run
 * as one Spark job each. If the tasks cannot reach the driver's rendezvous or each other
 * (firewalled ports), the first task that gives up (after the connect timeout) ends the stage
 * ({@link BarrierSetupWatch}), the epoch is run again as jobs and the rest of the training stays
 * there (one WARN line). After each stage the driver checks the workers' digests and audits
 * some of the reported mixes ({@link MixAudit}).
 *
 * <p>Cost per epoch, besides the rounds: one stage of W tasks and a stage of W tasks reading
 * their results back, W registrations with the driver, 2(W − 1) connections. Per round: W − 1
 * messages up the tree and W − 1 down, 2⌈log₂ W⌉ message latencies. Memory per task: one more copy of the
 * weights than a job-per-round task (the round's mixed weights beside the training copy), and
 * with block momentum its Δ and support set.
 */
public final class BarrierRounds implements EpochRounds, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BarrierRounds.class);

  /**
   * The name of the accumulator that counts the bytes the workers sent to each other (framing
   * included; Spark's listener events show it per stage), for measurements.
   */
  static final String BYTES_ACCUMULATOR = "spark-perceptron barrier bytes exchanged";

  private final DriverRounds driver;
  /** Where an epoch goes when its tasks cannot connect (and the rest of the training). */
  private final JobPerRound jobs;
  private final JavaSparkContext jsc;
  private final TrainingInput input;
  private final MixingSettings settings;
  private final RoundExecution execution;
  /** The driver's rendezvous for the tasks. */
  private final Rendezvous rendezvous;
  private final WeightShipper velocityShipper;
  /**
   * What the next stage reports ({@link StageReport}): only where it ended (the state, once
   * per stage) instead of every round's mix for the driver to replay, with block momentum
   * always ({@link StageReport#END}) and without it where the state is the smaller report
   * ({@link BarrierEpochTask#reportsEnd}); never where the training keeps a vote (whose start
   * vectors are every round's weights) or a callback sees every epoch's state. Without
   * momentum, no more after a stage whose mixes were the smaller report: mistakes only grow
   * rarer as a training goes on, so such a stage's successors would report their mixes too,
   * and would pay for keeping u (shipping it, moving it in every round) for nothing.
   */
  private StageReport report;
  /** Ships the averaging accumulator u to stages that may report their end (else null). */
  private final WeightShipper averageShipper;
  private final LongAccumulator bytesExchanged;
  private boolean abandoned;
  /** The barrier stage whose epochs the driver is replaying, or null. */
  private BarrierStage stage;

  private BarrierRounds(DriverRounds driver, JobPerRound jobs, RoundExecution execution,
      Rendezvous rendezvous, StageReport report) {
    this.driver = driver;
    this.jobs = jobs;
    this.jsc = driver.jsc;
    this.input = driver.input;
    this.settings = driver.settings;
    this.execution = execution;
    this.rendezvous = rendezvous;
    this.velocityShipper = settings.mixing == MixingMode.MOMENTUM
        ? new WeightShipper(jsc, driver.trainingName + "/velocity/" + UUID.randomUUID(),
            driver.learner.stateLength()) : null;
    this.report = report;
    this.averageShipper = report.mayReportEnd()
        && driver.progress.state.averageAccumulator() != null
        ? new WeightShipper(jsc, driver.trainingName + "/average/" + UUID.randomUUID(),
            driver.learner.stateLength()) : null;
    this.bytesExchanged = jsc.sc().longAccumulator(BYTES_ACCUMULATOR);
  }

  /**
   * The barrier executor of the training {@code driver} runs the driver's side of, or null when
   * its rounds run as one Spark job each, {@code jobs} (logged once, with the reason, when there
   * is more than one round per epoch).
   *
   * @param epochStates whether something sees the state after every epoch (a callback): the
   *     stages then report every round's mix for the driver to replay, not only where they ended
   * @throws IllegalArgumentException when {@value Settings#ROUND_EXECUTION} is {@code barrier}
   *     and barrier mode cannot run, or a setting has a bad value
   */
  public static BarrierRounds open(DriverRounds driver, JobPerRound jobs, boolean epochStates) {
    JavaSparkContext jsc = driver.jsc;
    MixingSettings settings = driver.settings;
    RoundExecution execution = driver.plan.execution();
    Mode mode = execution.mode;
    if (mode == Mode.JOBS) {
      return null;
    }
    String why = driver.plan.barrierProblem(driver.input.barrierChainProblem());
    if (why != null) {
      if (mode == Mode.BARRIER) {
        throw new IllegalArgumentException(Settings.ROUND_EXECUTION + "=barrier, but the mixing rounds cannot run"
            + " in a barrier stage: " + why + "; set " + Settings.ROUND_EXECUTION + "=auto to run them as one"
            + " Spark job each");
      }
      if (settings.rounds > 1) {
        LOG.info("Mixing rounds run as one Spark job each: {}", why);
      }
      return null;
    }
    int port = execution.port;
    SparkConf conf = jsc.getConf();
    String host = conf.get("spark.driver.host", "localhost");
    String bind = conf.get("spark.driver.bindAddress", host);
    WireSettings wire = WireSettings.create(execution.sealed(),
        execution.connectTimeoutMillis, execution.timeoutMillis);
    Rendezvous rendezvous;
    try {
      rendezvous = Rendezvous.start(bind, host, port, wire);
    } catch (IOException e) {
      String failure = "the driver cannot listen on " + bind + ":" + port + " for the tasks'"
          + " rendezvous (" + e.getMessage() + ")";
      if (mode == Mode.BARRIER) {
        throw new IllegalArgumentException(Settings.ROUND_EXECUTION + "=barrier, but " + failure
            + "; set " + Settings.BARRIER_PORT + " to a free port");
      }
      LOG.warn("Mixing rounds run as one Spark job each: {}", failure);
      return null;
    }
    LOG.info("Mixing rounds: the {} rounds of each epoch run inside barrier stages of {} tasks,"
        + " which exchange their changes along a tree of sockets (rendezvous at {}:{};"
        + " connections mutually authenticated, frames {})", settings.rounds,
        driver.input.numWorkers, rendezvous.host(), rendezvous.port(), execution.sealed()
            ? "sealed with AES-256-GCM" + (execution.sparkSecurity != null ? " as "
                + execution.sparkSecurity + " asks" : "")
            : "in clear, as Spark's own traffic without spark.network.crypto.enabled");
    // Where u's copies do not fit beside the rest, the stages report their mixes, as a vote's.
    return new BarrierRounds(driver, jobs, execution, rendezvous,
        epochStates || driver.progress.vote != null ? StageReport.MIXES
            : driver.plan.memory().barrier().stageReport());
  }

  /**
   * Replays {@code epoch} on the driver from the workers' reports ({@link DriverRounds}), or
   * tallies it and, after the stage's last epoch, takes the state the workers ended with, and
   * checks the workers ended it where the driver did. The reports come from the barrier stage
   * that ran it: the current one, or a new one run now over the epochs {@code epoch} ..
   * {@code lastEpoch} (at most {@link BarrierPlan#epochsPerStage} of them; fewer when the
   * workers saw an epoch without updates). When the tasks could not set their exchange up, this
   * epoch and the rest of the training run as jobs ({@link JobPerRound}): nothing of the failed
   * stage reached the driver's state; when the cluster has fewer task slots than workers just
   * now (an executor lost, its replacement not registered yet), this epoch does.
   */
  @Override
  public Outcome run(int epoch, int lastEpoch) {
    if (abandoned) {
      return jobs.run(epoch, lastEpoch);
    }
    boolean ranNow = stage == null || !stage.covers(epoch);
    if (ranNow) {
      stage = null;
      // A lost executor leaves fewer slots until its replacement registers: Spark would refuse
      // the stage and retry it every 15 s, where this epoch's rounds can run as jobs at once.
      String cluster = TrainingPlan.clusterProblem(jsc, input.numWorkers);
      if (cluster != null) {
        LOG.info("Epoch {}'s mixing rounds run as one Spark job each: {}", epoch, cluster);
        return jobs.run(epoch, epoch);
      }
      int last = Math.min(lastEpoch,
          epoch + driver.plan.memory().barrier().epochsPerStage(report) - 1);
      long started = System.nanoTime();
      stage = runStage(epoch, last);
      if (stage == null) {
        return jobs.run(epoch, lastEpoch);
      }
      stage.seconds = (System.nanoTime() - started) / 1e9;
      if (LOG.isInfoEnabled()) {
        LOG.info(stage.describeReport());
      }
      if (report == StageReport.SMALLER && !stage.endReported) {
        report = StageReport.MIXES;
      }
    }
    BarrierStage ran = stage;
    Outcome outcome;
    if (ran.endReported) {
      outcome = driver.tally(epoch, ran.epochClock(epoch), ran.weightChange(epoch), ran::mixed);
      ran.requireAgreement(epoch);
      if (ran.isLast(epoch)) {
        ran.adoptEnd(driver, epoch);
        ran.verify(epoch, driver.progress.state, driver.supportCoordinates(),
            driver.progress.momentum);
      }
    } else {
      outcome = driver.run(epoch, ran::mixed);
      // Every coordinate the stage moved lies in the support, which both sides hold alike.
      ran.verify(epoch, driver.progress.state, driver.supportCoordinates(),
          driver.progress.momentum);
    }
    return outcome.withStage(ran.seconds, ran.epochs(), ranNow);
  }

  /**
   * Runs the rounds of epochs {@code first} .. {@code last} in one barrier stage and returns the
   * workers' results, or null when the tasks could not set their exchange up (then this
   * training's rounds run as jobs from now on, starting with epoch {@code first}).
   */
  private BarrierStage runStage(int first, int last) {
    TrainingProgress progress = driver.progress;
    int rounds = settings.rounds;
    int epochs = last - first + 1;
    double startClock = progress.state.clock();
    double[][] roundEnds = new double[epochs][rounds];
    double epochClock = startClock;
    for (int e = 0; e < epochs; e++) {
      for (int round = 0; round < rounds; round++) {
        roundEnds[e][round] = driver.roundEnd(epochClock, round);
      }
      epochClock = roundEnds[e][rounds - 1];
    }
    VotedPerceptron.Builder vote = progress.vote;
    int firstStartVector = vote == null ? -1 : vote.startVectors().size();
    WeightsRef weights = driver.shipper.ship(progress.state.weights());
    BlockMomentum momentum = progress.momentum;
    WeightsRef velocity = null;
    WeightsRef average = null;
    Broadcast<int[]> supportAtStart = jsc.broadcast(driver.supportCoordinates());
    if (averageShipper != null && report.mayReportEnd()) {
      // u changes only where w does: on the support.
      averageShipper.changedSet().markAll(driver.supportCoordinates());
      average = averageShipper.ship(progress.state.averageAccumulator());
    }
    BarrierEpochTask.MomentumStart momentumStart = null;
    if (momentum != null) {
      // Δ is zero outside the support: its changes since the last stage lie within it.
      velocityShipper.changedSet().markAll(driver.supportCoordinates());
      velocity = velocityShipper.ship(momentum.velocity());
      momentumStart = new BarrierEpochTask.MomentumStart(momentum, velocity);
    }
    // Not a model's matter (the audit only reads), so a random draw: see MixAudit.
    int[] auditRounds = MixAudit.draw(epochs, rounds, input.numWorkers, report.mayReportEnd(),
        ThreadLocalRandom.current());
    BarrierEpochTask.StageStart start = new BarrierEpochTask.StageStart(first,
        new BarrierEpochTask.Clock(startClock, roundEnds), firstStartVector, weights, auditRounds,
        supportAtStart, report.mayReportEnd()
            ? new BarrierEpochTask.EndReport(average, report == StageReport.END) : null);
    BarrierEpochTask task = new BarrierEpochTask(driver.workerSpec,
        start,
        momentumStart, execution, rendezvous.ticket(),
        bytesExchanged);
    jsc.setJobDescription(epochs == 1
        ? String.format(Locale.ROOT, "perceptron epoch %d/%d: %d rounds in one barrier stage"
            + " (%s mixing)", first, settings.maxIter, rounds, settings.mixing.paramValue())
        : String.format(Locale.ROOT, "perceptron epochs %d-%d/%d: %d rounds each in one"
            + " barrier stage (%s mixing)", first, last, settings.maxIter, rounds,
            settings.mixing.paramValue()));
    ClassTag<BarrierEpochTask.Output> tag = ClassTag$.MODULE$.apply(BarrierEpochTask.Output.class);
    BarrierSetupWatch watch = BarrierSetupWatch.start(jsc.sc());
    try {
      RDD<WorkerBlocks> blocks = BarrierPlacement.placed(jsc, input.blocks.rdd(),
          ClassTag$.MODULE$.apply(WorkerBlocks.class));
      RDD<BarrierEpochTask.Output> stage = blocks.barrier().mapPartitions(task, true, tag);
      BarrierEpochTask.Output[] byWorker = StageOutputs.collect(jsc, stage, input.numWorkers,
          first);
      return new BarrierStage(start, byWorker);
    } catch (Exception e) {
      // Spark throws its (checked) SparkException from Scala; Java sees no checked exception
      // here, so the rethrow below is precise.
      String setup = watch.failure();
      if (setup == null && e instanceof SparkException && String.valueOf(e.getMessage())
          .contains(BarrierEpochTask.SETUP_FAILURE)) {
        setup = firstLine(e.getMessage());
      }
      String unplaced = setup == null ? StageOutputs.cannotPlace(e) : null;
      if (unplaced != null && execution.mode != Mode.BARRIER) {
        // Slots lost between the check before this epoch and the stage's submission: Spark
        // refuses a barrier map stage at once (a barrier job it would retry every 15 s).
        abandoned = true;
        LOG.warn("Mixing rounds run as one Spark job each from epoch {} on: Spark could not"
            + " place the barrier stage ({})", first, unplaced);
        return null;
      }
      if (setup == null) {
        throw e;
      }
      if (execution.mode == Mode.BARRIER) {
        throw new IllegalStateException(Settings.ROUND_EXECUTION + "=barrier, but the barrier stage's tasks of"
            + " epoch " + first + " could not connect to the driver or to each other (" + setup
            + "); set " + Settings.BARRIER_PORT + " to a port the executors can reach, or " + Settings.ROUND_EXECUTION
            + "=auto to fall back to one Spark job per round", e);
      }
      abandoned = true;
      LOG.warn("Mixing rounds run as one Spark job each from epoch {} on: the barrier stage's"
          + " tasks could not connect to the driver or to each other ({}); set {} to a port the"
          + " executors can reach, or {}=jobs", first, setup, Settings.BARRIER_PORT, Settings.ROUND_EXECUTION);
      return null;
    } finally {
      watch.close();
      supportAtStart.destroy();
    }
  }

  private static String firstLine(String s) {
    int nl = s == null ? -1 : s.indexOf('\n');
    return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
  }

  @Override
  public void close() {
    rendezvous.close();
    if (velocityShipper != null) {
      velocityShipper.close();
    }
    if (averageShipper != null) {
      averageShipper.close();
    }
  }
}
