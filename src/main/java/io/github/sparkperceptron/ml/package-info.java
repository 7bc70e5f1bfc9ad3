/**
 * The Spark ML face of the library: {@link io.github.sparkperceptron.ml.PerceptronClassifier}
 * (an {@code Estimator}) and {@link io.github.sparkperceptron.ml.PerceptronClassificationModel}
 * (its {@code Model}), their params, training summary, evaluation and persistence.
 *
 * <p>Training reads as an outline in {@code PerceptronClassifier.train}: check the params → turn
 * them into the engine's immutable {@code TrainingConfig} → {@code TrainingInput} lays the input
 * out over the workers and converts it into cached blocks → {@code MixingLoop} (the engine,
 * {@code io.github.sparkperceptron.internal.engine}) runs the epochs and calls back after each, which the
 * estimator turns into {@link io.github.sparkperceptron.ml.EpochListener} calls with models → the
 * model and its {@link io.github.sparkperceptron.ml.PerceptronTrainingSummary} are built from the
 * engine's {@code TrainingResult} → its calibrator is fitted ({@code ModelCalibration}: one pass
 * over the calibration rows' scores, {@code calibration} and {@code calibrationFolds}).
 * {@code io.github.sparkperceptron.internal.ml.EngineBridge} lends the same conversions, and what
 * else the packages above this one use of its internals, to the stream learner, the ONNX export
 * and the jobs, without making them public ({@code BridgeSide} is this package's side).
 *
 * <p>Both classes are Spark's probabilistic ones ({@code ProbabilisticClassifier},
 * {@code ProbabilisticClassificationModel}): the model's {@code probabilityCol} comes from its
 * {@link io.github.sparkperceptron.internal.calibration.Calibrator}, saved in {@code calibration/}
 * ({@code CalibratorFiles}); its predictions stay the margin rule unless {@code thresholds} is
 * set ({@code TransformColumns}).
 */
package io.github.sparkperceptron.ml;
