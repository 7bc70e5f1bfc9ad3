package io.github.sparkperceptron.internal.kernel;

/**
 * Which weight vector becomes the model.
 *
 * <pre>
 * none     the last weights
 * average  the mean of the weights after every example (averaged perceptron: Freund &amp;
 *          Schapire 1999, section 5; Collins 2002), kept lazily as w − u/c (Daumé 2006)
 * vote     the voted perceptron: sign of Σ_k c_k · sign(w_k·x) over every intermediate
 *          weight vector w_k and the number c_k of examples it survived (Freund &amp; Schapire
 *          1999, "Large Margin Classification Using the Perceptron Algorithm")
 * </pre>
 */
public enum Averaging implements ParamValue {
  NONE("none", "the last weights"),
  AVERAGE("average", "mean of all intermediate weights, Freund & Schapire 1999, Collins 2002"),
  VOTE("vote", "voted perceptron, Freund & Schapire 1999");

  private final String paramValue;
  private final String description;

  Averaging(String paramValue, String description) {
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

  /** Whether training keeps the lazy average accumulator u. */
  public boolean keepsAverage() {
    return this != NONE;
  }

  /** Looks a mode up by its param value (case-insensitive). */
  public static Averaging fromParam(String value) {
    return ParamValue.parse(Averaging.class, "averaging", value);
  }
}
