package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.data.SyntheticRows;
import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.FeatureBlock;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.OnlineLearner;
import io.github.sparkperceptron.kernel.SeededShuffle;
import io.github.sparkperceptron.kernel.TrainingBlock;
import io.github.sparkperceptron.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.kernel.UpdateRule;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One partition's epoch ({@link OnlineLearner#runEpoch}) on 4 million stored values: sparse
 * (200,000 rows x 20 non-zeros of d = 100,000) or dense (40,000 rows x 100), standard or
 * averaged, binary or multiclass. Every invocation restarts from the same state (the weights
 * after one epoch, so the update rate is that of a typical later epoch), which costs one O(d)
 * copy, small next to the epoch. {@link #scoreOnly} is the read-only floor: the margins alone.
 * The order is fixed per trial (Spark draws a new one per epoch; its cost is in the suite's
 * plain loop, not here).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class KernelBenchmark {
  @Param({"sparse", "dense"})
  String layout;

  @Param({"none", "average"})
  String averaging;

  @Param({"2"})
  int classes;

  /**
   * The rows' visiting order: {@code shuffled} as training does (a new permutation per epoch), or
   * {@code sequential}, which shows how much of the epoch is memory latency rather than arithmetic.
   */
  @Param({"shuffled", "sequential"})
  String order;

  private TrainingBlock block;
  private LearnerConfig config;
  private LinearState start;
  private LinearState state;
  private int[] rowOrder;

  @Setup
  public void setUp() {
    boolean dense = layout.equals("dense");
    SyntheticData data = SyntheticData.builder().numFeatures(dense ? 100 : 100_000)
        .nonZerosPerRow(dense ? 0 : 20).numClasses(classes).margin(0.05).labelNoise(0.05)
        .seed(3).build();
    int rows = dense ? 40_000 : 200_000;
    SyntheticRows generator = data.rows();
    TrainingBlockBuilder builder = new TrainingBlockBuilder(data.numFeatures());
    int[] idx = new int[data.storedPerRow()];
    double[] val = new double[data.storedPerRow()];
    for (long r = 0; r < rows; r++) {
      int label = generator.row(r, idx, val);
      builder.addSparse(label, 1.0, idx, val, idx.length);
    }
    block = builder.build();
    config = new LearnerConfig(data.numFeatures(), classes, true, 1.0, UpdateRule.PERCEPTRON,
        1.0, Averaging.fromParam(averaging));
    start = LinearState.zero(config);
    OnlineLearner.runEpoch(config, block, SeededShuffle.order(true, 1, 1, 0, rows), start, 1.0,
        new EpochStats(), null);
    state = start.copy();
    rowOrder = SeededShuffle.order(order.equals("shuffled"), 1, 2, 0, rows);
  }

  @Benchmark
  public EpochStats epoch() {
    System.arraycopy(start.weights(), 0, state.weights(), 0, start.weights().length);
    if (start.averageAccumulator() != null) {
      System.arraycopy(start.averageAccumulator(), 0, state.averageAccumulator(), 0,
          start.averageAccumulator().length);
    }
    state.setClock(start.clock());
    EpochStats stats = new EpochStats();
    OnlineLearner.runEpoch(config, block, rowOrder, state, 1.0, stats, null);
    return stats;
  }

  @Benchmark
  public double scoreOnly() {
    FeatureBlock x = block.features();
    double[] w = start.weights();
    double sum = 0.0;
    for (int row : rowOrder) {
      sum += x.dot(row, w, 0);
    }
    return sum;
  }
}
