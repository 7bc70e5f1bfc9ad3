package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

/**
 * The learner's state: the current weights w, and for averaging the lazy accumulator u and the
 * clock c, such that the mean of every weight vector seen so far is w − u/c.
 *
 * <p>Derivation (Daumé 2006, "A Course in Machine Learning", alg. 7): with s_t the weight of
 * example t, C_t = s_1 + ... + s_t and Δ_t the update made at example t,
 * Σ_t s_t·w_t = C_T·w_T − Σ_t C_{t−1}·Δ_t, so u accumulates C_{t−1}·Δ_t: O(non-zeros) per
 * update instead of O(d) per example.
 */
public final class LinearState implements Serializable {
  private static final long serialVersionUID = 1L;

  private final double[] weights;
  private final double[] averageAccumulator;
  private double clock;

  /**
   * @param weights w, K'·(d+1) values (taken, not copied)
   * @param averageAccumulator u of the same length, or {@code null} when not averaging
   * @param clock c, the weighted number of examples seen so far
   */
  public LinearState(double[] weights, double[] averageAccumulator, double clock) {
    this.weights = Objects.requireNonNull(weights, "weights");
    if (averageAccumulator != null && averageAccumulator.length != weights.length) {
      throw new IllegalArgumentException("accumulator length " + averageAccumulator.length
          + " differs from weights length " + weights.length);
    }
    this.averageAccumulator = averageAccumulator;
    this.clock = clock;
  }

  /** A zero state for the given configuration. */
  public static LinearState zero(LearnerConfig config) {
    int n = config.stateLength();
    return new LinearState(new double[n], config.averaging().keepsAverage() ? new double[n] : null,
        0.0);
  }

  /** w; mutable, owned by this state. */
  public double[] weights() {
    return weights;
  }

  /** u, or {@code null} when not averaging; mutable, owned by this state. */
  public double[] averageAccumulator() {
    return averageAccumulator;
  }

  public double clock() {
    return clock;
  }

  public void setClock(double clock) {
    this.clock = clock;
  }

  /** A deep copy (broadcast values must never be mutated by a task). */
  public LinearState copy() {
    return new LinearState(weights.clone(),
        averageAccumulator == null ? null : averageAccumulator.clone(), clock);
  }

  /**
   * The weights the model should use: w − u/c when averaging and at least one example was seen,
   * else w. Returns a new array.
   */
  public double[] modelWeights() {
    double[] out = weights.clone();
    if (averageAccumulator != null && clock > 0) {
      for (int j = 0; j < out.length; j++) {
        out[j] -= averageAccumulator[j] / clock;
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "LinearState{w=" + Arrays.toString(weights) + ", clock=" + clock + "}";
  }
}
