package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.blocks.Conversion;
import io.github.sparkperceptron.internal.blocks.PartitionJob;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.blocks.WorkerBlocksRdd;
import io.github.sparkperceptron.internal.exchange.WeightShipper;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.MemoryPlan;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.internal.rounds.MicroBatchTask;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: a stream's training, for the stream's life: the engine's single entry point through
 * which {@code io.github.sparkperceptron.streaming} learns micro-batch after micro-batch, from a
 * {@link TrainingConfig}. Not a public API; it may change without notice.
 *
 * <p><b>What carries over.</b> A batch is trained exactly as {@code PerceptronClassifier.fit}
 * trains a dataset (rows validated and converted by {@link TrainingInput}, epochs of mixing rounds
 * as {@link MixingLoop} runs them), except that it starts from the whole learner the previous
 * batch left: the weights w, the averaging accumulator u and clock c, and block momentum's
 * velocity Δ with its masses. Under mixing every epoch spans [c, c + T] of the clock (T = the
 * batch's total weight, see {@code io.github.sparkperceptron.internal.mixing}), so carrying c and u makes
 * the averaged model the clock-weighted mean of every intermediate weight vector since the stream
 * began. With one worker and one epoch per batch this is the serial online averaged perceptron
 * over the concatenated batches, bit for bit when its running sum of averaging terms is added to
 * u once per batch (a round's workers return their sum from zero and the driver adds it).
 *
 * <p><b>Block momentum ({@code mixing=momentum}) carries across batches.</b> Δ, the update mass M
 * and Δ's decayed mass go on from one batch to the next, as if the batches were one epoch's
 * rounds; β = 1 − 1/W is the batch's (W may change between batches when {@code numWorkers} is
 * automatic), and the bound's ρ is the largest any batch so far needed (ρ_b = η·s_max·max‖x̃‖² of
 * batch b's rows, twice for multiclass): the invariant ‖w_t‖² ≤ ‖w_0‖² + ρ·M_t that the
 * look-ahead keeps (O'Donoghue &amp; Candès's restart) holds with any ρ at least every round's
 * own, so the stream keeps McDonald et al.'s mistake bound Σ M ≤ ρ/γ² from w_0 = 0 over its whole
 * life. Why carry it: Δ builds up over about W rounds, and a batch has at most W rounds, fewer
 * when it is small, so a velocity restarted every batch never reaches the one-worker step it
 * exists to give back. A batch with one worker has no momentum and drops Δ.
 *
 * <p><b>Rounds per batch.</b> A batch of N rows over W workers gets the rounds {@code fit} would
 * give N rows over W workers ({@link MixingSettings#rounds}): {@code mixingRounds} when set, else
 * with block momentum min(W, 64, ⌊N / (2W)⌋), at least 1, so that every worker has a couple of
 * rows in every round (BlockMomentum.automaticRounds); one for the mean mixes. N is the batch's,
 * not the stream's: a round is a mix of the rows at hand, and a small batch cut into W rounds
 * would mix workers that saw no row. So with block momentum over several workers and automatic
 * rounds, R is known only once the batch's facts are gathered
 * ({@link MixingSettings#roundsBeforeRows} is −1): such a batch is scored in one job, then
 * trained in later ones. Momentum carried across batches gives back across them what a small
 * batch's few rounds cannot.
 *
 * <p><b>One context for the stream's life.</b> Two {@link WeightShipper}s live as long as the
 * stream: one for w (the rounds' weights, as {@code fit} ships them between rounds), one for u
 * (when averaging, read by the prequential scoring); the executors keep their copies between
 * batches, so a batch ships only what the driver changed since the previous one.
 *
 * <p><b>A micro-batch in one Spark job, where the mathematics allows.</b> Its tasks convert the
 * batch's rows into their worker's block, score every row with the model before the batch
 * ({@link MicroBatchTask}), run the batch's only mixing round, and return the worker's facts, its
 * count and its change; the driver checks the facts (bad rows, vector size, labels beyond the
 * model's classes) and only then applies the mixed change, so a bad batch changes nothing. A
 * split layout (more workers than input partitions: one file dealt over two workers) is dealt
 * without a shuffle ({@link TrainingInput.Plan#convert}). It takes one job when the batch has one
 * round and one epoch, no block momentum over several workers, no decision to make between
 * scoring and learning ({@code scoreBeforeLearning}), and the workers can know T before the
 * batch's rows are all read: one worker, or no averaging, or a split layout in which every worker
 * reads every row. Otherwise (and for the first batch, whose facts fix the model's shape) the
 * batch takes one job to convert, check and score, then the rounds' jobs over the cached blocks
 * ({@link MixingLoop#runStreamBatch}: the driver's side of the rounds is {@link DriverRounds}, the
 * workers' side {@link WorkerRound}, one Spark job per round, {@link JobPerRound}). The one-job
 * batch runs the same two halves: its tasks run {@link WorkerRound}, the driver applies the mix
 * with {@link DriverRounds#apply}.
 *
 * <p><b>What the stream saves.</b> Every coordinate of w, u and Δ the driver writes is recorded
 * until {@link #markSaved}, so that the stream's state can be saved as the change of a batch
 * ({@link #writtenSinceSave}) rather than rewritten whole.
 */
public final class OnlineTraining implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OnlineTraining.class);
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;


  private final JavaSparkContext jsc;
  private final TrainingConfig config;
  private final int epochsPerBatch;
  private final boolean scoreBeforeLearning;
  /** Keys this stream's weights in the executors' caches. */
  private final String name;
  private int numClasses;
  private int numFeatures = -1;
  private LinearState state;
  private BlockMomentum momentum;
  /** Coordinates where w, u or Δ may be non-zero (a superset is harmless). */
  private TouchedSet support;
  /** What the driver wrote during the current batch (see TrainingProgress.written). */
  private TouchedSet batchWritten;
  /** What the driver wrote since the state was last saved. */
  private TouchedSet sinceSave;
  /** Whether the whole state changed since it was last saved (first batch, a fresh model). */
  private boolean wholeStateChanged;
  private WeightShipper weights;
  private WeightShipper accumulator;

  /**
   * A stream's training from its beginning ({@code saved} null) or from a saved learner.
   *
   * @param numClasses for a new stream, K if the caller fixed it, else 0 to take it from the
   *     first batch's label metadata or largest label
   * @param scoreBeforeLearning whether the caller decides something between a batch's scoring
   *     and its learning ({@link Prequential#freshModel} may return true): every batch then
   *     takes a job to score before the jobs that learn
   */
  public OnlineTraining(JavaSparkContext jsc, TrainingConfig config, int epochsPerBatch,
      boolean scoreBeforeLearning, int numClasses, Saved saved) {
    this.jsc = jsc;
    this.config = config;
    this.epochsPerBatch = epochsPerBatch;
    this.scoreBeforeLearning = scoreBeforeLearning;
    this.name = config.name + "/stream/" + UUID.randomUUID();
    this.numClasses = saved == null ? numClasses : saved.numClasses;
    if (saved != null) {
      this.numFeatures = saved.numFeatures;
      this.momentum = saved.momentum == null ? null
          : saved.momentum.withVelocity(saved.momentum.velocity().clone()).resume(0.0);
      establish(saved.state);
      this.wholeStateChanged = false;
    }
  }

  /** A saved learner to go on from: its shape, w, u and c, and block momentum (or null). */
  public static final class Saved {
    final int numClasses;
    final int numFeatures;
    final LinearState state;
    final MomentumState momentum;

    /** The arrays are taken, not copied (but for the momentum's velocity). */
    public Saved(int numClasses, int numFeatures, LinearState state, MomentumState momentum) {
      this.numClasses = numClasses;
      this.numFeatures = numFeatures;
      this.state = state;
      this.momentum = momentum;
    }
  }

  /** What the caller decides once a batch is scored, before it is learnt. */
  @FunctionalInterface
  public interface Prequential {
    /**
     * Told the batch's rows and how many the model before the batch predicted correctly (a batch
     * that passed every check); returns whether the batch is to be learnt by a fresh model (zero
     * weights, accumulator and clock, no momentum) instead of the current one. Only an
     * {@code OnlineTraining} made with {@code scoreBeforeLearning} may be answered true.
     */
    boolean freshModel(long rows, long prequentialCorrect);
  }

  /** What one micro-batch did. Internal, like the class. */
  public static final class BatchOutcome {
    /** Rows in the batch (rows with weight 0 included). */
    public final long rows;
    /** Rows the model predicted correctly before learning from the batch. */
    public final long prequentialCorrect;
    /** Σ of the rows' sample weights: how far the averaging clock moved per epoch. */
    public final double weight;
    /** Updates made, summed over the batch's epochs. */
    public final long updates;
    /** Examples with margin ≤ 0 met during the batch's first epoch (online mistakes). */
    public final long onlineMistakes;
    public final int epochs;
    /** The workers the batch was laid out over. */
    public final int workers;
    /** Whether the batch was learnt by a fresh model (the caller asked for it). */
    public final boolean freshModel;
    /** Spark jobs the batch ran (its conversion, scoring and rounds). */
    public final int jobs;

    BatchOutcome(TrainingInput input, long prequentialCorrect, TrainingResult result,
        boolean freshModel, int jobs) {
      this.rows = input.numRows;
      this.prequentialCorrect = prequentialCorrect;
      this.weight = result == null ? 0.0 : input.totalWeight;
      long sum = 0;
      if (result != null) {
        for (EpochStats e : result.epochs()) {
          sum += e.updates;
        }
      }
      this.updates = sum;
      this.onlineMistakes = result == null || result.epochs().isEmpty() ? 0
          : result.epochs().get(0).mistakes;
      this.epochs = result == null ? 0 : result.epochs().size();
      this.workers = input.numWorkers;
      this.freshModel = freshModel;
      this.jobs = jobs;
    }
  }

  /** Whether a batch with rows was learnt (now or by the saved learner): a model exists. */
  public boolean hasModel() {
    return state != null;
  }

  public int numClasses() {
    return numClasses;
  }

  public int numFeatures() {
    return numFeatures;
  }

  /** The learner's w, u and c (owned by this training: changed by the next batch). */
  public LinearState state() {
    return state;
  }

  /**
   * Block momentum's velocity, masses and bound as the last batch left them, or null (a view:
   * the velocity is the training's own array).
   */
  public MomentumState momentum() {
    return momentum == null ? null : MomentumState.of(momentum);
  }

  /**
   * The coordinates of w, u and Δ the driver wrote since {@link #markSaved} (increasing), or
   * {@code null} when the whole state changed since (the first batch, a fresh model): then only
   * a whole copy of the state records it.
   */
  public int[] writtenSinceSave() {
    return wholeStateChanged || sinceSave == null ? null : sinceSave.toArray();
  }

  /** The state as it stands is saved: {@link #writtenSinceSave} starts again from nothing. */
  public void markSaved() {
    if (sinceSave != null) {
      sinceSave.clear();
    }
    wholeStateChanged = false;
  }

  /**
   * Scores {@code batch} with the model as it stands, then learns it for the configured epochs
   * with the configuration's settings (update rule, averaging, mixing, step size, shuffle, ...).
   *
   * @param batchId seeds the batch's shuffles, so that reruns give the same model
   * @param onScored told the prequential count before the batch's change is applied (before it
   *     is learnt when {@code scoreBeforeLearning})
   * @return what the batch did; {@code null} for a first batch without rows (no model yet)
   * @throws IllegalArgumentException for a bad row, a label beyond K or a vector not of size d;
   *     the learner is then as it was before the batch
   */
  public BatchOutcome trainBatch(Dataset<?> batch, long batchId, Prequential onScored) {
    return trainBatch(BatchInput.of(batch), batchId, onScored);
  }

  /**
   * As {@link #trainBatch(Dataset, long, Prequential)}, for a batch given as rows or as text
   * files read in one pass; a bad line of a text batch is a {@code BadInputException} naming
   * its file and line, and the learner is then as it was before the batch.
   */
  public BatchOutcome trainBatch(BatchInput batch, long batchId, Prequential onScored) {
    TrainingConfig batchConfig = config.forBatch(epochsPerBatch, batchSeed(config.seed, batchId));
    // Each batch is laid out over numWorkers workers as fit lays out a dataset (automatic: the
    // task slots when the batch starts).
    TrainingPlan plan = TrainingPlan.forStreamBatch(jsc, batchConfig);
    Conversion conversion = batch.conversion(plan);
    conversion.logLayout();
    int workers = conversion.layout.numWorkers;
    boolean oneJob = state != null && !scoreBeforeLearning && epochsPerBatch == 1
        && withoutShuffle()
        && MixingSettings.roundsBeforeRows(batchConfig, workers) == 1
        && !(config.mixing == MixingMode.MOMENTUM && workers > 1)
        && (workers == 1 || !config.averaging.keepsAverage()
            || conversion.knowsWorkerWeights());
    if (batchWritten != null) {
      batchWritten.clear();
    }
    BatchOutcome outcome = oneJob ? inOneJob(conversion, plan, onScored)
        : scoreThenLearn(conversion, plan, onScored);
    if (batchWritten != null) {
      for (int j : batchWritten.drain()) {
        sinceSave.mark(j);
        if (accumulator != null) {
          accumulator.changed(j);
        }
      }
    }
    return outcome;
  }

  /** The batch's conversion, scoring and only round in one job; see the class documentation. */
  private BatchOutcome inOneJob(Conversion conversion, TrainingPlan plan,
      Prequential onScored) {
    TrainingConfig batchConfig = plan.config();
    int workers = conversion.layout.numWorkers;
    LearnerConfig learner = batchConfig.learner(numFeatures, numClasses, null);
    MixingSettings settings = MixingSettings.oneRoundWithoutMomentum(batchConfig, jsc);
    WeightsRef w = weights.ship(state.weights());
    WeightsRef u = accumulator == null ? null : accumulator.ship(state.averageAccumulator());
    double startClock = state.clock();
    WorkerBlocksRdd<?> prepared = conversion.convert(true);
    jsc.setJobDescription(String.format(Locale.ROOT, "perceptron micro-batch: convert, score and"
        + " learn (%s mixing)", config.mixing.paramValue()));
    MicroBatchTask.Model model = new MicroBatchTask.Model(numClasses, numFeatures, w, u,
        startClock, config.threshold);
    MicroBatchTask.Result result;
    try {
      result = PartitionJob.aggregate(prepared, MicroBatchTask.scoreAndTrain(workers, model,
          learner, settings, MemoryPlan.idleCopyBytes(learner, workers, jsc.sc())),
          new MicroBatchTask.Result(workers), MicroBatchTask.Result::merge,
          // A worker's round changes at most the whole state: δw and δu per coordinate.
          MicroBatchTask.Result::merge, MemoryPlan.roundAggregationDepth(workers,
              16L * learner.stateLength(), config.aggregationDepth));
    } finally {
      // The batch's chunks served the one job that converted, scored and learnt them.
      conversion.release();
    }
    TrainingInput input = conversion.validate(prepared, factsOf(result), true);
    requireFits(input);
    if (onScored.freshModel(input.numRows, result.prequentialCorrect)) {
      throw new IllegalStateException("a fresh model was asked for after the batch was learnt;"
          + " an OnlineTraining that may be asked one must score before learning");
    }
    if (input.numRows == 0 || !(input.totalWeight > 0)) {
      return new BatchOutcome(input, result.prequentialCorrect, null, false, 1);
    }
    double total = input.trainingWeight(null);
    if (config.averaging.keepsAverage()
        && Double.doubleToLongBits(result.totalWeight) != Double.doubleToLongBits(total)) {
      throw new IllegalStateException(String.format(Locale.ROOT, "the workers trained with T ="
          + " %s, the batch's facts give %s: a defect; set %s=false", result.totalWeight, total,
          Settings.TEST_STREAM_ONE_JOB));
    }
    MixingLoop loop = new MixingLoop(input, plan.withData(input.facts(), learner));
    TrainingProgress progress = progress(null);
    WorkerResult mixed = result.mix.result();
    loop.driverRounds(progress, weights, support).apply(mixed, 1, startClock + total);
    EpochStats stats = mixed.epochs()[0];
    progress.epochsDone = 1;
    progress.modelEpoch = 1;
    progress.epochs.add(stats);
    progress.workerUpdates.add(updatesOf(mixed));
    if (stats.updates == 0) {
      progress.stopReason = StopReason.CONVERGED;
    }
    state = progress.state;
    return new BatchOutcome(input, result.prequentialCorrect,
        new TrainingResult(progress, input.layout), false, 1);
  }

  /**
   * The batch's conversion and scoring in one job, its blocks cached; then (once the caller has
   * seen the prequential count) its epochs of rounds, one job each.
   */
  private BatchOutcome scoreThenLearn(Conversion conversion, TrainingPlan plan,
      Prequential onScored) {
    TrainingConfig batchConfig = plan.config();
    int workers = conversion.layout.numWorkers;
    WorkerBlocksRdd<?> prepared = conversion.convert(withoutShuffle());
    prepared.setName(TrainingInput.BLOCKS_NAME);
    prepared.persist(StorageLevel.MEMORY_AND_DISK());
    TrainingInput input = null;
    try {
      boolean known = state != null;
      jsc.setJobDescription(known ? "perceptron micro-batch: convert and score"
          : "perceptron micro-batch: convert");
      MicroBatchTask task = known ? scoring(workers) : MicroBatchTask.factsOnly(workers);
      MicroBatchTask.Result result = PartitionJob.aggregate(prepared, task,
          new MicroBatchTask.Result(workers), MicroBatchTask.Result::merge,
          MicroBatchTask.Result::merge, config.aggregationDepth);
      int jobs = 1;
      input = conversion.validate(prepared, factsOf(result), true);
      JavaRDD<WorkerBlocks> blocks = input.blocks;
      if (!known && input.numRows == 0) {
        return null;
      }
      if (!known) {
        numClasses = numClasses > 0 ? numClasses : input.numClasses;
        numFeatures = input.numFeatures;
      }
      requireFits(input);
      LearnerConfig learner = batchConfig.learner(numFeatures, numClasses, null);
      long correct = result.prequentialCorrect;
      if (!known) {
        establish(batchConfig.initialState(learner));
        wholeStateChanged = true;
        jsc.setJobDescription("perceptron micro-batch: score");
        correct = PartitionJob.aggregate(blocks.rdd(), scoring(workers),
            new MicroBatchTask.Result(workers), MicroBatchTask.Result::merge,
            MicroBatchTask.Result::merge, config.aggregationDepth).prequentialCorrect;
        jobs++;
      }
      boolean fresh = onScored.freshModel(input.numRows, correct);
      if (fresh) {
        if (!scoreBeforeLearning) {
          throw new IllegalStateException("a fresh model was asked for, but this OnlineTraining"
              + " was made without scoreBeforeLearning");
        }
        startFresh(learner);
      }
      if (input.numRows == 0 || !(input.totalWeight > 0)) {
        return new BatchOutcome(input, correct, null, fresh, jobs);
      }
      // The same rounds, block momentum β = 1 − 1/W and bound ρ as fit() resolves for this
      // batch's W workers and rows; the momentum's velocity and masses carried over.
      MixingLoop loop = new MixingLoop(input, plan.withData(input.facts(), learner));
      TrainingProgress progress = progress(loop.settings);
      TrainingResult trained = loop.runStreamBatch(progress, weights, support);
      state = progress.state;
      momentum = progress.momentum;
      int rounds = 0;
      for (int e = 0; e < trained.epochs().size(); e++) {
        rounds += loop.settings.rounds;
      }
      return new BatchOutcome(input, correct, trained, fresh, jobs + rounds);
    } finally {
      if (input != null) {
        input.close();
      } else {
        prepared.unpersist(false);
        conversion.release();
      }
    }
  }

  /**
   * The workers' facts of a batch's job, in worker order; none when the batch had no partition to
   * run (an empty DataFrame, such as a batch of empty files).
   */
  private static List<WorkerBlocks> factsOf(MicroBatchTask.Result result) {
    List<WorkerBlocks> facts = new ArrayList<>(result.facts.length);
    for (WorkerBlocks f : result.facts) {
      if (f != null) {
        facts.add(f);
      }
    }
    return facts;
  }

  /** Whether batches may take one job and deal a split layout without a shuffle. */
  private boolean withoutShuffle() {
    return Boolean.parseBoolean(Settings.read(jsc, Settings.TEST_STREAM_ONE_JOB, "true"));
  }

  /** The scoring task of the model as it stands: w, u and c shipped. */
  private MicroBatchTask scoring(int workers) {
    WeightsRef w = weights.ship(state.weights());
    WeightsRef u = accumulator == null ? null : accumulator.ship(state.averageAccumulator());
    return MicroBatchTask.score(workers, new MicroBatchTask.Model(numClasses, numFeatures, w, u,
        state.clock(), config.threshold));
  }

  /**
   * The progress of this batch's training: the carried state, and block momentum when
   * {@code settings} has one (the carried velocity and masses under the batch's β, with the
   * larger of the carried and the batch's ρ), else none.
   */
  private TrainingProgress progress(MixingSettings settings) {
    TrainingProgress progress = new TrainingProgress(state, null);
    progress.written = batchWritten;
    if (settings == null || !settings.hasMomentum()) {
      momentum = null;
      return progress;
    }
    int length = state.weights().length;
    if (momentum == null) {
      progress.momentum = settings.momentum(length, state.weights());
    } else {
      progress.momentum = momentum.copy(settings.momentum,
          Math.max(momentum.normBound(), settings.momentumBound));
    }
    return progress;
  }

  /** Takes {@code initial} as the learner's state: support, shippers and records sized to it. */
  private void establish(LinearState initial) {
    state = initial;
    int length = initial.weights().length;
    support = new TouchedSet(length);
    double[] w = initial.weights();
    double[] u = initial.averageAccumulator();
    double[] v = momentum == null ? null : momentum.velocity();
    for (int j = 0; j < length; j++) {
      // Δ = −0.0 too: block momentum clears Δ on the support only (see MixingLoop).
      if (w[j] != 0.0 || (u != null && u[j] != 0.0)
          || (v != null && Double.doubleToRawLongBits(v[j]) != 0L)) {
        support.mark(j);
      }
    }
    batchWritten = new TouchedSet(length);
    sinceSave = new TouchedSet(length);
    weights = new WeightShipper(jsc, name + "/w", length);
    accumulator = u == null ? null : new WeightShipper(jsc, name + "/u", length);
  }

  /**
   * A fresh model: zero weights, accumulator and clock, no momentum, as a new stream would start
   * (not from an initial model: what it knew is what the stream no longer is).
   */
  private void startFresh(LearnerConfig learner) {
    LOG.info("Learning the batch with a fresh model (zero weights, average and clock)");
    LinearState zero = LinearState.zero(learner);
    for (int j : support.toArray()) {
      weights.changed(j);
      if (accumulator != null) {
        accumulator.changed(j);
      }
    }
    state = zero;
    momentum = null;
    wholeStateChanged = true;
  }

  /** The model's vector size and classes, which a stream cannot change. */
  private void requireFits(TrainingInput input) {
    if (input.numRows > 0 && input.numFeatures != numFeatures) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "Column '%s' (featuresCol)"
          + " holds vectors of size %d in this batch, but the model has %d features, fixed by"
          + " the first batch it learnt from; every batch must have vectors of one size",
          config.featuresCol, input.numFeatures, numFeatures));
    }
    if (input.numClasses > numClasses) {
      throw new IllegalArgumentException(labelBeyondClasses(input));
    }
  }

  private static long[] updatesOf(WorkerResult mixed) {
    long[][] byWorker = mixed.updatesByWorker();
    long[] out = new long[byWorker.length];
    for (int i = 0; i < byWorker.length; i++) {
      out[i] = byWorker[i][0];
    }
    return out;
  }

  /** A seed of its own for every batch, so that batches are not all shuffled alike. */
  static long batchSeed(long seed, long batchId) {
    return seed ^ (GOLDEN_GAMMA * (batchId + 1));
  }

  private String labelBeyondClasses(TrainingInput input) {
    int k = numClasses;
    int label = input.classCounts.length - 1;
    while (label >= k && input.classCounts[label] == 0) {
      label--;
    }
    String what = label >= k
        ? "has label " + label + " in " + input.classCounts[label] + " rows of this batch"
        : "declares " + input.numClasses + " classes in its metadata in this batch";
    return String.format(Locale.ROOT, "Column '%s' (labelCol) %s, but the model has %d classes"
        + " (labels 0..%d), fixed when it began learning (by numClasses, the label column's"
        + " metadata or the first batch's largest label); a stream cannot add classes later."
        + " Start a new stream with numClasses set to the total number of classes (submit/"
        + "stream-train: --num-classes), or drop these rows", config.labelCol, what, k,
        k - 1);
  }

  /** Destroys the shippers' broadcasts and forgets the executors' copies in this JVM. */
  @Override
  public void close() {
    if (weights != null) {
      weights.close();
    }
    if (accumulator != null) {
      accumulator.close();
    }
  }
}
