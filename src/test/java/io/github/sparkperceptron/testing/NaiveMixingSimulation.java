package io.github.sparkperceptron.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Iterative parameter mixing over P workers, written plainly in one place with no library class:
 * the reference the distributed trainer must match bit for bit. It reimplements every documented
 * convention of the trainer instead of calling it (the only shared arithmetic is the serial step,
 * written again in {@link NaivePerceptron}):
 * <ul>
 *   <li>worker p owns rows [p·n/P, (p+1)·n/P) (Spark's {@code parallelize} slices);</li>
 *   <li>its order in epoch e is a Fisher-Yates shuffle driven by SplitMix64, seeded by
 *       (seed, e, p) (the formula of the trainer's documentation, written again here), or, for
 *       another visiting order (shuffleScope=chunks), the rows {@link #visits} names: an order
 *       is a convention, not arithmetic, and the caller learns it from the library's Spark-free
 *       {@code VisitOrder} (see {@link SerialOrder});</li>
 *   <li>example weights: s = sample weight × class factor, the balanced factor of class k being
 *       N/(K'·N_k) with N_k = Σ_p (Σ of the weights of p's rows of class k, in row order), N =
 *       Σ_k N_k and K' the classes present (scikit-learn's {@code class_weight="balanced"});
 *       worker p's weight T_p is Σ_k factor_k·N_{p,k} with class factors, else Σ of its rows'
 *       weights in row order, and T = Σ_p T_p in worker order;</li>
 *   <li>an epoch is R rounds; round r visits the slice [r·n_p/R, (r+1)·n_p/R) of that order,
 *       from the round's weights with a zero accumulator, and every worker's clock advances by
 *       s·(T/T_p) per example and ends the round at the agreed c + T·(r+1)/R;</li>
 *   <li>the workers' changes (δw, δu, and their update mass Σ τ) are mixed along a fixed binary
 *       tree over the worker indices, left with right as a + r·(b − a), r = μ_R/(μ_L + μ_R), a
 *       side with μ = 0 contributing nothing; the driver adds the non-zero coordinates of the
 *       mix;</li>
 *   <li>μ_p = T_p for uniform mixing, the number of updates for mistakes and momentum mixing;</li>
 *   <li>momentum (β = 1 − 1/P): before each round v = w + β·Δ (u absorbs c·β·Δ), taken only
 *       when ‖v‖² ≤ ‖w_0‖² + ρ·(M + β·m_Δ), else Δ and m_Δ reset (a restart, counted); after it
 *       Δ = β·Δ + g, M and m_Δ grow by the mixed update mass; a round without updates resets Δ
 *       and m_Δ. For the perceptron rule ρ = c·η·s_max·max‖x̃‖² (c = 1 binary, 2 multiclass;
 *       s_max the largest example weight; x̃ with the bias feature 1; multiplied in that order);
 *       the passive-aggressive rules have no such bound and are never checked (ρ = 0);</li>
 *   <li>with {@link #recordVote}, the voted perceptron: every round, each worker's start vector
 *       and the vector after each of its updates vote with μ_p·(the clock it survived), μ_p the
 *       worker's share of the round's mixing weight (1/P when no worker updated).</li>
 * </ul>
 * Dense rows; like the trainer it stops after an epoch without updates. The state is K'·(d+1)
 * values, class after class, the bias last in each (K' = 1 for binary labels).
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
  private int numClasses = 2;
  private List<Double> sampleWeights;
  private boolean balanced;
  private double eta = 1.0;
  private String rule = "perceptron";
  private double aggressiveness = 1.0;
  private boolean vote;

  /**
   * The rows worker p visits in epoch e, as indices into its own rows (0 .. n_p − 1), or
   * {@code null} for the full shuffle written here.
   */
  public BiFunction<Integer, Integer, int[]> visits;

  /** Weights, accumulator and clock of the driver after {@link #run} (class-major). */
  public double[] w;
  public double[] u;
  public double clock;
  /** Per epoch, the updates summed over workers and rounds. */
  public long[] updates;
  /** Epochs run (training stops after an epoch without updates). */
  public int epochsRun;
  /** Σ over rounds of Σ_p μ_p·m_p with μ normalised (McDonald et al.'s left side). */
  public double mixedMistakes;
  /** Momentum after {@link #run}: Δ, M, Δ's mass, ‖w_0‖² and ρ of the bound. */
  public double[] velocity;
  public double mass;
  public double velocityMass;
  public double initialNorm;
  public double rho;
  /** Look-aheads skipped because they would have broken the bound's invariant. */
  public long restarts;
  /** With {@link #recordVote}: every voting vector (class-major) and its vote weight. */
  public final List<double[]> voteVectors = new ArrayList<>();
  public final List<Double> voteWeights = new ArrayList<>();

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

  /** K classes (labels 0 .. K−1); K = 2 keeps one weight row. */
  public NaiveMixingSimulation classes(int k) {
    this.numClasses = k;
    return this;
  }

  /** A sample weight per row (unit weights when never called). */
  public NaiveMixingSimulation sampleWeights(List<Double> weights) {
    this.sampleWeights = weights;
    return this;
  }

  /** classWeight=balanced. */
  public NaiveMixingSimulation balancedClasses() {
    this.balanced = true;
    return this;
  }

  public NaiveMixingSimulation stepSize(double stepSize) {
    this.eta = stepSize;
    return this;
  }

  /** "perceptron", "pa", "pa1" or "pa2", with aggressiveness C. */
  public NaiveMixingSimulation rule(String updateRule, double c) {
    this.rule = updateRule;
    this.aggressiveness = c;
    return this;
  }

  /** Keeps the voted perceptron's vectors and weights ({@link #votes}). */
  public NaiveMixingSimulation recordVote() {
    this.vote = true;
    return this;
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

  private int weightRows() {
    return numClasses == 2 ? 1 : numClasses;
  }

  private double sampleWeight(int row) {
    return sampleWeights == null ? 1.0 : sampleWeights.get(row);
  }

  private static int sliceStart(int p, int n, int parts) {
    return (int) ((long) p * n / parts);
  }

  public NaiveMixingSimulation run(int epochs) {
    int n = xs.size();
    int rows = weightRows();
    int len = rows * (d + 1);
    w = startW != null ? startW.clone() : new double[len];
    u = startU != null ? startU.clone() : new double[len];
    clock = startClock;
    initialNorm = 0;
    for (double v : w) {
      initialNorm += v * v;
    }
    if (carried != null) {
      initialNorm = carried.initialNorm;
    }
    // Per worker and class, the weights of its rows in row order; then the class factors.
    double[][] classSums = new double[workers][numClasses];
    double[] workerWeight = new double[workers];
    for (int p = 0; p < workers; p++) {
      for (int i = sliceStart(p, n, workers); i < sliceStart(p + 1, n, workers); i++) {
        classSums[p][labels.get(i)] += sampleWeight(i);
        workerWeight[p] += sampleWeight(i);
      }
    }
    double[] factor = null;
    if (balanced) {
      double[] perClass = new double[numClasses];
      for (int p = 0; p < workers; p++) {
        for (int k = 0; k < numClasses; k++) {
          perClass[k] += classSums[p][k];
        }
      }
      double all = 0;
      int present = 0;
      for (double s : perClass) {
        all += s;
        present += s > 0 ? 1 : 0;
      }
      factor = new double[numClasses];
      for (int k = 0; k < numClasses; k++) {
        factor[k] = perClass[k] > 0 ? all / (present * perClass[k]) : 0.0;
      }
      for (int p = 0; p < workers; p++) {
        workerWeight[p] = 0;
        for (int k = 0; k < numClasses; k++) {
          workerWeight[p] += factor[k] * classSums[p][k];
        }
      }
    }
    double total = 0;
    for (double t : workerWeight) {
      total += t;
    }
    double[] exampleWeight = new double[n];
    double maxWeight = 0;
    double maxSquared = 0;
    for (int i = 0; i < n; i++) {
      exampleWeight[i] = factor == null ? sampleWeight(i)
          : sampleWeight(i) * factor[labels.get(i)];
      maxWeight = Math.max(maxWeight, exampleWeight[i]);
      double s = 0.0;
      for (double v : xs.get(i)) {
        s += v * v;
      }
      maxSquared = Math.max(maxSquared, s);
    }
    double radius = maxSquared + (fitIntercept ? 1.0 : 0.0);
    rho = Math.max(carried != null ? carried.rho : 0.0, rule.equals("perceptron")
        ? (numClasses == 2 ? 1.0 : 2.0) * eta * maxWeight * radius : 0.0);
    updates = new long[epochs];
    velocity = carried != null ? carried.velocity.clone() : new double[len];
    double beta = 1.0 - 1.0 / workers;
    boolean momentum = mixing.equals("momentum") && beta > 0;
    mass = carried != null ? carried.mass : 0;
    velocityMass = carried != null ? carried.velocityMass : 0;
    restarts = carried != null ? carried.restarts : 0;
    for (int epoch = 1; epoch <= epochs; epoch++) {
      int[][] orders = new int[workers][];
      for (int p = 0; p < workers; p++) {
        int size = sliceStart(p + 1, n, workers) - sliceStart(p, n, workers);
        orders[p] = visits == null ? permutation(seed, epoch, p, size) : visits.apply(p, epoch);
        if (orders[p].length != size) {
          throw new IllegalStateException("worker " + p + " visits " + orders[p].length
              + " rows of " + size);
        }
      }
      double epochClock = clock;
      for (int r = 0; r < rounds; r++) {
        if (momentum && velocityMass != 0.0) {
          double norm = 0;
          for (int j = 0; j < len; j++) {
            double v = w[j] + beta * velocity[j];
            norm += v * v;
          }
          if (rho > 0 && norm > initialNorm + rho * (mass + beta * velocityMass)) {
            Arrays.fill(velocity, 0.0);
            velocityMass = 0;
            restarts++;
          } else {
            for (int j = 0; j < len; j++) {
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
        double roundEnd = r == rounds - 1 ? epochClock + total
            : epochClock + total * (r + 1) / rounds;
        Leaf[] leaves = new Leaf[workers];
        List<List<double[]>> seen = new ArrayList<>();
        List<List<Double>> since = new ArrayList<>();
        for (int p = 0; p < workers; p++) {
          int from = sliceStart(p, n, workers);
          int size = orders[p].length;
          NaivePerceptron local = new NaivePerceptron(d, numClasses, fitIntercept, eta, averaged,
              rule, aggressiveness);
          for (int k = 0; k < rows; k++) {
            System.arraycopy(w, k * (d + 1), local.w[k], 0, d + 1);
          }
          local.clock = clock;
          double clockStep = workerWeight[p] > 0 ? total / workerWeight[p] : 0.0;
          Leaf leaf = new Leaf();
          List<double[]> vectors = new ArrayList<>(List.of(flat(local.w)));
          List<Double> times = new ArrayList<>(List.of(clock));
          for (int t = size * r / rounds; t < size * (r + 1) / rounds; t++) {
            int row = from + orders[p][t];
            double s = exampleWeight[row];
            if (s == 0.0) {
              continue;
            }
            if (local.step(xs.get(row), labels.get(row), s)) {
              leaf.updates++;
              leaf.mass += local.lastStep;
              vectors.add(flat(local.w));
              times.add(local.clock);
            }
            local.clock += s * clockStep;
          }
          seen.add(vectors);
          since.add(times);
          leaf.dw = new double[len];
          leaf.du = new double[len];
          for (int k = 0; k < rows; k++) {
            for (int j = 0; j <= d; j++) {
              leaf.dw[k * (d + 1) + j] = local.w[k][j] - w[k * (d + 1) + j];
              leaf.du[k * (d + 1) + j] = averaged ? local.u[k][j] : 0.0;
            }
          }
          leaf.mu = mixing.equals("uniform") ? workerWeight[p] : leaf.updates;
          leaves[p] = leaf;
          updates[epoch - 1] += leaf.updates;
        }
        if (vote) {
          addVotes(leaves, seen, since, roundEnd);
        }
        int rootLevel = 32 - Integer.numberOfLeadingZeros(workers - 1);
        Leaf mixed = tree(leaves, rootLevel, 0);
        for (int j = 0; j < len; j++) {
          if (mixed.dw[j] != 0.0) {
            w[j] += mixed.dw[j];
          }
          if (averaged && mixed.du[j] != 0.0) {
            u[j] += mixed.du[j];
          }
        }
        clock = roundEnd;
        mixedMistakes += mixed.mass;
        if (momentum && mixed.mass == 0.0) {
          Arrays.fill(velocity, 0.0);
          velocityMass = 0;
        } else if (momentum) {
          for (int j = 0; j < len; j++) {
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

  /** Every vector of the round votes with μ_p × the clock it survived (until the next one). */
  private void addVotes(Leaf[] leaves, List<List<double[]>> seen, List<List<Double>> since,
      double roundEnd) {
    double sum = 0;
    for (Leaf leaf : leaves) {
      sum += leaf.mu;
    }
    for (int p = 0; p < leaves.length; p++) {
      double mu = sum > 0 ? leaves[p].mu / sum : 1.0 / leaves.length;
      List<Double> times = since.get(p);
      for (int v = 0; v < times.size(); v++) {
        double until = v + 1 < times.size() ? times.get(v + 1) : roundEnd;
        voteVectors.add(seen.get(p).get(v));
        voteWeights.add(mu * (until - times.get(v)));
      }
    }
  }

  private static double[] flat(double[][] rows) {
    int width = rows[0].length;
    double[] out = new double[rows.length * width];
    for (int k = 0; k < rows.length; k++) {
      System.arraycopy(rows[k], 0, out, k * width, width);
    }
    return out;
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
      int len = left.dw.length;
      out.dw = new double[len];
      out.du = new double[len];
      for (int j = 0; j < len; j++) {
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

  /** The averaged (or last) weights, class-major, bias last in each class. */
  public double[] model() {
    double[] out = w.clone();
    if (averaged && clock > 0) {
      for (int j = 0; j < out.length; j++) {
        out[j] -= u[j] / clock;
      }
    }
    return out;
  }

  /**
   * With {@link #recordVote}: the vote for {@code x}, Σ weight·sign(w·x) for binary labels
   * (sign(0) = −1), else per class the weight of the vectors whose arg-max (ties to the lowest
   * class) it is.
   */
  public double[] votes(double[] x) {
    int rows = weightRows();
    double[] out = new double[rows];
    for (int v = 0; v < voteVectors.size(); v++) {
      double[] vector = voteVectors.get(v);
      double c = voteWeights.get(v);
      int best = 0;
      double bestScore = Double.NaN;
      for (int k = 0; k < rows; k++) {
        double score = 0;
        for (int j = 0; j < d; j++) {
          score += vector[k * (d + 1) + j] * x[j];
        }
        score += vector[k * (d + 1) + d];
        if (rows == 1) {
          out[0] += score > 0 ? c : -c;
        } else if (k == 0 || score > bestScore) {
          best = k;
          bestScore = score;
        }
      }
      if (rows > 1) {
        out[best] += c;
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
