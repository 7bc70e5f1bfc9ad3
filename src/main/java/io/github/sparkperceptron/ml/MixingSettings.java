package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.ShuffleScope;
import io.github.sparkperceptron.kernel.VisitOrder;
import io.github.sparkperceptron.mixing.MixingMode;
import java.io.Serializable;

/** The driver-side settings of the mixing loop, read once from the estimator's params. */
final class MixingSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  final int maxIter;
  final double tol;
  final MixingMode mixing;
  final boolean shuffle;
  final long seed;
  /** How partitions lay out and visit their rows (shuffle, shuffleScope, seed). */
  final VisitOrder order;
  final int aggregationDepth;
  /** Whether validation rows are scored each epoch (early stopping). */
  final boolean validate;
  final int validationPatience;
  /** The binary decision threshold, used to score validation rows. */
  final double threshold;

  MixingSettings(int maxIter, double tol, MixingMode mixing, boolean shuffle,
      ShuffleScope shuffleScope, long seed, int aggregationDepth, boolean validate,
      int validationPatience, double threshold) {
    this.maxIter = maxIter;
    this.tol = tol;
    this.mixing = mixing;
    this.shuffle = shuffle;
    this.seed = seed;
    this.order = VisitOrder.of(shuffle, shuffleScope, seed);
    this.aggregationDepth = aggregationDepth;
    this.validate = validate;
    this.validationPatience = validationPatience;
    this.threshold = threshold;
  }
}
