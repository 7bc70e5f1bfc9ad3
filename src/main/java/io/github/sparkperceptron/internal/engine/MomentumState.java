package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.store.StateFile.Unreadable;
import io.github.sparkperceptron.internal.store.StateFile;
import io.github.sparkperceptron.internal.store.StateReader;
import java.io.IOException;

/**
 * Block momentum's state, as a stream carries it from one micro-batch to the next and as state
 * files hold it, with its one codec: the MOMENTUM section that checkpoints
 * ({@link CheckpointFormat}, format 4) and a stream's learner state (snapshots and change
 * records) both write.
 *
 * <pre>
 * MOMENTUM  double[] velocity Δ (whole; in a change record, its values at the change's
 *           coordinates), double mass M, double velocityMass, long restarts, double rho ρ,
 *           double initialSquaredNorm ‖w₀‖²
 * </pre>
 *
 * β is not part of it: a training's follows from its params and workers (which a checkpoint's
 * fingerprint fixes), a stream's is each batch's own (1 − 1/W for the batch's W workers). See
 * {@link BlockMomentum} for what the fields mean.
 *
 * @param velocity Δ (a view: the array of the momentum it was taken from)
 * @param mass M, the update mass of the trajectory so far
 * @param velocityMass Δ's decayed mass
 * @param restarts look-aheads skipped so far
 * @param rho ρ, the norm growth bound per unit of update mass (≤ 0: never checked)
 * @param initialSquaredNorm ‖w₀‖² of the weights the bound counts from
 */
public record MomentumState(double[] velocity, double mass, double velocityMass, long restarts,
    double rho, double initialSquaredNorm) {

  /** {@code m}'s state; the velocity is {@code m}'s own array, not copied. */
  public static MomentumState of(BlockMomentum m) {
    return new MomentumState(m.velocity(), m.mass(), m.velocityMass(), m.restarts(),
        m.normBound(), m.initialSquaredNorm());
  }

  /** The momentum of β {@code beta} in this state (its velocity taken, not copied). */
  public BlockMomentum resume(double beta) {
    return BlockMomentum.resume(velocity, beta, rho, initialSquaredNorm, mass, velocityMass,
        restarts);
  }

  /** This state with velocity {@code v} (a change record applied). */
  public MomentumState withVelocity(double[] v) {
    return new MomentumState(v, mass, velocityMass, restarts, rho, initialSquaredNorm);
  }

  /** Writes the section whole. */
  public void write(StateFile.Out o) throws IOException {
    o.writeDoubles(velocity, velocity.length);
    writeScalars(o);
  }

  /** Writes the section with Δ's values at {@code coordinates} only (a change record). */
  public void writeAt(StateFile.Out o, int[] coordinates) throws IOException {
    o.writeDoublesAt(velocity, coordinates);
    writeScalars(o);
  }

  private void writeScalars(StateFile.Out o) throws IOException {
    o.writeDouble(mass);
    o.writeDouble(velocityMass);
    o.writeLong(restarts);
    o.writeDouble(rho);
    o.writeDouble(initialSquaredNorm);
  }

  /**
   * Reads a section {@link #write} or {@link #writeAt} wrote (the velocity as stored: whole, or
   * a change's values), refused as damaged where the scalars are no momentum's.
   */
  public static MomentumState read(StateReader in) throws IOException, Unreadable {
    MomentumState s = new MomentumState(in.readDoubles(), in.readDouble(), in.readDouble(),
        in.readLong(), in.readDouble(), in.readDouble());
    if (!(s.initialSquaredNorm >= 0) || !(s.mass >= 0) || !(s.velocityMass >= 0)
        || s.restarts < 0 || Double.isNaN(s.rho)) {
      throw in.damaged("its momentum has initial norm " + s.initialSquaredNorm + ", mass "
          + s.mass + ", velocity mass " + s.velocityMass + ", restarts " + s.restarts
          + ", bound " + s.rho);
    }
    return s;
  }
}
