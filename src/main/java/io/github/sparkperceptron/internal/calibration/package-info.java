/**
 * Spark-free probability calibration: how a model's raw scores become class probabilities
 * ({@link io.github.sparkperceptron.internal.calibration.Calibrator}), and the fits that learn that map from
 * held-out scores (a {@link io.github.sparkperceptron.internal.calibration.ScoreSample}) on primitive
 * arrays.
 *
 * <pre>
 * Platt 1999; Lin, Lin &amp; Weng 2007   PlattScaling: the sigmoid of a binary margin, Newton's fit
 * Guo et al. 2017                     TemperatureScaling: softmax(z / T) of K scores
 * Ayer et al. 1955; Zadrozny &amp;
 *   Elkan 2002                        IsotonicSteps: pool-adjacent-violators, one class against
 *                                     the rest for K classes
 * </pre>
 *
 * <p>A perceptron's score is a margin in units of its weights, which grow with every update: it
 * ranks examples but has no probabilistic scale, so the fits run on rows the model was scored on
 * (its calibration rows, chosen by the engine and the Spark face). Nothing here imports Spark; the
 * engine ({@code train}) collects the sample from cached blocks, the Spark face ({@code ml}) holds
 * the calibrator in the model, and the ONNX export ({@code onnx}) writes the same arithmetic as a
 * graph.
 */
package io.github.sparkperceptron.internal.calibration;
