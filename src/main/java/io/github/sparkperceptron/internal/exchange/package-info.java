/**
 * How the learner's weights travel between the driver and the executors during training, so that
 * a mixing round costs what the round changed rather than what the model weighs.
 *
 * <p>Down (driver → executors): {@link io.github.sparkperceptron.internal.exchange.WeightShipper} keeps a
 * broadcast of a full snapshot of the weights and, after it, one small broadcast per round with
 * the coordinates that changed since the round before (their new values, not differences). An
 * executor keeps one copy of the current weights per training ({@link
 * io.github.sparkperceptron.internal.exchange.ExecutorWeights}) and brings it up to date by applying the
 * changes it has not seen; one that has none (a new or restarted executor) reads the snapshot and
 * every change after it. Either way it holds exactly the driver's weights of that round, which is
 * what keeps retried tasks, recomputed blocks and lost executors bit-identical. A new snapshot
 * replaces the chain once the chain has grown to a quarter of the weights.
 *
 * <p>On the executor: every worker trains on its own working copy of the weights, over the m
 * features its rows hold and feature-major for K &gt; 2 ({@link
 * io.github.sparkperceptron.internal.kernel.LocalWeights}), kept between rounds and resynchronised by the
 * coordinates that changed (its own updates and the round's mix, mapped to its features), plus a
 * zeroed averaging accumulator and a {@link io.github.sparkperceptron.internal.kernel.TouchedSet} of the
 * coordinates its updates wrote. None of this is allocated per round once the worker's copy
 * exists; its change goes up in the model's class-major coordinates.
 *
 * <p>Up (executors → driver): each task returns a {@link io.github.sparkperceptron.internal.mixing.StateDelta}
 * of the coordinates it touched, mixed along {@code treeAggregate}'s tree
 * ({@link io.github.sparkperceptron.internal.mixing.ParameterMix}).
 *
 * <p>Sideways (executor ↔ executor), when an epoch's rounds run in one barrier stage: the tasks
 * meet once per stage attempt at the driver's {@link io.github.sparkperceptron.internal.exchange.Rendezvous}
 * (their addresses only), connect along {@link io.github.sparkperceptron.internal.mixing.RoundTree}'s tree
 * ({@link io.github.sparkperceptron.internal.exchange.PeerLinks}) and exchange every round's changes there:
 * W − 1 frames up and W − 1 down per round, the changes as their stored arrays. Spark's own
 * {@code BarrierTaskContext.allGather} is not used for rounds: it waits for its reply in
 * one-second sleeps.
 *
 * <p>Who may speak there: every connection starts with a mutual challenge and response over the
 * training's secret ({@link io.github.sparkperceptron.internal.exchange.Handshake}, the secret made per fit
 * and carried to the tasks by Spark in their closure,
 * {@link io.github.sparkperceptron.internal.exchange.WireSettings}); under Spark's security settings every
 * frame after it is sealed with AES-256-GCM ({@link io.github.sparkperceptron.internal.exchange.Session}).
 * Every listening port (the rendezvous, a task's listener while its children connect) is a
 * {@link io.github.sparkperceptron.internal.exchange.Gate}: one thread, non-blocking, every length bounded
 * before allocation, every connection held to the connect timeout until it authenticated, at
 * most 256 of them at once, whatever one of them throws costing that one alone. Established
 * connections wait for a round as long as their tasks live (TCP keep-alive notices a vanished
 * host), never on a wall clock.
 *
 * <p>Memory, in copies of the K'·(d+1) weights w (8 bytes per value; S = w, plus the averaging
 * accumulator u with averaging), at the peak of a round. The driver holds S, the snapshot's copy
 * and Spark's serialised pieces of it (2w, in every deploy mode: executors fetch the pieces from
 * the driver; nothing while the snapshot is the all-zero start, which is shipped empty), the change
 * chain (at most a quarter of the coordinates, as index and value, twice), the support set's
 * coordinates with the epoch's start values, the workers' changes being mixed and, with block
 * momentum, Δ (w); with {@code averaging=vote} one start vector (w) per round. Each executor holds
 * its current copy (w), the snapshot broadcast it read and its pieces (2w; none in local mode,
 * where tasks read the driver's object), the working copies of the workers that ran there (w and u
 * over each worker's K'·(m+1) coordinates; idle ones kept up to what one global copy S per task
 * slot would take) and, per task slot, the round's change, twice while it is serialised. The
 * sparse changes cost
 * O(changed coordinates) per round on both sides, at most S when a worker touched more than
 * half the coordinates. {@code io.github.sparkperceptron.internal.plan.MemoryPlan} counts exactly these
 * before the first epoch and refuses a training that cannot fit.
 */
package io.github.sparkperceptron.internal.exchange;
