package io.github.sparkperceptron.kernel;

import java.util.Locale;

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
public enum Averaging {
  NONE("none"),
  AVERAGE("average"),
  VOTE("vote");

  private final String paramValue;

  Averaging(String paramValue) {
    this.paramValue = paramValue;
  }

  public String paramValue() {
    return paramValue;
  }

  /** Whether training keeps the lazy average accumulator u. */
  public boolean keepsAverage() {
    return this != NONE;
  }

  public static Averaging fromParam(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    for (Averaging a : values()) {
      if (a.paramValue.equals(v)) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown averaging '" + value
        + "'; expected one of none, average, vote");
  }
}
