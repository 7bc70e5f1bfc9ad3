package io.github.sparkperceptron.internal.kernel;

/**
 * One epoch of the perceptron family over one worker's rows: the update rules of
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
 *
 * <p>Multiclass states are read in the config's {@link StateLayout}: class-major (K dot products
 * over rows 8·(d+1) bytes apart, the library's global layout) or feature-major (one pass over the
 * row reading a run of K weights per entry, {@link FeatureBlock#dotClasses}; an update moves the
 * two classes in one pass). Both evaluate the same expressions in the same order per class, so
 * every margin, update, statistic and model is bit for bit the same; only memory access differs.
 */
public final class OnlineLearner {
  private OnlineLearner() {
  }

  /**
   * Where the sums of {@link FeatureBlock#touch} end up, once per call: a store the JIT compiler
   * must keep, so it keeps the reads. Never read.
   */
  @SuppressWarnings("unused")
  private static double touchSink;

  /**
   * Runs one pass over {@code data} in the given order, mutating {@code state} and adding what it
   * saw into {@code stats}.
   *
   * @param order the rows to visit, in order (an epoch passes a permutation of 0 .. n-1)
   * @param clockScale how far the averaging clock advances per unit of sample weight: 1 for
   *     serial training; T / T_i under parameter mixing, so that every worker's epoch spans the
   *     same stretch of the clock (see {@code io.github.sparkperceptron.internal.mixing})
   * @param recorder told about every update, or {@code null}
   */
  public static void runEpoch(LearnerConfig config, TrainingBlock data, int[] order,
      LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder) {
    runEpoch(config, data, EpochOrder.of(order), 0, order.length, state, clockScale, stats,
        recorder, null);
  }

  /**
   * {@link #runEpoch(LearnerConfig, TrainingBlock, int[], LinearState, double, EpochStats,
   * UpdateRecorder)} over a whole epoch order, reading its chunks ahead (see
   * {@link #runEpoch(LearnerConfig, TrainingBlock, EpochOrder, int, int, LinearState, double,
   * EpochStats, UpdateRecorder, TouchedSet)}).
   */
  public static void runEpoch(LearnerConfig config, TrainingBlock data, EpochOrder order,
      LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder) {
    runEpoch(config, data, order, 0, order.size(), state, clockScale, stats, recorder, null);
  }

  /**
   * Runs the rows {@code order[from .. to)} (one mixing round's share of an epoch), as
   * {@link #runEpoch(LearnerConfig, TrainingBlock, int[], LinearState, double, EpochStats,
   * UpdateRecorder)} does, and marks every state coordinate an update writes in {@code touched}
   * (when not {@code null}), so that the round's change can be returned sparsely.
   */
  public static void runEpoch(LearnerConfig config, TrainingBlock data, int[] order, int from,
      int to, LinearState state, double clockScale, EpochStats stats, UpdateRecorder recorder,
      TouchedSet touched) {
    runEpoch(config, data, EpochOrder.of(order), from, to, state, clockScale, stats, recorder,
        touched);
  }

  /**
   * Runs the visits {@code from .. to} of an epoch order (one mixing round's slice of the epoch;
   * 0 .. {@link EpochOrder#size()} for the whole epoch), marking in {@code touched} (when not
   * {@code null}) every state coordinate an update writes.
   *
   * <p>A chunked order ({@link VisitOrder}, shuffleScope=chunks) is visited chunk by chunk; while
   * the pass visits the rows of one chunk in random order, it reads the next chunk's rows in
   * storage order, one row per visit ({@link FeatureBlock#touch}), so that they stream into the
   * cache ahead of their own visit. This changes no result: it only reads, and the rows visited,
   * their order and every update are those of {@code order.rows()[from .. to)}.
   */
  public static void runEpoch(LearnerConfig config, TrainingBlock data, EpochOrder order,
      int from, int to, LinearState state, double clockScale, EpochStats stats,
      UpdateRecorder recorder, TouchedSet touched) {
    if (from < 0 || to > order.size() || from > to) {
      throw new IllegalArgumentException("visits " + from + " .. " + to + " of an order of "
          + order.size() + " rows");
    }
    EpochOrder.ReadAhead ahead = order.readAhead(data.features(), from);
    if (config.isBinary()) {
      binaryEpoch(config, data, order.rows(), ahead, from, to, state, clockScale, stats,
          recorder, touched);
    } else {
      multiclassEpoch(config, data, order.rows(), ahead, from, to, state, clockScale, stats,
          recorder, touched);
    }
    touchSink = ahead.sum();
  }

  private static void binaryEpoch(LearnerConfig config, TrainingBlock data, int[] order,
      EpochOrder.ReadAhead ahead, int from, int to, LinearState state, double clockScale,
      EpochStats stats, UpdateRecorder recorder, TouchedSet touched) {
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
    double stepSum = 0.0;

    for (int t = from; t < to; t++) {
      ahead.step(t);
      final int row = order[t];
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
        stepSum += tau;
        if (touched != null) {
          x.markStored(row, touched, 0);
          if (fitIntercept) {
            touched.mark(biasSlot);
          }
        }
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

    state.setClock(clock);
    stats.examples += examples;
    stats.weightSeen += weightSeen;
    stats.mistakes += mistakes;
    stats.updates += updates;
    stats.perceptronLoss += perceptronLoss;
    stats.hingeLoss += hingeLoss;
    stats.nonFiniteMargins += nonFinite;
    stats.stepSum += stepSum;
  }

  private static void multiclassEpoch(LearnerConfig config, TrainingBlock data, int[] order,
      EpochOrder.ReadAhead ahead, int from, int to, LinearState state, double clockScale,
      EpochStats stats, UpdateRecorder recorder, TouchedSet touched) {
    final FeatureBlock x = data.features();
    final int[] labels = data.labelArray();
    final double[] sampleWeights = data.weightArray();
    final int numClasses = config.numClasses();
    final int rowLength = config.rowLength();
    final int biasSlot = config.numFeatures();
    final boolean featureMajor = config.isFeatureMajor();
    // Feature-major: the bias is feature d, its K weights after the d features' runs.
    final int biasBase = config.numFeatures() * numClasses;
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
    double stepSum = 0.0;

    for (int t = from; t < to; t++) {
      ahead.step(t);
      final int row = order[t];
      final int y = labels[row];
      final double s = config.exampleWeight(sampleWeights == null ? 1.0 : sampleWeights[row], y);
      if (s == 0.0) {
        continue;
      }
      if (featureMajor) {
        x.dotClasses(row, w, numClasses, scores);
        for (int k = 0; k < numClasses; k++) {
          scores[k] += w[biasBase + k];
        }
      } else {
        for (int k = 0; k < numClasses; k++) {
          scores[k] = x.dot(row, w, k * rowLength) + w[k * rowLength + biasSlot];
        }
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
        stepSum += tau;
        final int up = y * rowLength;
        final int down = rival * rowLength;
        final int upBias = featureMajor ? biasBase + y : up + biasSlot;
        final int downBias = featureMajor ? biasBase + rival : down + biasSlot;
        if (touched != null) {
          if (featureMajor) {
            x.markStoredPair(row, touched, numClasses, y, rival);
          } else {
            x.markStored(row, touched, up);
            x.markStored(row, touched, down);
          }
          if (fitIntercept) {
            touched.mark(upBias);
            touched.mark(downBias);
          }
        }
        final double lagged = clock * tau;
        if (featureMajor) {
          if (u == null) {
            x.addScaledToPair(row, tau, w, numClasses, y, rival);
          } else {
            x.addScaledTwiceToPair(row, tau, w, lagged, u, numClasses, y, rival);
          }
        } else if (u == null) {
          x.addScaled(row, tau, w, up);
          x.addScaled(row, -tau, w, down);
        } else {
          x.addScaledTwice(row, tau, w, lagged, u, up);
          x.addScaledTwice(row, -tau, w, -lagged, u, down);
        }
        if (fitIntercept) {
          w[upBias] += tau;
          w[downBias] -= tau;
          if (u != null) {
            u[upBias] += lagged;
            u[downBias] -= lagged;
          }
        }
        if (recorder != null) {
          recorder.onUpdate(row, y, rival, tau, clock);
        }
      }
      clock += s * clockScale;
    }

    state.setClock(clock);
    stats.examples += examples;
    stats.weightSeen += weightSeen;
    stats.mistakes += mistakes;
    stats.updates += updates;
    stats.perceptronLoss += perceptronLoss;
    stats.hingeLoss += hingeLoss;
    stats.nonFiniteMargins += nonFinite;
    stats.stepSum += stepSum;
  }
}
