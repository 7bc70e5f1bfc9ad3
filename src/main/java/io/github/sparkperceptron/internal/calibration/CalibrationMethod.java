package io.github.sparkperceptron.internal.calibration;

import io.github.sparkperceptron.internal.kernel.ParamValue;

/**
 * The values of the {@code calibration} param: how a model turns its raw scores into the
 * {@code probabilityCol}.
 *
 * <pre>
 * none      no fitted map: the logistic function of a binary model's margin, the softmax of a
 *           multiclass model's scores (as Vowpal Wabbit's --link logistic); ranks as the scores
 *           do, but is not calibrated (a perceptron's scores have no probabilistic scale)
 * sigmoid   binary: Platt's sigmoid 1/(1 + exp(A·m + B)) of the margin m (Platt 1999, fitted by
 *           Lin, Lin &amp; Weng 2007's Newton method); multiclass: temperature scaling, the softmax
 *           of the scores divided by one fitted T (Guo et al. 2017)
 * isotonic  isotonic regression of the class on the score by pool-adjacent-violators (Zadrozny
 *           &amp; Elkan 2002), interpolated linearly between its steps; multiclass: one per class
 *           (one against the rest) on that class's score, normalised to sum to 1
 * </pre>
 */
public enum CalibrationMethod implements ParamValue {
  NONE("none", "the logistic function of the margin (binary) or the softmax of the scores"
      + " (multiclass), uncalibrated"),
  SIGMOID("sigmoid", "Platt's sigmoid of the margin (binary), temperature scaling of the scores"
      + " (multiclass), fitted on the calibration rows"),
  ISOTONIC("isotonic", "isotonic regression of the class on its score (one against the rest for"
      + " multiclass), fitted on the calibration rows");

  private final String paramValue;
  private final String description;

  CalibrationMethod(String paramValue, String description) {
    this.paramValue = paramValue;
    this.description = description;
  }

  @Override
  public String paramValue() {
    return paramValue;
  }

  @Override
  public String description() {
    return description;
  }

  /** Looks a value up by its param value (case-insensitive). */
  public static CalibrationMethod fromParam(String value) {
    return ParamValue.parse(CalibrationMethod.class, "calibration", value);
  }
}
