package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.blocks.BlockProbabilities;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.calibration.ScoreSample;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of {@code fit}: the model's calibrator (param {@code calibration}), fitted on the
 * scores of its calibration rows after training, in one Spark job over the cached blocks
 * ({@link BlockProbabilities#sample}).
 *
 * <p>The calibration rows are the {@code validationIndicatorCol} rows when that is set: rows the
 * perceptron never trained on (it only chose its best epoch by their accuracy). Otherwise they are
 * the training rows themselves, with Platt's smoothed targets, so that the perceptron still
 * trains on every row and its weights and predictions stay what they are without calibration;
 * BENCHMARKS.md (issue 33) measures that choice against a held-out share and cross-fitting. The
 * weights never depend on the calibrator: it only maps scores to probabilities.
 */
final class ModelCalibration {
  private static final Logger LOG = LoggerFactory.getLogger(ModelCalibration.class);

  /**
   * Below this many training rows per weight, calibrating on the training rows' own scores warns:
   * on 10,000 generated sparse rows of 10,000 features their sigmoid gave a test log-loss of 2.95
   * where held-out rows gave 0.60 (BENCHMARKS.md, issue 33); at 5 rows per weight still 0.46
   * against 0.39.
   */
  static final int OVERCONFIDENT_ROWS_PER_WEIGHT = 10;

  private ModelCalibration() {
  }

  /**
   * The calibrator {@code method} fits for {@code model} on {@code input}'s calibration rows.
   *
   * @param validationCol the validation indicator column, or "" (calibrate on training rows)
   * @throws IllegalArgumentException naming the rows when they cannot be calibrated (one class
   *     only, among them)
   */
  static Calibrator fit(CalibrationMethod method, TrainingInput input,
      PerceptronClassificationModel model, String validationCol) {
    boolean validation = !validationCol.isEmpty();
    long weights = (long) (model.numClasses() == 2 ? 1 : model.numClasses())
        * (model.numFeatures() + 1L);
    if (!validation && method != CalibrationMethod.NONE
        && input.numRows() < OVERCONFIDENT_ROWS_PER_WEIGHT * weights) {
      LOG.warn("calibration={} on the training rows' own scores: {} rows for {} weights, where a"
          + " perceptron can come close to separating its training rows, whose scores then"
          + " overstate its confidence on new rows (BENCHMARKS.md, issue 33); calibrate on rows"
          + " it did not train on: validationIndicatorCol, or model.calibrate(heldOutRows, \"{}\")",
          method.paramValue(), input.numRows(), weights, method.paramValue());
    }
    return fit(method, input, model, validation, validation ? "the validation rows"
        + " (validationIndicatorCol '" + validationCol + "')" : "the training rows");
  }

  /**
   * A copy of {@code model} with a calibrator of {@code method} fitted on every row of
   * {@code dataset} (the model's label, features and weight columns), read and checked as fit
   * reads training data: {@link PerceptronClassificationModel#calibrate}.
   */
  static PerceptronClassificationModel onRows(PerceptronClassificationModel model,
      Dataset<?> dataset, CalibrationMethod method) {
    PerceptronClassifier columns = new PerceptronClassifier().setLabelCol(model.getLabelCol())
        .setFeaturesCol(model.getFeaturesCol()).setWeightCol(model.getWeightCol());
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(
        dataset.sparkSession().sparkContext());
    try (TrainingInput input = TrainingInput.prepare(dataset,
        TrainingPlan.forFit(jsc, columns.trainingConfig()))) {
      if (input.numFeatures() != model.numFeatures() || input.numClasses() > model.numClasses()) {
        throw new IllegalArgumentException("The calibration rows have " + input.numFeatures()
            + " features and " + input.numClasses() + " classes, but this model was trained on "
            + model.numFeatures() + " features and " + model.numClasses() + " classes; calibrate"
            + " on rows built the same way as the training data");
      }
      return model.copy(ParamMap.empty()).withCalibration(fit(method, input, model, false,
          "the given rows"));
    }
  }

  /** The column that holds each row's fold while fold models are trained. */
  private static final String FOLD = "__spark_perceptron_calibration_fold";

  /**
   * Cross-fitted calibration (param {@code calibrationFolds} = k ≥ 2): k fold models, each
   * trained with {@code estimator}'s params (calibration none) on the rows outside one fold,
   * score that fold's rows; the calibrator of {@code model} (trained on every row) is fitted on
   * all k folds' scores, joined in fold order. A row's fold is xxhash64(label, features, seed)
   * mod k: a function of the row and the seed alone, whatever the partitioning or order, so the
   * same data and seed give the same folds (and, the fold models being reproducible, the same
   * calibrator).
   */
  static Calibrator crossFitted(PerceptronClassifier estimator, Dataset<?> dataset,
      PerceptronClassificationModel model) {
    int k = estimator.getCalibrationFolds();
    CalibrationMethod method = estimator.calibrationValue();
    Dataset<Row> marked = dataset.toDF().withColumn(FOLD, functions.pmod(functions.xxhash64(
        functions.col(estimator.getLabelCol()), functions.col(estimator.getFeaturesCol()),
        functions.lit(estimator.getSeed())), functions.lit(k)));
    PerceptronClassifier foldEstimator = estimator.copy(ParamMap.empty()).setCalibration("none")
        .setCalibrationFolds(0).setCheckpointDir("").setEpochListener(null);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(
        dataset.sparkSession().sparkContext());
    List<ScoreSample> parts = new ArrayList<>();
    for (int f = 0; f < k; f++) {
      Column inFold = functions.col(FOLD).equalTo(f);
      PerceptronClassificationModel foldModel = foldEstimator.fit(marked.filter(
          functions.not(inFold)));
      try (TrainingInput rows = TrainingInput.prepare(marked.filter(inFold),
          TrainingPlan.forFit(jsc, foldEstimator.trainingConfig()))) {
        parts.add(BlockProbabilities.sample(rows, foldModel.predictor(), false));
      }
    }
    ScoreSample sample = ScoreSample.concat(model.numClasses(), parts);
    Calibrator calibrator;
    try {
      calibrator = Calibrator.fit(method, sample);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("calibration=" + method.paramValue() + " on the"
          + " out-of-fold scores of " + k + " folds: " + e.getMessage(), e);
    }
    LOG.info("Calibrated {} on the out-of-fold scores of {} folds ({} rows scored): {}",
        model.uid(), k, sample.size(), calibrator);
    return calibrator;
  }

  private static Calibrator fit(CalibrationMethod method, TrainingInput input,
      PerceptronClassificationModel model, boolean validation, String rows) {
    if (method == CalibrationMethod.NONE) {
      return Calibrator.none(model.numClasses());
    }
    ScoreSample sample = BlockProbabilities.sample(input, model.predictor(), validation);
    Calibrator calibrator;
    try {
      calibrator = Calibrator.fit(method, sample);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("calibration=" + method.paramValue() + " on " + rows
          + ": " + e.getMessage(), e);
    }
    LOG.info("Calibrated {} on {} ({} rows scored): {}", model.uid(), rows, sample.size(),
        calibrator);
    return calibrator;
  }
}
