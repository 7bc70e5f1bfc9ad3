/**
 * Models that leave Spark: a trained perceptron as an ONNX graph ({@link
 * io.github.sparkperceptron.onnx.OnnxExport}), written by {@code
 * model.write().format("onnx").save(dir)} ({@link io.github.sparkperceptron.onnx.OnnxFormat}, a
 * Spark {@code MLFormatRegister}) and by {@code submit/export}. The graphs
 * ({@code PerceptronGraphs}, with the calibrator's {@code probability} output from
 * {@code ProbabilityGraph}) are built from the model's public numbers with the classes protoc
 * generates from ONNX's {@code onnx.proto} ({@code io.github.sparkperceptron.internal.onnx}); the
 * protobuf runtime travels inside the library jar, relocated.
 */
package io.github.sparkperceptron.onnx;
