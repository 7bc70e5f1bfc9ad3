package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;

/**
 * What one epoch saw, summed over examples (and over workers by {@link #add}). Losses are
 * measured before each example's update, so they cost no extra pass over the data:
 * the perceptron loss Σ s·max(0, −margin) (the objective the perceptron rule descends by
 * subgradient steps) and the hinge loss Σ s·max(0, 1 − margin) (the PA rules' objective), where
 * margin is y·(w·x+b) for binary and s_y − max_{k≠y} s_k for multiclass models.
 */
public final class EpochStats implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Examples visited (zero-weight examples are skipped and not counted). */
  public long examples;
  /** Σ of the sample weights visited. */
  public double weightSeen;
  /** Examples whose margin was ≤ 0. */
  public long mistakes;
  /** Examples that changed the weights (equals {@link #mistakes} for the perceptron rule). */
  public long updates;
  /** Σ s·max(0, −margin). */
  public double perceptronLoss;
  /** Σ s·max(0, 1 − margin). */
  public double hingeLoss;
  /**
   * Examples whose margin was infinite or NaN: the feature values overflowed double arithmetic,
   * and such an example can no longer teach the perceptron anything. Training fails on them.
   */
  public long nonFiniteMargins;
  /**
   * Σ τ over the updates: the mass of the updates, which the perceptron's mistake bounds count (it
   * equals {@link #updates} for the perceptron rule with unit step and weights).
   */
  public double stepSum;

  /** Adds {@code other} into this and returns this. */
  public EpochStats add(EpochStats other) {
    examples += other.examples;
    weightSeen += other.weightSeen;
    mistakes += other.mistakes;
    updates += other.updates;
    perceptronLoss += other.perceptronLoss;
    hingeLoss += other.hingeLoss;
    nonFiniteMargins += other.nonFiniteMargins;
    stepSum += other.stepSum;
    return this;
  }

  public EpochStats copy() {
    return new EpochStats().add(this);
  }

  @Override
  public String toString() {
    return "EpochStats{examples=" + examples + ", mistakes=" + mistakes + ", updates=" + updates
        + ", perceptronLoss=" + perceptronLoss + ", hingeLoss=" + hingeLoss + "}";
  }
}
