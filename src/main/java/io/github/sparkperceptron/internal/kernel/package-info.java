/**
 * Spark-free learning kernels: the perceptron family's per-example updates over primitive arrays.
 *
 * <p>Nothing in this package imports Spark. A worker's training data arrives as one
 * {@link io.github.sparkperceptron.internal.kernel.TrainingBlock} (CSR or dense rows, class indices,
 * optional sample weights) and {@link io.github.sparkperceptron.internal.kernel.OnlineLearner} runs one
 * epoch of updates over it in place on a {@link io.github.sparkperceptron.internal.kernel.LinearState}, in
 * the order {@link io.github.sparkperceptron.internal.kernel.VisitOrder} draws (a seeded full shuffle, or
 * the cache-friendly chunked shuffle, whose block layout the
 * {@link io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder} applies when it builds the block).
 *
 * <p>Conventions, fixed once for the whole library:
 * <ul>
 *   <li>A model has {@code K'} weight rows of length {@code d + 1}, stored row after row in one
 *       {@code double[]}; the last slot of a row is the bias ("notational hack": every x is
 *       augmented with a constant 1 when the intercept is fitted). Binary models have
 *       {@code K' = 1}; multiclass models {@code K' = K}. That class-major layout is the global
 *       one (exchange, mixing, checkpoints, models); a worker may train a copy laid out
 *       feature-major ({@link io.github.sparkperceptron.internal.kernel.StateLayout}) over its own feature
 *       numbers ({@link io.github.sparkperceptron.internal.kernel.LocalFeatures},
 *       {@link io.github.sparkperceptron.internal.kernel.LocalWeights}), with the same bits.</li>
 *   <li>Binary class indices {0, 1} become y = 2l − 1 ∈ {−1, +1}.</li>
 *   <li>A margin of exactly zero counts as a mistake, so that training from w = 0 moves.</li>
 * </ul>
 */
package io.github.sparkperceptron.internal.kernel;
