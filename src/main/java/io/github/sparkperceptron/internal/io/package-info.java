/**
 * Reading labelled data from files (LIBSVM, CSV, Parquet; local, {@code file://} or
 * {@code hdfs://} paths) into the DataFrames the estimator takes, with errors that name the file,
 * the line and the fix.
 *
 * <p>Readers never throw from inside a Spark task: each partition reports its first bad line as
 * data, and the driver raises a {@link io.github.sparkperceptron.internal.io.BadInputException} for the
 * first one in file order. Spark would otherwise retry a deterministic failure and bury the
 * message under its own stack trace.
 */
package io.github.sparkperceptron.internal.io;
