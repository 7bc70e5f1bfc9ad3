package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ClassWeight;
import io.github.sparkperceptron.internal.kernel.ParamValue;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.mixing.MixingMode;
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
 * shared-param traits do). Users reach these through {@link PerceptronParams}, whose defaults
 * find an instance's set with {@link #of}.
 *
 * <p>Created from a field initializer of its owner, which runs before the owner's constructor
 * body; the owner's {@code uid()} must already answer then (see the owners' uid handling).
 */
final class PerceptronParamSet implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Default of {@code maxIter}: averaged perceptrons settle within a few epochs. */
  static final int DEFAULT_MAX_ITER = 10;
  /** Default of {@code tol}. */
  static final double DEFAULT_TOL = 1e-6;
  /** Default of {@code seed}. */
  static final long DEFAULT_SEED = 42L;
  /** Default of {@code validationPatience}. */
  static final int DEFAULT_VALIDATION_PATIENCE = 3;
  /**
   * Default of {@code calibration}: Platt's sigmoid (temperature scaling for K classes), fitted on
   * a seeded 10% of the rows held out of training (one pass of scoring over them after
   * training), or cross-fitted on small data; its test log-loss is measured against the raw
   * link's, LogisticRegression's and scikit-learn's in BENCHMARKS.md (issue 33).
   */
  static final CalibrationMethod DEFAULT_CALIBRATION = CalibrationMethod.SIGMOID;

  final IntParam maxIter;
  final DoubleParam tol;
  final DoubleParam stepSize;
  final BooleanParam fitIntercept;
  final Param<String> updateRule;
  final DoubleParam aggressiveness;
  final Param<String> averaging;
  final Param<String> mixing;
  final IntParam mixingRounds;
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
  final IntParam numWorkers;
  final Param<String> storageLevel;
  final Param<String> calibration;
  final IntParam calibrationFolds;

  /**
   * The set of {@code owner}: {@link PerceptronParams} is sealed to the estimator and the model,
   * each of which keeps its set in a field.
   */
  static PerceptronParamSet of(PerceptronParams owner) {
    return owner instanceof PerceptronClassifier estimator ? estimator.paramSet
        : ((PerceptronClassificationModel) owner).paramSet;
  }

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
        "update rule: " + ParamValue.describe(UpdateRule.class),
        ParamChecks.oneOf("updateRule", UpdateRule.class));
    aggressiveness = new DoubleParam(owner, "aggressiveness",
        "C of the pa1 and pa2 rules, scaled by each example's weight (> 0)",
        ParamChecks.positive("aggressiveness"));
    averaging = new Param<>(owner, "averaging",
        "which weights make the model: " + ParamValue.describe(Averaging.class),
        ParamChecks.oneOf("averaging", Averaging.class));
    mixing = new Param<>(owner, "mixing",
        "how the workers' weights are combined: " + ParamValue.describe(MixingMode.class)
            + " (default momentum: the one that keeps one worker's accuracy at many workers)",
        ParamChecks.oneOf("mixing", MixingMode.class));
    mixingRounds = new IntParam(owner, "mixingRounds",
        "mixing rounds per epoch: every worker's epoch is cut into this many consecutive"
            + " parts and the workers are mixed after each (an epoch's rounds in one barrier"
            + " stage, or one Spark job per round); 0 ="
            + " automatic: with mixing=momentum min(W, 64, N / (2 W)) for W workers and N"
            + " training rows (about W rounds for the momentum to build up, at most 64, and two"
            + " rows or more per worker in a round), at least 1; 1 otherwise (>= 0)",
        ParamChecks.intAtLeast("mixingRounds", 0));
    shuffle = new BooleanParam(owner, "shuffle",
        "whether each worker visits its rows in a new seeded order every epoch");
    shuffleScope = new Param<>(owner, "shuffleScope",
        "with shuffle, how far the order moves a row: " + ParamValue.describe(ShuffleScope.class),
        ParamChecks.oneOf("shuffleScope", ShuffleScope.class));
    seed = new LongParam(owner, "seed",
        "random seed of the shuffles; the same input, numWorkers and seed give the same model");
    threshold = new DoubleParam(owner, "threshold",
        "binary models predict 1 when the margin w.x + b (a voted model: its vote) exceeds it;"
            + " any number, +Infinity (always 0) or -Infinity (always 1)",
        ParamChecks.notNaN("threshold"));
    weightCol = new Param<>(owner, "weightCol",
        "column of non-negative sample weights; a weight scales its example's update (unset or"
            + " empty: every weight is 1)",
        ParamChecks.optionalName("weightCol"));
    aggregationDepth = new IntParam(owner, "aggregationDepth",
        "depth of the tree aggregation of the workers' results (>= 2)",
        ParamChecks.intAtLeast("aggregationDepth", 2));
    validationIndicatorCol = new Param<>(owner, "validationIndicatorCol",
        "boolean column marking validation rows (true): they are not trained on; each epoch the"
            + " model is scored on them, training stops after validationPatience epochs without"
            + " improvement and the best epoch's model is returned (unset or empty: no early"
            + " stopping)",
        ParamChecks.optionalName("validationIndicatorCol"));
    validationPatience = new IntParam(owner, "validationPatience",
        "with validationIndicatorCol, stop after this many epochs without a better validation"
            + " accuracy (>= 1)", ParamChecks.intAtLeast("validationPatience", 1));
    classWeight = new Param<>(owner, "classWeight",
        "how the classes are weighed in training: " + ParamValue.describe(ClassWeight.class),
        ParamChecks.oneOf("classWeight", ClassWeight.class));
    checkpointDir = new Param<>(owner, "checkpointDir",
        "directory (any Hadoop path) for training checkpoints; a fit that finds a checkpoint of"
            + " the same training there resumes from it (unset or empty: no checkpoints)",
        ParamChecks.optionalName("checkpointDir"));
    checkpointInterval = new IntParam(owner, "checkpointInterval",
        "with checkpointDir, write a checkpoint every this many epochs (>= 1), or -1 for none",
        ParamChecks.intAtLeastOrDisabled("checkpointInterval", 1));
    numWorkers = new IntParam(owner, "numWorkers",
        "perceptrons trained in parallel and mixed after every epoch: the input's partitions are"
            + " coalesced (or split) into this many training partitions, one worker each. The"
            + " model depends on it: the same input (rows and partitions), numWorkers and seed give"
            + " the same model on any cluster (>= 0; 0 = auto: the cluster's task slots as"
            + " SparkContext.defaultParallelism counts them when fit starts)",
        ParamChecks.intAtLeast("numWorkers", 0, "0 = auto: the cluster's task slots"));
    storageLevel = new Param<>(owner, "storageLevel",
        "where Spark keeps the training data's cached chunks (a Spark storage level:"
            + " MEMORY_AND_DISK keeps what fits in memory and spills the rest to local disk,"
            + " chunk by chunk; DISK_ONLY, MEMORY_AND_DISK_SER, ... work too). Changes where the"
            + " data live, never the model",
        ParamChecks.storageLevel("storageLevel"));

    calibration = new Param<>(owner, "calibration",
        "how the raw scores become the probabilityCol: "
            + ParamValue.describe(CalibrationMethod.class) + ". Fitted after training on rows"
            + " the perceptron did not train on: the validationIndicatorCol rows when that is"
            + " set, the out-of-fold scores with calibrationFolds, else a seeded 10% of the rows"
            + " held out of training (a hash of each row), or, where those hold fewer than 50"
            + " rows of a class, out-of-fold scores of 3 folds with the model trained on every"
            + " row. none trains on every row (default " + DEFAULT_CALIBRATION.paramValue()
            + ")",
        ParamChecks.oneOf("calibration", CalibrationMethod.class));
    calibrationFolds = new IntParam(owner, "calibrationFolds",
        "k >= 2: fit the calibrator on out-of-fold scores instead (cross-fitting, as"
            + " scikit-learn's CalibratedClassifierCV with ensemble=False): k more perceptrons,"
            + " each trained on the rows outside one of k folds (a seeded hash of each row's"
            + " class and features), score that fold; the model itself trains on every row."
            + " Costs k more fits; not with validationIndicatorCol. 0 = the default's held-out"
            + " rows (>= 0, not 1)",
        ParamChecks.intAtLeast("calibrationFolds", 0, "0 = off; at least 2 folds otherwise"));

    owner.setDefault(maxIter, DEFAULT_MAX_ITER);
    owner.setDefault(tol, DEFAULT_TOL);
    owner.setDefault(stepSize, 1.0);
    owner.setDefault(fitIntercept, true);
    owner.setDefault(updateRule, UpdateRule.PERCEPTRON.paramValue());
    owner.setDefault(aggressiveness, 1.0);
    owner.setDefault(averaging, Averaging.AVERAGE.paramValue());
    owner.setDefault(mixing, MixingMode.MOMENTUM.paramValue());
    owner.setDefault(mixingRounds, 0);
    owner.setDefault(shuffle, true);
    owner.setDefault(shuffleScope, ShuffleScope.AUTO.paramValue());
    owner.setDefault(seed, DEFAULT_SEED);
    owner.setDefault(threshold, 0.0);
    owner.setDefault(aggregationDepth, 2);
    owner.setDefault(validationPatience, DEFAULT_VALIDATION_PATIENCE);
    owner.setDefault(classWeight, ClassWeight.NONE.paramValue());
    owner.setDefault(checkpointInterval, 10);
    owner.setDefault(numWorkers, 0);
    owner.setDefault(storageLevel, "MEMORY_AND_DISK");
    owner.setDefault(calibration, DEFAULT_CALIBRATION.paramValue());
    owner.setDefault(calibrationFolds, 0);
  }
}
