package io.github.sparkperceptron.internal.ml;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassificationSummary;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.List;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.SparkSession;

/**
 * What the code above the Spark face (the stream learner, the ONNX export, the jobs) uses of
 * {@code io.github.sparkperceptron.ml}'s internals: the params as the engine's
 * {@link TrainingConfig}, training and scoring on cached blocks, a learner state as a model, a
 * model's calibrator and vote. Java has no {@code private[sparkperceptron]} (Spark hides its own
 * helpers with {@code private[ml]}), so these stay package-private in {@code ml} and are
 * {@link Lent} here: {@code ml}'s side of the bridge ({@link Ml}, implemented by {@code ml}'s
 * package-private {@code BridgeSide}) registers itself when first needed, and the static methods
 * below call it. An access path, not an API; it may change with any release (see the README,
 * "API and compatibility").
 */
public final class EngineBridge {
  private static final Lent<Ml> ML = new Lent<>(PerceptronClassificationModel.class);

  private EngineBridge() {
  }

  /**
   * The internals {@code ml} lends. Its methods are protected: the packages above reach them only
   * through {@link EngineBridge}'s static methods, which document them.
   */
  public abstract static class Ml {
    protected Ml() {
    }

    protected abstract TrainingConfig config(PerceptronClassifier params);

    protected abstract PerceptronClassificationModel fit(PerceptronClassifier params,
        TrainingInput input);

    protected abstract PerceptronClassificationSummary evaluate(
        PerceptronClassificationModel model, TrainingInput data);

    protected abstract ProbabilityMetrics probabilityMetrics(PerceptronClassificationModel model,
        TrainingInput data);

    protected abstract double accuracy(PerceptronClassificationModel model, TrainingInput data);

    protected abstract PerceptronClassificationModel model(PerceptronClassifier params,
        int numClasses, int numFeatures, LinearState state);

    protected abstract Calibrator calibrator(PerceptronClassificationModel model);

    protected abstract VotedPerceptron vote(PerceptronClassificationModel model);

    protected abstract List<Param<?>> trainingParams(PerceptronClassifier params);

    protected abstract String settingsText(PerceptronClassifier params, List<Param<?>> which);

    protected abstract String initialModelText(PerceptronClassifier params);

    protected abstract void saveInternal(PerceptronClassificationModel model, String path,
        SparkSession session);
  }

  /** Registers {@code ml}'s side: its {@code BridgeSide}'s static initializer does, once. */
  public static void lend(Ml ml) {
    ML.lend(ml);
  }

  private static Ml ml() {
    return ML.get();
  }

  /** The engine's settings for {@code params}, as {@code fit} reads them. */
  public static TrainingConfig config(PerceptronClassifier params) {
    return ml().config(params);
  }

  /**
   * {@code params.fit} on data already in cached blocks (the jobs' one-pass reading of text
   * files): the same model as {@code fit} on a DataFrame with the same rows in the same workers.
   * The caller keeps the blocks (to evaluate on them) and closes them.
   */
  public static PerceptronClassificationModel fit(PerceptronClassifier params,
      TrainingInput input) {
    return ml().fit(params, input);
  }

  /**
   * {@code model.evaluate} on cached blocks, unweighted (every row counts 1), in one pass: the
   * same metrics as {@link PerceptronClassificationModel#evaluate} of the same rows, without
   * the predictions ({@link PerceptronClassificationSummary#predictions()} is {@code null}).
   */
  public static PerceptronClassificationSummary evaluate(PerceptronClassificationModel model,
      TrainingInput data) {
    return ml().evaluate(model, data);
  }

  /**
   * The log-loss, Brier score and expected calibration error of {@code model}'s probabilities
   * (its calibrator) on cached blocks, unweighted, in one pass.
   */
  public static ProbabilityMetrics probabilityMetrics(PerceptronClassificationModel model,
      TrainingInput data) {
    return ml().probabilityMetrics(model, data);
  }

  /** The accuracy of {@code model} on cached blocks of data read only to be scored, in one pass. */
  public static double accuracy(PerceptronClassificationModel model, TrainingInput data) {
    return ml().accuracy(model, data);
  }

  /**
   * The model of a learner state, carrying {@code params}' param values (averaged weights when
   * averaging; a stream never votes) but no fitted calibrator: its probabilities are the raw
   * link, calibration=none (see StreamingPerceptron for why).
   */
  public static PerceptronClassificationModel model(PerceptronClassifier params, int numClasses,
      int numFeatures, LinearState state) {
    return ml().model(params, numClasses, numFeatures, state);
  }

  /**
   * The map from {@code model}'s raw prediction to its {@code probabilityCol}: the calibrator
   * fitted after training, or the uncalibrated link (calibration=none).
   */
  public static Calibrator calibrator(PerceptronClassificationModel model) {
    return ml().calibrator(model);
  }

  /**
   * The vote behind a voted model's predictions (averaging=vote), read-only (its arrays are the
   * model's own), or {@code null} for a model that predicts with its weights.
   */
  public static VotedPerceptron vote(PerceptronClassificationModel model) {
    return ml().vote(model);
  }

  /**
   * The params that configure a training, in the fixed order that the checkpoint fingerprint,
   * the training's log line and the jobs' flag table follow.
   */
  public static List<Param<?>> trainingParams(PerceptronClassifier params) {
    return ml().trainingParams(params);
  }

  /**
   * {@code which} of {@code params} as "name=value" lines, a named value in lower case: how a
   * training's settings are identified (a checkpoint's fingerprint, a stream's configuration).
   */
  public static String settingsText(PerceptronClassifier params, List<Param<?>> which) {
    return ml().settingsText(params, which);
  }

  /** The initial model's identity line, or "" without one (see {@link #settingsText}). */
  public static String initialModelText(PerceptronClassifier params) {
    return ml().initialModelText(params);
  }

  /** Writes {@code model} in Spark's layout (format "internal") under {@code path}. */
  static void saveInternal(PerceptronClassificationModel model, String path,
      SparkSession session) {
    ml().saveInternal(model, path, session);
  }
}
