package io.github.sparkperceptron.ml;

import org.apache.spark.TaskContext;

/**
 * A seam for recovery tests. Spark offers no way to make a chosen task fail from outside (its
 * executor plugins' exceptions are swallowed), so partition-epoch tasks read one job-local
 * property, {@link #PROPERTY}, and fail on purpose when a test set it:
 * <ul>
 *   <li>{@code first-attempt}: the first attempt of every partition epoch fails (Spark's retries
 *       must then produce the same model);</li>
 *   <li>{@code from-epoch:N}: every attempt of epoch N and later fails, which aborts the training
 *       as a dying driver would (a resumed training must then end with the same model).</li>
 * </ul>
 * Without the property (always, outside tests) it costs one property lookup per task.
 */
final class FaultInjection {
  /** Set with {@code sparkContext.setLocalProperty(PROPERTY, value)} on the fitting thread. */
  static final String PROPERTY = "spark.perceptron.test.injectFailure";

  private FaultInjection() {
  }

  static void beforePartitionEpoch(int epoch, int partition) {
    TaskContext task = TaskContext.get();
    String mode = task == null ? null : task.getLocalProperty(PROPERTY);
    if (mode == null) {
      return;
    }
    boolean fail = mode.equals("first-attempt") ? task.attemptNumber() == 0
        : mode.startsWith("from-epoch:") && epoch >= Integer.parseInt(mode.substring(11));
    if (fail) {
      throw new IllegalStateException("injected failure: epoch " + epoch + ", partition "
          + partition + ", attempt " + task.attemptNumber() + " (" + PROPERTY + "=" + mode + ")");
    }
  }
}
