package io.github.sparkperceptron.internal.rounds;

/**
 * Why the mixing loop stopped. The Spark face reports it as
 * {@code PerceptronTrainingSummary.StopReason} (same names); checkpoints store the name.
 */
public enum StopReason {
  /** {@code maxIter} epochs ran. */
  MAX_ITER,
  /** An epoch made no update on any worker. */
  CONVERGED,
  /** An epoch changed the mixed weights by less than {@code tol}, relative to their norm. */
  TOL,
  /** {@code validationPatience} epochs brought no better validation accuracy. */
  VALIDATION,
  /** Nothing to train: {@code maxIter} is 0, or the data hold a single class. */
  NOTHING_TO_TRAIN
}
