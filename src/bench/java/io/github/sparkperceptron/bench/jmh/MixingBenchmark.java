package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.mixing.ParameterMix;
import io.github.sparkperceptron.mixing.PartitionResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
 * The driver-side and aggregation work of an epoch: mixing the partitions' results
 * ({@link ParameterMix}, the fixed binary tree of weighted means, weights and averaging
 * accumulators) for a state of {@code length} doubles from {@code partitions} partitions, and
 * Java-serialising one partition's result, which is what a task ships back to the tree
 * aggregation. Mixing consumes its inputs, so each invocation gets fresh copies (not timed).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class MixingBenchmark {
  @Param({"100001", "1000001"})
  int length;

  @Param({"2", "16"})
  int partitions;

  private LinearState[] states;
  private PartitionResult[] fresh;

  @Setup(Level.Trial)
  public void setUp() {
    Random rnd = new Random(5);
    states = new LinearState[partitions];
    for (int p = 0; p < partitions; p++) {
      double[] w = new double[length];
      double[] u = new double[length];
      for (int j = 0; j < length; j++) {
        w[j] = rnd.nextGaussian();
        u[j] = rnd.nextGaussian();
      }
      states[p] = new LinearState(w, u, 1000.0);
    }
  }

  @Setup(Level.Invocation)
  public void copies() {
    fresh = new PartitionResult[partitions];
    for (int p = 0; p < partitions; p++) {
      EpochStats stats = new EpochStats();
      stats.updates = 100 + p;
      fresh[p] = new PartitionResult(p, 100 + p, states[p].copy(), new EpochStats[] {stats});
    }
  }

  @Benchmark
  public LinearState mix() {
    ParameterMix mix = new ParameterMix(partitions);
    for (PartitionResult r : fresh) {
      mix.add(r);
    }
    return mix.result().state();
  }

  @Benchmark
  public int serializeResult() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 * length + 1024);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(fresh[0]);
    }
    return bytes.size();
  }
}
