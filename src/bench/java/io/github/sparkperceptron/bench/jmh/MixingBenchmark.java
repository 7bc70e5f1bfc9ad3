package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
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
 * The driver-side and aggregation work of a mixing round: mixing the partitions' changes
 * ({@link ParameterMix}, the fixed binary tree of weighted means of {@link StateDelta}s, weights
 * and averaging accumulators) for a state of {@code length} doubles from {@code partitions}
 * partitions, each of which touched a share {@code density} of the coordinates (1.0: dense
 * deltas), and Java-serialising one partition's result, which is what a task ships back to the
 * tree aggregation.
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

  @Param({"1.0", "0.01"})
  double density;

  private WorkerResult[] results;

  @Setup(Level.Trial)
  public void setUp() {
    Random rnd = new Random(5);
    results = new WorkerResult[partitions];
    for (int p = 0; p < partitions; p++) {
      StateDelta delta;
      if (density >= 1.0) {
        double[] w = new double[length];
        double[] u = new double[length];
        for (int j = 0; j < length; j++) {
          w[j] = rnd.nextGaussian();
          u[j] = rnd.nextGaussian();
        }
        delta = StateDelta.dense(w, u);
      } else {
        int[] idx = rnd.ints(0, length).distinct().limit((long) (density * length)).sorted()
            .toArray();
        double[] w = new double[idx.length];
        double[] u = new double[idx.length];
        for (int k = 0; k < idx.length; k++) {
          w[k] = rnd.nextGaussian();
          u[k] = rnd.nextGaussian();
        }
        delta = StateDelta.sparse(length, idx, w, u);
      }
      EpochStats stats = new EpochStats();
      stats.updates = 100 + p;
      results[p] = new WorkerResult(p, 100 + p, delta, new EpochStats[] {stats});
    }
  }

  @Benchmark
  public StateDelta mix() {
    ParameterMix mix = new ParameterMix(partitions);
    for (WorkerResult r : results) {
      // Blending never mutates a delta, so the same deltas serve every invocation.
      mix.add(new WorkerResult(r.worker(), r.mixWeight(), r.delta(),
          new EpochStats[] {r.epochs()[0].copy()}));
    }
    return mix.result().delta();
  }

  @Benchmark
  public int serializeResult() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(results[0]);
    }
    return bytes.size();
  }
}
