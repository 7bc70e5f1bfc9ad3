package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.data.SyntheticRows;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The kernel's epoch ({@link OnlineLearner#runEpoch}, averaged perceptron) under each visiting
 * order, on one thread without Spark, timed by the thread's CPU clock so that waiting for a core
 * on a shared machine does not count. The orders of one data shape are interleaved round after
 * round (every round runs each order once, from the same starting state), and medians are
 * reported, so that a slow spell of the machine hits every order alike. This is the chunk size
 * measurement of issue 14: chunks of C rows for C from 16 to 4,096, against the full shuffle
 * (shuffleScope=rows) and the storage order.
 */
final class KernelOrderTimes {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** One data shape: 4M stored values, as KernelBenchmark. */
  static final class Shape {
    final String name;
    final int numFeatures;
    /** 0: dense rows. */
    final int nonZeros;
    final int rows;

    Shape(String name, int numFeatures, int nonZeros, int rows) {
      this.name = name;
      this.numFeatures = numFeatures;
      this.nonZeros = nonZeros;
      this.rows = rows;
    }
  }

  static final Shape[] SHAPES = {
      new Shape("sparse 200k x 20 of d=100k", 100_000, 20, 200_000),
      new Shape("dense 40k x 100", 100, 0, 40_000),
      new Shape("dense 8k x 500", 500, 0, 8_000),
  };

  static final int[] CHUNK_ROWS = {16, 32, 64, 128, 256, 512, 1024, 4096};

  /** One order's measurements. */
  static final class Result {
    final String order;
    final int chunkRows;
    final double cpuSeconds;
    final double wallSeconds;

    Result(String order, int chunkRows, double cpuSeconds, double wallSeconds) {
      this.order = order;
      this.chunkRows = chunkRows;
      this.cpuSeconds = cpuSeconds;
      this.wallSeconds = wallSeconds;
    }
  }

  private KernelOrderTimes() {
  }

  static TrainingBlock block(Shape shape, int[] layout) {
    SyntheticData data = SyntheticData.builder().numFeatures(shape.numFeatures)
        .nonZerosPerRow(shape.nonZeros).margin(0.05).labelNoise(0.05).seed(3).build();
    SyntheticRows generator = data.rows();
    TrainingBlockBuilder builder = new TrainingBlockBuilder(data.numFeatures());
    int[] idx = new int[data.storedPerRow()];
    double[] val = new double[data.storedPerRow()];
    for (long r = 0; r < shape.rows; r++) {
      int label = generator.row(r, idx, val);
      builder.addSparse(label, 1.0, idx, val, idx.length);
    }
    return builder.build(layout);
  }

  /** Medians over {@code rounds} interleaved rounds, for every order of one shape. */
  static List<Result> measure(Shape shape, int rounds) {
    return measure(shape, rounds, CHUNK_ROWS);
  }

  static List<Result> measure(Shape shape, int rounds, int[] chunkSizes) {
    VisitOrder full = VisitOrder.of(true, ShuffleScope.ROWS, 1);
    VisitOrder chunks = VisitOrder.of(true, ShuffleScope.CHUNKS, 1);
    TrainingBlock plain = block(shape, null);
    TrainingBlock laidOut = block(shape, chunks.layout(0, shape.rows));
    int n = shape.rows;
    int defaultChunk = VisitOrder.chunkRows(laidOut.features());

    List<String> names = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    List<TrainingBlock> blocks = new ArrayList<>();
    List<EpochOrder> orders = new ArrayList<>();
    names.add("rows");
    sizes.add(0);
    blocks.add(plain);
    orders.add(full.epochOrder(2, 0, plain.features()));
    names.add("sequential");
    sizes.add(0);
    blocks.add(plain);
    orders.add(VisitOrder.of(false, ShuffleScope.ROWS, 1).epochOrder(2, 0, plain.features()));
    for (int c : chunkSizes) {
      names.add("chunks");
      sizes.add(c);
      blocks.add(laidOut);
      orders.add(VisitOrder.chunked(1, 2, 0, n, c));
      names.add("chunks, no prefetch");
      sizes.add(c);
      blocks.add(laidOut);
      orders.add(EpochOrder.of(VisitOrder.chunked(1, 2, 0, n, c).rows()));
    }
    names.add("chunks (default)");
    sizes.add(defaultChunk);
    blocks.add(laidOut);
    orders.add(chunks.epochOrder(2, 0, laidOut.features()));
    names.add("chunks, storage order inside");
    sizes.add(defaultChunk);
    blocks.add(laidOut);
    orders.add(EpochOrder.of(chunksInStorageOrder(n, defaultChunk)));

    LearnerConfig config = new LearnerConfig(shape.numFeatures, 2, true, 1.0,
        UpdateRule.PERCEPTRON, 1.0, Averaging.AVERAGE);
    // The starting state: the weights after one epoch, so the update rate is a later epoch's.
    LinearState start = LinearState.zero(config);
    OnlineLearner.runEpoch(config, plain, full.epochOrder(1, 0, plain.features()), start, 1.0,
        new EpochStats(), null);
    LinearState state = start.copy();

    int k = names.size();
    double[][] cpu = new double[k][rounds];
    double[][] wall = new double[k][rounds];
    // Two untimed rounds first: JIT compilation.
    for (int round = -2; round < rounds; round++) {
      for (int i = 0; i < k; i++) {
        System.arraycopy(start.weights(), 0, state.weights(), 0, start.weights().length);
        System.arraycopy(start.averageAccumulator(), 0, state.averageAccumulator(), 0,
            start.averageAccumulator().length);
        state.setClock(start.clock());
        long c0 = THREADS.getCurrentThreadCpuTime();
        long w0 = System.nanoTime();
        OnlineLearner.runEpoch(config, blocks.get(i), orders.get(i), state, 1.0,
            new EpochStats(), null);
        long w1 = System.nanoTime();
        long c1 = THREADS.getCurrentThreadCpuTime();
        if (round >= 0) {
          cpu[i][round] = (c1 - c0) / 1e9;
          wall[i][round] = (w1 - w0) / 1e9;
        }
      }
    }
    List<Result> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      out.add(new Result(names.get(i), sizes.get(i), PlainLoop.median(cpu[i]),
          PlainLoop.median(wall[i])));
    }
    return out;
  }

  /** VisitOrder's chunks (same cut, same chunk order) with each chunk's rows in storage order. */
  static int[] chunksInStorageOrder(int n, int c) {
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

  /** Prints the tables, for a quick look: {@code java ... KernelOrderTimes [rounds]}. */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int[] sizes = args.length > 1 ? Arrays.stream(args[1].split(","))
        .mapToInt(Integer::parseInt).toArray() : CHUNK_ROWS;
    for (Shape shape : SHAPES) {
      List<Result> results = measure(shape, rounds, sizes);
      double sequential = results.get(1).cpuSeconds;
      long values = shape.nonZeros == 0 ? (long) shape.rows * shape.numFeatures
          : (long) shape.rows * shape.nonZeros;
      System.out.println(shape.name + " (load " + ManagementFactory.getOperatingSystemMXBean()
          .getSystemLoadAverage() + ")");
      for (Result r : results) {
        System.out.printf(Locale.ROOT, "  %-30s C=%5d  cpu %8.2f ms  %6.2f ns/value"
            + "  x%.2f of sequential  wall %8.2f ms%n", r.order, r.chunkRows,
            r.cpuSeconds * 1e3, r.cpuSeconds * 1e9 / values, r.cpuSeconds / sequential,
            r.wallSeconds * 1e3);
      }
    }
  }
}
