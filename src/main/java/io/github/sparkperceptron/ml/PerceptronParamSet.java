package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.Averaging;
import io.github.sparkperceptron.kernel.ShuffleScope;
import io.github.sparkperceptron.kernel.UpdateRule;
import io.github.sparkperceptron.mixing.MixingMode;
import java.io.Serializable;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The {@link Param} objects of one estimator or model, with their docs, validators and defaults,
 * written once for both classes (Java interfaces cannot hold the per-instance fields that Scala's
 * shared-param traits do). Internal: users reach these through {@link PerceptronParams}.
 *
 * <p>Created from a field initializer of its owner, which runs before the owner's constructor
 * body; the owner's {@code uid()} must already answer then (see the owners' uid handling).
 */
public final class PerceptronParamSet implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Default of {@code maxIter}: averaged perceptrons settle within a few epochs. */
  public static final int DEFAULT_MAX_ITER = 10;
  /** Default of {@code tol}. */
  public static final double DEFAULT_TOL = 1e-6;
  /** Default of {@code seed}. */
  public static final long DEFAULT_SEED = 42L;
  /** Default of {@code validationPatience}. */
  public static final int DEFAULT_VALIDATION_PATIENCE = 3;

  final IntParam maxIter;
  final DoubleParam tol;
  final DoubleParam stepSize;
  final BooleanParam fitIntercept;
  final Param<String> updateRule;
  final DoubleParam aggressiveness;
  final Param<String> averaging;
  final Param<String> mixing;
  final BooleanParam shuffle;
  final Param<String> shuffleScope;
  final LongParam seed;
  final DoubleParam threshold;
  final Param<String> weightCol;
  final IntParam aggregationDepth;
  final Param<String> validationIndicatorCol;
  final IntParam validationPatience;
  final Param<String> classWeight;
  final Param<String> checkpointDir;
  final IntParam checkpointInterval;

  PerceptronParamSet(Params owner) {
    maxIter = new IntParam(owner, "maxIter",
        "maximum number of epochs (passes over the data) (>= 0)",
        ParamChecks.intAtLeast("maxIter", 0));
    tol = new DoubleParam(owner, "tol",
        "stop when an epoch changes the mixed weights by less than this, relative to their norm:"
            + " ||w_n - w_(n-1)|| <= tol * ||w_n|| (>= 0; 0 disables)",
        ParamChecks.nonNegative("tol"));
    stepSize = new DoubleParam(owner, "stepSize",
        "learning rate eta of the perceptron update w <- w + eta*y*x (> 0; the passive-aggressive"
            + " rules compute their own step and ignore it)",
        ParamChecks.positive("stepSize"));
    fitIntercept = new BooleanParam(owner, "fitIntercept",
        "whether to learn a bias (x augmented with a constant 1)");
    updateRule = new Param<>(owner, "updateRule",
        "update rule: perceptron (mistake-driven), pa, pa1 or pa2 (passive-aggressive, Crammer et"
            + " al. 2006)",
        ParamChecks.oneOf("updateRule", "perceptron", "pa", "pa1", "pa2"));
    aggressiveness = new DoubleParam(owner, "aggressiveness",
        "C of the pa1 and pa2 rules, scaled by each example's weight (> 0)",
        ParamChecks.positive("aggressiveness"));
    averaging = new Param<>(owner, "averaging",
        "which weights make the model: none (last weights), average (mean of all intermediate"
            + " weights) or vote (voted perceptron, Freund & Schapire 1999)",
        ParamChecks.oneOf("averaging", "none", "average", "vote"));
    mixing = new Param<>(owner, "mixing",
        "how partitions are combined each epoch: uniform (by example share), mistakes (by share"
            + " of updates, McDonald et al. 2010) or oneshot (train apart, average once)",
        ParamChecks.oneOf("mixing", "uniform", "mistakes", "oneshot"));
    shuffle = new BooleanParam(owner, "shuffle",
        "whether each partition visits its rows in a new seeded order every epoch");
    shuffleScope = new Param<>(owner, "shuffleScope",
        "with shuffle, how far the order moves a row: rows (a fresh uniform permutation of the"
            + " partition every epoch) or chunks (the rows are stored once in a seeded random"
            + " order; each epoch visits chunks of a few hundred neighbouring rows in a random"
            + " order, and the rows of a chunk in a random order: the same order statistics"
            + " within an epoch, read from memory almost sequentially, several times faster)",
        ParamChecks.oneOf("shuffleScope", "rows", "chunks"));
    seed = new LongParam(owner, "seed",
        "random seed of the shuffles; the same data, partitioning and seed give the same model");
    threshold = new DoubleParam(owner, "threshold",
        "binary models predict 1 when the margin w.x + b exceeds it", ParamChecks.finite("threshold"));
    weightCol = new Param<>(owner, "weightCol",
        "column of non-negative sample weights; a weight scales its example's update (unset: all 1)",
        ParamChecks.columnName("weightCol"));
    aggregationDepth = new IntParam(owner, "aggregationDepth",
        "depth of the tree aggregation of partition results (>= 2)",
        ParamChecks.intAtLeast("aggregationDepth", 2));
    validationIndicatorCol = new Param<>(owner, "validationIndicatorCol",
        "boolean column marking validation rows (true): they are not trained on; each epoch the"
            + " model is scored on them, training stops after validationPatience epochs without"
            + " improvement and the best epoch's model is returned (unset: no early stopping)",
        ParamChecks.columnName("validationIndicatorCol"));
    validationPatience = new IntParam(owner, "validationPatience",
        "with validationIndicatorCol, stop after this many epochs without a better validation"
            + " accuracy (>= 1)", ParamChecks.intAtLeast("validationPatience", 1));
    classWeight = new Param<>(owner, "classWeight",
        "none, or balanced: multiply each example's weight by N / (K * N_k), N_k the (weighted)"
            + " size of its class, so that every class weighs the same in training",
        ParamChecks.oneOf("classWeight", "none", "balanced"));
    checkpointDir = new Param<>(owner, "checkpointDir",
        "directory (any Hadoop path) for training checkpoints; a fit that finds a checkpoint of"
            + " the same training there resumes from it (unset: no checkpoints)",
        ParamChecks.columnName("checkpointDir"));
    checkpointInterval = new IntParam(owner, "checkpointInterval",
        "with checkpointDir, write a checkpoint every this many epochs (>= 1), or -1 for none",
        ParamChecks.intAtLeastOrDisabled("checkpointInterval", 1));

    owner.setDefault(maxIter, DEFAULT_MAX_ITER);
    owner.setDefault(tol, DEFAULT_TOL);
    owner.setDefault(stepSize, 1.0);
    owner.setDefault(fitIntercept, true);
    owner.setDefault(updateRule, UpdateRule.PERCEPTRON.paramValue());
    owner.setDefault(aggressiveness, 1.0);
    owner.setDefault(averaging, Averaging.AVERAGE.paramValue());
    owner.setDefault(mixing, MixingMode.MISTAKES.paramValue());
    owner.setDefault(shuffle, true);
    owner.setDefault(shuffleScope, ShuffleScope.CHUNKS.paramValue());
    owner.setDefault(seed, DEFAULT_SEED);
    owner.setDefault(threshold, 0.0);
    owner.setDefault(aggregationDepth, 2);
    owner.setDefault(validationPatience, DEFAULT_VALIDATION_PATIENCE);
    owner.setDefault(classWeight, "none");
    owner.setDefault(checkpointInterval, 10);
  }
}
