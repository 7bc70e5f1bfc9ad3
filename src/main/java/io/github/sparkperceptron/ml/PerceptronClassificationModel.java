package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.blocks.InputChecks;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.classification.ClassificationModel;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.linalg.DenseMatrix;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.GeneralMLWritable;
import org.apache.spark.ml.util.GeneralMLWriter;
import org.apache.spark.ml.util.HasTrainingSummary;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.Tuple3;

/**
 * A trained perceptron: K' weight rows over d features plus intercepts, where K' = 1 for binary
 * models (margin m = w·x + b; raw prediction [−m, m] as Spark's {@code LinearSVCModel}; predicts 1
 * when m &gt; {@code threshold}) and K' = K for multiclass models (raw prediction = the K scores
 * w_k·x + b_k; predicts the arg-max, ties to the lowest class index).
 *
 * <p>A voted model (averaging=vote) predicts by the vote of every intermediate weight vector
 * instead (see {@link VotedPerceptron}): binary raw prediction [−v, v] with v the weighted vote,
 * predicting 1 when v &gt; {@code threshold}; multiclass raw prediction = the K vote totals.
 *
 * <p><b>Probabilities.</b> The model is a Spark {@code ProbabilisticClassificationModel}: its
 * calibrator (param {@code calibration}, fitted after training, or by {@link #calibrate}; see
 * {@link Calibrator}) maps the raw prediction to the {@code probabilityCol}, which
 * {@code BinaryClassificationEvaluator}, {@code MulticlassClassificationEvaluator}'s
 * {@code logLoss}, {@code CrossValidator} and {@code OneVsRest} read as they read logistic
 * regression's. The prediction does not come from the probabilities: it stays the margin rule
 * above ({@code threshold}, LinearSVC's semantics), bit for bit as without calibration, unless
 * {@code thresholds} is set, which switches to Spark's probabilistic rule: the class of the
 * largest p_k / t_k ({@link TransformColumns}).
 *
 * <p>Prediction costs O(K'·non-zeros of x) (a vote: see {@link VotedPerceptron}). The model is
 * immutable apart from its output params (column names, {@code threshold}); it carries the
 * estimator's params with the same getters.
 *
 * <p>Persistence goes through Spark's {@link GeneralMLWriter}, so a format can be named:
 * {@code model.write().save(path)} writes Spark's layout (format {@code "internal"}, the
 * default), {@code model.write().format("onnx").save(path)} an ONNX graph (see
 * {@code io.github.sparkperceptron.onnx}). For Spark Connect the model is registered as a
 * {@code Transformer} service and implements {@link HasTrainingSummary}, whose {@code summary}
 * the Connect server lets clients fetch.
 *
 * <p>{@link #transform} (and {@link #evaluate}, the predict job, everything built on them)
 * broadcasts one compact scorer (a {@link Predictor}: feature-major weights for K &gt; 2, or the
 * vote) per call and its tasks read it from the executor's copy. Spark's
 * {@code ClassificationModel.transform} closes its UDFs over the model instead, so every task
 * would deserialise its own copy of the coefficients (50 MB at K = 100, d = 2^16). The output
 * columns, their metadata and every value are those of Spark's transform and of
 * {@link #predictRaw}/{@link #predict}, which score with the same {@link Predictor}.
 */
public non-sealed class PerceptronClassificationModel
    extends ProbabilisticClassificationModel<Vector, PerceptronClassificationModel>
    implements PerceptronParams, GeneralMLWritable,
        HasTrainingSummary<PerceptronTrainingSummary> {
  private static final long serialVersionUID = 1L;

  /**
   * Spark's Scala superclass constructors create params, and with them call {@link #uid()},
   * before any Java constructor body or field initializer of this class runs; the uid travels
   * through this slot until the field is set.
   */
  private static final ThreadLocal<String> PENDING_UID = new ThreadLocal<>();
  private static final Logger LOG = LoggerFactory.getLogger(PerceptronClassificationModel.class);

  private String uid;
  final PerceptronParamSet paramSet = new PerceptronParamSet(this);
  private final int numClasses;
  private final int numFeatures;
  /** K' rows of d coefficients, row after row. */
  private final double[] coefficients;
  /** K' intercepts. */
  private final double[] intercepts;
  /** The voted perceptron's vote (averaging=vote), or {@code null}. */
  private final VotedPerceptron vote;
  /** Raw scores to the probabilityCol: none (the raw link) until fit or load sets one. */
  private Calibrator calibrator;
  private transient PerceptronTrainingSummary trainingSummary;
  /** The scorer of {@link #predictRaw} and {@link #predict}, built on first use. */
  private transient volatile Predictor scorer;

  PerceptronClassificationModel(String uid, int numClasses, int numFeatures,
      double[] coefficients, double[] intercepts, VotedPerceptron vote) {
    this(stash(uid), numClasses, numFeatures, coefficients, intercepts, vote, true);
  }

  /**
   * An empty binary model over no features, for {@link java.util.ServiceLoader}: Spark Connect
   * finds models through {@code META-INF/services/org.apache.spark.ml.Transformer}, and the
   * service loader requires a public no-argument constructor of every class listed there (Spark's
   * own models have one for the same reason). Models come from {@code fit} and {@code load}.
   */
  public PerceptronClassificationModel() {
    this(Identifiable.randomUID("perceptron"), 2, 0, new double[0], new double[1], null);
  }

  private PerceptronClassificationModel(String uid, int numClasses, int numFeatures,
      double[] coefficients, double[] intercepts, VotedPerceptron vote, boolean uidStashed) {
    super();
    this.uid = uid;
    PENDING_UID.remove();
    int rows = numClasses == 2 ? 1 : numClasses;
    if (numClasses < 2 || numFeatures < 0 || coefficients.length != (long) rows * numFeatures
        || intercepts.length != rows) {
      throw new IllegalArgumentException("inconsistent model shape: " + numClasses + " classes, "
          + numFeatures + " features, " + coefficients.length + " coefficients, "
          + intercepts.length + " intercepts");
    }
    this.numClasses = numClasses;
    this.numFeatures = numFeatures;
    this.coefficients = coefficients;
    this.intercepts = intercepts;
    if (vote != null && (vote.numClasses() != numClasses || vote.numFeatures() != numFeatures)) {
      throw new IllegalArgumentException("the vote's shape differs from the model's");
    }
    this.vote = vote;
    this.calibrator = Calibrator.none(numClasses);
  }

  private static String stash(String uid) {
    PENDING_UID.set(uid);
    return uid;
  }

  /** Builds a model from one flat weight array in the kernel's layout (rows of d+1, bias last). */
  static PerceptronClassificationModel fromStateWeights(String uid, int numClasses,
      int numFeatures, double[] stateWeights, VotedPerceptron vote) {
    int rows = numClasses == 2 ? 1 : numClasses;
    double[] coef = new double[rows * numFeatures];
    double[] icpt = new double[rows];
    for (int k = 0; k < rows; k++) {
      System.arraycopy(stateWeights, k * (numFeatures + 1), coef, k * numFeatures, numFeatures);
      icpt[k] = stateWeights[k * (numFeatures + 1) + numFeatures];
    }
    return new PerceptronClassificationModel(uid, numClasses, numFeatures, coef, icpt, vote);
  }

  /** This model's weights in the kernel's layout (rows of d+1, bias last); a new array. */
  double[] toStateWeights() {
    int rows = weightRows();
    double[] out = new double[rows * (numFeatures + 1)];
    for (int k = 0; k < rows; k++) {
      System.arraycopy(coefficients, k * numFeatures, out, k * (numFeatures + 1), numFeatures);
      out[k * (numFeatures + 1) + numFeatures] = intercepts[k];
    }
    return out;
  }

  @Override
  public String uid() {
    return uid != null ? uid : PENDING_UID.get();
  }

  @Override
  public int numClasses() {
    return numClasses;
  }

  @Override
  public int numFeatures() {
    return numFeatures;
  }

  private int weightRows() {
    return numClasses == 2 ? 1 : numClasses;
  }

  public PerceptronClassificationModel setThreshold(double value) {
    return (PerceptronClassificationModel) set(threshold(), value);
  }

  /**
   * The binary model's weights w (length d). For a voted model (averaging=vote), which predicts
   * by its vote, these are the averaged weights: the vote's linear summary.
   *
   * @throws IllegalStateException for a multiclass model
   */
  public Vector coefficients() {
    requireBinary("coefficients()", "coefficientMatrix()");
    return Vectors.dense(coefficients.clone());
  }

  /**
   * The binary model's bias b.
   *
   * @throws IllegalStateException for a multiclass model
   */
  public double intercept() {
    requireBinary("intercept()", "interceptVector()");
    return intercepts[0];
  }

  private void requireBinary(String method, String alternative) {
    if (numClasses != 2) {
      throw new IllegalStateException(method + " is defined for binary models only; this model has "
          + numClasses + " classes: use " + alternative + " instead");
    }
  }

  /** The weights as a K' × d matrix (1 × d for a binary model, K × d for K classes). */
  public Matrix coefficientMatrix() {
    return new DenseMatrix(weightRows(), numFeatures, coefficients.clone(), true);
  }

  /** The K' intercepts (one for a binary model). */
  public Vector interceptVector() {
    return Vectors.dense(intercepts.clone());
  }

  @Override
  public Vector predictRaw(Vector features) {
    return TransformColumns.rawPrediction(scorer(), getFeaturesCol(), features);
  }

  /**
   * The prediction rule of {@link Predictor} (with {@code thresholds} set: Spark's rule on the
   * probabilities); the same as {@code raw2prediction(predictRaw(x))}.
   */
  @Override
  public double predict(Vector features) {
    return isDefined(thresholds()) ? probability2prediction(predictProbability(features))
        : TransformColumns.prediction(scorer(), getFeaturesCol(), features);
  }

  @Override
  public double raw2prediction(Vector rawPrediction) {
    return isDefined(thresholds()) ? probability2prediction(raw2probability(rawPrediction))
        : TransformColumns.rawToPrediction(numClasses, getThreshold(), rawPrediction);
  }

  @Override
  public double probability2prediction(Vector probability) {
    return isDefined(thresholds()) ? TransformColumns.thresholded(probability.toArray(),
        TransformColumns.thresholds(this)) : super.probability2prediction(probability);
  }

  /**
   * The map from this model's raw prediction to its {@code probabilityCol}: the calibrator fitted
   * after training (param {@code calibration}), or the uncalibrated link (calibration=none, a
   * model loaded from the format before calibration, a stream's model).
   */
  Calibrator calibrator() {
    return calibrator;
  }

  /**
   * A copy of this model whose calibrator ({@code method}: none, sigmoid or isotonic) is fitted
   * on every row of {@code dataset} (its labelCol, featuresCol and weightCol, as fit reads them):
   * rows held out of training, or a stream's published model. Weights and predictions are kept.
   */
  public PerceptronClassificationModel calibrate(Dataset<?> dataset, String method) {
    return ModelCalibration.onRows(this, dataset, CalibrationMethod.fromParam(method));
  }

  /** Sets the calibrator (fit, load), and the {@code calibration} param to its method. */
  PerceptronClassificationModel withCalibration(Calibrator fitted) {
    if (fitted.numClasses() != numClasses) {
      throw new IllegalArgumentException("a calibrator of " + fitted.numClasses()
          + " classes for a " + numClasses + "-class model");
    }
    this.calibrator = fitted;
    set(calibration(), fitted.method().paramValue());
    return this;
  }

  /**
   * Spark's probabilistic contract: the class probabilities of a raw prediction (binary
   * [−m, m], or the K scores), in place for a dense vector; see {@link Calibrator}.
   */
  @Override
  public Vector raw2probabilityInPlace(Vector rawPrediction) {
    double[] values = rawPrediction instanceof DenseVector
        ? ((DenseVector) rawPrediction).values() : rawPrediction.toArray();
    calibrator.probabilities(values, values);
    return rawPrediction instanceof DenseVector ? rawPrediction : Vectors.dense(values);
  }

  /** Spark's; declared since Java sees its Scala override of ClassificationModel's as two. */
  @Override
  @SuppressWarnings("rawtypes")
  public Tuple3 findSummaryModel() {
    return super.findSummaryModel();
  }

  /** Whether predictions come from the voted perceptron's vote (averaging=vote). */
  boolean isVoted() {
    return vote != null;
  }

  /**
   * The vote behind a voted model's predictions (averaging=vote): every intermediate weight
   * vector and its vote weight, in the compact form {@link VotedPerceptron} documents. Read-only:
   * its arrays are the model's own.
   *
   * @throws IllegalStateException if the model is not voted ({@link #isVoted()})
   */
  VotedPerceptron vote() {
    if (vote == null) {
      throw new IllegalStateException("this model predicts with its weights (averaging="
          + getAveraging() + "), not by a vote; check isVoted() first");
    }
    return vote;
  }

  /**
   * The scorer of this model at the current {@code threshold}: its weights (or vote) are built
   * once, a threshold change only wraps them anew.
   */
  /** The scorer of this model at its current threshold, for the engine's block evaluation. */
  Predictor predictor() {
    return scorer();
  }

  private Predictor scorer() {
    Predictor p = scorer;
    double threshold = getThreshold();
    if (p == null) {
      p = vote != null ? Predictor.voted(vote, threshold)
          : Predictor.linear(numClasses, numFeatures, threshold, coefficients, intercepts);
      scorer = p;
    } else if (Double.compare(p.threshold(), threshold) != 0) {
      p = p.withThreshold(threshold);
      scorer = p;
    }
    return p;
  }

  /**
   * Spark's {@code ProbabilisticClassificationModel.transform} (the same columns, metadata and
   * values: the raw prediction from the features; the probability from the raw prediction when
   * that column is set, else from the features; the prediction from the raw prediction when
   * that column is set, else from the features, by the margin rule, or with {@code thresholds}
   * by Spark's rule on the probabilities), with the UDFs closed over a broadcast scorer (and
   * calibrator) instead of the model. The broadcasts live as long as the returned DataFrame can
   * be computed; Spark's ContextCleaner removes them once that is garbage.
   */
  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    StructType outputSchema = transformSchema(dataset.schema(), true);
    String rawCol = getRawPredictionCol();
    String probabilityCol = getProbabilityCol();
    String predictionCol = getPredictionCol();
    if (rawCol.isEmpty() && probabilityCol.isEmpty() && predictionCol.isEmpty()) {
      LOG.warn("{}: transform() was called as NOOP since no output columns were set.", uid());
      return dataset.toDF();
    }
    double[] thresholdValues = isDefined(thresholds()) ? TransformColumns.thresholds(this)
        : null;
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(dataset.sparkSession()
        .sparkContext());
    Broadcast<Predictor> broadcast = jsc.broadcast(scorer());
    Broadcast<Calibrator> calibration = probabilityCol.isEmpty() && thresholdValues == null
        ? null : jsc.broadcast(calibrator);
    TransformColumns columns = new TransformColumns(broadcast, calibration, getFeaturesCol(),
        rawCol);
    Dataset<Row> out = dataset.toDF();
    if (!rawCol.isEmpty()) {
      out = out.withColumn(rawCol, columns.raw()
          .as(rawCol, outputSchema.apply(rawCol).metadata()));
    }
    if (!probabilityCol.isEmpty()) {
      out = out.withColumn(probabilityCol, columns.probability()
          .as(probabilityCol, outputSchema.apply(probabilityCol).metadata()));
    }
    if (!predictionCol.isEmpty()) {
      Column predicted = thresholdValues != null
          ? columns.thresholdedPrediction(probabilityCol, thresholdValues)
          : columns.prediction();
      out = out.withColumn(predictionCol,
          predicted.as(predictionCol, outputSchema.apply(predictionCol).metadata()));
    }
    return out;
  }

  @Override
  public StructType transformSchema(StructType schema) {
    InputChecks.requireVectorColumn(schema, getFeaturesCol(), "featuresCol");
    StructField field = schema.apply(getFeaturesCol());
    AttributeGroup group = AttributeGroup.fromStructField(field);
    if (group.size() >= 0 && group.size() != numFeatures) {
      throw new IllegalArgumentException("Column '" + getFeaturesCol() + "' holds vectors of size "
          + group.size() + " (from its metadata), but this model was trained on " + numFeatures
          + " features; transform data built the same way as the training data");
    }
    return super.transformSchema(schema);
  }

  /**
   * Evaluates the model on labelled data, as Spark's {@code LinearSVCModel.evaluate}: transforms
   * {@code dataset} (columns {@code featuresCol}, {@code labelCol} with classes 0 .. K−1 and, when
   * {@code weightCol} is set, non-negative weights) and aggregates the predictions into the
   * confusion matrix behind accuracy, per-class precision, recall and F-measure, and their
   * weighted means. One Spark job; the areas under the curves cost one more each.
   *
   * <p>A model keeps the {@code weightCol} it was trained with; to evaluate without weights, on
   * data without that column, unset it on a copy:
   * {@code model.copy(new ParamMap().put(model.weightCol(), "")).evaluate(data)}.
   *
   * @throws IllegalArgumentException when a column is missing or has the wrong type, a label is
   *     not a class of the model, or a weight is null, negative or not finite
   */
  public PerceptronClassificationSummary evaluate(Dataset<?> dataset) {
    StructType schema = dataset.schema();
    InputChecks.requireNumericColumn(schema, getLabelCol(), "labelCol");
    String weight = getWeightCol();
    if (!weight.isEmpty() && !Arrays.asList(schema.fieldNames()).contains(weight)) {
      throw new IllegalArgumentException("Column '" + weight + "' (weightCol, kept from"
          + " training) is not in the evaluated data, whose columns are "
          + Arrays.toString(schema.fieldNames()) + "; add it, or evaluate without"
          + " weights: model.copy(new ParamMap().put(model.weightCol(), \"\")).evaluate(data)");
    }
    if (!weight.isEmpty()) {
      InputChecks.requireNumericColumn(schema, weight, "weightCol");
    }
    // Spark's evaluate does the same: output columns the user switched off get a private name.
    PerceptronClassificationModel scorer = copy(ParamMap.empty());
    if (scorer.getPredictionCol().isEmpty()) {
      scorer.setPredictionCol("prediction_" + uid());
    }
    if (scorer.getRawPredictionCol().isEmpty()) {
      scorer.setRawPredictionCol("rawPrediction_" + uid());
    }
    return PerceptronClassificationSummary.of(scorer.transform(dataset),
        scorer.getPredictionCol(), getLabelCol(), weight, scorer.getRawPredictionCol(),
        numClasses);
  }

  /** Whether a training summary is attached (only on a model returned by {@code fit}). */
  @Override
  public boolean hasSummary() {
    return trainingSummary != null;
  }

  /**
   * The training summary.
   *
   * @throws IllegalStateException if the model was loaded rather than trained
   */
  @Override
  public PerceptronTrainingSummary summary() {
    if (trainingSummary == null) {
      throw new IllegalStateException("No training summary: summaries exist only on models"
          + " returned by fit() (and their copies), not on loaded ones; check hasSummary() first");
    }
    return trainingSummary;
  }

  PerceptronClassificationModel setSummary(PerceptronTrainingSummary summary) {
    this.trainingSummary = summary;
    return this;
  }

  /** {@link HasTrainingSummary}'s view of the summary slot (Spark calls it; users call summary()). */
  @Override
  public Option<PerceptronTrainingSummary> trainingSummary() {
    return Option.apply(trainingSummary);
  }

  /** {@link HasTrainingSummary}'s setter of the summary slot. */
  @Override
  public void trainingSummary_$eq(Option<PerceptronTrainingSummary> summary) {
    this.trainingSummary = summary.isDefined() ? summary.get() : null;
  }

  /**
   * Writes the training summary under {@code path} (a directory of the driver's local file
   * system): Spark Connect's model cache calls this when it moves a fitted model to disk, so that
   * {@code summary} still answers after the model is read back ({@link #loadSummary}).
   */
  @Override
  public void saveSummary(String path) {
    TrainingSummaryFile.save(summary(), java.nio.file.Path.of(path));
  }

  /**
   * Reads back what {@link #saveSummary} wrote under {@code path}. The summary records the
   * epochs of training, so {@code dataset} (Spark Connect passes the training data, from which
   * Spark's own models recompute their summaries) is not needed.
   */
  @Override
  public void loadSummary(String path, Dataset<Row> dataset) {
    this.trainingSummary = TrainingSummaryFile.load(java.nio.file.Path.of(path));
  }

  @Override
  public PerceptronClassificationModel copy(ParamMap extra) {
    PerceptronClassificationModel copied = new PerceptronClassificationModel(uid(), numClasses,
        numFeatures, coefficients.clone(), intercepts.clone(), vote);
    copied.trainingSummary = trainingSummary;
    copied.calibrator = calibrator;
    return copyValues(copied, extra).setParent(parent());
  }

  @Override
  public String toString() {
    return "PerceptronClassificationModel: uid=" + uid() + ", numClasses=" + numClasses
        + ", numFeatures=" + numFeatures + ", averaging=" + getAveraging() + ", calibration="
        + calibrator.method().paramValue();
  }

  /**
   * The model's writer: {@code save(path)} writes Spark's layout (format {@code "internal"});
   * {@code format("onnx")} an ONNX graph ({@code path/model.onnx}); any other format is looked
   * up by Spark among the {@code MLFormatRegister} services, as for Spark's own models.
   */
  @Override
  public GeneralMLWriter write() {
    return new ModelWriter(this);
  }

  public static MLReader<PerceptronClassificationModel> read() {
    return new Reader();
  }

  public static PerceptronClassificationModel load(String path) {
    return read().load(path);
  }

  private static final StructType DATA_SCHEMA = new StructType(new StructField[] {
      DataTypes.createStructField("numClasses", DataTypes.IntegerType, false),
      DataTypes.createStructField("numFeatures", DataTypes.IntegerType, false),
      DataTypes.createStructField("coefficientMatrix", SQLDataTypes.MatrixType(), false),
      DataTypes.createStructField("interceptVector", SQLDataTypes.VectorType(), false)});

  /**
   * Spark's layout (format {@code "internal"}): {@code metadata/} (params and
   * {@code formatVersion}, as JSON) and {@code data/} (one Parquet row), plus {@code vote/} for
   * a voted model; see {@link ModelFiles} for the format versions.
   */
  static void saveInternal(PerceptronClassificationModel instance, String path,
      SparkSession spark) {
    ModelFiles.saveMetadata(instance, path, spark);
    Row row = RowFactory.create(instance.numClasses, instance.numFeatures,
        instance.coefficientMatrix(), instance.interceptVector());
    // The row reaches its one task in a broadcast: as a local relation it would ride inside the
    // task itself, copied into the serialized task and again on the executor (a 2^25-feature
    // model, 256 MiB, then ran a 2 GiB driver out of memory while saving).
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Row> shipped = jsc.broadcast(row);
    try {
      JavaRDD<Row> one = jsc.parallelize(List.of(0), 1).map(i -> shipped.value());
      spark.createDataFrame(one, DATA_SCHEMA).write().parquet(new Path(path, "data").toString());
    } finally {
      shipped.destroy();
    }
    if (instance.vote != null) {
      VoteFiles.save(spark, instance.vote, path);
    }
    CalibratorFiles.save(spark, instance.calibrator, path);
  }

  private static final class Reader extends MLReader<PerceptronClassificationModel> {
    @Override
    public PerceptronClassificationModel load(String path) {
      DefaultParamsReader.Metadata metadata = ModelFiles.loadMetadata(path, sparkSession(),
          PerceptronClassificationModel.class);
      Row row = ModelFiles.readSingleRow(sparkSession(), new Path(path, "data").toString(),
          "numClasses", "numFeatures", "coefficientMatrix", "interceptVector");
      int numClasses = row.getInt(0);
      int numFeatures = row.getInt(1);
      Matrix matrix = (Matrix) row.get(2);
      ModelFiles.requireShape(path, numClasses, numFeatures, matrix.numRows(), matrix.numCols(),
          ((Vector) row.get(3)).size());
      double[] coef = new double[matrix.numRows() * matrix.numCols()];
      for (int k = 0; k < matrix.numRows(); k++) {
        for (int j = 0; j < matrix.numCols(); j++) {
          coef[k * matrix.numCols() + j] = matrix.apply(k, j);
        }
      }
      double[] icpt = ((Vector) row.get(3)).toArray();
      PerceptronClassificationModel plain = new PerceptronClassificationModel(metadata.uid(),
          numClasses, numFeatures, coef, icpt, null);
      metadata.getAndSetParams(plain, Option.empty());
      // Format 1 has no calibrator: such a model gives the raw link (calibration=none).
      Calibrator calibrator = ModelFiles.formatVersion(metadata, path) >= 2
          ? CalibratorFiles.load(sparkSession(), path, numClasses) : Calibrator.none(numClasses);
      if (!VoteFiles.exists(sparkSession(), path)) {
        return plain.withCalibration(calibrator);
      }
      VotedPerceptron vote = VoteFiles.load(sparkSession(), path, numClasses, numFeatures,
          plain.getFitIntercept());
      PerceptronClassificationModel model = new PerceptronClassificationModel(metadata.uid(),
          numClasses, numFeatures, coef, icpt, vote);
      return plain.copyValues(model, plain.extractParamMap()).withCalibration(calibrator);
    }
  }
}
