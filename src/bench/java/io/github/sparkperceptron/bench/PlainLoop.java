package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;

/**
 * The machine's floor for an epoch: the library's own kernel ({@link OnlineLearner#runEpoch}) over
 * one {@link TrainingBlock} of all the training rows, built by the same
 * {@link TrainingBlockBuilder} the estimator uses, on one thread, with no Spark at all. Each epoch
 * draws its order with {@link VisitOrder} as a Spark task does, and that is timed too, since a
 * task pays for it. The reference of issue 6 and 14, "the naive single-threaded shuffled loop", is
 * the full shuffle (shuffleScope=rows) over the rows in input order; the chunked order
 * (shuffleScope=chunks) lays the block out first, as the estimator does.
 */
final class PlainLoop {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private final TrainingBlock block;
  private final LearnerConfig config;
  private final LinearState state;
  private int epoch;
  private double lastCpuSeconds;
  private double medianCpuSeconds;

  private final VisitOrder visits;

  /**
   * Builds the block from (label, features) rows, e.g. a cached DataFrame's local iterator, laid
   * out for {@code scope}; epochs shuffle with seed 42 (the estimator's default).
   */
  PlainLoop(Iterator<Row> rows, int numFeatures, int numClasses, Averaging averaging,
      ShuffleScope scope) {
    this.visits = VisitOrder.of(true, scope, 42);
    TrainingBlockBuilder builder = new TrainingBlockBuilder(numFeatures);
    while (rows.hasNext()) {
      Row r = rows.next();
      int label = (int) r.getDouble(0);
      Vector v = (Vector) r.get(1);
      if (v instanceof SparseVector) {
        SparseVector sv = (SparseVector) v;
        builder.addSparse(label, 1.0, sv.indices(), sv.values(), sv.indices().length);
      } else {
        builder.addDense(label, 1.0, ((DenseVector) v).values());
      }
    }
    this.block = builder.build(visits.layout(0, builder.numRows()));
    // The estimator's defaults: perceptron rule, step 1, intercept.
    this.config = new LearnerConfig(numFeatures, numClasses, true, 1.0, UpdateRule.PERCEPTRON,
        1.0, averaging);
    this.state = LinearState.zero(config);
  }

  /** Runs one more epoch and returns its wall-clock seconds (its CPU time is kept too). */
  double epoch() {
    long cpu = THREADS.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    epoch++;
    EpochOrder order = visits.epochOrder(epoch, 0, block.features());
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, block, order, state, 1.0, stats, null);
    double wall = (System.nanoTime() - start) / 1e9;
    lastCpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpu) / 1e9;
    return wall;
  }

  /** Median seconds of epochs 2 .. n+1 (the first one warms up and is dropped). */
  double medianEpochSeconds(int n) {
    epoch();
    double[] t = new double[n];
    double[] c = new double[n];
    for (int i = 0; i < n; i++) {
      t[i] = epoch();
      c[i] = lastCpuSeconds;
    }
    medianCpuSeconds = median(c);
    return median(t);
  }

  /** The median CPU seconds of the epochs of the last {@link #medianEpochSeconds} call. */
  double medianCpuSeconds() {
    return medianCpuSeconds;
  }

  TrainingBlock block() {
    return block;
  }

  static double median(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    int n = s.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
}
