package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The params shared by {@link PerceptronClassifier} and {@link PerceptronClassificationModel},
 * with Spark's names and getters. Spark discovers params reflectively as the public no-argument
 * methods returning a {@link Param}; each such method here returns the instance's own object from
 * {@link #perceptronParamSet()}.
 */
public interface PerceptronParams extends Params {

  /** Internal: this instance's param objects. */
  PerceptronParamSet perceptronParamSet();

  default IntParam maxIter() {
    return perceptronParamSet().maxIter;
  }

  default DoubleParam tol() {
    return perceptronParamSet().tol;
  }

  default DoubleParam stepSize() {
    return perceptronParamSet().stepSize;
  }

  default BooleanParam fitIntercept() {
    return perceptronParamSet().fitIntercept;
  }

  default Param<String> updateRule() {
    return perceptronParamSet().updateRule;
  }

  default DoubleParam aggressiveness() {
    return perceptronParamSet().aggressiveness;
  }

  default Param<String> averaging() {
    return perceptronParamSet().averaging;
  }

  default Param<String> mixing() {
    return perceptronParamSet().mixing;
  }

  default BooleanParam shuffle() {
    return perceptronParamSet().shuffle;
  }

  default Param<String> shuffleScope() {
    return perceptronParamSet().shuffleScope;
  }

  default LongParam seed() {
    return perceptronParamSet().seed;
  }

  default DoubleParam threshold() {
    return perceptronParamSet().threshold;
  }

  default Param<String> weightCol() {
    return perceptronParamSet().weightCol;
  }

  default IntParam aggregationDepth() {
    return perceptronParamSet().aggregationDepth;
  }

  default Param<String> validationIndicatorCol() {
    return perceptronParamSet().validationIndicatorCol;
  }

  default IntParam validationPatience() {
    return perceptronParamSet().validationPatience;
  }

  default Param<String> classWeight() {
    return perceptronParamSet().classWeight;
  }

  default Param<String> checkpointDir() {
    return perceptronParamSet().checkpointDir;
  }

  default IntParam checkpointInterval() {
    return perceptronParamSet().checkpointInterval;
  }

  default IntParam numWorkers() {
    return perceptronParamSet().numWorkers;
  }

  default Param<String> storageLevel() {
    return perceptronParamSet().storageLevel;
  }

  default Param<String> calibration() {
    return perceptronParamSet().calibration;
  }

  default IntParam calibrationFolds() {
    return perceptronParamSet().calibrationFolds;
  }

  /** The folds of cross-fitted calibration; 0 = off. */
  default int getCalibrationFolds() {
    return (Integer) getOrDefault(calibrationFolds());
  }

  default int getMaxIter() {
    return (Integer) getOrDefault(maxIter());
  }

  default double getTol() {
    return (Double) getOrDefault(tol());
  }

  default double getStepSize() {
    return (Double) getOrDefault(stepSize());
  }

  default boolean getFitIntercept() {
    return (Boolean) getOrDefault(fitIntercept());
  }

  default String getUpdateRule() {
    return getOrDefault(updateRule());
  }

  default double getAggressiveness() {
    return (Double) getOrDefault(aggressiveness());
  }

  default String getAveraging() {
    return getOrDefault(averaging());
  }

  default String getMixing() {
    return getOrDefault(mixing());
  }

  default IntParam mixingRounds() {
    return perceptronParamSet().mixingRounds;
  }

  default int getMixingRounds() {
    return (Integer) getOrDefault(mixingRounds());
  }

  default boolean getShuffle() {
    return (Boolean) getOrDefault(shuffle());
  }

  default String getShuffleScope() {
    return getOrDefault(shuffleScope());
  }

  default long getSeed() {
    return (Long) getOrDefault(seed());
  }

  default double getThreshold() {
    return (Double) getOrDefault(threshold());
  }

  /** The weight column, or the empty string when unset (every weight is 1). */
  default String getWeightCol() {
    return isDefined(weightCol()) ? getOrDefault(weightCol()) : "";
  }

  default int getAggregationDepth() {
    return (Integer) getOrDefault(aggregationDepth());
  }

  /** The validation indicator column, or the empty string when unset (no early stopping). */
  default String getValidationIndicatorCol() {
    return isDefined(validationIndicatorCol()) ? getOrDefault(validationIndicatorCol()) : "";
  }

  default int getValidationPatience() {
    return (Integer) getOrDefault(validationPatience());
  }

  default String getClassWeight() {
    return getOrDefault(classWeight());
  }

  /** The checkpoint directory, or the empty string when unset (no checkpoints). */
  default String getCheckpointDir() {
    return isDefined(checkpointDir()) ? getOrDefault(checkpointDir()) : "";
  }

  default int getCheckpointInterval() {
    return (Integer) getOrDefault(checkpointInterval());
  }

  /** Where Spark keeps the training data's chunks: a storage level's name. */
  default String getStorageLevel() {
    return getOrDefault(storageLevel());
  }

  /** The number of workers asked for; 0 means automatic (the cluster's task slots). */
  default int getNumWorkers() {
    return (Integer) getOrDefault(numWorkers());
  }

  default String getCalibration() {
    return getOrDefault(calibration());
  }

  /** {@link #getCalibration()} as the calibration package's enum. */
  default CalibrationMethod calibrationValue() {
    return CalibrationMethod.fromParam(getCalibration());
  }

  /** {@link #getUpdateRule()} as the kernel's enum. */
  default UpdateRule updateRuleValue() {
    return UpdateRule.fromParam(getUpdateRule());
  }

  /** {@link #getAveraging()} as the kernel's enum. */
  default Averaging averagingValue() {
    return Averaging.fromParam(getAveraging());
  }

  /** {@link #getShuffleScope()} as the kernel's enum. */
  default ShuffleScope shuffleScopeValue() {
    return ShuffleScope.fromParam(getShuffleScope());
  }

  /** {@link #getMixing()} as the mixing package's enum. */
  default MixingMode mixingValue() {
    return MixingMode.fromParam(getMixing());
  }

  /** {@link #getClassWeight()} as an enum. */
  default ClassWeight classWeightValue() {
    return ClassWeight.fromParam(getClassWeight());
  }
}
