/**
 * Not an API. The packages under {@code io.github.sparkperceptron.internal} hold the engine and
 * the math (kernel, mixing, calibration, evaluation, plan, blocks, rounds, engine, exchange, io,
 * store, drift), ONNX's generated protobuf messages ({@code internal.onnx}), and what the public
 * packages lend to the code above them without making it public ({@code internal.ml},
 * {@code internal.streaming}: Java has no {@code private[sparkperceptron]}). Their types are
 * public only so that these packages can call each other; they are left out of the Javadoc and of
 * the API compatibility check and may change in any release. The API is the list in the README,
 * "API and compatibility".
 */
package io.github.sparkperceptron.internal;
