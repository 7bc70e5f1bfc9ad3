package io.github.sparkperceptron.kernel;

/**
 * One epoch of the perceptron family over one partition's rows: the update rules of
 * {@link UpdateRule}, in place on a {@link LinearState}.
 *
 * <pre>
 * Rosenblatt, "The Perceptron" (1958); Novikoff (1962): at most R²/γ² mistakes on data
 *   separable with margin γ inside a ball of radius R.
 * Collins, "Discriminative Training Methods for Hidden Markov Models" (EMNLP 2002):
 *   the multiclass update and the averaged perceptron.
 * Crammer et al., "Online Passive-Aggressive Algorithms" (JMLR 2006): PA, PA-I, PA-II.
 *
 * binary (y ∈ {−1,+1}):   m = y·(w·x + b)
 *                         τ = step(m) (see UpdateRule);  w ← w + τ·y·x,  b ← b + τ·y
 * multiclass:             s_k = w_k·x + b_k,  r = argmax_{k≠y} s_k (ties: lowest k),  m = s_y − s_r
 *                         w_y ← w_y + τ·x,  w_r ← w_r − τ·x  (and their biases)
 * averaging:              u ← u + c·Δ for every change Δ, then c ← c + s·clockScale
 * </pre>
 *
 * <p>s is the example's weight: its sample weight times its class's weight (if any); it scales
 * the perceptron's step and PA's C, and is the example's share of the averaging clock.
 *
 * <p>Cost per epoch: O(non-zeros) for the margins (K' dot products per row), plus O(non-zeros of
 * the row) per update; never O(d) per example. No allocation per row.
 */
public final class OnlineLearner {
  private OnlineLearner() {
  }

  /**
   * Where the sums of {@link FeatureBlock#touch} end up, once per epoch: a store the JIT compiler
   * must keep, so it keeps the reads. Never read.
   */
  private static double touchSink;

  /** {@link #runEpoch(LearnerConfig, TrainingBlock, EpochOrder, LinearState, double, EpochStats,
   * UpdateRecorder)} over an order without chunks. */
  public static void runEpoch(LearnerConfig config, TrainingBlock data, int[] order,
      LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder) {
    runEpoch(config, data, EpochOrder.of(order), state, clockScale, stats, recorder);
  }

  /**
   * Runs one pass over {@code data} in the given order, mutating {@code state} and adding what it
   * saw into {@code stats}.
   *
   * <p>The pass goes chunk by chunk (see {@link EpochOrder}); while it visits the rows of one
   * chunk, it reads the next chunk's rows in storage order, one row per visit
   * ({@link FeatureBlock#touch}), so that they stream into the cache ahead of their random-order
   * visit. This changes no result: it only reads.
   *
   * @param order the rows to visit, in order (an epoch passes a permutation of 0 .. n-1)
   * @param clockScale how far the averaging clock advances per unit of sample weight: 1 for
   *     serial training; T / T_i under parameter mixing, so that every partition's epoch spans the
   *     same stretch of the clock (see {@code io.github.sparkperceptron.mixing})
   * @param recorder told about every update, or {@code null}
   */
  public static void runEpoch(LearnerConfig config, TrainingBlock data, EpochOrder order,
      LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder) {
    if (config.isBinary()) {
      binaryEpoch(config, data, order, state, clockScale, stats, recorder);
    } else {
      multiclassEpoch(config, data, order, state, clockScale, stats, recorder);
    }
  }

  private static void binaryEpoch(LearnerConfig config, TrainingBlock data, EpochOrder order,
      LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder) {
    final FeatureBlock x = data.features();
    final int[] labels = data.labelArray();
    final double[] sampleWeights = data.weightArray();
    final int biasSlot = config.numFeatures();
    final boolean fitIntercept = config.fitIntercept();
    final double biasValue = fitIntercept ? 1.0 : 0.0;
    final UpdateRule rule = config.updateRule();
    final double eta = config.stepSize();
    final double aggressiveness = config.aggressiveness();
    final double[] w = state.weights();
    final double[] u = state.averageAccumulator();
    double clock = state.clock();
    long examples = 0;
    long mistakes = 0;
    long updates = 0;
    long nonFinite = 0;
    double weightSeen = 0.0;
    double perceptronLoss = 0.0;
    double hingeLoss = 0.0;

    final int[] rows = order.rows();
    final int chunks = order.chunks();
    double touched = 0.0;
    int t = 0;
    for (int c = 0; c < chunks; c++) {
      final int length = order.chunkLength(c);
      final int next = c + 1 < chunks ? order.chunkStart(c + 1) : 0;
      final int nextLength = c + 1 < chunks ? order.chunkLength(c + 1) : 0;
      for (int i = Math.max(length, 0); i < nextLength; i++) {
        // A short chunk before a longer one: the rest of the next chunk now.
        touched += x.touch(order.storedRow(next + i));
      }
      for (int i = 0; i < length; i++) {
        if (i < nextLength) {
          touched += x.touch(order.storedRow(next + i));
        }
        final int row = rows[t++];
        final double s = config.exampleWeight(sampleWeights == null ? 1.0 : sampleWeights[row],
            labels[row]);
        if (s == 0.0) {
          continue;
        }
        final double y = labels[row] == 1 ? 1.0 : -1.0;
        // The bias slot is read even without fitIntercept: it then stays at its starting value
        // (0, or a warm-start model's intercept), which predictions add too.
        final double score = x.dot(row, w, 0) + w[biasSlot];
        final double margin = y * score;
        examples++;
        weightSeen += s;
        if (!(Math.abs(margin) <= Double.MAX_VALUE)) {
          nonFinite++;
        }
        if (margin <= 0.0) {
          mistakes++;
          perceptronLoss -= s * margin;
        }
        if (margin < 1.0) {
          hingeLoss += s * (1.0 - margin);
        }

        final double tau;
        if (rule == UpdateRule.PERCEPTRON) {
          tau = margin <= 0.0 ? eta * s : 0.0;
        } else if (margin < 1.0) {
          double q = x.squaredNorm(row) + biasValue;
          tau = rule.passiveAggressiveStep(1.0 - margin, q, aggressiveness * s);
        } else {
          tau = 0.0;
        }

        if (tau > 0.0) {
          final double delta = tau * y;
          updates++;
          if (u == null) {
            x.addScaled(row, delta, w, 0);
            if (fitIntercept) {
              w[biasSlot] += delta;
            }
          } else {
            final double lagged = clock * delta;
            x.addScaledTwice(row, delta, w, lagged, u, 0);
            if (fitIntercept) {
              w[biasSlot] += delta;
              u[biasSlot] += lagged;
            }
          }
          if (recorder != null) {
            recorder.onUpdate(row, 0, -1, delta, clock);
          }
        }
        clock += s * clockScale;
      }
    }
    touchSink = touched;

    state.setClock(clock);
    stats.examples += examples;
    stats.weightSeen += weightSeen;
    stats.mistakes += mistakes;
    stats.updates += updates;
    stats.perceptronLoss += perceptronLoss;
    stats.hingeLoss += hingeLoss;
    stats.nonFiniteMargins += nonFinite;
  }

  private static void multiclassEpoch(LearnerConfig config, TrainingBlock data, EpochOrder order,
      LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder) {
    final FeatureBlock x = data.features();
    final int[] labels = data.labelArray();
    final double[] sampleWeights = data.weightArray();
    final int numClasses = config.numClasses();
    final int rowLength = config.rowLength();
    final int biasSlot = config.numFeatures();
    final boolean fitIntercept = config.fitIntercept();
    final double biasValue = fitIntercept ? 1.0 : 0.0;
    final UpdateRule rule = config.updateRule();
    final double eta = config.stepSize();
    final double aggressiveness = config.aggressiveness();
    final double[] w = state.weights();
    final double[] u = state.averageAccumulator();
    final double[] scores = new double[numClasses];
    double clock = state.clock();
    long examples = 0;
    long mistakes = 0;
    long updates = 0;
    long nonFinite = 0;
    double weightSeen = 0.0;
    double perceptronLoss = 0.0;
    double hingeLoss = 0.0;

    final int[] rows = order.rows();
    final int chunks = order.chunks();
    double touched = 0.0;
    int t = 0;
    for (int c = 0; c < chunks; c++) {
      final int length = order.chunkLength(c);
      final int next = c + 1 < chunks ? order.chunkStart(c + 1) : 0;
      final int nextLength = c + 1 < chunks ? order.chunkLength(c + 1) : 0;
      for (int i = Math.max(length, 0); i < nextLength; i++) {
        // A short chunk before a longer one: the rest of the next chunk now.
        touched += x.touch(order.storedRow(next + i));
      }
      for (int i = 0; i < length; i++) {
        if (i < nextLength) {
          touched += x.touch(order.storedRow(next + i));
        }
        final int row = rows[t++];
        final int y = labels[row];
        final double s = config.exampleWeight(sampleWeights == null ? 1.0 : sampleWeights[row], y);
        if (s == 0.0) {
          continue;
        }
        for (int k = 0; k < numClasses; k++) {
          scores[k] = x.dot(row, w, k * rowLength) + w[k * rowLength + biasSlot];
        }
        int rival = -1;
        for (int k = 0; k < numClasses; k++) {
          if (k != y && (rival < 0 || scores[k] > scores[rival])) {
            rival = k;
          }
        }
        final double margin = scores[y] - scores[rival];
        examples++;
        weightSeen += s;
        if (!(Math.abs(margin) <= Double.MAX_VALUE)) {
          nonFinite++;
        }
        if (margin <= 0.0) {
          mistakes++;
          perceptronLoss -= s * margin;
        }
        if (margin < 1.0) {
          hingeLoss += s * (1.0 - margin);
        }

        final double tau;
        if (rule == UpdateRule.PERCEPTRON) {
          tau = margin <= 0.0 ? eta * s : 0.0;
        } else if (margin < 1.0) {
          // Two rows move, so the margin changes by τ·2‖x‖² (Crammer et al. 2006, section 7).
          double q = 2.0 * (x.squaredNorm(row) + biasValue);
          tau = rule.passiveAggressiveStep(1.0 - margin, q, aggressiveness * s);
        } else {
          tau = 0.0;
        }

        if (tau > 0.0) {
          updates++;
          final int up = y * rowLength;
          final int down = rival * rowLength;
          if (u == null) {
            x.addScaled(row, tau, w, up);
            x.addScaled(row, -tau, w, down);
            if (fitIntercept) {
              w[up + biasSlot] += tau;
              w[down + biasSlot] -= tau;
            }
          } else {
            final double lagged = clock * tau;
            x.addScaledTwice(row, tau, w, lagged, u, up);
            x.addScaledTwice(row, -tau, w, -lagged, u, down);
            if (fitIntercept) {
              w[up + biasSlot] += tau;
              w[down + biasSlot] -= tau;
              u[up + biasSlot] += lagged;
              u[down + biasSlot] -= lagged;
            }
          }
          if (recorder != null) {
            recorder.onUpdate(row, y, rival, tau, clock);
          }
        }
        clock += s * clockScale;
      }
    }
    touchSink = touched;

    state.setClock(clock);
    stats.examples += examples;
    stats.weightSeen += weightSeen;
    stats.mistakes += mistakes;
    stats.updates += updates;
    stats.perceptronLoss += perceptronLoss;
    stats.hingeLoss += hingeLoss;
    stats.nonFiniteMargins += nonFinite;
  }
}
