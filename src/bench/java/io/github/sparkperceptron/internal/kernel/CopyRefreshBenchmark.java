package io.github.sparkperceptron.internal.kernel;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
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
 * Issue 32's hashed shape: a worker's copy following its base after a round's mix moved
 * {@code moved} coordinates, by a search of each moved coordinate among the worker's features
 * ({@link LocalWeights#refresh}) against one gather of every local weight
 * ({@link LocalWeights#refreshAll}). A binary model over d = 2^24 features; the worker holds
 * each with probability 0.17 (about 2.9 million, a worker's share of the hashed shape's 4.1
 * million); the moved coordinates are uniform over the support of both workers (each feature with
 * probability 1/4, seed 5). Where the two cross sets the threshold in {@code WorkerRound.baseMoved}.
 *
 * <p>In this package (under src/bench) next to the class it measures. Run:
 * {@code submit/jmh CopyRefreshBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class CopyRefreshBenchmark {
  private static final int D = 1 << 24;

  /** Coordinates the round moved. */
  @Param({"10000", "100000", "300000", "1000000", "3000000"})
  int moved;

  private LocalWeights copy;
  private double[] base;
  private int[] coordinates;

  @Setup
  public void setUp() {
    Random random = new Random(5);
    int[] held = IntStream.range(0, D).filter(j -> random.nextDouble() < 0.17).toArray();
    LearnerConfig config = new LearnerConfig(D, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    copy = new LocalWeights(config, new LocalFeatures(D, held), StateLayout.CLASS_MAJOR);
    base = random.doubles(D + 1).toArray();
    int[] support = IntStream.range(0, D + 1).filter(j -> random.nextInt(4) == 0).toArray();
    coordinates = random.ints(2L * moved, 0, support.length).distinct().limit(moved).sorted()
        .map(k -> support[k]).toArray();
    copy.load(base);
  }

  /** A search per moved coordinate. */
  @Benchmark
  public int refresh() {
    return copy.refresh(base, coordinates, coordinates.length);
  }

  /** Every local weight gathered from the base. */
  @Benchmark
  public LocalWeights refreshAll() {
    copy.refreshAll(base);
    return copy;
  }
}
