/**
 * How the learner's weights travel between the driver and the executors during training, so that
 * a mixing round costs what the round changed rather than what the model weighs.
 *
 * <p>Down (driver → executors): {@link io.github.sparkperceptron.exchange.WeightShipper} keeps a
 * broadcast of a full snapshot of the weights and, after it, one small broadcast per round with
 * the coordinates that changed since the round before (their new values, not differences). An
 * executor keeps one copy of the current weights per training ({@link
 * io.github.sparkperceptron.exchange.ExecutorWeights}) and brings it up to date by applying the
 * changes it has not seen; one that has none (a new or restarted executor) reads the snapshot and
 * every change after it. Either way it holds exactly the driver's weights of that round, which is
 * what keeps retried tasks, recomputed blocks and lost executors bit-identical. A new snapshot
 * replaces the chain once the chain has grown to a quarter of the weights.
 *
 * <p>On the executor: every running task works on a private copy of the weights, kept between
 * rounds and resynchronised by the coordinates that changed (its own updates and the round's
 * mix), plus a zeroed averaging accumulator and a {@link io.github.sparkperceptron.kernel.TouchedSet}
 * of the coordinates its updates wrote. None of this is allocated per round once a task slot has
 * its copy.
 *
 * <p>Up (executors → driver): each task returns a {@link io.github.sparkperceptron.mixing.StateDelta}
 * of the coordinates it touched, mixed along {@code treeAggregate}'s tree
 * ({@link io.github.sparkperceptron.mixing.ParameterMix}).
 *
 * <p>Memory, in copies of the K'·(d+1) weights (8 bytes per value): the driver holds w, u (with
 * averaging), the snapshot it broadcast (and, in local mode, Spark's serialised pieces of it) and,
 * with block momentum, Δ; each executor holds its current copy plus, per task slot that ran a
 * round, a working copy and an accumulator (with averaging). The sparse changes add O(changed
 * coordinates) per round on both sides.
 */
package io.github.sparkperceptron.exchange;
