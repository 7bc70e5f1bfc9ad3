package io.github.sparkperceptron.internal.mixing;

import io.github.sparkperceptron.internal.kernel.ParamValue;

/** How the workers' weights are combined; see the package documentation for the formulas. */
public enum MixingMode implements ParamValue {
  UNIFORM("uniform", "each round, weighted by share of examples"),
  MISTAKES("mistakes", "each round, weighted by share of updates, McDonald et al. 2010"),
  ONESHOT("oneshot", "train apart, average once"),
  MOMENTUM("momentum", "each round, weighted by share of updates, with Nesterov block momentum"
      + " 1 - 1/workers, Chen & Huo 2016");

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
   * The unnormalised μ of one worker: its total sample weight (its row count when unweighted)
   * for uniform and one-shot mixing, its number of updates for mistake-weighted mixing and for
   * block momentum (whose rounds are mistake-weighted mixes).
   */
  public double mixWeight(double workerWeight, long workerUpdates) {
    return this == MISTAKES || this == MOMENTUM ? workerUpdates : workerWeight;
  }
  /** Looks a mode up by its param value (case-insensitive). */
  public static MixingMode fromParam(String value) {
    return ParamValue.parse(MixingMode.class, "mixing", value);
  }
}
