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
 * Platt 1999; Niculescu-Mizil &amp;
 *   Caruana 2005                      CalibrationRows: which rows a training holds out to
 *                                     calibrate on (a seeded share, or a fold), by a row hash
 * </pre>
 *
 * <p>A perceptron's score is a margin in units of its weights, which grow with every update: it
 * ranks examples but has no probabilistic scale, so the fits run on rows the model was scored on
 * (its calibration rows: {@code CalibrationRows} decides which, where the engine converts the
 * rows, and the Spark face which rule applies). Nothing here imports Spark; the
 * engine ({@code train}) collects the sample from cached blocks, the Spark face ({@code ml}) holds
 * the calibrator in the model, and the ONNX export ({@code onnx}) writes the same arithmetic as a
 * graph.
 */
package io.github.sparkperceptron.internal.calibration;
