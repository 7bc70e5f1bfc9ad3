package io.github.sparkperceptron.internal.kernel;

/**
 * The values of the {@code classWeight} param: how training weighs the classes against each
 * other, on top of the sample weights.
 *
 * <pre>
 * none      every class as the data have it
 * balanced  each example's weight times N / (K·N_k), N_k the (weighted) size of its class and
 *           K the number of classes present: every class weighs N/K in total (scikit-learn's
 *           class_weight="balanced")
 * </pre>
 */
public enum ClassWeight implements ParamValue {
  NONE("none", "every class as the data have it"),
  BALANCED("balanced", "multiply each example's weight by N / (K * N_k), N_k the (weighted) size"
      + " of its class, so that every class weighs the same in training");

  private final String paramValue;
  private final String description;

  ClassWeight(String paramValue, String description) {
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
  public static ClassWeight fromParam(String value) {
    return ParamValue.parse(ClassWeight.class, "classWeight", value);
  }

  /**
   * The factor per class that multiplies every example's sample weight, or {@code null} for
   * {@link #NONE}.
   *
   * @param classWeightSums Σ of the sample weights of each class's examples
   */
  public double[] factors(double[] classWeightSums) {
    if (this == NONE) {
      return null;
    }
    double total = 0;
    int present = 0;
    for (double w : classWeightSums) {
      total += w;
      present += w > 0 ? 1 : 0;
    }
    double[] factors = new double[classWeightSums.length];
    for (int k = 0; k < factors.length; k++) {
      double w = classWeightSums[k];
      factors[k] = w > 0 ? total / (present * w) : 0.0;
    }
    return factors;
  }
}
