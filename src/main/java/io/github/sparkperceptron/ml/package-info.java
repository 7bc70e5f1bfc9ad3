/**
 * The Spark ML face of the library: {@link io.github.sparkperceptron.ml.PerceptronClassifier}
 * (an {@code Estimator}) and {@link io.github.sparkperceptron.ml.PerceptronClassificationModel}
 * (its {@code Model}), their params, training summary and persistence.
 *
 * <p>Training reads as an outline in {@code PerceptronClassifier.train}: check the params →
 * {@code TrainingInput} lays the input's partitions out over {@code numWorkers} workers
 * ({@code WorkerLayout}: as they are, coalesced or split), converts each worker's rows once into
 * cached primitive-array blocks and validates every row (bad rows are reported as data and raised on the driver, never thrown
 * inside Spark) → {@code IterativeParameterMixing} runs one Spark job per epoch over the blocks,
 * with the Spark-free kernel ({@code io.github.sparkperceptron.kernel}) inside the tasks and the
 * order-independent mixing ({@code io.github.sparkperceptron.mixing}) in {@code treeAggregate}
 * → the model and its summary are built on the driver. Closures capture small immutable
 * settings objects ({@code LearnerConfig}, {@code MixingSettings}), never the estimator.
 */
package io.github.sparkperceptron.ml;
