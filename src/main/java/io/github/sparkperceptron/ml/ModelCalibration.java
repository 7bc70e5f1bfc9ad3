package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.calibration.CalibrationMethod;
import io.github.sparkperceptron.calibration.Calibrator;
import io.github.sparkperceptron.calibration.ScoreSample;
import io.github.sparkperceptron.train.BlockProbabilities;
import io.github.sparkperceptron.train.TrainingInput;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
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
    int slots = dataset.sparkSession().sparkContext().defaultParallelism();
    try (TrainingInput input = TrainingInput.prepare(dataset, columns.trainingConfig(), slots)) {
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
