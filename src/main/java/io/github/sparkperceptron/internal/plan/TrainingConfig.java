package io.github.sparkperceptron.internal.plan;

import io.github.sparkperceptron.internal.calibration.CalibrationRows;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import java.util.Locale;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * What one training asks of the engine, read once from the estimator's params on the driver (the
 * Spark face, {@code io.github.sparkperceptron.ml}, builds it; a stream's micro-batch derives its
 * own with {@link #forBatch}): columns, workers, visiting order, the learner's and the mixing
 * loop's settings, the warm-start weights and the checkpoints. Immutable; the engine never reads
 * the estimator itself, so closures never capture it. The settings that depend on the data (the
 * mixing rounds, block momentum, the exchange) are resolved from it by
 * {@link MixingSettings#resolve}.
 */
public final class TrainingConfig {
  /** Names the training in logs and keys its weights on the executors (the estimator's uid). */
  public final String name;
  public final String labelCol;
  public final String featuresCol;
  /** Empty: no sample weights. */
  public final String weightCol;
  /** Empty: no validation rows. */
  public final String validationCol;
  /**
   * The rows converted as calibration rows instead of training rows (stored as validation rows
   * are, never trained on): none, or the default's held-out share.
   */
  public final CalibrationRows calibrationRows;
  /** The {@code numWorkers} param: 0 for automatic. */
  public final int numWorkers;
  final boolean shuffle;
  final ShuffleScope shuffleScope;
  public final long seed;
  final boolean fitIntercept;
  final double stepSize;
  final UpdateRule updateRule;
  final double aggressiveness;
  public final Averaging averaging;
  final int maxIter;
  final double tol;
  public final MixingMode mixing;
  /** The {@code mixingRounds} param: 0 for automatic. */
  final int mixingRounds;
  public final int aggregationDepth;
  final int validationPatience;
  public final double threshold;
  /** Empty: no checkpoints. */
  public final String checkpointDir;
  public final int checkpointInterval;
  /** Where the cached rows are kept: a Spark storage level's name (e.g. MEMORY_AND_DISK). */
  final String storageLevel;
  /** Bytes per chunk of cached rows; 0 for the blocks' own (tests set it smaller). */
  final long chunkBytes;
  /** The most bytes of chunks one window of an epoch holds (kernel.EpochPlan). */
  final long windowBytes;
  /** The warm-start model's state weights, or null. */
  private final InitialWeights initial;

  private TrainingConfig(Builder b) {
    this.name = b.name;
    this.labelCol = b.labelCol;
    this.featuresCol = b.featuresCol;
    this.weightCol = b.weightCol;
    this.validationCol = b.validationCol;
    this.calibrationRows = b.calibrationRows;
    this.numWorkers = b.numWorkers;
    this.shuffle = b.shuffle;
    this.shuffleScope = b.shuffleScope;
    this.seed = b.seed;
    this.fitIntercept = b.fitIntercept;
    this.stepSize = b.stepSize;
    this.updateRule = b.updateRule;
    this.aggressiveness = b.aggressiveness;
    this.averaging = b.averaging;
    this.maxIter = b.maxIter;
    this.tol = b.tol;
    this.mixing = b.mixing;
    this.mixingRounds = b.mixingRounds;
    this.aggregationDepth = b.aggregationDepth;
    this.validationPatience = b.validationPatience;
    this.threshold = b.threshold;
    this.checkpointDir = b.checkpointDir;
    this.checkpointInterval = b.checkpointInterval;
    this.storageLevel = b.storageLevel;
    this.chunkBytes = b.chunkBytes;
    this.windowBytes = b.windowBytes;
    this.initial = b.initial;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The configuration of one micro-batch of a stream: {@code epochs} epochs, shuffled with a
   * seed of the batch's own, without validation rows or checkpoints (the stream keeps its own
   * state).
   */
  public TrainingConfig forBatch(int epochs, long batchSeed) {
    Builder b = toBuilder();
    b.maxIter = epochs;
    b.seed = batchSeed;
    b.validationCol = "";
    b.calibrationRows = CalibrationRows.NONE;
    b.checkpointDir = "";
    return new TrainingConfig(b);
  }

  /** This configuration without checkpoints (a fold model of cross-fitted calibration). */
  public TrainingConfig withoutCheckpoints() {
    Builder b = toBuilder();
    b.checkpointDir = "";
    return new TrainingConfig(b);
  }

  private Builder toBuilder() {
    Builder b = new Builder();
    b.name = name;
    b.labelCol = labelCol;
    b.featuresCol = featuresCol;
    b.weightCol = weightCol;
    b.validationCol = validationCol;
    b.calibrationRows = calibrationRows;
    b.numWorkers = numWorkers;
    b.shuffle = shuffle;
    b.shuffleScope = shuffleScope;
    b.seed = seed;
    b.fitIntercept = fitIntercept;
    b.stepSize = stepSize;
    b.updateRule = updateRule;
    b.aggressiveness = aggressiveness;
    b.averaging = averaging;
    b.maxIter = maxIter;
    b.tol = tol;
    b.mixing = mixing;
    b.mixingRounds = mixingRounds;
    b.aggregationDepth = aggregationDepth;
    b.validationPatience = validationPatience;
    b.threshold = threshold;
    b.checkpointDir = checkpointDir;
    b.checkpointInterval = checkpointInterval;
    b.storageLevel = storageLevel;
    b.chunkBytes = chunkBytes;
    b.windowBytes = windowBytes;
    b.initial = initial;
    return b;
  }

  /**
   * This configuration with the chunk and window sizes of the test keys
   * ({@link Settings#CHUNK_BYTES}, {@link Settings#WINDOW_BYTES}) when the fitting thread or the
   * Spark configuration sets them: what a test of rows in several chunks and windows trains with.
   */
  TrainingConfig withTestSizes(JavaSparkContext jsc) {
    String chunk = Settings.read(jsc, Settings.TEST_CHUNK_BYTES, "");
    String window = Settings.read(jsc, Settings.TEST_WINDOW_BYTES, "");
    if (chunk.isEmpty() && window.isEmpty()) {
      return this;
    }
    Builder b = toBuilder();
    if (!chunk.isEmpty()) {
      b.chunkBytes = Settings.positiveLong(Settings.TEST_CHUNK_BYTES, chunk);
    }
    if (!window.isEmpty()) {
      b.windowBytes = Settings.positiveLong(Settings.TEST_WINDOW_BYTES, window);
    }
    return new TrainingConfig(b);
  }

  /** Where the cached rows are kept ({@code storageLevel}). */
  public StorageLevel storageLevel() {
    return Settings.storageLevel("storageLevel", storageLevel);
  }

  /** The storage level's name, as Spark spells it (MEMORY_AND_DISK, ...). */
  public String storageLevelName() {
    return storageLevel.trim().toUpperCase(Locale.ROOT);
  }

  /** Bytes per chunk of cached rows; 0 for the blocks' own. */
  public long chunkBytes() {
    return chunkBytes;
  }

  /** How the workers lay out and visit their rows (shuffle, shuffleScope, seed). */
  public VisitOrder visitOrder() {
    return VisitOrder.of(shuffle, shuffleScope, seed).withWindowBytes(windowBytes);
  }

  public int maxIter() {
    return maxIter;
  }

  public MixingMode mixing() {
    return mixing;
  }

  public Averaging averaging() {
    return averaging;
  }

  /** Whether validation rows are held out and scored after every epoch. */
  public boolean validates() {
    return !validationCol.isEmpty();
  }

  /** Whether the training starts from a warm-start model's weights. */
  public boolean hasInitialModel() {
    return initial != null;
  }

  /** The learner of data with {@code numFeatures} features and {@code numClasses} classes. */
  public LearnerConfig learner(int numFeatures, int numClasses, double[] classWeights) {
    return new LearnerConfig(numFeatures, numClasses, fitIntercept, stepSize, updateRule,
        aggressiveness, averaging, classWeights);
  }

  /**
   * The state training starts from: zero, or the warm-start model's weights.
   *
   * @throws IllegalArgumentException if the warm-start model has another shape than the data
   */
  public LinearState initialState(LearnerConfig learner) {
    LinearState state = LinearState.zero(learner);
    if (initial != null) {
      if (initial.numFeatures != learner.numFeatures()
          || initial.numClasses != learner.numClasses()) {
        throw new IllegalArgumentException("The initial model (setInitialModel) has "
            + initial.numFeatures + " features and " + initial.numClasses + " classes, but the"
            + " training data have " + learner.numFeatures() + " features and "
            + learner.numClasses() + " classes; warm-start only from a model trained on data of"
            + " the same shape");
      }
      double[] w = initial.weights.get();
      System.arraycopy(w, 0, state.weights(), 0, w.length);
    }
    return state;
  }

  /**
   * A warm-start model's shape and its weights in the state's layout, produced only when the
   * state is built: after the memory plan accepted the training, so that a model too large to
   * train is refused with a message before anything of its size is allocated.
   */
  private static final class InitialWeights {
    final int numClasses;
    final int numFeatures;
    final Supplier<double[]> weights;

    InitialWeights(int numClasses, int numFeatures, Supplier<double[]> weights) {
      this.numClasses = numClasses;
      this.numFeatures = numFeatures;
      this.weights = weights;
    }
  }

  /**
   * Collects the settings. The Spark face sets every one from the params; the starting values
   * (the params' defaults at the time of writing) only serve tests that build a configuration
   * by hand.
   */
  public static final class Builder {
    private String name = "perceptron";
    private String labelCol = "label";
    private String featuresCol = "features";
    private String weightCol = "";
    private String validationCol = "";
    private CalibrationRows calibrationRows = CalibrationRows.NONE;
    private int numWorkers;
    private boolean shuffle = true;
    private ShuffleScope shuffleScope = ShuffleScope.AUTO;
    private long seed = 42L;
    private boolean fitIntercept = true;
    private double stepSize = 1.0;
    private UpdateRule updateRule = UpdateRule.PERCEPTRON;
    private double aggressiveness = 1.0;
    private Averaging averaging = Averaging.AVERAGE;
    private int maxIter = 10;
    private double tol;
    private MixingMode mixing = MixingMode.MISTAKES;
    private int mixingRounds;
    private int aggregationDepth = 2;
    private int validationPatience = 5;
    private double threshold;
    private String checkpointDir = "";
    private int checkpointInterval = 10;
    private String storageLevel = "MEMORY_AND_DISK";
    private long chunkBytes;
    private long windowBytes = EpochPlan.WINDOW_BYTES;
    private InitialWeights initial;

    private Builder() {
    }

    public Builder name(String value) {
      this.name = value;
      return this;
    }

    /** The label, features, weight and validation columns ("" for none of the last two). */
    public Builder columns(String label, String features, String weight, String validation) {
      this.labelCol = label;
      this.featuresCol = features;
      this.weightCol = weight;
      this.validationCol = validation;
      return this;
    }

    /**
     * The rows held out of training to fit the calibrator on ({@link CalibrationRows#NONE}: every
     * row trains); only without validation rows, which are the calibration rows then.
     */
    public Builder calibrationRows(CalibrationRows rows) {
      this.calibrationRows = rows;
      return this;
    }

    public Builder numWorkers(int value) {
      this.numWorkers = value;
      return this;
    }

    public Builder visitOrder(boolean shuffle, ShuffleScope scope, long seed) {
      this.shuffle = shuffle;
      this.shuffleScope = scope;
      this.seed = seed;
      return this;
    }

    /** The update: rule, step size η, aggressiveness C, intercept, averaging. */
    public Builder learner(UpdateRule rule, double stepSize, double aggressiveness,
        boolean fitIntercept, Averaging averaging) {
      this.updateRule = rule;
      this.stepSize = stepSize;
      this.aggressiveness = aggressiveness;
      this.fitIntercept = fitIntercept;
      this.averaging = averaging;
      return this;
    }

    /** Epochs and when to stop early: {@code maxIter}, {@code tol}, {@code validationPatience}. */
    public Builder epochs(int maxIter, double tol, int validationPatience) {
      this.maxIter = maxIter;
      this.tol = tol;
      this.validationPatience = validationPatience;
      return this;
    }

    /** The mixing, its rounds per epoch (0: automatic) and treeAggregate's depth. */
    public Builder mixing(MixingMode mode, int rounds, int depth) {
      this.mixing = mode;
      this.mixingRounds = rounds;
      this.aggregationDepth = depth;
      return this;
    }

    /** The binary decision threshold (scores the validation rows and a stream's batches). */
    public Builder threshold(double value) {
      this.threshold = value;
      return this;
    }

    /**
     * Where the cached rows are kept: a Spark storage level's name (MEMORY_AND_DISK, DISK_ONLY,
     * MEMORY_AND_DISK_SER, ...).
     *
     * @throws IllegalArgumentException naming the value and the levels, for an unknown name
     */
    public Builder storageLevel(String level) {
      Settings.storageLevel("storageLevel", level);
      this.storageLevel = level;
      return this;
    }

    /** Where and how often to checkpoint ("" for never). */
    public Builder checkpoints(String dir, int interval) {
      this.checkpointDir = dir;
      this.checkpointInterval = interval;
      return this;
    }

    /**
     * Warm start from a model of {@code numClasses} classes and {@code numFeatures} features
     * whose weights, in the state's layout (see {@code LinearState}), {@code weights} supplies
     * (a fresh array, asked for once, when the training's state is built).
     */
    public Builder initialWeights(int numClasses, int numFeatures, Supplier<double[]> weights) {
      this.initial = new InitialWeights(numClasses, numFeatures, weights);
      return this;
    }

    public TrainingConfig build() {
      if (!validationCol.isEmpty() && calibrationRows.isActive()) {
        throw new IllegalStateException("validation rows are the calibration rows; hold none out"
            + " besides them");
      }
      return new TrainingConfig(this);
    }
  }
}
