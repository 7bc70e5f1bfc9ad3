/**
 * Spark-free evaluation of a classifier's scores on primitive arrays: {@link
 * io.github.sparkperceptron.internal.evaluation.RankedScores} ranks a partition's scores once, and
 * {@link io.github.sparkperceptron.internal.evaluation.CurveAreas} turns a ranking (whole, or cut into
 * score ranges) into the areas under the ROC and precision-recall curves as Spark's
 * {@code BinaryClassificationMetrics} defines them. The engine ({@code train}) runs them over
 * cached blocks or a pass of predictions.
 */
package io.github.sparkperceptron.internal.evaluation;
