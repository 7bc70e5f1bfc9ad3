package io.github.sparkperceptron.internal.engine;

/**
 * Block momentum's state as a stream carries it from one micro-batch to the next
 * ({@link OnlineTraining}): the velocity Δ, the update mass M of the trajectory, Δ's decayed
 * mass, the restarts so far, the bound's ρ and ‖w_0‖² (see {@code mixing.BlockMomentum}). Not β,
 * which is each batch's own (1 − 1/W for its W workers). A view: the velocity is the training's
 * own array, which the next batch changes.
 */
public final class StreamMomentum {
  private final double[] velocity;
  private final double[] scalars;
  private final long restarts;

  /**
   * @param velocity Δ (taken, not copied)
   * @param masses M and Δ's decayed mass
   * @param bound ρ and ‖w_0‖²
   * @param restarts look-aheads skipped so far
   */
  public StreamMomentum(double[] velocity, double[] masses, double[] bound, long restarts) {
    this.velocity = velocity;
    this.scalars = new double[] {masses[0], masses[1], bound[0], bound[1]};
    this.restarts = restarts;
  }

  /** Δ (the training's own array). */
  public double[] velocity() {
    return velocity;
  }

  /** M, the update mass of the trajectory so far. */
  public double mass() {
    return scalars[0];
  }

  /** Δ's decayed mass. */
  public double velocityMass() {
    return scalars[1];
  }

  /** ρ, the norm growth bound per unit of update mass (≤ 0: never checked). */
  public double normBound() {
    return scalars[2];
  }

  /** ‖w_0‖² of the weights the bound counts from. */
  public double initialSquaredNorm() {
    return scalars[3];
  }

  public long restarts() {
    return restarts;
  }
}
