package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.blocks.BlockEvaluation;
import io.github.sparkperceptron.internal.blocks.BlockProbabilities;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import java.util.List;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.SparkSession;

/**
 * This package's side of the {@link EngineBridge}: what code above the Spark face (the stream
 * learner, the ONNX export, the jobs) needs to drive the engine with an estimator's params and to
 * read a model's internals, lent to it without making them public (see {@link EngineBridge}).
 * Registers itself when the bridge first initializes it (by name: see {@code internal.ml.Lent}).
 */
final class BridgeSide extends EngineBridge.Ml {
  static {
    EngineBridge.lend(new BridgeSide());
  }

  private BridgeSide() {
  }

  @Override
  protected TrainingConfig config(PerceptronClassifier params) {
    return params.trainingConfig();
  }

  @Override
  protected PerceptronClassificationModel fit(PerceptronClassifier params, TrainingInput input) {
    return params.fit(input);
  }

  @Override
  protected PerceptronClassificationSummary evaluate(PerceptronClassificationModel model,
      TrainingInput data) {
    BlockEvaluation.Result r = BlockEvaluation.evaluate(data, model.predictor(),
        model.getLabelCol());
    return PerceptronClassificationSummary.of(r.confusion(), r.rows(), r.areaUnderROC(),
        r.areaUnderPR());
  }

  @Override
  protected ProbabilityMetrics probabilityMetrics(PerceptronClassificationModel model,
      TrainingInput data) {
    return BlockProbabilities.metrics(data, model.predictor(), model.calibrator());
  }

  @Override
  protected double accuracy(PerceptronClassificationModel model, TrainingInput data) {
    return BlockEvaluation.accuracy(data, model.predictor());
  }

  @Override
  protected PerceptronClassificationModel model(PerceptronClassifier params, int numClasses,
      int numFeatures, LinearState state) {
    PerceptronClassificationModel model = PerceptronClassificationModel.fromStateWeights(
        params.uid(), numClasses, numFeatures, state.modelWeights(), null);
    return params.asFitted(model);
  }

  @Override
  protected Calibrator calibrator(PerceptronClassificationModel model) {
    return model.calibrator();
  }

  @Override
  protected VotedPerceptron vote(PerceptronClassificationModel model) {
    return model.isVoted() ? model.vote() : null;
  }

  @Override
  protected List<Param<?>> trainingParams(PerceptronClassifier params) {
    return params.trainingParams();
  }

  @Override
  protected String settingsText(PerceptronClassifier params, List<Param<?>> which) {
    return params.settingsText(which);
  }

  @Override
  protected String initialModelText(PerceptronClassifier params) {
    return params.initialModelText();
  }

  @Override
  protected void saveInternal(PerceptronClassificationModel model, String path,
      SparkSession session) {
    PerceptronClassificationModel.saveInternal(model, path, session);
  }
}
