package io.github.sparkperceptron.mixing;

import java.util.Locale;

/** How the partitions' weights are combined; see the package documentation for the formulas. */
public enum MixingMode {
  UNIFORM("uniform"),
  MISTAKES("mistakes"),
  ONESHOT("oneshot"),
  MOMENTUM("momentum");

  private final String paramValue;

  MixingMode(String paramValue) {
    this.paramValue = paramValue;
  }

  public String paramValue() {
    return paramValue;
  }

  /**
   * The unnormalised μ of one partition: its total sample weight (its row count when unweighted)
   * for uniform and one-shot mixing, its number of updates for mistake-weighted mixing and for
   * block momentum (whose rounds are mistake-weighted mixes).
   */
  public double mixWeight(double partitionWeight, long partitionUpdates) {
    return this == MISTAKES || this == MOMENTUM ? partitionUpdates : partitionWeight;
  }

  /** Whether the partitions are mixed after every round (all but one-shot mixing). */
  public boolean isIterative() {
    return this != ONESHOT;
  }

  public static MixingMode fromParam(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    for (MixingMode m : values()) {
      if (m.paramValue.equals(v)) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown mixing '" + value
        + "'; expected one of uniform, mistakes, oneshot, momentum");
  }
}
