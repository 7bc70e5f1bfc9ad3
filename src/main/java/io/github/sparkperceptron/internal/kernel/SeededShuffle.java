package io.github.sparkperceptron.internal.kernel;

/**
 * The random stream behind a worker's visiting order in one epoch ({@link VisitOrder}), a pure
 * function of (seed, epoch, worker).
 *
 * <p>This is what makes training reproducible under Spark's task retries and lost executors: a
 * re-run worker epoch sees the same broadcast weights, the same cached (or recomputed) rows and
 * this same order, so it returns bit-identical results; nothing depends on the task attempt, the
 * executor, the thread or the clock. The generator is SplitMix64 (Steele, Lea &amp; Flood,
 * "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014), written out here so that the
 * order cannot change with the JDK; the permutation is a Fisher–Yates shuffle.
 */
public final class SeededShuffle {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private long state;

  private SeededShuffle(long seed) {
    this.state = seed;
  }

  /** The stream for one (seed, epoch, worker). Epochs count from 1 over the whole training. */
  public static SeededShuffle forEpoch(long seed, int epoch, int worker) {
    long s = mix64(seed);
    s = mix64(s + GOLDEN_GAMMA * (epoch + 1L));
    s = mix64(s ^ (0xD1B54A32D192ED03L * (worker + 1L)));
    return new SeededShuffle(s);
  }

  /**
   * A stream of its own for part {@code part} (≥ 0) of one (seed, epoch, worker): a window of a
   * worker's chunks, the chunks' order in an epoch, a chunk's layout. Part streams are used only
   * where a worker's rows span several chunks; one chunk keeps {@link #forEpoch}'s stream, so
   * that the order of rows within one chunk is the order the worker had before its rows were
   * chunked.
   */
  public static SeededShuffle forPart(long seed, int epoch, int worker, int part) {
    if (part < 0) {
      throw new IllegalArgumentException("part must be >= 0, got " + part);
    }
    return forEpoch(mix64(seed ^ (0xA24BAED4963EE407L * (part + 1L))), epoch, worker);
  }

  /**
   * SplitMix64's output function (Stafford's variant 13): a bijection of 64-bit words that mixes
   * every input bit into every output bit (also the row hash of calibration.CalibrationRows).
   */
  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public long nextLong() {
    state += GOLDEN_GAMMA;
    return mix64(state);
  }

  /** A value in [0, bound) by Lemire's multiply-shift (bias below 2^-32 for bound &lt; 2^31). */
  public int nextInt(int bound) {
    return (int) (((nextLong() >>> 32) * bound) >>> 32);
  }

  /** A uniformly shuffled permutation of 0 .. n-1. */
  public int[] permutation(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }
}
