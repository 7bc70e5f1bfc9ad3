package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.UpdateRule;
import io.github.sparkperceptron.kernel.VisitOrder;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.BlockMomentum;
import io.github.sparkperceptron.mixing.MixingMode;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.classification.Classifier;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A perceptron classifier for Spark ML, trained on every partition at once and combined by
 * iterative parameter mixing.
 *
 * <pre>
 * Rosenblatt (1958); Novikoff (1962)        the perceptron and its mistake bound R²/γ²
 * Freund &amp; Schapire (1999); Collins (2002)  averaged and voted perceptron, multiclass perceptron
 * Crammer et al. (2006)                     passive-aggressive updates (pa, pa1, pa2)
 * McDonald, Hall &amp; Mann (2010)              iterative parameter mixing
 * </pre>
 *
 * <p>Binary labels are 0/1 (internally y = 2l − 1); multiclass labels 0 .. K−1, with K from the
 * label column's metadata when present, else the largest label + 1. Defaults: 10 epochs, averaged
 * perceptron, mistake-weighted mixing, a fresh full shuffle every epoch (shuffleScope=rows; the
 * faster chunked order is an option, see {@link io.github.sparkperceptron.kernel.VisitOrder}),
 * seed 42. One epoch costs one Spark job
 * and O(non-zeros) work per partition; the driver holds a few K'·(d+1) weight arrays.
 *
 * <p>Usage: {@code new PerceptronClassifier().setMaxIter(20).fit(train)} or as a stage of a
 * {@code Pipeline}; see the README for Java and Scala examples.
 */
public class PerceptronClassifier
    extends Classifier<Vector, PerceptronClassifier, PerceptronClassificationModel>
    implements PerceptronParams, MLWritable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(PerceptronClassifier.class);

  /** See {@link PerceptronClassificationModel}: the uid must answer inside {@code super()}. */
  private static final ThreadLocal<String> PENDING_UID = new ThreadLocal<>();

  private String uid;
  private final PerceptronParamSet paramSet = new PerceptronParamSet(this);
  private PerceptronClassificationModel initialModel;
  private transient EpochListener epochListener;

  public PerceptronClassifier() {
    this(Identifiable.randomUID("perceptron"));
  }

  /** Required by Spark: copies and loading create instances through it. */
  public PerceptronClassifier(String uid) {
    this(stash(uid), true);
  }

  private PerceptronClassifier(String uid, boolean uidStashed) {
    super();
    this.uid = uid;
    PENDING_UID.remove();
  }

  private static String stash(String uid) {
    PENDING_UID.set(uid);
    return uid;
  }

  @Override
  public String uid() {
    return uid != null ? uid : PENDING_UID.get();
  }

  @Override
  public PerceptronParamSet perceptronParamSet() {
    return paramSet;
  }

  public PerceptronClassifier setMaxIter(int value) {
    return (PerceptronClassifier) set(maxIter(), value);
  }

  public PerceptronClassifier setTol(double value) {
    return (PerceptronClassifier) set(tol(), value);
  }

  public PerceptronClassifier setStepSize(double value) {
    return (PerceptronClassifier) set(stepSize(), value);
  }

  public PerceptronClassifier setFitIntercept(boolean value) {
    return (PerceptronClassifier) set(fitIntercept(), value);
  }

  public PerceptronClassifier setUpdateRule(String value) {
    return (PerceptronClassifier) set(updateRule(), value);
  }

  public PerceptronClassifier setAggressiveness(double value) {
    return (PerceptronClassifier) set(aggressiveness(), value);
  }

  public PerceptronClassifier setAveraging(String value) {
    return (PerceptronClassifier) set(averaging(), value);
  }

  public PerceptronClassifier setMixing(String value) {
    return (PerceptronClassifier) set(mixing(), value);
  }

  public PerceptronClassifier setMixingRounds(int value) {
    return (PerceptronClassifier) set(mixingRounds(), value);
  }

  public PerceptronClassifier setShuffle(boolean value) {
    return (PerceptronClassifier) set(shuffle(), value);
  }

  /** {@code rows} or {@code chunks}: see the param's doc and {@code kernel.VisitOrder}. */
  public PerceptronClassifier setShuffleScope(String value) {
    return (PerceptronClassifier) set(shuffleScope(), value);
  }

  public PerceptronClassifier setSeed(long value) {
    return (PerceptronClassifier) set(seed(), value);
  }

  public PerceptronClassifier setThreshold(double value) {
    return (PerceptronClassifier) set(threshold(), value);
  }

  public PerceptronClassifier setWeightCol(String value) {
    return (PerceptronClassifier) set(weightCol(), value);
  }

  public PerceptronClassifier setAggregationDepth(int value) {
    return (PerceptronClassifier) set(aggregationDepth(), value);
  }

  public PerceptronClassifier setValidationIndicatorCol(String value) {
    return (PerceptronClassifier) set(validationIndicatorCol(), value);
  }

  public PerceptronClassifier setValidationPatience(int value) {
    return (PerceptronClassifier) set(validationPatience(), value);
  }

  public PerceptronClassifier setCheckpointDir(String value) {
    return (PerceptronClassifier) set(checkpointDir(), value);
  }

  public PerceptronClassifier setCheckpointInterval(int value) {
    return (PerceptronClassifier) set(checkpointInterval(), value);
  }

  public PerceptronClassifier setClassWeight(String value) {
    return (PerceptronClassifier) set(classWeight(), value);
  }

  /**
   * The number of perceptrons trained in parallel and mixed after every epoch (0, the default:
   * as many as the cluster has task slots). The model depends on it; pin it when models must be
   * identical across clusters. See the README, "How many workers".
   */
  public PerceptronClassifier setNumWorkers(int value) {
    return (PerceptronClassifier) set(numWorkers(), value);
  }

  /**
   * Warm start: training begins from this model's weights instead of zeros. Its number of
   * features and classes must match the training data's. {@code null} clears it. The initial
   * model travels with copies of this estimator and is saved with it.
   */
  public PerceptronClassifier setInitialModel(PerceptronClassificationModel model) {
    this.initialModel = model;
    return this;
  }

  /**
   * Calls {@code listener} after every epoch with that epoch's model ({@code null} clears it).
   * Travels with copies of this estimator; not saved with it.
   */
  public PerceptronClassifier setEpochListener(EpochListener listener) {
    this.epochListener = listener;
    return this;
  }

  /** The warm-start model, or {@code null}. */
  public PerceptronClassificationModel getInitialModel() {
    return initialModel;
  }

  @Override
  public StructType transformSchema(StructType schema) {
    InputChecks.requireNumericColumn(schema, getLabelCol(), "labelCol");
    InputChecks.requireVectorColumn(schema, getFeaturesCol(), "featuresCol");
    if (!getWeightCol().isEmpty()) {
      InputChecks.requireNumericColumn(schema, getWeightCol(), "weightCol");
    }
    if (!getValidationIndicatorCol().isEmpty()) {
      InputChecks.requireBooleanColumn(schema, getValidationIndicatorCol(),
          "validationIndicatorCol");
    }
    return super.transformSchema(schema);
  }

  /**
   * Trains the model: check the params → read the data into cached blocks (validating every row)
   * → run the mixing loop → build the model and its summary.
   */
  @Override
  public PerceptronClassificationModel train(Dataset<?> dataset) {
    UpdateRule rule = updateRuleValue();
    Averaging averagingMode = averagingValue();
    MixingMode mixingMode = mixingValue();
    String validationCol = getValidationIndicatorCol();
    if (!validationCol.isEmpty() && mixingMode == MixingMode.ONESHOT) {
      throw new IllegalArgumentException("validationIndicatorCol needs a model after every"
          + " epoch, which mixing=oneshot never forms; use mixing=mistakes or mixing=uniform, or"
          + " unset validationIndicatorCol");
    }
    if (mixingMode == MixingMode.ONESHOT && getMixingRounds() > 1) {
      throw new IllegalArgumentException("mixingRounds=" + getMixingRounds() + " needs iterative"
          + " mixing, but mixing=oneshot trains every partition alone and mixes once; use"
          + " mixing=momentum or mistakes, or leave mixingRounds at 0");
    }
    if (rule.isPassiveAggressive() && getStepSize() != 1.0) {
      LOG.warn("stepSize={} has no effect with updateRule={}: passive-aggressive rules compute"
          + " their own step", getStepSize(), getUpdateRule());
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());

    try (TrainingInput input = TrainingInput.prepare(dataset, getLabelCol(), getFeaturesCol(),
        getWeightCol(), validationCol, getNumWorkers(), jsc.sc().defaultParallelism(),
        VisitOrder.of(getShuffle(), shuffleScopeValue(), getSeed()), false)) {
      LearnerConfig learner = new LearnerConfig(input.numFeatures, input.numClasses,
          getFitIntercept(), getStepSize(), rule, getAggressiveness(), averagingMode,
          classWeights(input));
      MixingSettings settings = mixingSettings(jsc, input, learner, getMaxIter(), getSeed(),
          validationCol);
      if (averagingMode == Averaging.VOTE) {
        MemoryPlan.requireVoteFits(getMaxIter(), settings.rounds, input.numRows,
            input.storedValues, learner.stateLength(), Runtime.getRuntime().maxMemory());
      }
      // Before anything of the model's size is allocated (the zero state, the initial model's
      // weights): a model that cannot fit is refused with a message, not an OutOfMemoryError.
      MemoryPlan.forTraining(learner, input, settings, initialModel != null, jsc.sc())
          .enforce(jsc.sc());
      LinearState start = initialState(learner);
      LOG.info("Training {}: {} on {} rows x {} features, {} classes, {} workers",
          uid(), describeParams(), input.numRows, input.numFeatures, input.numClasses,
          input.numPartitions);

      int onlyClass = input.singleClass();
      if (onlyClass >= 0 && getFitIntercept() && initialModel == null) {
        LOG.warn("The training data hold a single class ({}); the model predicts it for every"
            + " input (zero coefficients, infinite intercept), as Spark's LogisticRegression does",
            onlyClass);
        return constantModel(learner, onlyClass, input);
      }
      if (onlyClass >= 0) {
        LOG.warn("The training data hold a single class ({}); training anyway because"
            + " fitIntercept=false or an initial model is set", onlyClass);
      }

      Checkpoints checkpoints = checkpoints(jsc, input, learner, settings);
      EpochListener listener = epochListener == null ? null : (epoch, snapshot) -> {
        PerceptronClassificationModel m = copyValues(snapshot, extractParamMap());
        m.setParent(this);
        epochListener.onEpoch(epoch, m);
      };
      TrainingProgress progress = IterativeParameterMixing.run(jsc, input, learner, settings,
          start, checkpoints, getCheckpointInterval(), listener, uid());
      PerceptronClassificationModel model = PerceptronClassificationModel.fromStateWeights(uid(),
          learner.numClasses(), learner.numFeatures(), progress.modelState().modelWeights(),
          progress.finalVote);
      if (checkpoints != null) {
        checkpoints.clear();
      }
      return model.setSummary(summarize(progress, rule, input));
    }
  }

  /** The dense-above share {@link MixingSettings#EXCHANGE_KEY} asks for. */
  private static double exchangeDensity(String mode) {
    switch (mode.toLowerCase(Locale.ROOT)) {
      case "auto":
        return io.github.sparkperceptron.mixing.StateDelta.DENSE_ABOVE;
      case "sparse":
        return Double.POSITIVE_INFINITY;
      case "dense":
        return -1.0;
      default:
        throw new IllegalArgumentException(MixingSettings.EXCHANGE_KEY + " must be auto, sparse"
            + " or dense, got '" + mode + "'");
    }
  }

  /** From this many workers on, the mean mixes warn that they dilute (see mixingSettings). */
  static final int DILUTING_WORKERS = 8;

  /**
   * The mixing loop's settings for this data: rounds, block momentum and its bound resolved, the
   * exchange's representation from {@link MixingSettings#EXCHANGE_KEY}. {@code maxIter} and
   * {@code seed} are parameters because a stream's micro-batch ({@link OnlineTraining}) runs its
   * own number of epochs with a seed of its own.
   */
  MixingSettings mixingSettings(JavaSparkContext jsc, TrainingInput input, LearnerConfig learner,
      int maxIter, long seed, String validationCol) {
    MixingMode mixingMode = mixingValue();
    int workers = input.numPartitions;
    int rounds = mixingMode == MixingMode.ONESHOT ? 1
        : getMixingRounds() > 0 ? getMixingRounds()
        : MixingSettings.automaticRounds(mixingMode, workers);
    double momentum = mixingMode == MixingMode.MOMENTUM
        ? BlockMomentum.defaultMomentum(workers) : 0.0;
    double bound = 0.0;
    if (learner.updateRule() == UpdateRule.PERCEPTRON) {
      // ρ of BlockMomentum's bound: one update grows ‖w‖² by at most τ·(τ_max·max‖x̃‖²), twice
      // that for multiclass (two rows move).
      double maxWeight = 0.0;
      for (int k = 0; k < input.numClasses; k++) {
        double classFactor = learner.classWeights() == null ? 1.0 : learner.classWeights()[k];
        maxWeight = Math.max(maxWeight, input.maxWeightByClass[k] * classFactor);
      }
      double radius = input.maxSquaredNorm + (learner.fitIntercept() ? 1.0 : 0.0);
      bound = (learner.isBinary() ? 1.0 : 2.0) * learner.stepSize() * maxWeight * radius;
    }
    if (workers >= DILUTING_WORKERS
        && (mixingMode == MixingMode.MISTAKES || mixingMode == MixingMode.UNIFORM)) {
      // BENCHMARKS.md, issue 9: the mean of W workers' changes moves the weights about as far as
      // an epoch over 1/W of the data, so these modes lose accuracy per epoch as W grows.
      LOG.warn("mixing={} averages the changes of {} workers, which costs accuracy per epoch"
          + " (pendigits: 3 points at 8 workers, 6 at 64, after 10 epochs); mixing=momentum"
          + " keeps one worker's accuracy at 64 workers (BENCHMARKS.md, issue 9)",
          mixingMode.paramValue(), workers);
    }
    if (mixingMode != MixingMode.ONESHOT) {
      LOG.info("Mixing: {} over {} workers, {} round{} per epoch{}", mixingMode.paramValue(),
          workers, rounds, rounds == 1 ? "" : "s",
          momentum > 0 ? String.format(Locale.ROOT, ", block momentum %.4f", momentum) : "");
    }
    MixingSettings settings = new MixingSettings(maxIter, getTol(), mixingMode, getShuffle(),
        shuffleScopeValue(), seed, getAggregationDepth(), !validationCol.isEmpty(),
        getValidationPatience(), getThreshold(), rounds, momentum, bound);
    String exchange = jsc.getLocalProperty(MixingSettings.EXCHANGE_KEY);
    settings.denseAbove = exchangeDensity(exchange != null ? exchange
        : jsc.getConf().get(MixingSettings.EXCHANGE_KEY, "auto"));
    return settings;
  }

  /**
   * The checkpoints of this training, or null when {@code checkpointDir} is unset, checkpoints
   * are off (interval −1) or there is nothing to checkpoint (one-shot mixing is one job).
   */
  private Checkpoints checkpoints(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, MixingSettings settings) {
    if (getCheckpointDir().isEmpty() || getCheckpointInterval() < 1) {
      return null;
    }
    if (settings.mixing == MixingMode.ONESHOT) {
      LOG.warn("checkpointDir is ignored with mixing=oneshot: its training is a single Spark job");
      return null;
    }
    return new Checkpoints(jsc.hadoopConfiguration(), getCheckpointDir(), fingerprint(input),
        CheckpointFormat.Shape.of(learner, input.numPartitions, settings));
  }

  /**
   * The params that configure a training, in one fixed order: the update, the epochs and their
   * order, mixing, the columns read, validation, checkpoints and the workers (not the output
   * columns {@code predictionCol} and {@code rawPredictionCol}). The checkpoint fingerprint, the
   * training's log line and the jobs' flag table ({@code jobs/TrainingFlags}) are derived from
   * this list, so a new param is added here once. The order is part of the checkpoint format:
   * the fingerprint hashes the params in it, so append, never reorder.
   */
  public List<Param<?>> trainingParams() {
    return List.of(maxIter(), tol(), stepSize(), fitIntercept(), updateRule(), aggressiveness(),
        averaging(), mixing(), mixingRounds(), shuffle(), shuffleScope(), seed(), threshold(),
        aggregationDepth(), validationPatience(), classWeight(), labelCol(), featuresCol(),
        weightCol(), validationIndicatorCol(), checkpointDir(), checkpointInterval(),
        numWorkers());
  }

  /**
   * The training params the checkpoint fingerprint hashes, in {@link #trainingParams()}'s order.
   * Left out: where and how often checkpoints are written, which do not change the training, and
   * numWorkers, which enters resolved (an automatic numWorkers is the cluster's task slots).
   */
  List<Param<?>> fingerprintedParams() {
    List<Param<?>> skipped = List.of(checkpointDir(), checkpointInterval(), numWorkers());
    List<Param<?>> params = new java.util.ArrayList<>(trainingParams());
    params.removeAll(skipped);
    return params;
  }

  /**
   * Identifies a training: the params that shape it and the facts of its data and workers (the
   * resolved number, so that an automatic numWorkers on a cluster of another size never resumes
   * a checkpoint of a different training). A checkpoint resumes only the training with the same
   * fingerprint.
   */
  private String fingerprint(TrainingInput input) {
    StringBuilder sb = new StringBuilder("spark-perceptron checkpoint 1\n");
    for (Param<?> p : fingerprintedParams()) {
      sb.append(p.name()).append('=').append(isDefined(p) ? String.valueOf(getOrDefault(p)) : "")
          .append('\n');
    }
    sb.append("rows=").append(input.numRows).append(" validation=").append(input.validationRows)
        .append(" features=").append(input.numFeatures).append(" classes=")
        .append(input.numClasses).append(" stored=").append(input.storedValues)
        .append(" weight=").append(Double.doubleToLongBits(input.totalWeight))
        .append(" workers=").append(input.numPartitions)
        .append(" partitionRows=").append(Arrays.toString(input.partitionRows))
        .append(" classCounts=").append(Arrays.toString(input.classCounts)).append('\n');
    if (initialModel != null) {
      sb.append("initial=").append(Arrays.hashCode(initialModel.toStateWeights()));
    }
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : digest) {
        hex.append(String.format(Locale.ROOT, "%02x", b));
      }
      return hex.toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The per-class factors on the sample weights that {@code classWeight} asks for, or null. */
  private double[] classWeights(TrainingInput input) {
    double[] weights = classWeightValue().factors(input.classWeightSums);
    if (weights != null) {
      LOG.info("classWeight={}: class weights {}", getClassWeight(), Arrays.toString(weights));
    }
    return weights;
  }

  LinearState initialState(LearnerConfig learner) {
    LinearState state = LinearState.zero(learner);
    if (initialModel != null) {
      if (initialModel.numFeatures() != learner.numFeatures()
          || initialModel.numClasses() != learner.numClasses()) {
        throw new IllegalArgumentException("The initial model (setInitialModel) has "
            + initialModel.numFeatures() + " features and " + initialModel.numClasses()
            + " classes, but the training data have " + learner.numFeatures() + " features and "
            + learner.numClasses() + " classes; warm-start only from a model trained on data of"
            + " the same shape");
      }
      double[] w = initialModel.toStateWeights();
      System.arraycopy(w, 0, state.weights(), 0, w.length);
    }
    return state;
  }

  private PerceptronClassificationModel constantModel(LearnerConfig learner, int onlyClass,
      TrainingInput input) {
    int rows = learner.weightRows();
    double[] intercepts = new double[rows];
    if (learner.isBinary()) {
      intercepts[0] = onlyClass == 1 ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
    } else {
      Arrays.fill(intercepts, Double.NEGATIVE_INFINITY);
      intercepts[onlyClass] = Double.POSITIVE_INFINITY;
    }
    PerceptronClassificationModel model = new PerceptronClassificationModel(uid(),
        learner.numClasses(), learner.numFeatures(),
        new double[rows * learner.numFeatures()], intercepts, null);
    return model.setSummary(new PerceptronTrainingSummary(new long[0], new long[0], new long[0],
        new double[0], new double[0], new double[0], new double[0], new double[0], new long[0][],
        new double[0], 0, PerceptronTrainingSummary.StopReason.NOTHING_TO_TRAIN,
        input.layout.inputPartitions, input.numPartitions));
  }

  private static PerceptronTrainingSummary summarize(TrainingProgress progress, UpdateRule rule,
      TrainingInput input) {
    List<EpochStats> epochs = progress.epochs;
    int n = epochs.size();
    long[] updates = new long[n];
    long[] mistakes = new long[n];
    long[] examples = new long[n];
    double[] objective = new double[n];
    double[] loss = new double[n];
    double[] hinge = new double[n];
    double[] change = new double[n];
    double[] seconds = new double[n];
    for (int e = 0; e < n; e++) {
      EpochStats s = epochs.get(e);
      updates[e] = s.updates;
      mistakes[e] = s.mistakes;
      examples[e] = s.examples;
      loss[e] = s.perceptronLoss;
      hinge[e] = s.hingeLoss;
      double descended = rule.isPassiveAggressive() ? s.hingeLoss : s.perceptronLoss;
      objective[e] = s.weightSeen > 0 ? descended / s.weightSeen : 0.0;
      change[e] = progress.weightChanges.get(e);
      seconds[e] = progress.seconds.get(e);
    }
    PerceptronTrainingSummary.StopReason reason =
        n == 0 ? PerceptronTrainingSummary.StopReason.NOTHING_TO_TRAIN : progress.stopReason;
    double[] validation = progress.validationAccuracy.stream().mapToDouble(Double::doubleValue)
        .toArray();
    return new PerceptronTrainingSummary(updates, mistakes, examples, objective, loss, hinge,
        change, seconds, progress.partitionUpdates.toArray(new long[0][]), validation,
        progress.modelEpoch, reason, input.layout.inputPartitions, input.numPartitions);
  }

  /** The training params as "name=value, ...", those left unset (optional columns) left out. */
  private String describeParams() {
    StringBuilder sb = new StringBuilder();
    for (Param<?> p : trainingParams()) {
      if (isDefined(p)) {
        sb.append(sb.length() == 0 ? "" : ", ").append(p.name()).append('=')
            .append(getOrDefault(p));
      }
    }
    return sb.toString();
  }

  @Override
  public PerceptronClassifier copy(ParamMap extra) {
    PerceptronClassifier copied = defaultCopy(extra);
    copied.initialModel = initialModel;
    copied.epochListener = epochListener;
    return copied;
  }

  @Override
  public MLWriter write() {
    return new Writer(this);
  }

  public static MLReader<PerceptronClassifier> read() {
    return new Reader();
  }

  public static PerceptronClassifier load(String path) {
    return read().load(path);
  }

  private static final String INITIAL_MODEL_DIR = "initialModel";

  /** Spark's params layout, plus the initial model (if any) under {@code initialModel/}. */
  private static final class Writer extends MLWriter {
    private final PerceptronClassifier instance;

    Writer(PerceptronClassifier instance) {
      this.instance = instance;
    }

    @Override
    public void saveImpl(String path) {
      ModelFiles.saveMetadata(instance, path, sparkSession());
      if (instance.initialModel != null) {
        try {
          instance.initialModel.write().session(sparkSession())
              .save(new Path(path, INITIAL_MODEL_DIR).toString());
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }
  }

  private static final class Reader extends MLReader<PerceptronClassifier> {
    @Override
    public PerceptronClassifier load(String path) {
      DefaultParamsReader.Metadata metadata = ModelFiles.loadMetadata(path, sparkSession(),
          PerceptronClassifier.class);
      PerceptronClassifier estimator = new PerceptronClassifier(metadata.uid());
      metadata.getAndSetParams(estimator, scala.Option.empty());
      Path initial = new Path(path, INITIAL_MODEL_DIR);
      if (ModelFiles.exists(sparkSession(), initial)) {
        estimator.setInitialModel(PerceptronClassificationModel.read().session(sparkSession())
            .load(initial.toString()));
      }
      return estimator;
    }
  }
}
