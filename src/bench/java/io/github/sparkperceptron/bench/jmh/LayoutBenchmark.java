package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.bench.TextLikeData;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.LocalWeights;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.StateLayout;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.sql.Row;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One worker's epoch (100,000 rows, its share of the 200,000 on 2 workers) of the
 * model-size section's data, as the kernel runs it in each state layout and numbering (issue 21):
 * {@code TextLikeData} d = 2^16, 30 non-zeros a row (Zipf s = 1), topics of 200 features, topic
 * share 0.3, seed 43, K classes; for {@code logD} above 16 the feature j becomes
 * j·s + (h(j) mod s), s = 2^(logD − 16), the d sweep's increasing spread (same rows, labels and
 * values, coordinates spread over d).
 *
 * <pre>
 * layout     CLASS_MAJOR (today's K rows of d+1) or FEATURE_MAJOR (a feature's K weights side by
 *            side); binary models have one row: both are the same kernel
 * numbering  global (arrays of K'·(d+1)) or local (the block's own m features, arrays of
 *            K'·(m+1): LocalWeights, as a worker would train after the round-task wiring)
 * </pre>
 *
 * <p>Defaults (library defaults: perceptron, averaging=average, intercept), shuffled order, every
 * invocation from the same state (one epoch in, so the update rate is a later epoch's); the reset
 * is a JMH per-invocation setup, outside the measured time (at K = 1000 it copies 1 GB). Memory:
 * K'·(d+1)·8 bytes per array, four arrays (w, u and their start copies): 2.1 GB at K = 1000,
 * d = 2^16 global; hence the fork's heap. K = 1000 at d &gt; 2^16 fits only with local numbers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 4)
@Measurement(iterations = 5, time = 4)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g", "-Xms6g"})
public class LayoutBenchmark {
  @Param({"2", "10", "100", "1000"})
  int classes;

  @Param({"CLASS_MAJOR", "FEATURE_MAJOR"})
  String layout;

  @Param({"global"})
  String numbering;

  @Param({"16"})
  int logD;

  @Param({"average"})
  String averaging;

  @Param({"100000"})
  int rows;

  private TrainingBlock block;
  private LearnerConfig config;
  private LinearState start;
  private LinearState state;
  private EpochOrder order;

  @Setup(Level.Trial)
  public void setUp() {
    int d = 1 << logD;
    int spreadFactor = 1 << (logD - 16);
    TextLikeData data = new TextLikeData(1 << 16, classes, 30, 1.0, 200, 0.3, 43);
    VisitOrder visits = VisitOrder.of(true, ShuffleScope.ROWS, 1);
    TrainingBlockBuilder builder = new TrainingBlockBuilder(d);
    Iterator<Row> it = data.rows(0, rows);
    while (it.hasNext()) {
      Row r = it.next();
      SparseVector v = (SparseVector) r.get(1);
      int[] idx = v.indices().clone();
      for (int k = 0; k < idx.length; k++) {
        long h = (idx[k] * 0x9E3779B97F4A7C15L) >>> 33;
        idx[k] = idx[k] * spreadFactor + (int) (h % spreadFactor);
      }
      builder.addSparse((int) r.getDouble(0), 1.0, idx, v.values(), idx.length);
    }
    LearnerConfig global = new LearnerConfig(d, classes, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.fromParam(averaging));
    StateLayout stateLayout = StateLayout.valueOf(layout);
    if (numbering.equals("local")) {
      block = builder.buildLocal(null);
      LocalWeights copy = new LocalWeights(global, block.localFeatures(), stateLayout);
      config = copy.config();
      start = copy.state(0.0);
    } else if (numbering.equals("global")) {
      block = builder.build();
      config = global.withLayout(stateLayout);
      start = LinearState.zero(config);
    } else {
      throw new IllegalArgumentException("numbering is global or local, got " + numbering);
    }
    OnlineLearner.runEpoch(config, block, visits.epochOrder(1, 0, block.features()), start, 1.0,
        new EpochStats(), null);
    state = start.copy();
    order = visits.epochOrder(2, 0, block.features());
    System.out.printf("%n# K=%d d=2^%d %s %s: %d local features, state %,d doubles%n", classes,
        logD, layout, numbering, block.features().numFeatures(), config.stateLength());
  }

  @Setup(Level.Invocation)
  public void reset() {
    System.arraycopy(start.weights(), 0, state.weights(), 0, start.weights().length);
    if (start.averageAccumulator() != null) {
      System.arraycopy(start.averageAccumulator(), 0, state.averageAccumulator(), 0,
          start.averageAccumulator().length);
    }
    state.setClock(start.clock());
  }

  @Benchmark
  public EpochStats epoch() {
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, block, order, state, 1.0, stats, null);
    return stats;
  }
}
