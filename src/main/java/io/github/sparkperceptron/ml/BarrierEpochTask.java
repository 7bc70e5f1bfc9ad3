package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.exchange.ExecutorWeights;
import io.github.sparkperceptron.exchange.PeerLinks;
import io.github.sparkperceptron.exchange.WeightsRef;
import io.github.sparkperceptron.kernel.EpochOrder;
import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.OnlineLearner;
import io.github.sparkperceptron.kernel.TouchedSet;
import io.github.sparkperceptron.kernel.TrainingBlock;
import io.github.sparkperceptron.kernel.VoteTrace;
import io.github.sparkperceptron.mixing.BlockMomentum;
import io.github.sparkperceptron.mixing.PartitionResult;
import io.github.sparkperceptron.mixing.RoundTree;
import io.github.sparkperceptron.mixing.StateDelta;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.util.LongAccumulator;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * The body of one barrier task: all R mixing rounds of one epoch on one worker. Every worker
 * starts from the epoch's shipped weights (and block momentum's state), runs each round's slice
 * exactly as a task of the job-per-round path would, and the workers exchange their changes and
 * mix them along {@link RoundTree} (or, as a measured alternative, with
 * {@code BarrierTaskContext.allGather}), so that every worker applies the same mixed change and
 * block momentum's look-ahead and after-round step run identically on every worker: the workers
 * hold the driver's weights of every round without a Spark job per round.
 *
 * <p>Returns, once per epoch, what the job-per-round path would have collected round by round
 * (the worker's change, stats and vote trace of each round), from which the driver replays the
 * epoch's mixes ({@link BarrierRounds}), and a digest of the worker's final weights to check
 * that the replay and the workers agree.
 *
 * <p>A retried stage starts again from the shipped weights: nothing here survives a failed
 * attempt (the weights' working copies of a failed task are never released).
 */
final class BarrierEpochTask extends AbstractFunction1<Iterator<PreparedPartition>,
    Iterator<BarrierEpochTask.Output>> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Marks failures to set the exchange up, which the driver answers by leaving barrier mode. */
  static final String SETUP_FAILURE = "[barrier exchange setup]";

  /** What one worker reports after the epoch. */
  static final class Output implements Serializable {
    private static final long serialVersionUID = 1L;
    final int partition;
    /**
     * The worker's own result of each round: its stats and vote trace, and its change unless
     * only worker 0's mixed changes travel ({@link BarrierRounds.Results#MIXES}).
     */
    final PartitionResult[] rounds;
    /** Worker 0's mixed change of each round with {@link BarrierRounds.Results#MIXES}, else null. */
    final StateDelta[] mixes;
    /** {@link BarrierRounds#digest} of the worker's weights after the last round. */
    final long weightsDigest;
    /** Block momentum after the epoch: M, m_Δ and restarts (0 without momentum). */
    final double momentumMass;
    final double velocityMass;
    final long restarts;

    Output(int partition, PartitionResult[] rounds, StateDelta[] mixes, long weightsDigest,
        double momentumMass, double velocityMass, long restarts) {
      this.partition = partition;
      this.rounds = rounds;
      this.mixes = mixes;
      this.weightsDigest = weightsDigest;
      this.momentumMass = momentumMass;
      this.velocityMass = velocityMass;
      this.restarts = restarts;
    }
  }

  /** Block momentum's state at the start of the epoch (its Δ travels in {@link #velocity}). */
  static final class MomentumStart implements Serializable {
    private static final long serialVersionUID = 1L;
    final double beta;
    final double rho;
    final double initialSquaredNorm;
    final double mass;
    final double velocityMass;
    final long restarts;

    MomentumStart(BlockMomentum m) {
      this.beta = m.momentum();
      this.rho = m.normBound();
      this.initialSquaredNorm = m.initialSquaredNorm();
      this.mass = m.mass();
      this.velocityMass = m.velocityMass();
      this.restarts = m.restarts();
    }
  }

  private final LearnerConfig learner;
  private final MixingSettings settings;
  private final int workers;
  private final int epoch;
  private final double totalWeight;
  private final double startClock;
  private final double[] roundEnds;
  private final int firstStartVector;
  private final WeightsRef weights;
  private final WeightsRef velocity;
  private final MomentumStart momentum;
  private final Broadcast<int[]> support;
  private final BarrierRounds.Exchange exchange;
  private final BarrierRounds.Results resultsKept;
  private final String rendezvousHost;
  private final int rendezvousPort;
  private final long token;
  private final int timeoutMillis;
  private final LongAccumulator bytesExchanged;

  /**
   * @param roundEnds the averaging clock at the end of each round (the driver's values)
   * @param firstStartVector the vote's index of round 0's start vector, or −1 without a vote
   * @param velocity Δ of block momentum, or null without momentum
   * @param support the driver's support set at the epoch's start (momentum only, else null)
   * @param bytesExchanged counts the bytes the workers send each other (for measurements)
   */
  BarrierEpochTask(LearnerConfig learner, MixingSettings settings, int workers, int epoch,
      double totalWeight, double startClock, double[] roundEnds, int firstStartVector,
      WeightsRef weights, WeightsRef velocity, MomentumStart momentum, Broadcast<int[]> support,
      BarrierRounds.Exchange exchange, BarrierRounds.Results resultsKept, String rendezvousHost,
      int rendezvousPort, long token, int timeoutMillis, LongAccumulator bytesExchanged) {
    this.learner = learner;
    this.settings = settings;
    this.workers = workers;
    this.epoch = epoch;
    this.totalWeight = totalWeight;
    this.startClock = startClock;
    this.roundEnds = roundEnds;
    this.firstStartVector = firstStartVector;
    this.weights = weights;
    this.velocity = velocity;
    this.momentum = momentum;
    this.support = support;
    this.exchange = exchange;
    this.resultsKept = resultsKept;
    this.rendezvousHost = rendezvousHost;
    this.rendezvousPort = rendezvousPort;
    this.token = token;
    this.timeoutMillis = timeoutMillis;
    this.bytesExchanged = bytesExchanged;
  }

  @Override
  public Iterator<Output> apply(Iterator<PreparedPartition> parts) {
    BarrierTaskContext context = BarrierTaskContext.get();
    int partition = context.partitionId();
    PreparedPartition part = parts.next();
    FaultInjection.beforePartitionEpoch(epoch, partition);
    Exchanger exchanger = exchanger(context, partition);
    try {
      return CollectionConverters.asScala(Collections.singletonList(
          runRounds(partition, part, exchanger)).iterator());
    } catch (IOException e) {
      throw new IllegalStateException("Mixing round exchange of epoch " + epoch + " failed on"
          + " worker " + partition + ": " + e.getMessage(), e);
    } finally {
      exchanger.close();
    }
  }

  /** One round's exchange on one worker: its leaf in, the round's mix out. */
  private interface Exchanger {
    RoundTree.Mixed mix(PartitionResult leaf) throws IOException;

    /** Bytes this worker sent the others so far, framing included. */
    long bytesSent();

    void close();
  }

  private Exchanger exchanger(BarrierTaskContext context, int partition) {
    if (exchange == BarrierRounds.Exchange.ALLGATHER) {
      return new AllGather(context);
    }
    PeerLinks links;
    try {
      if (FaultInjection.barrierSetupFails()) {
        throw new java.net.ConnectException("injected: connection refused ("
            + FaultInjection.PROPERTY + "=barrier-setup)");
      }
      long group = ((long) context.stageId() << 32) | context.stageAttemptNumber();
      links = PeerLinks.connect(rendezvousHost, rendezvousPort, token, group, workers,
          partition, hostOf(context.getTaskInfos()[partition].address()), timeoutMillis,
          context::isInterrupted);
    } catch (IOException e) {
      throw new IllegalStateException(SETUP_FAILURE + " worker " + partition + " of epoch "
          + epoch + ": " + e.getMessage(), e);
    }
    return new Exchanger() {
      @Override
      public RoundTree.Mixed mix(PartitionResult leaf) throws IOException {
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

  /** The host of an executor address "host:port" ("[v6]:port" for IPv6). */
  static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    String host = colon > 0 ? address.substring(0, colon) : address;
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1)
        : host;
  }

  /**
   * Every worker's leaf through Spark's {@code allGather} (the driver's RPC, W·|m| in and W²·|m|
   * out), each worker mixing all W leaves along ParameterMix's tree. Kept as the measured
   * alternative: Spark 4.2 waits for the reply in one-second sleeps, so a round costs about a
   * second (the benchmark section {@code rounds} measures it).
   */
  private final class AllGather implements Exchanger {
    private final BarrierTaskContext context;
    private long sent;

    AllGather(BarrierTaskContext context) {
      this.context = context;
    }

    @Override
    public RoundTree.Mixed mix(PartitionResult leaf) {
      ByteBuffer frame = RoundTree.encode(leaf);
      byte[] bytes = new byte[frame.remaining()];
      frame.get(bytes);
      sent += bytes.length;
      // ISO-8859-1 maps every byte to one char and back: the frame travels unchanged.
      String[] all = context.allGather(new String(bytes, StandardCharsets.ISO_8859_1));
      ByteBuffer[] leaves = new ByteBuffer[all.length];
      for (int i = 0; i < all.length; i++) {
        leaves[i] = ByteBuffer.wrap(all[i].getBytes(StandardCharsets.ISO_8859_1));
      }
      return RoundTree.mixAll(leaves, workers);
    }

    @Override
    public long bytesSent() {
      return sent;
    }

    @Override
    public void close() {
    }
  }

  /**
   * The epoch's rounds on this worker. Mirrors the job-per-round path step for step: the
   * driver's look-ahead (here on the worker's copy), the round task's slice of the epoch order
   * from the round's weights with a zero accumulator, the mix, its application and block
   * momentum's after-round step; the vote's start vectors are the driver's (index base + r).
   */
  private Output runRounds(int partition, PreparedPartition part, Exchanger exchanger)
      throws IOException {
    int rounds = roundEnds.length;
    ExecutorWeights.Working working = ExecutorWeights.checkout(weights,
        learner.averaging().keepsAverage());
    double[] work = working.weights();
    double[] u = working.average();
    TouchedSet touched = working.touched();
    // The round's mixed weights, which the driver holds; work trains from them and is reset to
    // them where it differs after each round.
    double[] mixed = work.clone();
    BlockMomentum m = null;
    TouchedSet supportSet = null;
    TouchedSet jumped = null;
    if (momentum != null) {
      m = new BlockMomentum(mixed.length, momentum.beta, momentum.rho,
          momentum.initialSquaredNorm);
      ExecutorWeights.Working delta = ExecutorWeights.checkout(velocity, false);
      m.restore(delta.weights(), momentum.mass, momentum.velocityMass, momentum.restarts);
      ExecutorWeights.release(delta, new int[0]);
      supportSet = new TouchedSet(mixed.length);
      supportSet.markAll(support.value());
      jumped = new TouchedSet(mixed.length);
    }
    double partitionWeight = part.trainingWeight(learner.classWeights());
    double clockScale = partitionWeight > 0 ? totalWeight / partitionWeight : 0.0;
    TrainingBlock block = part.block;
    EpochOrder order = block == null ? null
        : settings.order.epochOrder(epoch, partition, block.features());
    int failRound = FaultInjection.barrierFailureRound(epoch, partition, workers, rounds);
    boolean exact = workers == 1;
    PartitionResult[] results = new PartitionResult[rounds];
    boolean mixesOnly = resultsKept == BarrierRounds.Results.MIXES;
    StateDelta[] mixes = mixesOnly && partition == 0 ? new StateDelta[rounds] : null;
    boolean averaging = u != null;
    TouchedSet changedInEpoch = new TouchedSet(mixed.length);
    for (int round = 0; round < rounds; round++) {
      double clock = round == 0 ? startClock : roundEnds[round - 1];
      if (m != null) {
        m.lookAhead(mixed, null, clock, supportSet.toArray(), jumped);
        for (int j : jumped.drain()) {
          work[j] = mixed[j];
          changedInEpoch.mark(j);
        }
      }
      LinearState state = new LinearState(work, u, clock);
      VoteTrace trace = firstStartVector >= 0 && block != null
          ? new VoteTrace(block.features(), firstStartVector + round, clock) : null;
      EpochStats stats = new EpochStats();
      if (block != null) {
        int n = block.numRows();
        int from = (int) ((long) n * round / rounds);
        int to = (int) ((long) n * (round + 1) / rounds);
        if (round == failRound) {
          int half = (to - from) / 2;
          OnlineLearner.runEpoch(learner, block, order, from, from + half, state, clockScale,
              stats, trace, touched);
          FaultInjection.failMidEpoch(epoch, partition, half);
        }
        OnlineLearner.runEpoch(learner, block, order, from, to, state, clockScale, stats, trace,
            touched);
      }
      int[] written = touched.drain();
      StateDelta delta = StateDelta.between(written, work, mixed, u, exact, settings.denseAbove);
      for (int j : written) {
        work[j] = mixed[j];
        if (u != null) {
          u[j] = 0.0;
        }
        changedInEpoch.mark(j);
      }
      double mixWeight = settings.mixing.mixWeight(partitionWeight, stats.updates);
      PartitionResult leaf = new PartitionResult(partition, mixWeight, delta,
          new EpochStats[] {stats});
      if (trace != null) {
        trace.finish(roundEnds[round], mixWeight);
        leaf.withVoteTrace(trace);
      }
      RoundTree.Mixed mix = exchanger.mix(leaf);
      StateDelta change = mix.delta();
      change.applyTo(mixed, null);
      for (int k = 0, n = change.storedEntries(); k < n; k++) {
        int j = change.coordinate(k);
        work[j] = mixed[j];
        changedInEpoch.mark(j);
        if (supportSet != null) {
          supportSet.mark(j);
        }
      }
      if (m != null) {
        m.afterRound(change, mix.stepSum());
      }
      if (mixesOnly) {
        // The driver mixes the stats and takes the change from worker 0's mixes.
        leaf.withChange(StateDelta.none(mixed.length, averaging));
        if (mixes != null) {
          mixes[round] = change;
        }
      }
      results[round] = leaf;
    }
    // work now equals mixed, which differs from the executor's shipped copy where the epoch
    // changed it: the pool resynchronises it there before its next use.
    ExecutorWeights.release(working, changedInEpoch.drain());
    bytesExchanged.add(exchanger.bytesSent());
    return new Output(partition, results, mixes, BarrierRounds.digest(mixed),
        m == null ? 0.0 : m.mass(), m == null ? 0.0 : m.velocityMass(),
        m == null ? 0 : m.restarts());
  }
}
