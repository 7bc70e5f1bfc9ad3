package io.github.sparkperceptron;

/**
 * Why a training stopped: what {@code PerceptronTrainingSummary.stopReason()} reports, what the
 * train job writes as {@code stopReason}, and what a checkpoint stores by name. One enum for the
 * public summary and the engine that decides it, so it stands in the library's root package,
 * below every other (LayeringTest).
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
