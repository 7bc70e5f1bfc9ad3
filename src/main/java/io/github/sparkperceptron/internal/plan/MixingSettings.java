package io.github.sparkperceptron.internal.plan;

import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import java.io.Serializable;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mixing loop's settings, resolved once on the driver for one training's data and workers
 * ({@link #resolve}): a {@link TrainingConfig}'s loop settings with the mixing rounds, block
 * momentum β and its bound ρ, and the exchange's representation decided. Immutable; the round
 * tasks capture it.
 */
public final class MixingSettings implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(MixingSettings.class);


  /** From this many workers on, the mean mixes warn that they dilute (see {@link #resolve}). */
  static final int DILUTING_WORKERS = 8;

  public final int maxIter;
  public final double tol;
  public final MixingMode mixing;
  /** How workers lay out and visit their rows (shuffle, shuffleScope, seed). */
  public final VisitOrder order;
  public final int aggregationDepth;
  /** Whether validation rows are scored each epoch (early stopping). */
  public final boolean validate;
  public final int validationPatience;
  /** The binary decision threshold, used to score validation rows. */
  public final double threshold;
  /** Mixing rounds per epoch (resolved: >= 1). */
  public final int rounds;
  /** Block momentum β with mixing=momentum (0: none). */
  public final double momentum;
  /** The momentum's norm-growth bound per unit of update mass (≤ 0: unchecked). */
  public final double momentumBound;
  /**
   * The share of the state above which a worker's change travels densely (see
   * {@link StateDelta}), from {@link Settings#DELTA_ENCODING}.
   */
  public final double denseAbove;

  /**
   * @param config the loop's settings (maxIter, tol, mixing, order, depth, validation,
   *     threshold)
   * @param rounds mixing rounds per epoch, resolved (&ge; 1)
   * @param momentum β and ρ: block momentum and its bound ({@code 0, 0} for none)
   * @param denseAbove the exchange's dense share ({@link StateDelta#DENSE_ABOVE} by default)
   */
  MixingSettings(TrainingConfig config, int rounds, double[] momentum, double denseAbove) {
    this.maxIter = config.maxIter;
    this.tol = config.tol;
    this.mixing = config.mixing;
    this.order = config.visitOrder();
    this.aggregationDepth = config.aggregationDepth;
    this.validate = config.validates();
    this.validationPatience = config.validationPatience;
    this.threshold = config.threshold;
    this.rounds = rounds;
    this.momentum = momentum[0];
    this.momentumBound = momentum[1];
    this.denseAbove = denseAbove;
  }

  /**
   * The settings of {@code config}'s training of {@code data} by {@code learner}: rounds,
   * block momentum and its bound resolved for the input's workers, the exchange's representation
   * from {@link Settings#DELTA_ENCODING} (a local property of the calling thread, else the Spark conf).
   */
  static MixingSettings resolve(TrainingConfig config, DataFacts data, LearnerConfig learner,
      JavaSparkContext jsc) {
    MixingMode mixingMode = config.mixing;
    int workers = data.numWorkers;
    int rounds = rounds(config, workers, data.numRows);
    double momentum = mixingMode == MixingMode.MOMENTUM
        ? BlockMomentum.defaultMomentum(workers) : 0.0;
    double bound = 0.0;
    if (learner.updateRule() == UpdateRule.PERCEPTRON) {
      // ρ of BlockMomentum's bound: one update grows ‖w‖² by at most τ·(τ_max·max‖x̃‖²), twice
      // that for multiclass (two rows move).
      double maxWeight = 0.0;
      for (int k = 0; k < data.numClasses; k++) {
        double classFactor = learner.classWeights() == null ? 1.0 : learner.classWeights()[k];
        maxWeight = Math.max(maxWeight, data.maxWeight(k) * classFactor);
      }
      double radius = data.maxSquaredNorm + (learner.fitIntercept() ? 1.0 : 0.0);
      bound = (learner.isBinary() ? 1.0 : 2.0) * learner.stepSize() * maxWeight * radius;
    }
    if (workers >= DILUTING_WORKERS
        && (mixingMode == MixingMode.MISTAKES || mixingMode == MixingMode.UNIFORM)) {
      // BENCHMARKS.md, issue 9: the mean of W workers' changes moves the weights about as far as
      // an epoch over 1/W of the data, so these modes lose accuracy per epoch as W grows.
      LOG.warn("mixing={} averages the changes of {} workers, which costs accuracy per epoch"
          + " (pendigits: 3 points at 8 workers, 8 at 64, after 10 epochs); mixing=momentum,"
          + " the default, keeps one worker's accuracy at 64 workers (BENCHMARKS.md, issues 9"
          + " and 18)",
          mixingMode.paramValue(), workers);
    }
    if (mixingMode != MixingMode.ONESHOT) {
      LOG.info("Mixing: {} over {} workers, {} round{} per epoch{}{}", mixingMode.paramValue(),
          workers, rounds, rounds == 1 ? "" : "s",
          config.mixingRounds > 0 || mixingMode != MixingMode.MOMENTUM ? ""
              : String.format(Locale.ROOT, " (automatic: min(W, %d, N / (%d W)) for N = %,d"
                  + " training rows)", BlockMomentum.MAX_AUTOMATIC_ROUNDS,
                  BlockMomentum.MIN_ROWS_PER_ROUND, data.numRows),
          momentum > 0 ? String.format(Locale.ROOT, ", block momentum %.4f", momentum) : "");
    }
    return new MixingSettings(config, rounds, new double[] {momentum, bound},
        exchangeDensity(Settings.read(jsc, Settings.DELTA_ENCODING, "auto")));
  }

  /**
   * The mixing rounds per epoch of {@code config}'s training over {@code workers} workers and
   * {@code rows} training rows: one for one-shot mixing, {@code mixingRounds} when set, else
   * {@link #automaticRounds}. What {@link #resolve} takes.
   */
  public static int rounds(TrainingConfig config, int workers, long rows) {
    return config.mixing == MixingMode.ONESHOT ? 1
        : config.mixingRounds > 0 ? config.mixingRounds
        : automaticRounds(config.mixing, workers, rows);
  }

  /**
   * The mixing rounds per epoch of {@code config} over {@code workers} workers when they do not
   * depend on the rows, so that a stream knows them before its micro-batch's rows are read; −1
   * when they do. The automatic rounds grow with the rows ({@link #automaticRounds}: block
   * momentum's min(W, 64, N / (2W)), at least 1, never fewer for more rows), so they do not
   * depend on the rows exactly when the fewest rows and the most give the same count: one-shot
   * mixing, {@code mixingRounds} set, the mean mixes (one round), and block momentum over one
   * worker (one round). Otherwise only the batch's row count, known once its facts are gathered,
   * fixes R, as {@link #resolve} fixes it for {@code fit}: a stream's batch of N rows over W
   * workers is trained with the rounds {@code fit} would give those N rows over W workers.
   */
  public static int roundsBeforeRows(TrainingConfig config, int workers) {
    int fewest = rounds(config, workers, 0);
    return fewest == rounds(config, workers, Long.MAX_VALUE) ? fewest : -1;
  }

  /**
   * The settings of one round without block momentum, known before the rows are read: what a
   * stream's tasks train a micro-batch with when they convert, score and train it in one job
   * (only when {@link #roundsBeforeRows} is 1 and no momentum applies; {@link #resolve} on the
   * batch's facts gives the same settings).
   */
  public static MixingSettings oneRoundWithoutMomentum(TrainingConfig config, JavaSparkContext jsc) {
    return new MixingSettings(config, 1, new double[] {0.0, 0.0},
        exchangeDensity(Settings.read(jsc, Settings.DELTA_ENCODING, "auto")));
  }

  /** The dense-above share {@link Settings#DELTA_ENCODING} asks for. */
  private static double exchangeDensity(String mode) {
    switch (mode.toLowerCase(Locale.ROOT)) {
      case "auto":
        return StateDelta.DENSE_ABOVE;
      case "sparse":
        return Double.POSITIVE_INFINITY;
      case "dense":
        return -1.0;
      default:
        throw new IllegalArgumentException(Settings.DELTA_ENCODING + " must be auto, sparse or"
            + " dense, got '" + mode + "'");
    }
  }

  /**
   * Automatic mixing rounds per epoch for {@code workers} workers and {@code rows} training rows:
   * block momentum's {@link BlockMomentum#automaticRounds} (about W rounds, at most 64, and a
   * couple of rows per worker in every round); the mean mixes gain little from rounds and keep
   * one, McDonald et al.'s IPM. A pure function of its arguments, so models stay reproducible.
   */
  static int automaticRounds(MixingMode mixing, int workers, long rows) {
    return mixing == MixingMode.MOMENTUM ? BlockMomentum.automaticRounds(workers, rows) : 1;
  }

  /** Whether the training mixes with a block momentum (mixing=momentum, β ≠ 0). */
  public boolean hasMomentum() {
    return mixing == MixingMode.MOMENTUM && momentum != 0.0;
  }

  /** The block momentum a fresh training starts with, or null when it mixes without one. */
  public BlockMomentum momentum(int stateLength, double[] initialWeights) {
    if (!hasMomentum()) {
      return null;
    }
    double norm = 0.0;
    for (double w : initialWeights) {
      norm += w * w;
    }
    return new BlockMomentum(stateLength, momentum, momentumBound, norm);
  }
}
