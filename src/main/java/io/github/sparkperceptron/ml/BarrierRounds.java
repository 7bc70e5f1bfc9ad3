package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.exchange.Rendezvous;
import io.github.sparkperceptron.exchange.WeightShipper;
import io.github.sparkperceptron.exchange.WeightsRef;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.TouchedSet;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.BlockMomentum;
import io.github.sparkperceptron.mixing.MixingMode;
import io.github.sparkperceptron.mixing.ParameterMix;
import io.github.sparkperceptron.mixing.PartitionResult;
import io.github.sparkperceptron.mixing.StateDelta;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.Dependency;
import org.apache.spark.HashPartitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.LongAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Runs all mixing rounds of an epoch inside one Spark barrier stage, so that a round costs the
 * exchange of the workers' sparse changes instead of a Spark job (issue 18).
 *
 * <pre>
 * per epoch:  ship the epoch's weights (and block momentum's Δ) to the executors once
 *             one barrier stage of W tasks ({@link BarrierEpochTask}): each task registers with
 *               the driver's {@link Rendezvous}, connects to its neighbours in
 *               {@link io.github.sparkperceptron.mixing.RoundTree}'s tree, then for r = 1..R:
 *               look ahead (momentum), train slice r, all-reduce the changes along
 *               ParameterMix's tree, apply the mix, momentum's after-round step
 *             the W tasks' per-round results come back once (through a one-partition shuffle,
 *               which makes the barrier stage a ShuffleMapStage: Spark retries it as a whole)
 *             the driver replays the epoch round by round from them exactly as the job-per-round
 *               path mixes its jobs' results, and checks that every worker ended with the
 *               driver's weights (a digest) and momentum
 * </pre>
 *
 * <p>So the model is the job-per-round path's model bit for bit by construction: the driver's
 * state is computed by the same code from the same per-round results, and those results are the
 * same because every worker starts each round from the driver's weights of that round (checked).
 * A failed task fails the stage; Spark runs it again from the shipped weights (up to
 * {@code spark.stage.maxConsecutiveAttempts}), and nothing of the failed attempt reaches the
 * driver.
 *
 * <p>When barrier mode is used ({@value #MODE_KEY}, a Spark configuration key or local property
 * of the fitting thread: {@code auto}, the default; {@code barrier} to require it;
 * {@code jobs} for one Spark job per round): with more than one round per epoch, dynamic
 * allocation off, at most as many workers as the cluster has task slots (Spark's own
 * {@code maxNumConcurrentTasks}: a barrier stage needs all W tasks running at once, and Spark
 * would otherwise retry the job for up to 10 minutes before failing), and training partitions
 * whose RDD chain Spark accepts for a barrier stage (every RDD of the stage with W partitions:
 * no coalesce, union or partition pruning), and memory for the stage's extra arrays
 * ({@link MemoryPlan#barrierProblem}). Otherwise one INFO line says why, and the rounds run
 * as one Spark job each. If the tasks cannot reach the driver's rendezvous or each other
 * (firewalled ports), the epoch is run again as jobs and the rest of the training stays there
 * (one WARN line).
 *
 * <p>Cost per epoch, besides the rounds: one stage of W tasks and a one-task stage reading the
 * W results, W registrations with the driver, 2(W − 1) connections. Per round: W − 1 messages up
 * the tree and W − 1 down, 2⌈log₂ W⌉ message latencies. Memory per task: one more copy of the
 * weights than a job-per-round task (the round's mixed weights beside the training copy), and
 * with block momentum its Δ and support set.
 */
final class BarrierRounds implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BarrierRounds.class);

  /** Spark configuration key (or local property) choosing how rounds run. */
  static final String MODE_KEY = "spark.perceptron.roundExecution";
  /** Spark configuration key (or local property): {@code tree} (default) or {@code allgather}. */
  static final String EXCHANGE_KEY = "spark.perceptron.barrier.exchange";
  /**
   * Spark configuration key (or local property): what the workers send the driver after an
   * epoch, {@code mixes} (the default: every worker its per-round stats and vote trace, worker 0
   * the R mixed changes) or {@code leaves} (every worker its R own changes too, from which the
   * driver recomputes every mix: W times the bytes, for measurements and checks).
   */
  static final String RESULTS_KEY = "spark.perceptron.barrier.results";
  /** Seconds any single wait of the exchange may last (default {@value #DEFAULT_TIMEOUT_S}). */
  static final String TIMEOUT_KEY = "spark.perceptron.barrier.timeout";
  /** The driver's rendezvous port (default 0: any free port). */
  static final String PORT_KEY = "spark.perceptron.barrier.port";
  /**
   * The name of the accumulator that counts the bytes the workers sent to each other (framing
   * included; Spark's listener events show it per stage), for measurements.
   */
  static final String BYTES_ACCUMULATOR = "spark-perceptron barrier bytes exchanged";

  static final int DEFAULT_TIMEOUT_S = 600;

  /** How the rounds of an epoch run. */
  enum Mode {
    AUTO, BARRIER, JOBS
  }

  /** How the workers of a barrier stage exchange a round's changes. */
  enum Exchange {
    /** Sockets among the tasks, reduce and broadcast along ParameterMix's tree. */
    TREE,
    /** Spark's {@code BarrierTaskContext.allGather} (about a second per round: measured only). */
    ALLGATHER
  }

  /** What the workers send the driver after an epoch (see {@link #RESULTS_KEY}). */
  enum Results {
    MIXES, LEAVES
  }

  private final JavaSparkContext jsc;
  private final TrainingInput input;
  private final LearnerConfig learner;
  private final MixingSettings settings;
  private final Mode mode;
  private final Exchange exchange;
  private final Results results;
  private final int timeoutMillis;
  private final long token;
  private final Rendezvous rendezvous;
  private final WeightShipper velocityShipper;
  private final LongAccumulator bytesExchanged;
  private boolean abandoned;

  private BarrierRounds(JavaSparkContext jsc, TrainingInput input, LearnerConfig learner,
      MixingSettings settings, Mode mode, Exchange exchange, Results results, int timeoutMillis,
      long token, Rendezvous rendezvous, String uid) {
    this.jsc = jsc;
    this.input = input;
    this.learner = learner;
    this.settings = settings;
    this.mode = mode;
    this.exchange = exchange;
    this.results = results;
    this.timeoutMillis = timeoutMillis;
    this.token = token;
    this.rendezvous = rendezvous;
    this.velocityShipper = settings.mixing == MixingMode.MOMENTUM
        ? new WeightShipper(jsc, uid + "/velocity/" + java.util.UUID.randomUUID(),
            learner.stateLength()) : null;
    this.bytesExchanged = jsc.sc().longAccumulator(BYTES_ACCUMULATOR);
  }

  /** A setting read from the fitting thread's local properties, else the Spark configuration. */
  static String setting(JavaSparkContext jsc, String key, String defaultValue) {
    String local = jsc.getLocalProperty(key);
    return local != null ? local : jsc.getConf().get(key, defaultValue);
  }

  /**
   * The barrier executor of this training, or null when its rounds run as one Spark job each
   * (logged once, with the reason, when there is more than one round per epoch).
   *
   * @throws IllegalArgumentException when {@value #MODE_KEY} is {@code barrier} and barrier mode
   *     cannot run, or a setting has a bad value
   */
  static BarrierRounds open(JavaSparkContext jsc, TrainingInput input, LearnerConfig learner,
      MixingSettings settings, String uid) {
    Mode mode = parse(Mode.class, MODE_KEY, setting(jsc, MODE_KEY, "auto"));
    Exchange exchange = parse(Exchange.class, EXCHANGE_KEY, setting(jsc, EXCHANGE_KEY, "tree"));
    Results results = parse(Results.class, RESULTS_KEY, setting(jsc, RESULTS_KEY, "mixes"));
    int timeoutSeconds = positiveInt(TIMEOUT_KEY,
        setting(jsc, TIMEOUT_KEY, String.valueOf(DEFAULT_TIMEOUT_S)));
    if (timeoutSeconds == 0 || timeoutSeconds > Integer.MAX_VALUE / 1000) {
      throw new IllegalArgumentException(TIMEOUT_KEY + " must be between 1 and "
          + Integer.MAX_VALUE / 1000 + " seconds, got " + timeoutSeconds);
    }
    int port = positiveInt(PORT_KEY, setting(jsc, PORT_KEY, "0"));
    if (mode == Mode.JOBS) {
      return null;
    }
    String why = unavailable(jsc, input, learner, settings, mode);
    if (why != null) {
      if (mode == Mode.BARRIER) {
        throw new IllegalArgumentException(MODE_KEY + "=barrier, but the mixing rounds cannot run"
            + " in a barrier stage: " + why + "; set " + MODE_KEY + "=auto to run them as one"
            + " Spark job each");
      }
      if (settings.rounds > 1) {
        LOG.info("Mixing rounds run as one Spark job each: {}", why);
      }
      return null;
    }
    Rendezvous rendezvous = null;
    long token = new SecureRandom().nextLong();
    if (exchange == Exchange.TREE) {
      SparkConf conf = jsc.getConf();
      String host = conf.get("spark.driver.host", "localhost");
      String bind = conf.get("spark.driver.bindAddress", host);
      try {
        rendezvous = Rendezvous.start(bind, host, port, token, timeoutSeconds * 1000);
      } catch (IOException e) {
        String failure = "the driver cannot listen on " + bind + ":" + port + " for the tasks'"
            + " rendezvous (" + e.getMessage() + ")";
        if (mode == Mode.BARRIER) {
          throw new IllegalArgumentException(MODE_KEY + "=barrier, but " + failure
              + "; set " + PORT_KEY + " to a free port");
        }
        LOG.warn("Mixing rounds run as one Spark job each: {}", failure);
        return null;
      }
    }
    LOG.info("Mixing rounds: the {} rounds of each epoch run inside one barrier stage of {}"
        + " tasks, which exchange their changes {}", settings.rounds, input.numPartitions,
        exchange == Exchange.TREE ? String.format(Locale.ROOT, "along a tree of sockets"
            + " (rendezvous at %s:%d)", rendezvous.host(), rendezvous.port())
            : "with BarrierTaskContext.allGather");
    return new BarrierRounds(jsc, input, learner, settings, mode, exchange, results,
        timeoutSeconds * 1000, token, rendezvous, uid);
  }

  /** Why the rounds cannot run in a barrier stage, or null when they can. */
  static String unavailable(JavaSparkContext jsc, TrainingInput input, LearnerConfig learner,
      MixingSettings settings, Mode mode) {
    int workers = input.numPartitions;
    if (!settings.mixing.isIterative()) {
      return "mixing=" + settings.mixing.paramValue() + " has no mixing rounds";
    }
    if (mode == Mode.AUTO && settings.rounds == 1) {
      return "one mixing round per epoch is one Spark job either way";
    }
    SparkConf conf = jsc.getConf();
    if (conf.getBoolean("spark.dynamicAllocation.enabled", false)
        && (!jsc.isLocal() || conf.getBoolean("spark.dynamicAllocation.testing", false))) {
      return "Spark refuses barrier stages under dynamic allocation"
          + " (spark.dynamicAllocation.enabled=true)";
    }
    int slots = jsc.sc().maxNumConcurrentTasks(
        jsc.sc().resourceProfileManager().defaultResourceProfile());
    if (workers > slots) {
      return String.format(Locale.ROOT, "a barrier stage runs all %d workers at once, but the"
          + " cluster has %d task slots (numWorkers=0 chooses the slots)", workers, slots);
    }
    String memory = MemoryPlan.forTraining(learner, input, settings, false, jsc.sc())
        .barrierProblem();
    if (memory != null) {
      return memory;
    }
    String chain = chainProblem(input.partitions.rdd(), workers);
    if (chain != null) {
      return "Spark runs a barrier stage only over RDDs with as many partitions as tasks, and "
          + chain + " (a coalesce, union or partition pruning before the training partitions;"
          + " numWorkers equal to the input's partitions or more, or a repartition of the input,"
          + " avoids it)";
    }
    return null;
  }

  /**
   * The first RDD in {@code rdd}'s stage (its ancestors through non-shuffle dependencies, as
   * Spark's DAGScheduler walks them) with another number of partitions than {@code tasks},
   * described, or null.
   */
  static String chainProblem(RDD<?> rdd, int tasks) {
    Deque<RDD<?>> todo = new ArrayDeque<>();
    Set<Integer> seen = new HashSet<>();
    todo.push(rdd);
    while (!todo.isEmpty()) {
      RDD<?> r = todo.pop();
      if (!seen.add(r.id())) {
        continue;
      }
      if (r.getNumPartitions() != tasks) {
        return String.format(Locale.ROOT, "%s has %d partitions, not %d", r, r.getNumPartitions(),
            tasks);
      }
      for (Dependency<?> d : CollectionConverters.asJava(r.dependencies())) {
        if (!(d instanceof ShuffleDependency)) {
          todo.push(d.rdd());
        }
      }
    }
    return null;
  }

  /**
   * Runs the epoch's rounds in one barrier stage and returns the workers' results, or null when
   * the tasks could not set their exchange up (then this training's rounds run as jobs from now
   * on, starting with this epoch: nothing of the failed stage reached the driver's state).
   */
  Epoch runEpoch(int epoch, TrainingProgress progress, WeightShipper shipper, TouchedSet support,
      double totalWeight) {
    if (abandoned) {
      return null;
    }
    int rounds = settings.rounds;
    double epochClock = progress.state.clock();
    double[] roundEnds = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      // The job-per-round path's expression, so that the clocks agree bit for bit.
      roundEnds[round] = round == rounds - 1 ? epochClock + totalWeight
          : epochClock + totalWeight * (round + 1) / rounds;
    }
    VotedPerceptron.Builder vote = progress.vote;
    WeightsRef weights = shipper.ship(progress.state.weights());
    BlockMomentum momentum = progress.momentum;
    WeightsRef velocity = null;
    Broadcast<int[]> supportAtStart = null;
    BarrierEpochTask.MomentumStart momentumStart = null;
    if (momentum != null) {
      int[] supported = support.toArray();
      // Δ is zero outside the support: its changes since the last epoch lie within it.
      velocityShipper.changedSet().markAll(supported);
      velocity = velocityShipper.ship(momentum.velocity());
      supportAtStart = jsc.broadcast(supported);
      momentumStart = new BarrierEpochTask.MomentumStart(momentum);
    }
    BarrierEpochTask task = new BarrierEpochTask(learner, settings, input.numPartitions, epoch,
        totalWeight, epochClock, roundEnds, vote == null ? -1 : vote.startVectors().size(),
        weights, velocity, momentumStart, supportAtStart, exchange, results,
        rendezvous == null ? null : rendezvous.host(), rendezvous == null ? 0 : rendezvous.port(),
        token, timeoutMillis, bytesExchanged);
    jsc.setJobDescription(String.format(Locale.ROOT, "perceptron epoch %d/%d: %d rounds in one"
        + " barrier stage (%s mixing)", epoch, settings.maxIter, rounds,
        settings.mixing.paramValue()));
    ClassTag<BarrierEpochTask.Output> tag = ClassTag$.MODULE$.apply(BarrierEpochTask.Output.class);
    try {
      RDD<BarrierEpochTask.Output> stage = input.partitions.rdd().barrier()
          .mapPartitions(task, true, tag);
      // Through a shuffle: a barrier ShuffleMapStage is retried as a whole, a barrier
      // ResultStage is not.
      List<BarrierEpochTask.Output> outputs = JavaRDD.fromRDD(stage, tag)
          .mapToPair(o -> new Tuple2<>(o.partition, o))
          .partitionBy(new HashPartitioner(1)).values().collect();
      BarrierEpochTask.Output[] byPartition = new BarrierEpochTask.Output[input.numPartitions];
      for (BarrierEpochTask.Output o : outputs) {
        byPartition[o.partition] = o;
      }
      return new Epoch(epoch, byPartition);
    } catch (Exception e) {
      // Spark throws its (checked) SparkException from Scala; Java sees no checked exception
      // here, so the rethrow below is precise.
      if (mode == Mode.BARRIER || !(e instanceof SparkException) || !String.valueOf(
          e.getMessage()).contains(BarrierEpochTask.SETUP_FAILURE)) {
        throw e;
      }
      abandoned = true;
      LOG.warn("Mixing rounds run as one Spark job each from epoch {} on: the barrier stage's"
          + " tasks could not connect to the driver or to each other ({}); set {} to a port the"
          + " executors can reach, or {}=jobs", epoch, firstLine(e.getMessage()), PORT_KEY,
          MODE_KEY);
      return null;
    } finally {
      if (supportAtStart != null) {
        supportAtStart.destroy();
      }
    }
  }

  private static String firstLine(String s) {
    int nl = s == null ? -1 : s.indexOf('\n');
    return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
  }

  /** What the W workers of one epoch returned. */
  static final class Epoch {
    private final int epoch;
    private final BarrierEpochTask.Output[] outputs;

    Epoch(int epoch, BarrierEpochTask.Output[] outputs) {
      this.epoch = epoch;
      this.outputs = outputs;
      for (int p = 0; p < outputs.length; p++) {
        if (outputs[p] == null) {
          throw new IllegalStateException("the barrier stage of epoch " + epoch
              + " returned nothing for worker " + p);
        }
      }
    }

    /**
     * Round {@code round}'s mix, as the job-per-round path's {@code treeAggregate} would have
     * returned it: the workers' results mixed along ParameterMix's tree (stats, masses, update
     * counts, vote traces, and the change), the change being worker 0's mix when only it sent
     * its mixes (the same bits: {@link io.github.sparkperceptron.mixing.RoundTree}).
     */
    PartitionResult mixed(int round) {
      ParameterMix mix = new ParameterMix(outputs.length);
      for (BarrierEpochTask.Output o : outputs) {
        mix.add(o.rounds[round]);
      }
      PartitionResult mixed = mix.result();
      StateDelta[] mixes = outputs[0].mixes;
      return mixes == null ? mixed : mixed.withChange(mixes[round]);
    }

    /**
     * Checks, after the driver replayed the epoch, that every worker ended where the driver
     * did: the same weights (by digest) and the same block momentum.
     *
     * @throws IllegalStateException if one did not (a defect, never a property of the data)
     */
    void verify(double[] weights, BlockMomentum momentum) {
      long digest = digest(weights);
      for (BarrierEpochTask.Output o : outputs) {
        boolean same = o.weightsDigest == digest && (momentum == null
            || (Double.compare(o.momentumMass, momentum.mass()) == 0
                && Double.compare(o.velocityMass, momentum.velocityMass()) == 0
                && o.restarts == momentum.restarts()));
        if (!same) {
          throw new IllegalStateException("Epoch " + epoch + ": worker " + o.partition + " of the"
              + " barrier stage ended with other weights than the driver's replay of its rounds."
              + " This is a defect of spark-perceptron; set " + MODE_KEY + "=jobs to train"
              + " without barrier stages");
        }
      }
    }
  }

  /** A digest of every weight's bits, in coordinate order (equal weights, equal digests). */
  static long digest(double[] w) {
    long h = 1125899906842597L;
    for (double v : w) {
      h = 31 * h + Double.doubleToRawLongBits(v);
    }
    return h;
  }

  private static <E extends Enum<E>> E parse(Class<E> type, String key, String value) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value.trim())) {
        return e;
      }
    }
    StringBuilder allowed = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      allowed.append(allowed.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
    }
    throw new IllegalArgumentException(key + " must be one of " + allowed + ", got '" + value
        + "'");
  }

  private static int positiveInt(String key, String value) {
    try {
      int v = Integer.parseInt(value.trim());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(key + " must be a whole number >= 0, got '" + value + "'");
  }

  @Override
  public void close() {
    if (rendezvous != null) {
      rendezvous.close();
    }
    if (velocityShipper != null) {
      velocityShipper.close();
    }
  }
}
