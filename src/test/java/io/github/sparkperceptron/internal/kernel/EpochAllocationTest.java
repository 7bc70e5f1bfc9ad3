package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * An epoch allocates nothing per row: no boxing, iterator or scratch object in the training loop.
 * Measured with the JVM's per-thread allocation counter
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), which counts every byte the
 * thread allocates, TLAB or not, interpreted or compiled; so the check holds before and after JIT
 * compilation and needs no profiler. It is a count, not a timing, so it is deterministic.
 */
class EpochAllocationTest {
  private static final int ROWS = 100_000;
  /**
   * What an epoch may allocate whatever its size: the multiclass scores array (8·K + 16 bytes)
   * and a little slack for the counter's own bookkeeping. One object per row would be at least
   * 16 bytes × 100,000 rows = 1.6 MB, a hundred times more.
   */
  private static final long BUDGET_BYTES = 16 * 1024;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static TrainingBlock block(boolean dense, int numClasses, VisitOrder order) {
    Random rnd = new Random(3);
    int d = dense ? 16 : 5_000;
    TrainingBlockBuilder builder = new TrainingBlockBuilder(d);
    int[] idx = new int[d];
    double[] val = new double[d];
    for (int r = 0; r < ROWS; r++) {
      int label = rnd.nextInt(numClasses);
      if (dense) {
        for (int j = 0; j < d; j++) {
          val[j] = rnd.nextGaussian() + (j % numClasses == label ? 0.5 : 0.0);
        }
        builder.addDense(label, 1.0, val);
      } else {
        int n = 0;
        for (int j = rnd.nextInt(50); j < d && n < 10; j += 1 + rnd.nextInt(500)) {
          idx[n] = j;
          val[n] = rnd.nextGaussian() + (j % numClasses == label ? 0.5 : 0.0);
          n++;
        }
        builder.addSparse(label, 1.0, idx, val, n);
      }
    }
    return builder.build(order.layout(0, ROWS));
  }

  private static long epochAllocation(TrainingBlock data, VisitOrder visits, int numClasses,
      UpdateRule rule, Averaging averaging, StateLayout layout) {
    LearnerConfig config = new LearnerConfig(data.features().numFeatures(), numClasses, true,
        1.0, rule, 1.0, averaging).withLayout(layout);
    LinearState state = LinearState.zero(config);
    EpochOrder order = visits.epochOrder(1, 0, data.features());
    EpochStats stats = new EpochStats();
    // Warm-up: class initialisation (enum switch tables) happens once, not per epoch.
    OnlineLearner.runEpoch(config, data, order, state, 1.0, stats, null);
    long thread = Thread.currentThread().getId();
    long before = THREADS.getThreadAllocatedBytes(thread);
    OnlineLearner.runEpoch(config, data, order, state, 1.0, stats, null);
    long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
    assertTrue(stats.updates > 0, "the epochs updated the weights (the update path ran)");
    return allocated;
  }

  @Test
  void anEpochAllocatesAConstantAmountWhateverTheRows() {
    assertTrue(THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled(),
        "this JVM counts allocated bytes per thread");
    StringBuilder report = new StringBuilder();
    long worst = 0;
    for (ShuffleScope scope : ShuffleScope.values()) {
      VisitOrder visits = VisitOrder.of(true, scope, 7);
      for (boolean dense : new boolean[] {false, true}) {
        for (int classes : new int[] {2, 4}) {
          TrainingBlock data = block(dense, classes, visits);
          for (UpdateRule rule : new UpdateRule[] {UpdateRule.PERCEPTRON, UpdateRule.PA1}) {
            for (Averaging averaging : new Averaging[] {Averaging.NONE, Averaging.AVERAGE}) {
              for (StateLayout layout : StateLayout.values()) {
                long bytes = epochAllocation(data, visits, classes, rule, averaging, layout);
                worst = Math.max(worst, bytes);
                report.append(String.format("%s %s K=%d %s %s %s: %d bytes%n", scope,
                    dense ? "dense" : "sparse", classes, rule, averaging, layout, bytes));
              }
            }
          }
        }
      }
    }
    assertTrue(worst <= BUDGET_BYTES, "an epoch over " + ROWS + " rows allocated more than "
        + BUDGET_BYTES + " bytes:\n" + report);
  }
}
