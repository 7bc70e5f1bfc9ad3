package io.github.sparkperceptron.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The params shared by {@link PerceptronClassifier} and {@link PerceptronClassificationModel},
 * with Spark's names and getters. Spark discovers params reflectively as the public no-argument
 * methods returning a {@link Param}; each such method here returns the instance's own object,
 * which the instance keeps in its {@code PerceptronParamSet} (package-private, as Scala's
 * {@code private[ml]} keeps Spark's own). Sealed: those two classes are its only implementations,
 * which is how the defaults find the set.
 */
public sealed interface PerceptronParams extends Params
    permits PerceptronClassifier, PerceptronClassificationModel {

  default IntParam maxIter() {
    return PerceptronParamSet.of(this).maxIter;
  }

  default DoubleParam tol() {
    return PerceptronParamSet.of(this).tol;
  }

  default DoubleParam stepSize() {
    return PerceptronParamSet.of(this).stepSize;
  }

  default BooleanParam fitIntercept() {
    return PerceptronParamSet.of(this).fitIntercept;
  }

  default Param<String> updateRule() {
    return PerceptronParamSet.of(this).updateRule;
  }

  default DoubleParam aggressiveness() {
    return PerceptronParamSet.of(this).aggressiveness;
  }

  default Param<String> averaging() {
    return PerceptronParamSet.of(this).averaging;
  }

  default Param<String> mixing() {
    return PerceptronParamSet.of(this).mixing;
  }

  default BooleanParam shuffle() {
    return PerceptronParamSet.of(this).shuffle;
  }

  default Param<String> shuffleScope() {
    return PerceptronParamSet.of(this).shuffleScope;
  }

  default LongParam seed() {
    return PerceptronParamSet.of(this).seed;
  }

  default DoubleParam threshold() {
    return PerceptronParamSet.of(this).threshold;
  }

  default Param<String> weightCol() {
    return PerceptronParamSet.of(this).weightCol;
  }

  default IntParam aggregationDepth() {
    return PerceptronParamSet.of(this).aggregationDepth;
  }

  default Param<String> validationIndicatorCol() {
    return PerceptronParamSet.of(this).validationIndicatorCol;
  }

  default IntParam validationPatience() {
    return PerceptronParamSet.of(this).validationPatience;
  }

  default Param<String> classWeight() {
    return PerceptronParamSet.of(this).classWeight;
  }

  default Param<String> checkpointDir() {
    return PerceptronParamSet.of(this).checkpointDir;
  }

  default IntParam checkpointInterval() {
    return PerceptronParamSet.of(this).checkpointInterval;
  }

  default IntParam numWorkers() {
    return PerceptronParamSet.of(this).numWorkers;
  }

  default Param<String> storageLevel() {
    return PerceptronParamSet.of(this).storageLevel;
  }

  default Param<String> calibration() {
    return PerceptronParamSet.of(this).calibration;
  }

  default IntParam calibrationFolds() {
    return PerceptronParamSet.of(this).calibrationFolds;
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
    return PerceptronParamSet.of(this).mixingRounds;
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
}
