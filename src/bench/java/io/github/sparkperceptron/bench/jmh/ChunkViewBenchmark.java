package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import java.util.Random;
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
 * Issue 32's small epoch: what a worker's chunked rows cost the kernel against the same rows in
 * one block. One worker's share of the shapes section's binary 2^16 set (100,000 rows × up to 30
 * non-zeros of d = 65,536, labels from a noisy random hyperplane, seed 3), averaged perceptron,
 * a uniformly shuffled order fixed per trial; every invocation restarts from the same state (one
 * epoch in). {@code parts = 1} is the rows in one block; {@code parts > 1} the same rows stored in
 * that many blocks and seen as one ({@link TrainingBlock#concat}), as a task's epoch sees its
 * cached chunks. Same rows, same order, same arithmetic: only the view differs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class ChunkViewBenchmark {
  private static final int ROWS = 100_000;
  private static final int D = 1 << 16;
  private static final int NNZ = 30;

  /** Blocks the rows are stored in: 1, a few (counted), many (searched by halves). */
  @Param({"1", "5", "40"})
  int parts;

  private TrainingBlock block;
  private LearnerConfig config;
  private LinearState start;
  private LinearState state;
  private EpochOrder order;

  @Setup
  public void setUp() {
    Random rnd = new Random(3);
    double[] truth = rnd.doubles(D).map(x -> x - 0.5).toArray();
    TrainingBlockBuilder[] builders = new TrainingBlockBuilder[parts];
    for (int p = 0; p < parts; p++) {
      builders[p] = new TrainingBlockBuilder(D);
    }
    for (int r = 0; r < ROWS; r++) {
      int[] idx = rnd.ints(NNZ, 0, D).distinct().sorted().toArray();
      double[] val = new double[idx.length];
      double margin = 0;
      for (int k = 0; k < idx.length; k++) {
        val[k] = rnd.nextGaussian();
        margin += val[k] * truth[idx[k]];
      }
      int label = margin + 0.3 * rnd.nextGaussian() > 0 ? 1 : 0;
      builders[(int) ((long) r * parts / ROWS)].addSparse(label, 1.0, idx, val, idx.length);
    }
    TrainingBlock[] built = new TrainingBlock[parts];
    for (int p = 0; p < parts; p++) {
      built[p] = builders[p].build();
    }
    block = TrainingBlock.concat(built);
    config = new LearnerConfig(D, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0, Averaging.AVERAGE);
    int[] permutation = new int[ROWS];
    for (int i = 0; i < ROWS; i++) {
      permutation[i] = i;
    }
    for (int i = ROWS - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = permutation[i];
      permutation[i] = permutation[j];
      permutation[j] = t;
    }
    order = EpochOrder.of(permutation);
    start = LinearState.zero(config);
    OnlineLearner.runEpoch(config, block, order, start, 1.0, new EpochStats(), null);
    state = start.copy();
  }

  /** One epoch from the state after the first. */
  @Benchmark
  public LinearState epoch() {
    System.arraycopy(start.weights(), 0, state.weights(), 0, start.weights().length);
    System.arraycopy(start.averageAccumulator(), 0, state.averageAccumulator(), 0,
        start.averageAccumulator().length);
    state.setClock(start.clock());
    OnlineLearner.runEpoch(config, block, order, state, 1.0, new EpochStats(), null);
    return state;
  }
}
