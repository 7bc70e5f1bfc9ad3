/**
 * The training engine, below the Spark face ({@code io.github.sparkperceptron.ml}) and above the
 * math ({@code kernel}, {@code mixing}) and the weight exchange ({@code exchange}): it takes an
 * immutable {@link io.github.sparkperceptron.internal.plan.TrainingConfig} built from the params, never
 * the estimator, and returns a {@link io.github.sparkperceptron.internal.engine.TrainingResult}.
 *
 * <pre>
 * input      TrainingInput lays the input's partitions out over the workers (WorkerLayout: as
 *            they are, coalesced or split), converts each worker's rows once into cached
 *            primitive-array blocks (PreparedPartition) and validates every row; bad rows are
 *            reported as data and raised on the driver, never thrown inside Spark; InputChecks
 *            checks the schema
 * loop       MixingLoop: iterative parameter mixing (McDonald, Hall &amp; Mann 2010), its
 *            settings resolved once (MixingSettings); each epoch's rounds run behind the
 *            EpochRounds seam, chosen by RoundExecution's keys: BarrierRounds (all rounds in one
 *            Spark barrier stage, the workers exchanging their changes over sockets along the
 *            mixing tree; BarrierEpochTask is its task) or JobPerRound (one Spark job per round,
 *            EpochOrderCache keeping the epoch's row orders between rounds); both share the
 *            driver's steps of a round (DriverRounds) and the worker's (WorkerRound: the
 *            worker's working copy, its slice of the epoch, its change); OneShotMixing mixes
 *            once at the end; TrainingProgress is its state, StopReason why it ended,
 *            EpochCallback what it tells after each epoch
 * capacity   MemoryPlan refuses a training that cannot fit before anything of the model's size
 *            is allocated
 * recovery   Checkpoints (CheckpointFormat, a codec on store.StateFile) resume a training where a
 *            dead driver left it; FaultInjection makes tasks fail on purpose in tests
 * streams    OnlineTraining trains one micro-batch from the learner state the last one left
 * </pre>
 *
 * Closures capture small immutable settings objects ({@code LearnerConfig},
 * {@code MixingSettings}), never the estimator.
 */
package io.github.sparkperceptron.internal.engine;
