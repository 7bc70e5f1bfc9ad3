/**
 * spark-perceptron: perceptron classifiers trained on Apache Spark by iterative parameter mixing
 * (McDonald, Hall &amp; Mann, "Distributed Training Strategies for the Structured Perceptron",
 * NAACL 2010). The estimator and model are in {@link io.github.sparkperceptron.ml}, the stream
 * learner in {@link io.github.sparkperceptron.streaming}, the ONNX export in
 * {@link io.github.sparkperceptron.onnx}, the spark-submit jobs in
 * {@link io.github.sparkperceptron.jobs}. This package holds only the vocabulary the public API
 * shares with the engine below it ({@link io.github.sparkperceptron.StopReason}); packages under
 * {@code internal} are not API.
 */
package io.github.sparkperceptron;
