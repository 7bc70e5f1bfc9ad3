package io.github.sparkperceptron.mixing;

import io.github.sparkperceptron.kernel.ParamValue;

/** How the partitions' weights are combined; see the package documentation for the formulas. */
public enum MixingMode implements ParamValue {
  UNIFORM("uniform", "each epoch, weighted by share of examples"),
  MISTAKES("mistakes", "each epoch, weighted by share of updates, McDonald et al. 2010"),
  ONESHOT("oneshot", "train apart, average once");

  private final String paramValue;
  private final String description;

  MixingMode(String paramValue, String description) {
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

  /**
   * The unnormalised μ of one partition: its total sample weight (its row count when unweighted)
   * for uniform and one-shot mixing, its number of updates for mistake-weighted mixing.
   */
  public double mixWeight(double partitionWeight, long partitionUpdates) {
    return this == MISTAKES ? partitionUpdates : partitionWeight;
  }

  /** Looks a mode up by its param value (case-insensitive). */
  public static MixingMode fromParam(String value) {
    return ParamValue.parse(MixingMode.class, "mixing", value);
  }
}
