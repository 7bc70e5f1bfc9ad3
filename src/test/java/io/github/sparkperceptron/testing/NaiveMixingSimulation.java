package io.github.sparkperceptron.testing;

import java.util.List;

/**
 * Iterative parameter mixing over P workers, written plainly in one place with no library class:
 * the reference the distributed trainer must match bit for bit. It reimplements every documented
 * convention of the trainer instead of calling it:
 * <ul>
 *   <li>worker p owns rows [p·n/P, (p+1)·n/P) (Spark's {@code parallelize} slices);</li>
 *   <li>its order in epoch e is a Fisher-Yates shuffle driven by SplitMix64, seeded by
 *       (seed, e, p) (the formula of the trainer's documentation, written again here), or, for
 *       another visiting order (shuffleScope=chunks), the rows {@link #visits} names: an order
 *       is a convention, not arithmetic, and the caller learns it from the library's Spark-free
 *       {@code VisitOrder} (see {@link SerialOrder});</li>
 *   <li>an epoch is R rounds; round r visits the slice [r·n_p/R, (r+1)·n_p/R) of that order,
 *       from the round's weights with a zero accumulator, and every worker's clock runs at T/T_p
 *       per example and ends the round at the agreed c + T·(r+1)/R;</li>
 *   <li>the workers' changes (δw, δu) are mixed along a fixed binary tree over the worker
 *       indices, left with right as a + r·(b − a), r = μ_R/(μ_L + μ_R), a side with μ = 0
 *       contributing nothing; the driver adds the non-zero coordinates of the mix;</li>
 *   <li>μ_p = rows for uniform mixing, updates for mistakes and momentum mixing;</li>
 *   <li>momentum: before each round v = w + β·Δ (u absorbs c·β·Δ), taken only when
 *       ‖v‖² ≤ ‖w_0‖² + ρ·(M + β·m_Δ), else Δ and m_Δ reset; after it Δ = β·Δ + g, M and m_Δ
 *       grow by the mixed update mass; a round without updates resets Δ and m_Δ.</li>
 * </ul>
 * Binary labels only, unit sample weights, the perceptron rule, dense rows; like the trainer it
 * stops after an epoch without updates.
 */
public final class NaiveMixingSimulation {
  private final List<double[]> xs;
  private final List<Integer> labels;
  private final int d;
  private final int workers;
  private final int rounds;
  private final String mixing;
  private final boolean averaged;
  private final boolean fitIntercept;
  private final long seed;

  /**
   * The rows worker p visits in epoch e, as indices into its own rows (0 .. n_p − 1), or
   * {@code null} for the full shuffle written here.
   */
  public java.util.function.BiFunction<Integer, Integer, int[]> visits;

  /** Weights, accumulator and clock of the driver after {@link #run}. */
  public double[] w;
  public double[] u;
  public double clock;
  /** Per epoch, the updates summed over workers and rounds. */
  public long[] updates;
  /** Epochs run (training stops after an epoch without updates). */
  public int epochsRun;
  /** Σ over rounds of Σ_p μ_p·k_p with μ normalised (McDonald et al.'s left side). */
  public double mixedMistakes;
  /** Momentum after {@link #run}: Δ, M, Δ's mass, ‖w_0‖² and ρ of the bound. */
  public double[] velocity;
  public double mass;
  public double velocityMass;
  public double initialNorm;
  public double rho;

  public NaiveMixingSimulation(List<double[]> xs, List<Integer> labels, int d, int workers,
      int rounds, String mixing, boolean averaged, boolean fitIntercept, long seed) {
    this.xs = xs;
    this.labels = labels;
    this.d = d;
    this.workers = workers;
    this.rounds = rounds;
    this.mixing = mixing;
    this.averaged = averaged;
    this.fitIntercept = fitIntercept;
    this.seed = seed;
  }

  /** One worker's round: its change and what mixing needs to know. */
  private static final class Leaf {
    double[] dw;
    double[] du;
    double mu;
    double mass;
    long updates;
  }

  private double[] startW;
  private double[] startU;
  private double startClock;
  private NaiveMixingSimulation carried;

  /**
   * Starts {@link #run} from weights {@code w}, accumulator {@code u} and clock {@code clock}
   * instead of zero (a warm start, as a stream's next micro-batch starts); the momentum starts at
   * zero and its bound counts from ‖w‖²: ‖v‖² ≤ ‖w‖² + ρ·(M + β·m_Δ).
   */
  public NaiveMixingSimulation startingFrom(double[] w, double[] u, double clock) {
    this.startW = w.clone();
    this.startU = u.clone();
    this.startClock = clock;
    return this;
  }

  /**
   * Starts {@link #run} with the momentum {@code previous} ended with (a stream's next batch
   * carrying it): its Δ, M and Δ's mass go on, its ‖w_0‖² stays, and ρ is the larger of its and
   * this run's own; β is this run's, 1 − 1/W.
   */
  public NaiveMixingSimulation carryingMomentumOf(NaiveMixingSimulation previous) {
    this.carried = previous;
    return this;
  }

  public NaiveMixingSimulation run(int epochs) {
    int n = xs.size();
    w = startW != null ? startW.clone() : new double[d + 1];
    u = startU != null ? startU.clone() : new double[d + 1];
    clock = startClock;
    initialNorm = 0;
    for (double v : w) {
      initialNorm += v * v;
    }
    if (carried != null) {
      initialNorm = carried.initialNorm;
    }
    updates = new long[epochs];
    velocity = carried != null ? carried.velocity.clone() : new double[d + 1];
    double beta = 1.0 - 1.0 / workers;
    mass = carried != null ? carried.mass : 0;
    velocityMass = carried != null ? carried.velocityMass : 0;
    double maxSquared = 0;
    for (double[] x : xs) {
      double s = 0.0;
      for (double v : x) {
        s += v * v;
      }
      maxSquared = Math.max(maxSquared, s);
    }
    // ‖x̃‖² with the bias feature 1; unit steps and weights: ρ = max ‖x̃‖².
    rho = Math.max(carried != null ? carried.rho : 0.0, maxSquared + (fitIntercept ? 1.0 : 0.0));
    for (int epoch = 1; epoch <= epochs; epoch++) {
      int[][] orders = new int[workers][];
      for (int p = 0; p < workers; p++) {
        int size = (int) ((long) (p + 1) * n / workers) - (int) ((long) p * n / workers);
        orders[p] = visits == null ? permutation(seed, epoch, p, size) : visits.apply(p, epoch);
        if (orders[p].length != size) {
          throw new IllegalStateException("worker " + p + " visits " + orders[p].length
              + " rows of " + size);
        }
      }
      double epochClock = clock;
      for (int r = 0; r < rounds; r++) {
        if (mixing.equals("momentum") && beta > 0 && velocityMass != 0.0) {
          double norm = 0;
          for (int j = 0; j <= d; j++) {
            double v = w[j] + beta * velocity[j];
            norm += v * v;
          }
          if (norm > initialNorm + rho * (mass + beta * velocityMass)) {
            java.util.Arrays.fill(velocity, 0.0);
            velocityMass = 0;
          } else {
            for (int j = 0; j <= d; j++) {
              double jump = beta * velocity[j];
              velocity[j] = jump;
              if (jump != 0.0) {
                w[j] += jump;
                u[j] += clock * jump;
              }
            }
            mass += beta * velocityMass;
            velocityMass *= beta;
          }
        }
        double roundEnd = r == rounds - 1 ? epochClock + n
            : epochClock + (double) n * (r + 1) / rounds;
        Leaf[] leaves = new Leaf[workers];
        for (int p = 0; p < workers; p++) {
          int from = (int) ((long) p * n / workers);
          int size = orders[p].length;
          NaivePerceptron local = NaivePerceptron.perceptron(d, 2, fitIntercept, 1.0, averaged);
          System.arraycopy(w, 0, local.w[0], 0, d + 1);
          local.clock = clock;
          local.clockStep = (double) n / size;
          Leaf leaf = new Leaf();
          for (int t = size * r / rounds; t < size * (r + 1) / rounds; t++) {
            int row = from + orders[p][t];
            if (local.step(xs.get(row), labels.get(row))) {
              leaf.updates++;
            }
            local.clock += local.clockStep;
          }
          leaf.dw = new double[d + 1];
          leaf.du = new double[d + 1];
          for (int j = 0; j <= d; j++) {
            leaf.dw[j] = local.w[0][j] - w[j];
            leaf.du[j] = averaged ? local.u[0][j] : 0.0;
          }
          leaf.mass = leaf.updates;
          leaf.mu = mixing.equals("uniform") ? size : leaf.updates;
          leaves[p] = leaf;
          updates[epoch - 1] += leaf.updates;
        }
        int rootLevel = 32 - Integer.numberOfLeadingZeros(workers - 1);
        Leaf mixed = tree(leaves, rootLevel, 0);
        for (int j = 0; j <= d; j++) {
          if (mixed.dw[j] != 0.0) {
            w[j] += mixed.dw[j];
          }
          if (averaged && mixed.du[j] != 0.0) {
            u[j] += mixed.du[j];
          }
        }
        clock = roundEnd;
        mixedMistakes += mixed.mass;
        if (mixing.equals("momentum") && beta > 0 && mixed.mass == 0.0) {
          java.util.Arrays.fill(velocity, 0.0);
          velocityMass = 0;
        } else if (mixing.equals("momentum") && beta > 0) {
          for (int j = 0; j <= d; j++) {
            if (mixed.dw[j] != 0.0) {
              velocity[j] += mixed.dw[j];
            }
          }
          mass += mixed.mass;
          velocityMass += mixed.mass;
        }
      }
      epochsRun = epoch;
      if (updates[epoch - 1] == 0) {
        break;
      }
    }
    return this;
  }

  /** The node covering workers [index·2^level, (index+1)·2^level). */
  private Leaf tree(Leaf[] leaves, int level, int index) {
    if (level == 0) {
      return leaves[index];
    }
    Leaf left = tree(leaves, level - 1, 2 * index);
    if ((long) (2 * index + 1) << (level - 1) >= leaves.length) {
      return left;
    }
    Leaf right = tree(leaves, level - 1, 2 * index + 1);
    Leaf out = new Leaf();
    out.mu = left.mu + right.mu;
    out.updates = left.updates + right.updates;
    if (left.mu == 0.0 && right.mu > 0.0) {
      out.dw = right.dw;
      out.du = right.du;
      out.mass = right.mass;
    } else if (right.mu > 0.0) {
      double r = right.mu / out.mu;
      out.dw = new double[d + 1];
      out.du = new double[d + 1];
      for (int j = 0; j <= d; j++) {
        out.dw[j] = left.dw[j] + r * (right.dw[j] - left.dw[j]);
        out.du[j] = left.du[j] + r * (right.du[j] - left.du[j]);
      }
      out.mass = left.mass + r * (right.mass - left.mass);
    } else {
      out.dw = left.dw;
      out.du = left.du;
      out.mass = left.mass;
    }
    return out;
  }

  /** The averaged (or last) weights, bias last. */
  public double[] model() {
    double[] out = w.clone();
    if (averaged && clock > 0) {
      for (int j = 0; j <= d; j++) {
        out[j] -= u[j] / clock;
      }
    }
    return out;
  }

  /** Fisher-Yates over 0..n-1 driven by SplitMix64 seeded by (seed, epoch, worker). */
  static int[] permutation(long seed, int epoch, int worker, int n) {
    long gamma = 0x9E3779B97F4A7C15L;
    long state = splitMix(seed);
    state = splitMix(state + gamma * (epoch + 1L));
    state = splitMix(state ^ (0xD1B54A32D192ED03L * (worker + 1L)));
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      state += gamma;
      long next = splitMix(state);
      int j = (int) (((next >>> 32) * (i + 1)) >>> 32);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }

  private static long splitMix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
