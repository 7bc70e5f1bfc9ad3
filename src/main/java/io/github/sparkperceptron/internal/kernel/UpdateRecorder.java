package io.github.sparkperceptron.internal.kernel;

/**
 * Observes every weight change of an epoch, for the voted perceptron, which must remember each
 * intermediate weight vector (as the update that produced it) and how long it survived.
 */
interface UpdateRecorder {
  /**
   * Called after the update made at {@code row}: weight row {@code raised} moved by
   * +delta·x and, for multiclass models, weight row {@code lowered} by −delta·x
   * ({@code lowered} is −1 for binary models, where delta already carries the sign of y).
   *
   * @param clockBefore the learner's clock before this example; the difference to the next
   *     update's value is how many (weighted, scaled) examples the new vector survived
   */
  void onUpdate(int row, int raised, int lowered, double delta, double clockBefore);
}
