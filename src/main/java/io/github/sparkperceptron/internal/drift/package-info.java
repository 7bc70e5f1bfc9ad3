/**
 * Concept-drift detectors on a stream learner's prequential error stream: the Page-Hinkley test
 * ({@link io.github.sparkperceptron.internal.drift.PageHinkley}) and ADWIN
 * ({@link io.github.sparkperceptron.internal.drift.Adwin}), behind one interface,
 * {@link io.github.sparkperceptron.internal.drift.DriftDetector}.
 *
 * <p>Nothing here imports Spark or another layer of the library: a detector is fed numbers
 * (one 0/1 error per row, or a micro-batch's row and mistake counts) and says when the error rate
 * went up. Each one is deterministic, allocates nothing per row, and writes its whole state to a
 * {@code double[]} ({@link io.github.sparkperceptron.internal.drift.DriftDetector#encode()},
 * {@link io.github.sparkperceptron.internal.drift.DriftDetectors#decode(double[])}), so that a stream's
 * learner state can carry it across restarts: a resumed detector neither forgets a change it was
 * accumulating evidence for nor reports one twice.
 */
package io.github.sparkperceptron.internal.drift;
