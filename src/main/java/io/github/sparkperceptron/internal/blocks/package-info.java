/**
 * The training data as the engine holds them: the input's partitions laid out over the workers
 * ({@link io.github.sparkperceptron.internal.blocks.WorkerLayout}: as they are, coalesced, split
 * or gathered through a shuffle), each worker's rows converted once, as they arrive
 * ({@link io.github.sparkperceptron.internal.blocks.RowConverter}), into chunks of primitive
 * arrays of at most a few MiB ({@link io.github.sparkperceptron.internal.blocks.ChunkWriter}),
 * every chunk its own Spark block at the training's storage level
 * ({@link io.github.sparkperceptron.internal.blocks.ChunkStore}), so that data larger than memory
 * spill to disk chunk by chunk and each epoch reads them back
 * ({@link io.github.sparkperceptron.internal.blocks.WorkerEpoch}). Every row is validated on the
 * way and the problems come back to the driver as data
 * ({@link io.github.sparkperceptron.internal.blocks.PartitionFacts}), never as an exception inside
 * Spark. {@link io.github.sparkperceptron.internal.blocks.TrainingInput} is one fit's cached data;
 * {@link io.github.sparkperceptron.internal.blocks.BlockEvaluation} and
 * {@link io.github.sparkperceptron.internal.blocks.BlockProbabilities} score a model over the
 * chunks in one pass each; {@link io.github.sparkperceptron.internal.blocks.PartitionJob} is how
 * the engine runs a job over the blocks (one {@code runJob}, without Spark's closure cleaning).
 */
package io.github.sparkperceptron.internal.blocks;
