/**
 * The training engine, below the Spark face ({@code io.github.sparkperceptron.ml}) and above the
 * math ({@code kernel}, {@code mixing}) and the weight exchange ({@code exchange}): it takes an
 * immutable {@link io.github.sparkperceptron.internal.plan.TrainingConfig} built from the params, never
 * the estimator, and returns a {@link io.github.sparkperceptron.internal.engine.TrainingResult}.
 *
 * <pre>
 * loop       MixingLoop: iterative parameter mixing (McDonald, Hall &amp; Mann 2010) over the
 *            cached blocks of internal.blocks (TrainingInput), its settings resolved once
 *            (internal.plan); the rounds of its epochs run behind internal.rounds' EpochRounds
 *            seam (a job per round, or the epochs nothing on the driver separates in one barrier
 *            stage, which reports where it ended or its mixes to replay); the driver tallies
 *            them epoch by epoch, checks, checkpoints and stops;
 *            OneShotMixing mixes once at the end; TrainingResult is what it returns, the
 *            root package's StopReason why it ended, EpochCallback what it tells after each epoch
 * recovery   Checkpoints (CheckpointFormat, a codec on store.StateFile) resume a training where a
 *            dead driver left it
 * streams    OnlineTraining trains one micro-batch from the learner state the last one left;
 *            MomentumState carries block momentum from batch to batch, and is the one codec of
 *            its state in checkpoints and in a stream's learner state
 * </pre>
 *
 * Closures capture small immutable settings objects ({@code LearnerConfig},
 * {@code MixingSettings}), never the estimator.
 */
package io.github.sparkperceptron.internal.engine;
