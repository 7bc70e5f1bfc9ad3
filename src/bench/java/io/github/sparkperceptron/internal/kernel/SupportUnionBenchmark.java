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
 * Issue 32's hashed shape: the size of a training's support united with one round's mix, by
 * merging the two sorted arrays (one step per element of both) against galloping through the
 * support for each coordinate of the mix ({@link SortedCoordinates#missing}; both as
 * {@link SortedCoordinates#unionSize} runs them), over mixes from a
 * 4,000th to a quarter of the support. The support: every coordinate of d = 2^24 with
 * probability 1/4 (about 4.2 million, the hashed shape's 4.1 million); the mix: {@code mix}
 * distinct uniform coordinates (seed 1). Where the two cross sets the constant of
 * {@code SortedCoordinates.gallops}.
 *
 * <p>In this package (under src/bench) because the two are package-private. Run:
 * {@code submit/jmh SupportUnionBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class SupportUnionBenchmark {
  private static final int D = 1 << 24;

  /** Coordinates in the round's mix. */
  @Param({"1000", "10000", "40000", "100000", "200000", "400000", "1000000"})
  int mix;

  private int[] support;
  private int[] changed;

  @Setup
  public void setUp() {
    Random random = new Random(1);
    support = IntStream.range(0, D).filter(j -> random.nextInt(4) == 0).toArray();
    changed = random.ints(2L * mix, 0, D).distinct().limit(mix).sorted().toArray();
  }

  /** The merge, one step per element of both arrays. */
  @Benchmark
  public int merge() {
    return SortedCoordinates.mergedSize(support, changed);
  }

  /** A galloping search through the support for each coordinate of the mix. */
  @Benchmark
  public int gallop() {
    return support.length + SortedCoordinates.missing(support, changed);
  }
}
