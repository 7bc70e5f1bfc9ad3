package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.blocks.InputChecks;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.CalibrationRows;
import io.github.sparkperceptron.internal.engine.EpochCallback;
import io.github.sparkperceptron.internal.engine.MixingLoop;
import io.github.sparkperceptron.internal.engine.TrainingResult;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ClassWeight;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.classification.ProbabilisticClassifier;
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
import scala.Option;

/**
 * A perceptron classifier for Spark ML, trained on every worker at once and combined by
 * iterative parameter mixing.
 *
 * <pre>
 * Rosenblatt (1958); Novikoff (1962)        the perceptron and its mistake bound R²/γ²
 * Freund &amp; Schapire (1999); Collins (2002)  averaged and voted perceptron, multiclass perceptron
 * Crammer et al. (2006)                     passive-aggressive updates (pa, pa1, pa2)
 * McDonald, Hall &amp; Mann (2010)              iterative parameter mixing
 * Platt (1999); Guo et al. (2017);          the probabilities: a sigmoid, temperature scaling or
 *   Zadrozny &amp; Elkan (2002)               isotonic regression of the scores (calibration)
 * </pre>
 *
 * <p>Binary labels are 0/1 (internally y = 2l − 1); multiclass labels 0 .. K−1, with K from the
 * label column's metadata when present, else the largest label + 1. Defaults: 10 epochs, averaged
 * perceptron, mistake-weighted mixing, a fresh full shuffle every epoch where a worker's rows fit
 * one stored chunk of 8 MiB and the chunked order beyond (shuffleScope=auto; see
 * {@link io.github.sparkperceptron.internal.kernel.VisitOrder}),
 * seed 42. One epoch costs one Spark job per mixing round ({@code mixingRounds}; one for the
 * mean mixes, about one per worker for momentum) and O(non-zeros) work per worker; the driver
 * holds a few K'·(d+1) weight arrays.
 *
 * <p>Usage: {@code new PerceptronClassifier().setMaxIter(20).fit(train)} or as a stage of a
 * {@code Pipeline}; see the README for Java and Scala examples.
 */
public non-sealed class PerceptronClassifier
    extends ProbabilisticClassifier<Vector, PerceptronClassifier, PerceptronClassificationModel>
    implements PerceptronParams, MLWritable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(PerceptronClassifier.class);

  /** See {@link PerceptronClassificationModel}: the uid must answer inside {@code super()}. */
  private static final ThreadLocal<String> PENDING_UID = new ThreadLocal<>();

  private String uid;
  final PerceptronParamSet paramSet = new PerceptronParamSet(this);
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

  /**
   * {@code auto} (the default), {@code rows} or {@code chunks}: see the param's doc and
   * {@code kernel.VisitOrder}.
   */
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

  /** {@code none}, {@code sigmoid} (the default) or {@code isotonic}: see the param's doc. */
  public PerceptronClassifier setCalibration(String value) {
    return (PerceptronClassifier) set(calibration(), value);
  }

  /** k ≥ 2: calibrate on out-of-fold scores of k fold models (k more fits); 0 = off. */
  public PerceptronClassifier setCalibrationFolds(int value) {
    return (PerceptronClassifier) set(calibrationFolds(), value);
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
   * Where Spark keeps the training data's cached chunks (a storage level's name, default
   * MEMORY_AND_DISK: what does not fit in memory spills to local disk, chunk by chunk). It never
   * changes the model.
   */
  public PerceptronClassifier setStorageLevel(String value) {
    return (PerceptronClassifier) set(storageLevel(), value);
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
   * Spark's {@code fit}, after which the model's {@code calibration} param names the calibrator
   * it has (fit copies this estimator's params onto the model; a model of a single class has no
   * fitted calibrator, whatever was asked).
   */
  @Override
  public PerceptronClassificationModel fit(Dataset<?> dataset) {
    return asFitted(super.fit(dataset));
  }

  /**
   * Trains the model: check the params (the config) → read the data into cached blocks
   * (validating every row) → run the mixing loop → build the model and its summary → fit its
   * calibrator.
   */
  @Override
  public PerceptronClassificationModel train(Dataset<?> dataset) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());
    try (TrainingInput input = TrainingInput.prepare(dataset,
        TrainingPlan.forFit(jsc, trainingConfig()))) {
      return trainOn(input);
    }
  }

  /**
   * {@code fit} on data already in cached blocks (the jobs' one-pass text reading,
   * {@code internal.ml.EngineBridge.fit}): the model with this estimator's params and parent, as
   * {@code fit} returns it. The caller keeps the blocks, and closes them.
   */
  PerceptronClassificationModel fit(TrainingInput input) {
    return asFitted(trainOn(input));
  }

  /**
   * {@code model} as a fit returns it, whichever way its data came in (a DataFrame, cached
   * blocks, a stream's state, an epoch's snapshot): this estimator's params and parent, and a
   * {@code calibration} param that names the calibrator the model has (a model of a single
   * class, an epoch's snapshot or a stream's model has none, whatever was asked).
   */
  PerceptronClassificationModel asFitted(PerceptronClassificationModel model) {
    copyValues(model, extractParamMap());
    model.setParent(this);
    return model.withCalibration(model.calibrator());
  }

  private void checkParams() {
    UpdateRule rule = updateRuleValue();
    MixingMode mixingMode = mixingValue();
    if (!getValidationIndicatorCol().isEmpty() && mixingMode == MixingMode.ONESHOT) {
      throw new IllegalArgumentException("validationIndicatorCol needs a model after every"
          + " epoch, which mixing=oneshot never forms; use mixing=mistakes or mixing=uniform, or"
          + " unset validationIndicatorCol");
    }
    if (mixingMode == MixingMode.ONESHOT && getMixingRounds() > 1) {
      throw new IllegalArgumentException("mixingRounds=" + getMixingRounds() + " needs iterative"
          + " mixing, but mixing=oneshot trains every worker alone and mixes once; use"
          + " mixing=momentum or mistakes, or leave mixingRounds at 0");
    }
    if (getCalibrationFolds() == 1) {
      throw new IllegalArgumentException("calibrationFolds=1 leaves no rows to train a fold"
          + " model on; use 2 or more folds, or 0 for none");
    }
    if (getCalibrationFolds() >= 2 && !getValidationIndicatorCol().isEmpty()) {
      throw new IllegalArgumentException("calibrationFolds=" + getCalibrationFolds()
          + " and validationIndicatorCol both choose the calibration rows; set one of them");
    }
    if (rule.isPassiveAggressive() && getStepSize() != 1.0) {
      LOG.warn("stepSize={} has no effect with updateRule={}: passive-aggressive rules compute"
          + " their own step", getStepSize(), getUpdateRule());
    }
  }

  /**
   * The mixing loop over the blocks' training rows, then the model, its summary and its
   * calibrator (on the rows the blocks hold apart, or cross-fitted: {@link ModelCalibration}).
   */
  private PerceptronClassificationModel trainOn(TrainingInput input) {
    UpdateRule rule = updateRuleValue();
    TrainingConfig config = input.plan().config();
    LearnerConfig learner = config.learner(input.numFeatures(), input.numClasses(),
        classWeights(input));
    MixingLoop loop = new MixingLoop(input, input.plan().withData(input.facts(), learner));
    // Before anything of the model's size is allocated (the zero state, the initial model's
    // weights): a model that cannot fit is refused with a message, not an OutOfMemoryError.
    loop.requireMemory();
    LinearState start = config.initialState(learner);
    LOG.info("Training {}: {} on {} rows x {} features, {} classes, {} workers",
        uid(), describeParams(), input.numRows(), input.numFeatures(), input.numClasses(),
        input.numWorkers());

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

    EpochCallback callback = epochListener == null ? null : (epoch, state, vote) -> {
      PerceptronClassificationModel snapshot = PerceptronClassificationModel.fromStateWeights(
          uid(), learner.numClasses(), learner.numFeatures(), state.modelWeights(), vote);
      epochListener.onEpoch(epoch, asFitted(snapshot));
    };
    TrainingResult result = loop.run(start, () -> fingerprint(input), callback);
    PerceptronClassificationModel model = PerceptronClassificationModel.fromStateWeights(uid(),
        learner.numClasses(), learner.numFeatures(), result.modelWeights(), result.vote());
    model.setSummary(new PerceptronTrainingSummary(result, rule.isPassiveAggressive()));
    return model.withCalibration(ModelCalibration.fit(this, input, model));
  }

  /**
   * The engine's settings for these params: the one place where the params become a
   * {@link TrainingConfig}, for {@code fit} and for streams ({@code internal.ml.EngineBridge}),
   * and so where their combinations are checked, before any data are read.
   */
  TrainingConfig trainingConfig() {
    checkParams();
    TrainingConfig.Builder b = TrainingConfig.builder().name(uid())
        .columns(getLabelCol(), getFeaturesCol(), getWeightCol(), getValidationIndicatorCol())
        .calibrationRows(heldOutCalibrationRows())
        .numWorkers(getNumWorkers())
        .visitOrder(getShuffle(), shuffleScopeValue(), getSeed())
        .learner(updateRuleValue(), getStepSize(), getAggressiveness(), getFitIntercept(),
            averagingValue())
        .epochs(getMaxIter(), getTol(), getValidationPatience())
        .mixing(mixingValue(), getMixingRounds(), getAggregationDepth())
        .threshold(getThreshold())
        .checkpoints(getCheckpointDir(), getCheckpointInterval())
        .storageLevel(getStorageLevel());
    PerceptronClassificationModel initial = initialModel;
    if (initial != null) {
      b.initialWeights(initial.numClasses(), initial.numFeatures(), initial::toStateWeights);
    }
    return b.build();
  }

  /**
   * The rows the training holds out to calibrate on: a seeded {@value CalibrationRows#HELD_OUT_PERCENT}%
   * share when a calibrator is asked for and neither validation rows nor folds choose its rows
   * (see {@link ModelCalibration}); else none, so that calibration=none, validation rows and
   * cross-fitting train on the rows they always did.
   */
  private CalibrationRows heldOutCalibrationRows() {
    return calibrationValue() != CalibrationMethod.NONE && getValidationIndicatorCol().isEmpty()
        && getCalibrationFolds() < 2
        ? CalibrationRows.heldOut(CalibrationRows.HELD_OUT_SHARE, getSeed())
        : CalibrationRows.NONE;
  }

  /**
   * The params that configure a training, in one fixed order: the update, the epochs and their
   * order, mixing, the columns read, validation, checkpoints, the workers and the calibration
   * (not the output columns {@code predictionCol}, {@code rawPredictionCol} and
   * {@code probabilityCol}, nor Spark's {@code thresholds}, a prediction rule the model also
   * takes). The checkpoint fingerprint, the training's log line and the jobs' flag table
   * ({@code jobs/TrainingFlags}) are derived from this list, so a new param is added here once. The order is part of the checkpoint format:
   * the fingerprint hashes the params in it, so append, never reorder.
   */
  List<Param<?>> trainingParams() {
    return List.of(maxIter(), tol(), stepSize(), fitIntercept(), updateRule(), aggressiveness(),
        averaging(), mixing(), mixingRounds(), shuffle(), shuffleScope(), seed(), threshold(),
        aggregationDepth(), validationPatience(), classWeight(), labelCol(), featuresCol(),
        weightCol(), validationIndicatorCol(), checkpointDir(), checkpointInterval(),
        numWorkers(), storageLevel(), calibration(), calibrationFolds());
  }

  /**
   * The training params the checkpoint fingerprint hashes, in {@link #trainingParams()}'s order.
   * Left out: where and how often checkpoints are written and where the data are cached, which
   * do not change the training, numWorkers, which enters resolved (an automatic numWorkers is
   * the cluster's task slots), and calibration and calibrationFolds, which act after the epochs a
   * checkpoint holds (so checkpoints written before they existed still resume); the rows the
   * default calibration holds out of training change the data's identity, which is hashed.
   */
  List<Param<?>> fingerprintedParams() {
    List<Param<?>> skipped = List.of(checkpointDir(), checkpointInterval(), numWorkers(),
        storageLevel(), calibration(), calibrationFolds());
    List<Param<?>> params = new ArrayList<>(trainingParams());
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
    String text = "spark-perceptron checkpoint 2\n" + settingsText(fingerprintedParams())
        + input.identity() + '\n' + initialModelText();
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : digest) {
        hex.append(String.format(Locale.ROOT, "%02x", b));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * The params {@code which} as "name=value" lines in the given order, a param that selects a
   * named value by that value's name in lower case (so "PA1" and "pa1" are one setting): how a
   * training's settings are identified, in the text a checkpoint's fingerprint hashes and the
   * configuration a stream's learner state holds.
   */
  String settingsText(List<Param<?>> which) {
    List<Param<?>> named = List.of(updateRule(), averaging(), mixing(), shuffleScope(),
        classWeight(), calibration());
    StringBuilder sb = new StringBuilder();
    for (Param<?> p : which) {
      String value = isDefined(p) ? String.valueOf(getOrDefault(p)) : "";
      sb.append(p.name()).append('=')
          .append(named.contains(p) ? value.toLowerCase(Locale.ROOT) : value).append('\n');
    }
    return sb.toString();
  }

  /**
   * The initial model's identity line (hashes of its coefficients and intercepts), or "" when
   * none is set: the other half of how a training's settings are identified.
   */
  String initialModelText() {
    if (initialModel == null) {
      return "";
    }
    double[] w = initialModel.numClasses() == 2 ? initialModel.coefficients().toArray()
        : initialModel.coefficientMatrix().toArray();
    return "initialModel=" + Arrays.hashCode(w) + '/'
        + Arrays.hashCode(initialModel.interceptVector().toArray()) + '\n';
  }

  /** {@link #getCalibration()} as the calibration package's enum. */
  CalibrationMethod calibrationValue() {
    return CalibrationMethod.fromParam(getCalibration());
  }

  /** {@link #getUpdateRule()} as the kernel's enum. */
  UpdateRule updateRuleValue() {
    return UpdateRule.fromParam(getUpdateRule());
  }

  /** {@link #getAveraging()} as the kernel's enum. */
  Averaging averagingValue() {
    return Averaging.fromParam(getAveraging());
  }

  /** {@link #getShuffleScope()} as the kernel's enum. */
  ShuffleScope shuffleScopeValue() {
    return ShuffleScope.fromParam(getShuffleScope());
  }

  /** {@link #getMixing()} as the mixing package's enum. */
  MixingMode mixingValue() {
    return MixingMode.fromParam(getMixing());
  }

  /** {@link #getClassWeight()} as the kernel's enum. */
  ClassWeight classWeightValue() {
    return ClassWeight.fromParam(getClassWeight());
  }

  /** The per-class factors on the sample weights that {@code classWeight} asks for, or null. */
  private double[] classWeights(TrainingInput input) {
    double[] weights = classWeightValue().factors(input.classWeightSums());
    if (weights != null) {
      LOG.info("classWeight={}: class weights {}", getClassWeight(), Arrays.toString(weights));
    }
    return weights;
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
    // No calibrator either: the infinite intercept gives its class probability 1.
    PerceptronClassificationModel model = new PerceptronClassificationModel(uid(),
        learner.numClasses(), learner.numFeatures(),
        new double[rows * learner.numFeatures()], intercepts, null);
    return model.setSummary(new PerceptronTrainingSummary(TrainingResult.nothingToTrain(input),
        false));
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
        } catch (IOException e) {
          throw new UncheckedIOException(e);
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
      metadata.getAndSetParams(estimator, Option.empty());
      Path initial = new Path(path, INITIAL_MODEL_DIR);
      if (ModelFiles.exists(sparkSession(), initial)) {
        estimator.setInitialModel(PerceptronClassificationModel.read().session(sparkSession())
            .load(initial.toString()));
      }
      return estimator;
    }
  }
}
