package io.github.sparkperceptron.internal.kernel;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/** Builds kernel blocks from dense test rows, in either storage layout. */
final class Blocks {
  private Blocks() {
  }

  static TrainingBlock csr(List<double[]> xs, List<Integer> labels, double[] weights) {
    int d = xs.get(0).length;
    int[] rowStart = new int[xs.size() + 1];
    List<Integer> idx = new ArrayList<>();
    List<Double> val = new ArrayList<>();
    for (int r = 0; r < xs.size(); r++) {
      for (int j = 0; j < d; j++) {
        if (xs.get(r)[j] != 0) {
          idx.add(j);
          val.add(xs.get(r)[j]);
        }
      }
      rowStart[r + 1] = idx.size();
    }
    int[] indices = idx.stream().mapToInt(Integer::intValue).toArray();
    double[] values = val.stream().mapToDouble(Double::doubleValue).toArray();
    return new TrainingBlock(new CsrFeatureBlock(d, rowStart, indices, values),
        labels.stream().mapToInt(Integer::intValue).toArray(), weights);
  }

  static TrainingBlock dense(List<double[]> xs, List<Integer> labels, double[] weights) {
    int d = xs.get(0).length;
    double[] values = new double[xs.size() * d];
    for (int r = 0; r < xs.size(); r++) {
      System.arraycopy(xs.get(r), 0, values, r * d, d);
    }
    return new TrainingBlock(new DenseFeatureBlock(xs.size(), d, values),
        labels.stream().mapToInt(Integer::intValue).toArray(), weights);
  }

  /** Serial training with the kernel: up to {@code epochs} epochs in the given orders. */
  static LinearState train(LearnerConfig config, TrainingBlock block, int epochs,
      IntFunction<int[]> orders, List<EpochStats> statsOut) {
    LinearState state = LinearState.zero(config);
    for (int epoch = 1; epoch <= epochs; epoch++) {
      EpochStats stats = new EpochStats();
      OnlineLearner.runEpoch(config, block, orders.apply(epoch), state, 1.0, stats, null);
      if (statsOut != null) {
        statsOut.add(stats);
      }
      if (stats.updates == 0) {
        break;
      }
    }
    return state;
  }

  static LearnerConfig config(int d, int k, boolean fitIntercept, double eta, UpdateRule rule,
      double c, Averaging averaging) {
    return new LearnerConfig(d, k, fitIntercept, eta, rule, c, averaging);
  }
}
