package io.github.sparkperceptron.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The textbook serial perceptron family, written as plainly as possible over dense arrays: the
 * reference the production kernel and the distributed trainer must match bit for bit.
 *
 * <p>It follows the library's documented conventions (zero margin is a mistake; multiclass rival =
 * highest-scoring wrong class, ties to the lowest index; averaging = mean of the weights after
 * every example via w − u/c) but shares no code with it. The only concessions to bit-exactness
 * are the association of products (delta = η·y first, then delta·x and (c·delta)·x), which the
 * production code documents too.
 */
public final class NaivePerceptron {
  public final int d;
  public final int numClasses;
  public final boolean fitIntercept;
  public final double eta;
  public final boolean averaged;
  /** "perceptron", "pa", "pa1", "pa2". */
  public final String rule;
  public final double c;
  /** w[k][j], j = d is the bias. Binary models use k = 0 only. */
  public final double[][] w;
  public final double[][] u;
  /**
   * When set, each epoch's averaging updates are summed apart and added to {@link #u} when the
   * epoch ends (the association the distributed trainer uses: partitions return each round's
   * accumulator change, which the driver adds); otherwise they go straight into {@link #u}.
   */
  public boolean foldAverageEachEpoch;
  private final double[][] uEpoch;
  public double clock;
  /** How far the clock moves per example (1 serially; T/T_i under parameter mixing). */
  public double clockStep = 1.0;
  public int epochsRun;
  public long lastEpochUpdates;
  /** Per epoch, Σ max(0, −margin) and Σ max(0, 1 − margin), measured before each update. */
  public final List<Double> perceptronLosses = new ArrayList<>();
  public final List<Double> hingeLosses = new ArrayList<>();
  /** Per epoch, the examples that changed the weights. */
  public final List<Long> updatesPerEpoch = new ArrayList<>();
  /** Per epoch, the examples whose margin was ≤ 0. */
  public final List<Long> mistakesPerEpoch = new ArrayList<>();
  private double epochLoss;
  private double epochHinge;
  private long epochMistakes;

  public NaivePerceptron(int d, int numClasses, boolean fitIntercept, double eta, boolean averaged,
      String rule, double aggressiveness) {
    this.d = d;
    this.numClasses = numClasses;
    this.fitIntercept = fitIntercept;
    this.eta = eta;
    this.averaged = averaged;
    this.rule = rule;
    this.c = aggressiveness;
    int rows = numClasses == 2 ? 1 : numClasses;
    this.w = new double[rows][d + 1];
    this.u = new double[rows][d + 1];
    this.uEpoch = new double[rows][d + 1];
  }

  /** A standard (or averaged) perceptron with step η. */
  public static NaivePerceptron perceptron(int d, int numClasses, boolean fitIntercept, double eta,
      boolean averaged) {
    return new NaivePerceptron(d, numClasses, fitIntercept, eta, averaged, "perceptron", 1.0);
  }

  /** Runs up to {@code epochs} epochs, stopping after an epoch without updates. */
  public NaivePerceptron train(List<double[]> xs, List<Integer> labels, int epochs,
      IntFunction<int[]> orderForEpoch) {
    for (int epoch = 1; epoch <= epochs; epoch++) {
      int[] order = orderForEpoch.apply(epoch);
      long updates = 0;
      epochLoss = 0;
      epochHinge = 0;
      epochMistakes = 0;
      for (int t = 0; t < order.length; t++) {
        int i = order[t];
        if (step(xs.get(i), labels.get(i))) {
          updates++;
        }
        clock += clockStep;
      }
      if (foldAverageEachEpoch) {
        for (int k = 0; k < u.length; k++) {
          for (int j = 0; j <= d; j++) {
            u[k][j] += uEpoch[k][j];
            uEpoch[k][j] = 0.0;
          }
        }
      }
      epochsRun = epoch;
      lastEpochUpdates = updates;
      perceptronLosses.add(epochLoss);
      hingeLosses.add(epochHinge);
      updatesPerEpoch.add(updates);
      mistakesPerEpoch.add(epochMistakes);
      if (updates == 0) {
        break;
      }
    }
    return this;
  }

  /** Processes one example; returns whether the weights changed. */
  public boolean step(double[] x, int label) {
    return step(x, label, 1.0);
  }

  /** τ of the last {@link #step} (0 when it did not update). */
  public double lastStep;

  /**
   * Processes one example of weight {@code s} (sample weight times class factor): the perceptron
   * step is η·s, the passive-aggressive costs C·s; returns whether the weights changed.
   */
  public boolean step(double[] x, int label, double s) {
    double[][] u = foldAverageEachEpoch ? this.uEpoch : this.u;
    lastStep = 0.0;
    double bias = fitIntercept ? 1.0 : 0.0;
    double sq = 0;
    for (int j = 0; j < d; j++) {
      sq += x[j] * x[j];
    }
    if (numClasses == 2) {
      double y = label == 1 ? 1.0 : -1.0;
      double score = 0;
      for (int j = 0; j < d; j++) {
        score += x[j] * w[0][j];
      }
      if (fitIntercept) {
        score += w[0][d];
      }
      double margin = y * score;
      recordLoss(margin);
      double tau = stepSize(margin, sq + bias, s);
      if (tau <= 0) {
        return false;
      }
      lastStep = tau;
      double delta = tau * y;
      for (int j = 0; j < d; j++) {
        w[0][j] += delta * x[j];
        u[0][j] += (clock * delta) * x[j];
      }
      if (fitIntercept) {
        w[0][d] += delta;
        u[0][d] += clock * delta;
      }
      return true;
    }
    double[] scores = new double[numClasses];
    for (int k = 0; k < numClasses; k++) {
      for (int j = 0; j < d; j++) {
        scores[k] += x[j] * w[k][j];
      }
      if (fitIntercept) {
        scores[k] += w[k][d];
      }
    }
    int rival = -1;
    for (int k = 0; k < numClasses; k++) {
      if (k != label && (rival == -1 || scores[k] > scores[rival])) {
        rival = k;
      }
    }
    double margin = scores[label] - scores[rival];
    recordLoss(margin);
    double tau = stepSize(margin, 2.0 * (sq + bias), s);
    if (tau <= 0) {
      return false;
    }
    lastStep = tau;
    for (int j = 0; j < d; j++) {
      w[label][j] += tau * x[j];
      w[rival][j] -= tau * x[j];
      u[label][j] += (clock * tau) * x[j];
      u[rival][j] -= (clock * tau) * x[j];
    }
    if (fitIntercept) {
      w[label][d] += tau;
      w[rival][d] -= tau;
      u[label][d] += clock * tau;
      u[rival][d] -= clock * tau;
    }
    return true;
  }

  private void recordLoss(double margin) {
    if (margin <= 0) {
      epochMistakes++;
      epochLoss += -margin;
    }
    if (margin < 1) {
      epochHinge += 1 - margin;
    }
  }

  private double stepSize(double margin, double q, double s) {
    if (rule.equals("perceptron")) {
      return margin <= 0 ? eta * s : 0.0;
    }
    double loss = 1.0 - margin;
    if (loss <= 0 || q == 0) {
      return 0.0;
    }
    switch (rule) {
      case "pa":
        return loss / q;
      case "pa1":
        return Math.min(c * s, loss / q);
      case "pa2":
        return loss / (q + 1.0 / (2.0 * (c * s)));
      default:
        throw new IllegalArgumentException(rule);
    }
  }

  /** The model's weights for class row k (averaged when configured), bias last. */
  public double[] modelRow(int k) {
    double[] out = new double[d + 1];
    for (int j = 0; j <= d; j++) {
      out[j] = averaged && clock > 0 ? w[k][j] - u[k][j] / clock : w[k][j];
    }
    return out;
  }

  /** The identity order for n examples, every epoch. */
  public static IntFunction<int[]> inOrder(int n) {
    return epoch -> {
      int[] order = new int[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      return order;
    };
  }
}
