/**
 * Synthetic data for tests, benchmarks and capacity planning: linearly separable rows with a
 * chosen margin and label noise, sparse or dense, binary or multiclass, at any scale.
 * {@link io.github.sparkperceptron.data.SyntheticRows} draws rows without Spark (for the plain
 * loops of the benchmarks); {@link io.github.sparkperceptron.data.SyntheticData} describes the
 * distribution and generates DataFrames inside Spark tasks.
 */
package io.github.sparkperceptron.data;
