package io.github.sparkperceptron.streaming;

/**
 * Told about every micro-batch a {@link StreamingPerceptron} applies, on the driver, after the
 * learner state is saved (a replayed batch that was already applied is not reported again): for
 * metrics, dashboards and learning curves. Runs on Spark's stream thread, so keep it short; an
 * exception it throws stops the query.
 */
@FunctionalInterface
public interface BatchListener {
  void onBatch(BatchReport report);
}
