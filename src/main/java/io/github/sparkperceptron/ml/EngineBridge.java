package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.blocks.BlockEvaluation;
import io.github.sparkperceptron.internal.blocks.BlockProbabilities;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.plan.TrainingConfig;

/**
 * Internal: what code above the Spark face (the stream learner, {@code
 * io.github.sparkperceptron.streaming}) needs to drive the engine ({@code
 * io.github.sparkperceptron.internal.engine}) with an estimator's params: the params as the engine's
 * {@link TrainingConfig}, a learner state as a model, and which params a stream cannot honour.
 * Not a public API; it may change without notice.
 */
public final class EngineBridge {
  private EngineBridge() {
  }

  /** The engine's settings for {@code params} (as {@code fit} reads them). */
  public static TrainingConfig config(PerceptronClassifier params) {
    return params.trainingConfig();
  }

  /**
   * {@code params.fit} on data already in cached blocks (the jobs' one-pass reading of text
   * files): the same model as {@code fit} on a DataFrame with the same rows in the same workers.
   * The caller keeps the blocks (to evaluate on them) and closes them.
   */
  public static PerceptronClassificationModel fit(PerceptronClassifier params,
      TrainingInput input) {
    return params.fit(input);
  }

  /**
   * {@code model.evaluate} on cached blocks, unweighted (every row counts 1), in one pass: the
   * same metrics as {@link PerceptronClassificationModel#evaluate} of the same rows, without
   * the predictions ({@link PerceptronClassificationSummary#predictions()} is {@code null}).
   */
  public static PerceptronClassificationSummary evaluate(PerceptronClassificationModel model,
      TrainingInput data) {
    BlockEvaluation.Result r = BlockEvaluation.evaluate(data, model.predictor(),
        model.getLabelCol());
    return PerceptronClassificationSummary.of(r.confusion(), r.rows(), r.areaUnderROC(),
        r.areaUnderPR());
  }

  /**
   * The log-loss, Brier score and expected calibration error of {@code model}'s probabilities
   * (its calibrator) on cached blocks, unweighted, in one pass.
   */
  public static ProbabilityMetrics probabilityMetrics(PerceptronClassificationModel model,
      TrainingInput data) {
    return BlockProbabilities.metrics(data, model.predictor(), model.calibrator());
  }

  /** The accuracy of {@code model} on cached blocks of data read only to be scored, in one pass. */
  public static double accuracy(PerceptronClassificationModel model, TrainingInput data) {
    return BlockEvaluation.accuracy(data, model.predictor());
  }

  /**
   * The model of a learner state, carrying {@code params}' param values (averaged weights when
   * averaging; a stream never votes) but no fitted calibrator: its probabilities are the raw
   * link, calibration=none (see StreamingPerceptron for why).
   */
  public static PerceptronClassificationModel model(PerceptronClassifier params, int numClasses,
      int numFeatures, LinearState state) {
    PerceptronClassificationModel model = PerceptronClassificationModel.fromStateWeights(
        params.uid(), numClasses, numFeatures, state.modelWeights(), null);
    params.copyValues(model, params.extractParamMap()).setParent(params);
    return model.withCalibration(model.calibrator());
  }

  /**
   * Why these params cannot learn from a stream, or {@code null} when they can. Each refused
   * param needs the whole dataset up front or grows without bound.
   */
  public static String streamingProblem(PerceptronClassifier params) {
    if (params.averagingValue() == Averaging.VOTE) {
      return "averaging=vote keeps every intermediate weight vector, which grows without bound on"
          + " a stream (and is saved with every published model); use averaging=average, the"
          + " voted perceptron's O(features) approximation (Freund & Schapire 1999)";
    }
    if (params.mixingValue() == MixingMode.ONESHOT) {
      return "mixing=oneshot trains every worker apart over all the data and averages once at"
          + " the end, which a stream never reaches; use mixing=mistakes, uniform or momentum";
    }
    if (!params.getValidationIndicatorCol().isEmpty()) {
      return "validationIndicatorCol chooses the best epoch of a finite training; a stream is"
          + " evaluated prequentially instead (each batch is scored before it is learnt), so"
          + " unset it";
    }
    if (params.classWeightValue() == ClassWeight.BALANCED) {
      return "classWeight=balanced needs every class's size before training starts, which a"
          + " stream does not know; use a weight column (weightCol) instead";
    }
    if (!params.getCheckpointDir().isEmpty()) {
      return "checkpointDir checkpoints the epochs of a finite training; a stream keeps its"
          + " learner state in its own checkpoint location, so unset checkpointDir";
    }
    return null;
  }
}
