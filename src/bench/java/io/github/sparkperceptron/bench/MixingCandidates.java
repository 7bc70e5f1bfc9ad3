package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.data.SyntheticRows;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The mixing rules considered for issue 9, simulated without Spark on the library's own kernel:
 * P workers, each a slice of the rows (row i goes to worker i mod P, as a round-robin repartition
 * does), R mixing rounds per epoch, the averaged perceptron, held-out accuracy per epoch. It is
 * the evidence for the rules kept and rejected in BENCHMARKS.md; the kept rule is measured on
 * Spark by the partitions section.
 *
 * <pre>
 * mean        w + Σ μ_i δ_i, μ_i = k_i / Σ k (mistake-weighted IPM, McDonald et al. 2010)
 * sum         w + Σ δ_i (a block learning rate of P)
 * adaptive    w + η Σ δ_i, η = min(1, Σ‖δ_i‖² / ‖Σ δ_i‖²) (keeps the mistake bound with η·K)
 * partial     per coordinate, Σ δ_ij / #{i : δ_ij ≠ 0} (Hivemall's PartialAverage, VW's
 *             weighted averaging for plain SGD)
 * coordadapt  per coordinate, η_j = min(1, Σ δ_ij² / (Σ δ_ij)²) (no bound)
 * search      η chosen among 1/P·√2^k by the fewest mistakes of w + η Σ δ_i on the training rows
 * bmuf        block momentum, Δ = β Δ + mean; w += Δ (Chen &amp; Huo 2016), β = 1 − 1/P
 * nbmuf       the same with Nesterov look-ahead (what mixing=momentum implements)
 * </pre>
 * The averaging accumulator always takes the same combination as the weights (a jump at clock c
 * adds c·jump), so every rule's average is the average of the weights the workers used.
 */
public final class MixingCandidates {
  private final TrainingBlock train;
  private final TrainingBlock test;
  private final int d;
  private final int k;

  private MixingCandidates(TrainingBlock train, TrainingBlock test, int d, int k) {
    this.train = train;
    this.test = test;
    this.d = d;
    this.k = k;
  }

  /** A LIBSVM file (1-based indices; labels -1/+1 become 0/1) as one block. */
  static TrainingBlock libsvm(Path file, int d) throws IOException {
    TrainingBlockBuilder b = new TrainingBlockBuilder(d);
    for (String line : Files.readAllLines(file)) {
      String[] t = line.trim().split("\\s+");
      int label = (int) Double.parseDouble(t[0]);
      int[] idx = new int[t.length - 1];
      double[] val = new double[t.length - 1];
      for (int i = 1; i < t.length; i++) {
        int colon = t[i].indexOf(':');
        idx[i - 1] = Integer.parseInt(t[i].substring(0, colon)) - 1;
        val[i - 1] = Double.parseDouble(t[i].substring(colon + 1));
      }
      b.addSparse(Math.max(0, label), 1.0, idx, val, idx.length);
    }
    return b.build();
  }

  static TrainingBlock generated(SyntheticData spec, long first, int rows) {
    SyntheticRows gen = spec.rows();
    int[] idx = new int[gen.storedPerRow()];
    double[] val = new double[gen.storedPerRow()];
    TrainingBlockBuilder b = new TrainingBlockBuilder(spec.numFeatures());
    for (int i = 0; i < rows; i++) {
      int label = gen.row(first + i, idx, val);
      if (spec.isDense()) {
        b.addDense(label, 1.0, val);
      } else {
        b.addSparse(label, 1.0, idx, val, idx.length);
      }
    }
    return b.build();
  }

  private TrainingBlock[] split(int p) {
    TrainingBlockBuilder[] parts = new TrainingBlockBuilder[p];
    for (int i = 0; i < p; i++) {
      parts[i] = new TrainingBlockBuilder(d);
    }
    int[] idx = new int[d];
    double[] val = new double[d];
    FeatureBlock x = train.features();
    for (int r = 0; r < train.numRows(); r++) {
      int nnz = x.copyRow(r, idx, val);
      parts[r % p].addSparse(train.label(r), 1.0, idx, val, nnz);
    }
    TrainingBlock[] out = new TrainingBlock[p];
    for (int i = 0; i < p; i++) {
      out[i] = parts[i].build();
    }
    return out;
  }

  private double accuracy(LearnerConfig config, double[] w, TrainingBlock block) {
    double[] a = Predictor.linear(config.numClasses(), config.numFeatures(), 0.0, w)
        .weightedAccuracy(block);
    return a[0] / a[1];
  }

  /** Held-out accuracy after each epoch. */
  double[] run(String rule, int p, int rounds, int epochs, long seed) {
    LearnerConfig config = new LearnerConfig(d, k, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    TrainingBlock[] blocks = split(p);
    int n = config.stateLength();
    double[] w = new double[n];
    double[] u = new double[n];
    double[] velocity = new double[n];
    double clock = 0;
    double total = train.numRows();
    double beta = 1.0 - 1.0 / p;
    double[] accuracy = new double[epochs];
    for (int e = 1; e <= epochs; e++) {
      int[][] orders = new int[p][];
      for (int i = 0; i < p; i++) {
        orders[i] = SeededShuffle.forEpoch(seed, e, i).permutation(blocks[i].numRows());
      }
      for (int r = 0; r < rounds; r++) {
        double[] start = w.clone();
        double[] startU = u.clone();
        if (rule.equals("nbmuf")) {
          for (int j = 0; j < n; j++) {
            double jump = beta * velocity[j];
            start[j] += jump;
            startU[j] += clock * jump;
            velocity[j] = jump;
          }
        }
        double[][] dw = new double[p][n];
        double[][] du = new double[p][n];
        long[] updates = new long[p];
        for (int i = 0; i < p; i++) {
          LinearState s = new LinearState(start.clone(), new double[n], clock);
          EpochStats stats = new EpochStats();
          int size = orders[i].length;
          int from = (int) ((long) size * r / rounds);
          int to = (int) ((long) size * (r + 1) / rounds);
          OnlineLearner.runEpoch(config, blocks[i], orders[i], from, to, s,
              size == 0 ? 0 : total / size, stats, null, null);
          for (int j = 0; j < n; j++) {
            dw[i][j] = s.weights()[j] - start[j];
            du[i][j] = s.averageAccumulator()[j];
          }
          updates[i] = stats.updates;
        }
        long all = Arrays.stream(updates).sum();
        double[] mu = new double[p];
        for (int i = 0; i < p; i++) {
          mu[i] = all == 0 ? 1.0 / p : (double) updates[i] / all;
        }
        double[] nw = start.clone();
        double[] nu = startU.clone();
        combine(rule, p, n, dw, du, mu, start, nw, nu, beta, velocity, config,
            clock + total / rounds);
        w = nw;
        u = nu;
        clock += total / rounds;
      }
      double[] model = w.clone();
      for (int j = 0; j < n; j++) {
        model[j] -= u[j] / clock;
      }
      accuracy[e - 1] = accuracy(config, model, test);
    }
    return accuracy;
  }

  private void combine(String rule, int p, int n, double[][] dw, double[][] du, double[] mu,
      double[] start, double[] nw, double[] nu, double beta, double[] velocity,
      LearnerConfig config, double clockEnd) {
    double[] coef = new double[p];
    switch (rule) {
      case "mean":
      case "bmuf":
      case "nbmuf":
        coef = mu;
        break;
      case "sum":
        Arrays.fill(coef, 1.0);
        break;
      case "adaptive": {
        double squares = 0;
        double sumSquared = 0;
        for (int j = 0; j < n; j++) {
          double s = 0;
          for (int i = 0; i < p; i++) {
            squares += dw[i][j] * dw[i][j];
            s += dw[i][j];
          }
          sumSquared += s * s;
        }
        Arrays.fill(coef, sumSquared == 0 ? 1.0 : Math.min(1.0, squares / sumSquared));
        break;
      }
      case "search": {
        double[] sum = new double[n];
        for (int i = 0; i < p; i++) {
          for (int j = 0; j < n; j++) {
            sum[j] += dw[i][j];
          }
        }
        double best = 1.0 / p;
        double bestAccuracy = -1;
        for (double eta = 1.0 / p; eta <= 1.0 + 1e-12; eta *= Math.sqrt(2)) {
          double[] candidate = start.clone();
          for (int j = 0; j < n; j++) {
            candidate[j] += eta * sum[j];
          }
          double a = accuracy(config, candidate, train);
          if (a >= bestAccuracy) {
            bestAccuracy = a;
            best = eta;
          }
        }
        Arrays.fill(coef, best);
        break;
      }
      case "partial":
      case "coordadapt":
        for (int j = 0; j < n; j++) {
          double s = 0;
          double su = 0;
          double squares = 0;
          int touching = 0;
          for (int i = 0; i < p; i++) {
            if (dw[i][j] != 0 || du[i][j] != 0) {
              touching++;
            }
            s += dw[i][j];
            su += du[i][j];
            squares += dw[i][j] * dw[i][j];
          }
          double eta = rule.equals("partial") ? (touching == 0 ? 0 : 1.0 / touching)
              : s == 0 ? 1.0 / p : Math.max(1.0 / p, Math.min(1.0, squares / (s * s)));
          nw[j] += eta * s;
          nu[j] += eta * su;
        }
        return;
      default:
        throw new IllegalArgumentException("unknown rule " + rule);
    }
    for (int i = 0; i < p; i++) {
      for (int j = 0; j < n; j++) {
        nw[j] += coef[i] * dw[i][j];
        nu[j] += coef[i] * du[i][j];
      }
    }
    if (rule.equals("bmuf") || rule.equals("nbmuf")) {
      double[] g = new double[n];
      for (int j = 0; j < n; j++) {
        g[j] = nw[j] - start[j];
      }
      if (rule.equals("bmuf")) {
        // classic form: the momentum step lands at the round's end, u absorbs it there
        for (int j = 0; j < n; j++) {
          double jump = beta * velocity[j];
          nw[j] += jump;
          nu[j] += clockEnd * jump;
          velocity[j] = jump + g[j];
        }
      } else {
        for (int j = 0; j < n; j++) {
          velocity[j] += g[j];
        }
      }
    }
  }

  /**
   * Prints a Markdown table: accuracy after 10 epochs (and its difference to one worker) per
   * rule and worker count, for each data set. Arguments: data directory (LIBSVM sets), rules,
   * worker counts, rounds per epoch (a number, or P).
   */
  public static void main(String[] args) throws IOException {
    Path data = Path.of(args.length > 0 ? args[0] : "data-samples");
    List<String> rules = List.of((args.length > 1 ? args[1]
        : "mean,sum,adaptive,partial,coordadapt,search,bmuf,nbmuf").split(","));
    int[] workers = Arrays.stream((args.length > 2 ? args[2] : "1,16,64").split(","))
        .mapToInt(Integer::parseInt).toArray();
    String rounds = args.length > 3 ? args[3] : "1";
    int epochs = 10;
    Map<String, MixingCandidates> sets = new LinkedHashMap<>();
    sets.put("pendigits", new MixingCandidates(libsvm(data.resolve("pendigits/train.libsvm"), 16),
        libsvm(data.resolve("pendigits/test.libsvm"), 16), 16, 10));
    SyntheticData sparse = SyntheticData.builder().numFeatures(10_000).nonZerosPerRow(20)
        .margin(0.05).labelNoise(0.05).seed(11).build();
    sets.put("gen-sparse-100k", new MixingCandidates(generated(sparse, 0, 100_000),
        generated(sparse, 100_000, 10_000), 10_000, 2));
    SyntheticData multi = SyntheticData.builder().numFeatures(1000).nonZerosPerRow(30)
        .numClasses(10).margin(0.05).labelNoise(0.05).seed(18).build();
    sets.put("gen-multi-sparse-50k", new MixingCandidates(generated(multi, 0, 50_000),
        generated(multi, 50_000, 5_000), 1000, 10));
    for (Map.Entry<String, MixingCandidates> set : sets.entrySet()) {
      System.out.printf(Locale.ROOT, "%n### %s (rounds per epoch: %s)%n%n| rule |", set.getKey(),
          rounds);
      for (int p : workers) {
        System.out.printf(Locale.ROOT, " P=%d |", p);
      }
      System.out.printf("%n|---|%s%n", "---|".repeat(workers.length));
      for (String rule : rules) {
        System.out.printf(Locale.ROOT, "| %s |", rule);
        double reference = Double.NaN;
        for (int p : workers) {
          int r = rounds.equals("P") ? p : Integer.parseInt(rounds);
          double[] acc = set.getValue().run(rule, p, r, epochs, 42);
          double last = acc[epochs - 1];
          if (Double.isNaN(reference)) {
            reference = last;
          }
          System.out.printf(Locale.ROOT, " %.4f (%+.2f) |", last, 100 * (last - reference));
          System.out.flush();
        }
        System.out.println();
      }
    }
  }
}
