/**
 * What {@code io.github.sparkperceptron.ml} lends to the packages above it (streaming, onnx,
 * jobs) without making it public, the Java counterpart of Spark's {@code private[ml]}:
 * {@link io.github.sparkperceptron.internal.ml.EngineBridge} (the params as the engine's
 * settings, training and scoring on cached blocks, a model's calibrator and vote), through the
 * {@link io.github.sparkperceptron.internal.ml.Lent} holder that {@code ml}'s package-private
 * {@code BridgeSide} registers with; and Spark's service provider of the default model format,
 * {@link io.github.sparkperceptron.internal.ml.InternalModelFormat}, public because
 * {@code ServiceLoader} instantiates it. It stands on {@code ml}'s floor as its twin
 * ({@code LayeringTest}). Not an API.
 */
package io.github.sparkperceptron.internal.ml;
