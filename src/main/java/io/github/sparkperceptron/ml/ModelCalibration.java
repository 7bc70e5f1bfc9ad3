package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.blocks.BlockProbabilities;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.CalibrationRows;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.calibration.ScoreSample;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of {@code fit}: the model's calibrator (param {@code calibration}), fitted on the
 * scores of rows the perceptron did not train on, after training, each in one Spark job over
 * cached blocks ({@link BlockProbabilities#sample}):
 *
 * <pre>
 * validationIndicatorCol set    its rows (the perceptron only chose its best epoch by them)
 * calibrationFolds = k &gt;= 2     cross-fitting: k fold models, each trained on the rows outside
 *                               one fold of a seeded row hash, score that fold; the model
 *                               trains on every row
 * neither (the default)         the held-out share of the rows the conversion kept apart
 *                               ({@link CalibrationRows}: 10%, never trained on); where those
 *                               hold too few rows of some class, the model trains on every row
 *                               and the calibrator is cross-fitted on 3 folds instead
 * </pre>
 *
 * BENCHMARKS.md (issue 33) measures these choices against each other and against MLlib's and
 * scikit-learn's probabilities. The fold models are trained with the estimator's params on the
 * same input converted again ({@link TrainingInput#crossFitFold}), so the text files of the jobs'
 * one-pass reading cross-fit as a DataFrame does.
 */
final class ModelCalibration {
  private static final Logger LOG = LoggerFactory.getLogger(ModelCalibration.class);

  /**
   * The cached blocks (every worker's, at the largest worker's size) below which the fold models
   * are fitted side by side: a few folds' copies of this much are nothing beside an executor.
   */
  static final long SIDE_BY_SIDE_BYTES = 32L << 20;

  private ModelCalibration() {
  }

  /**
   * The calibrator {@code estimator}'s {@code calibration} fits for {@code model}, trained on
   * {@code input}'s training rows, on the calibration rows its params choose (see the class).
   *
   * @throws IllegalArgumentException naming the rows when they cannot be calibrated (one class
   *     only among the validation rows; a fold without a class the model has)
   */
  static Calibrator fit(PerceptronClassifier estimator, TrainingInput input,
      PerceptronClassificationModel model) {
    CalibrationMethod method = estimator.calibrationValue();
    if (method == CalibrationMethod.NONE) {
      return Calibrator.none(model.numClasses());
    }
    String validationCol = estimator.getValidationIndicatorCol();
    if (!validationCol.isEmpty()) {
      return fit(method, input, model, true, "the validation rows (validationIndicatorCol '"
          + validationCol + "')");
    }
    if (estimator.getCalibrationFolds() >= 2) {
      return crossFitted(estimator, input, model, estimator.getCalibrationFolds(), null);
    }
    if (input.calibrationRows().isHeldOutShare()) {
      return fit(method, input, model, true, input.calibrationRows().describe() + ", never"
          + " trained on");
    }
    String why = input.calibrationFallback() != null ? input.calibrationFallback()
        : "the training held no rows out";
    LOG.info("calibration={}: {}, so the model trains on every row and the calibrator is"
        + " cross-fitted on {} folds ({} more fits of this small training; BENCHMARKS.md, issue"
        + " 33)", method.paramValue(), why, CalibrationRows.FALLBACK_FOLDS,
        CalibrationRows.FALLBACK_FOLDS);
    return crossFitted(estimator, input, model, CalibrationRows.FALLBACK_FOLDS, why);
  }

  /**
   * A copy of {@code model} with a calibrator of {@code method} fitted on every row of
   * {@code dataset} (the model's label, features and weight columns), read and checked as fit
   * reads training data: {@link PerceptronClassificationModel#calibrate}.
   */
  static PerceptronClassificationModel onRows(PerceptronClassificationModel model,
      Dataset<?> dataset, CalibrationMethod method) {
    // calibration=none: every given row is read as a training row (none held out).
    PerceptronClassifier columns = new PerceptronClassifier().setLabelCol(model.getLabelCol())
        .setFeaturesCol(model.getFeaturesCol()).setWeightCol(model.getWeightCol())
        .setCalibration("none");
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

  /**
   * Cross-fitted calibration: {@code k} fold models, each trained with {@code estimator}'s params
   * (calibration none, no checkpoints) on the rows outside one fold, score that fold's rows; the
   * calibrator of {@code model} (trained on every row) is fitted on all k folds' scores, joined
   * in fold order. A row's fold is ⌊u·k⌋ of its seeded hash u ({@link CalibrationRows}): a
   * function of the row and the seed alone, whatever the partitioning, so the same data, workers
   * and seed give the same folds and (the fold models being reproducible) the same calibrator.
   *
   * @param fallback why the default cross-fits (then a fold that cannot be fitted leaves the
   *     model uncalibrated, with a warning), or null for {@code calibrationFolds} (then it stops
   *     the fit with a message)
   */
  static Calibrator crossFitted(PerceptronClassifier estimator, TrainingInput input,
      PerceptronClassificationModel model, int k, String fallback) {
    // The folds' fits are independent and each reproducible, so small ones run side by side,
    // each in a driver thread of its own (as CrossValidator's parallelism runs fits): a small fit
    // waits on the driver's scheduling far more than it computes, and one fold's stages fill the
    // others' waits (BENCHMARKS.md, issue 31). A big fit computes, and k folds' blocks cached at
    // once would hold k times the memory: those run one after another.
    int sideBySide = input.workerBytes * input.numWorkers <= SIDE_BY_SIDE_BYTES ? k : 1;
    return crossFitted(estimator, input, model, k, fallback, sideBySide);
  }

  /** {@link #crossFitted(PerceptronClassifier, TrainingInput, PerceptronClassificationModel,
   * int, String)} with {@code sideBySide} folds fitted at a time. */
  static Calibrator crossFitted(PerceptronClassifier estimator, TrainingInput input,
      PerceptronClassificationModel model, int k, String fallback, int sideBySide) {
    CalibrationMethod method = estimator.calibrationValue();
    PerceptronClassifier foldEstimator = estimator.copy(ParamMap.empty()).setCalibration("none")
        .setCalibrationFolds(0).setCheckpointDir("").setEpochListener(null);
    String asked = fallback == null ? "calibrationFolds=" + k
        : "calibration=" + method.paramValue() + " cross-fitted on " + k + " folds";
    ExecutorService threads = Executors.newFixedThreadPool(sideBySide, r -> {
      Thread t = new Thread(r, "cross-fitting " + model.uid());
      t.setDaemon(true);
      return t;
    });
    List<Future<FoldScores>> folds = new ArrayList<>();
    try {
      for (int f = 0; f < k; f++) {
        int fold = f;
        folds.add(threads.submit(() -> foldScores(foldEstimator, input, model, fold, k,
            estimator.getSeed(), asked)));
      }
    } finally {
      threads.shutdown();
    }
    // Every fold ends before the first failure or refusal (in fold order, as one after another
    // would meet it) is reported: no fold's jobs outlive the fit.
    List<FoldScores> results = new ArrayList<>();
    RuntimeException failure = null;
    for (Future<FoldScores> fold : folds) {
      try {
        results.add(join(fold));
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
    List<ScoreSample> parts = new ArrayList<>();
    for (FoldScores result : results) {
      if (result.lacking() != null) {
        return refuse(result.lacking(), fallback, model);
      }
      parts.add(result.scores());
    }
    ScoreSample sample = ScoreSample.concat(model.numClasses(), parts);
    Calibrator calibrator;
    try {
      calibrator = Calibrator.fit(method, sample);
    } catch (IllegalArgumentException e) {
      return refuse(asked + ", on the out-of-fold scores: " + e.getMessage(), fallback, model);
    }
    LOG.info("Calibrated {} on the out-of-fold scores of {} folds ({} rows scored): {}",
        model.uid(), k, sample.size(), calibrator);
    return calibrator;
  }

  /** A fold's out-of-fold scores, or (scores null) what its training rows lack. */
  private record FoldScores(ScoreSample scores, String lacking) {
  }

  /** Fold {@code f}'s out-of-fold scores, or what its training rows lack. */
  private static FoldScores foldScores(PerceptronClassifier foldEstimator, TrainingInput input,
      PerceptronClassificationModel model, int f, int k, long seed, String asked) {
    try (TrainingInput rows = input.crossFitFold(f, k, seed)) {
      String lacking = lacking(rows, input, model.numClasses());
      if (lacking != null) {
        return new FoldScores(null, asked + ": the rows outside fold " + f + " " + lacking);
      }
      LOG.info("Cross-fitting: fold model {} of {}, trained on the {} rows outside fold {},"
          + " scores its {} rows", f + 1, k, rows.numRows(), f, rows.validationRows());
      // A copy per fold: the folds' fits share no estimator.
      PerceptronClassificationModel foldModel = foldEstimator.copy(ParamMap.empty()).fit(rows);
      return new FoldScores(BlockProbabilities.sample(rows, foldModel.predictor(), true), null);
    }
  }

  /** A fold's result; its failure rethrown as it was thrown. */
  private static FoldScores join(Future<FoldScores> fold) {
    try {
      return fold.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while cross-fitting the calibrator", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * What the training rows of a fold lack for a fold model of the model's classes (a class of
   * the training rows, or any row), or null.
   */
  private static String lacking(TrainingInput fold, TrainingInput all, int numClasses) {
    if (fold.numClasses() != numClasses || fold.numRows() == 0) {
      return "hold too few rows to train a " + numClasses + "-class model";
    }
    for (int c = 0; c < all.classCounts.length; c++) {
      if (all.classCounts[c] > 0 && fold.classCounts[c] == 0) {
        return "hold no row of class " + c;
      }
    }
    return null;
  }

  /**
   * The uncalibrated link with a warning where the default fell back to cross-fitting; else
   * the problem, as an error naming the way out.
   */
  private static Calibrator refuse(String problem, String fallback,
      PerceptronClassificationModel model) {
    if (fallback == null) {
      throw new IllegalArgumentException(problem + "; use fewer folds, or calibration=none");
    }
    LOG.warn("{} ({}), so the model keeps the uncalibrated link (calibration=none); calibrate it"
        + " on rows it did not train on with model.calibrate(rows, method), or give it"
        + " validation rows (validationIndicatorCol)", problem, fallback);
    return Calibrator.none(model.numClasses());
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
