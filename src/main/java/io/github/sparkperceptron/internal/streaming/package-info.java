/**
 * What {@code io.github.sparkperceptron.streaming} lends to the jobs without making it public:
 * {@link io.github.sparkperceptron.internal.streaming.StreamingBridge} (a stream whose
 * micro-batches are read straight into the engine's blocks), registered by the streaming
 * package's package-private {@code BridgeSide}. It stands on {@code streaming}'s floor as its
 * twin ({@code LayeringTest}). Not an API.
 */
package io.github.sparkperceptron.internal.streaming;
