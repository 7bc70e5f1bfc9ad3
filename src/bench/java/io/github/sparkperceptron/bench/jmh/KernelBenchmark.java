package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.data.SyntheticRows;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
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
 * (200,000 rows x 20 non-zeros of d = 100,000), dense (40,000 rows x 100) or, on request
 * ({@code -p layout=dense500}), dense rows of 500 (8,000 rows), standard or averaged, binary or
 * multiclass, in the visiting orders of {@link VisitOrder}. Every invocation restarts from the
 * same state (the weights after one epoch, so the update rate is that of a typical later epoch),
 * which costs one O(d) copy, small next to the epoch. {@link #scoreOnly} is the read-only floor:
 * the margins alone. The order is fixed per trial (Spark draws a new one per epoch; its cost is
 * in the suite's plain loop, not here).
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
   * The rows' visiting order: {@code shuffled} (shuffleScope=rows: a uniform permutation),
   * {@code chunked} (shuffleScope=chunks: the block laid out once in random order, then chunks in
   * random order, rows within a chunk in random order), {@code chunk-sequential} (the same chunks
   * in random order, rows within a chunk in storage order: what the in-chunk shuffle costs), or
   * {@code sequential} (storage order), which shows how much of the epoch is memory latency
   * rather than arithmetic.
   */
  @Param({"shuffled", "chunked", "sequential"})
  String order;

  /** Rows per chunk of the chunked orders; 0: the library's choice, VisitOrder.chunkRows. */
  @Param({"0"})
  int chunkRows;

  private TrainingBlock block;
  private LearnerConfig config;
  private LinearState start;
  private LinearState state;
  private EpochOrder rowOrder;

  @Setup
  public void setUp() {
    boolean dense = layout.startsWith("dense");
    int denseLength = layout.equals("dense500") ? 500 : 100;
    SyntheticData data = SyntheticData.builder().numFeatures(dense ? denseLength : 100_000)
        .nonZerosPerRow(dense ? 0 : 20).numClasses(classes).margin(0.05).labelNoise(0.05)
        .seed(3).build();
    int rows = dense ? 4_000_000 / denseLength : 200_000;
    SyntheticRows generator = data.rows();
    TrainingBlockBuilder builder = new TrainingBlockBuilder(data.numFeatures());
    int[] idx = new int[data.storedPerRow()];
    double[] val = new double[data.storedPerRow()];
    for (long r = 0; r < rows; r++) {
      int label = generator.row(r, idx, val);
      builder.addSparse(label, 1.0, idx, val, idx.length);
    }
    boolean chunks = order.startsWith("chunk");
    VisitOrder visits = VisitOrder.of(true, chunks ? ShuffleScope.CHUNKS : ShuffleScope.ROWS, 1);
    block = builder.build(visits.layout(0, rows));
    config = new LearnerConfig(data.numFeatures(), classes, true, 1.0, UpdateRule.PERCEPTRON,
        1.0, Averaging.fromParam(averaging));
    start = LinearState.zero(config);
    OnlineLearner.runEpoch(config, block, visits.epochOrder(1, 0, block.features()), start, 1.0,
        new EpochStats(), null);
    state = start.copy();
    int c = chunkRows > 0 ? chunkRows : VisitOrder.chunkRows(block.features());
    switch (order) {
      case "shuffled":
        rowOrder = visits.epochOrder(2, 0, block.features());
        break;
      case "chunked":
        rowOrder = VisitOrder.chunked(1, 2, 0, rows, c);
        break;
      case "chunk-sequential":
        rowOrder = EpochOrder.of(chunksInStorageOrder(rows, c));
        break;
      case "sequential":
        rowOrder = VisitOrder.of(false, ShuffleScope.ROWS, 1).epochOrder(2, 0, block.features());
        break;
      default:
        throw new IllegalArgumentException("unknown order " + order);
    }
  }

  /**
   * VisitOrder's chunks (same cut, same chunk order) with each chunk's rows in storage order.
   */
  private static int[] chunksInStorageOrder(int n, int c) {
    SeededShuffle stream = SeededShuffle.forEpoch(1, 2, 0);
    int cut = stream.nextInt(n);
    int[] chunkOrder = stream.permutation((n + c - 1) / c);
    int[] out = new int[n];
    int t = 0;
    for (int k : chunkOrder) {
      for (int p = k * c; p < Math.min(n, (k + 1) * c); p++) {
        out[t++] = (cut + p) % n;
      }
    }
    return out;
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
    for (int row : rowOrder.rows()) {
      sum += x.dot(row, w, 0);
    }
    return sum;
  }
}
