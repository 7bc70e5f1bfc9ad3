package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.mixing.BlockMomentum;
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
  final int aggregationDepth;
  /** Whether validation rows are scored each epoch (early stopping). */
  final boolean validate;
  final int validationPatience;
  /** The binary decision threshold, used to score validation rows. */
  final double threshold;
  /** Mixing rounds per epoch (resolved: >= 1). */
  final int rounds;
  /** Block momentum β with mixing=momentum (0: none). */
  final double momentum;
  /** The momentum's norm-growth bound per unit of update mass (≤ 0: unchecked). */
  final double momentumBound;
  /**
   * The share of the state above which a partition's change travels densely (see
   * {@link io.github.sparkperceptron.mixing.StateDelta}); set from the Spark configuration key
   * {@link #EXCHANGE_KEY} for measurements and tests.
   */
  double denseAbove = io.github.sparkperceptron.mixing.StateDelta.DENSE_ABOVE;
  /**
   * Spark configuration key (or local property of the fitting thread) forcing the representation
   * of the partitions' changes: {@code auto} (by density, the default), {@code sparse} or
   * {@code dense}. The models are the same, bit for bit; only the cost differs.
   */
  static final String EXCHANGE_KEY = "spark.perceptron.exchange";

  /** The most mixing rounds per epoch that {@code mixingRounds = 0} chooses. */
  static final int MAX_AUTOMATIC_ROUNDS = 64;

  MixingSettings(int maxIter, double tol, MixingMode mixing, boolean shuffle, long seed,
      int aggregationDepth, boolean validate, int validationPatience, double threshold,
      int rounds, double momentum, double momentumBound) {
    this.maxIter = maxIter;
    this.tol = tol;
    this.mixing = mixing;
    this.shuffle = shuffle;
    this.seed = seed;
    this.aggregationDepth = aggregationDepth;
    this.validate = validate;
    this.validationPatience = validationPatience;
    this.threshold = threshold;
    this.rounds = rounds;
    this.momentum = momentum;
    this.momentumBound = momentumBound;
  }

  /**
   * Automatic mixing rounds per epoch for {@code workers} workers. Block momentum gives back the
   * 1/W step that averaging W workers' changes loses over about W rounds (β = 1 − 1/W), so it
   * needs about W rounds per epoch: in BENCHMARKS.md 16 rounds left 64 workers 0.6–0.9 points
   * behind one worker on two of three sets, W rounds left them within 0.15. Past 64 workers the
   * fixed cost of a Spark job per round outweighs what more rounds recover, so 64 is the cap.
   * The mean mixes gain little from rounds and keep one, McDonald et al.'s IPM.
   */
  static int automaticRounds(MixingMode mixing, int workers) {
    return mixing == MixingMode.MOMENTUM ? Math.min(MAX_AUTOMATIC_ROUNDS, workers) : 1;
  }

  /** The block momentum a fresh training starts with, or null when it mixes without one. */
  BlockMomentum momentum(int stateLength, double[] initialWeights) {
    if (mixing != MixingMode.MOMENTUM || momentum == 0.0) {
      return null;
    }
    double norm = 0.0;
    for (double w : initialWeights) {
      norm += w * w;
    }
    return new BlockMomentum(stateLength, momentum, momentumBound, norm);
  }
}
