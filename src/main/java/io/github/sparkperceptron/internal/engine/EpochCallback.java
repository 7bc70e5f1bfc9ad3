package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;

/**
 * Told on the driver after every epoch of a training (one-shot mixing: once, at the end) what
 * that training would return if it stopped there. The Spark face turns it into
 * {@code EpochListener} calls with a model; throwing aborts the training.
 */
@FunctionalInterface
public interface EpochCallback {
  /**
   * @param epoch the epoch just completed, from 1
   * @param state the mixed state after it (read only; its model weights are the model's)
   * @param vote with {@code averaging=vote}, the vote up to this epoch, else null
   */
  void onEpoch(int epoch, LinearState state, VotedPerceptron vote);
}
