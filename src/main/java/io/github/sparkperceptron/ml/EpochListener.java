package io.github.sparkperceptron.ml;

/**
 * Told about every epoch of a training, on the driver, with the model that training would return
 * if it stopped there: for learning curves (accuracy on a test set per epoch, say), custom
 * logging or custom stopping rules (throw to abort). Set with
 * {@link PerceptronClassifier#setEpochListener}; building the snapshot costs O(K·d) per epoch on
 * the driver (more for a vote), so set one only when it is used.
 */
@FunctionalInterface
public interface EpochListener {
  /**
   * @param epoch the epoch just completed, from 1
   * @param model the model after this epoch (averaged or voted as configured); it has no summary
   */
  void onEpoch(int epoch, PerceptronClassificationModel model);
}
