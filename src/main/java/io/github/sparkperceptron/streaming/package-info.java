/**
 * Online learning from Structured Streaming: {@link
 * io.github.sparkperceptron.streaming.StreamingPerceptron} learns from every micro-batch of a
 * streaming DataFrame, exactly once, and keeps a model ready and published.
 *
 * <p>It builds on the engine, {@code io.github.sparkperceptron.internal.engine}, through one internal entry
 * point, {@code train.OnlineTraining.trainBatch}, given the estimator's params as the engine's
 * {@code TrainingConfig} ({@code ml.EngineBridge}): a batch is trained by iterative parameter
 * mixing from the whole learner state the previous batch left (weights, averaging accumulator
 * and clock), so the stream is one online training. This package adds what a stream needs
 * around it: the learner state saved after every batch beside Spark's query checkpoint
 * ({@code LearnerStateStore}, a codec on the state-file container {@code store.StateFile}), the
 * recognition of batches Spark replays after a crash,
 * prequential ("test then train") evaluation reports ({@link
 * io.github.sparkperceptron.streaming.BatchReport}, {@link
 * io.github.sparkperceptron.streaming.StreamingProgress}) and atomic publication of the model
 * ({@code ModelPublisher}).
 */
package io.github.sparkperceptron.streaming;
