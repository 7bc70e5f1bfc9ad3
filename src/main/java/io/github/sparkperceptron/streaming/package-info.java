/**
 * Online learning from Structured Streaming: {@link
 * io.github.sparkperceptron.streaming.StreamingPerceptron} learns from every micro-batch of a
 * streaming DataFrame, exactly once, and keeps a model ready and published.
 *
 * <p>It builds on the engine, {@code io.github.sparkperceptron.internal.engine}, through one internal entry
 * point, {@code train.OnlineTraining.trainBatch}, given the estimator's params as the engine's
 * {@code TrainingConfig} ({@code internal.ml.EngineBridge}): a batch is trained by iterative
 * parameter mixing from the whole learner state the previous batch left (weights, averaging
 * accumulator and clock), so the stream is one online training. This package adds what a
 * stream needs around it: the learner state saved after every batch beside Spark's query checkpoint
 * ({@code LearnerStateStore}, a codec on the state-file container {@code store.StateFile}), the
 * recognition of batches Spark replays after a crash,
 * prequential ("test then train") evaluation reports ({@link
 * io.github.sparkperceptron.streaming.BatchReport}, {@link
 * io.github.sparkperceptron.streaming.StreamingProgress}) and atomic publication of the model
 * ({@code ModelPublisher}).
 *
 * <p>The published models carry no fitted calibrator (their probabilities are the logistic or
 * softmax link of the scores, calibration=none; {@code internal.ml.EngineBridge.model}): a
 * perceptron's scores keep growing as it learns, so a calibrator fitted on earlier batches would
 * go stale with every batch, and keeping one current exactly once would need each batch's
 * held-out scores in the learner state. {@code PerceptronClassificationModel.calibrate} fits
 * one on held-out rows of a published model.
 */
package io.github.sparkperceptron.streaming;
