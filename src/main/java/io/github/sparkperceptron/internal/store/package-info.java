/**
 * The files the library keeps between runs, written so that a crash or a damaged disk never
 * leaves a half-read state: {@link io.github.sparkperceptron.internal.store.StateFile}, the one sectioned,
 * checksummed container of every state file (a training's checkpoints and a stream learner's
 * state are two codecs on it), and {@link io.github.sparkperceptron.internal.store.AtomicFiles}, the one
 * "write under a temporary name, then rename" used by every writer of files and directories;
 * and {@link io.github.sparkperceptron.internal.store.NioLocalFileSystem}, Hadoop's local file
 * system without a {@code chmod} process per file written, which the jobs use on a local master.
 *
 * <p>A floor of its own: it knows Hadoop's file systems and the kernel's state, nothing of
 * training, streams or jobs, so the engine ({@code train}), the stream learner and the jobs can
 * all use it.
 */
package io.github.sparkperceptron.internal.store;
