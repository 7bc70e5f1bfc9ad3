/**
 * How the mixing rounds of an epoch run on the cluster (iterative parameter mixing, McDonald, Hall
 * &amp; Mann 2010): behind the {@link io.github.sparkperceptron.internal.rounds.EpochRounds} seam,
 * either one Spark job per round ({@link io.github.sparkperceptron.internal.rounds.JobPerRound},
 * the epoch's row orders kept on the executors by
 * {@link io.github.sparkperceptron.internal.rounds.EpochOrderCache}) or the epochs nothing on the
 * driver separates in one barrier stage
 * ({@link io.github.sparkperceptron.internal.rounds.BarrierRounds}, whose task is
 * {@link io.github.sparkperceptron.internal.rounds.BarrierEpochTask}: the workers all-reduce each
 * round's changes over the sockets of {@code internal.exchange} and go on to the next epoch
 * without a Spark job). Both paths share the worker's steps of a round
 * ({@link io.github.sparkperceptron.internal.rounds.WorkerRound}) and the driver's
 * ({@link io.github.sparkperceptron.internal.rounds.DriverRounds}), so their models are the same
 * bits; the driver checks what the barrier tasks report (digests, and
 * {@link io.github.sparkperceptron.internal.rounds.MixAudit}'s independent mix).
 * {@link io.github.sparkperceptron.internal.rounds.TrainingProgress} is the loop's state between
 * epochs; {@link io.github.sparkperceptron.internal.rounds.FaultInjection} is the tests' seam for
 * failing tasks.
 */
package io.github.sparkperceptron.internal.rounds;
