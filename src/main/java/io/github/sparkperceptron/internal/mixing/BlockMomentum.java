package io.github.sparkperceptron.internal.mixing;

import io.github.sparkperceptron.internal.kernel.TouchedSet;
import java.io.Serializable;
import java.util.Arrays;

/**
 * Block momentum over mixing rounds, in its Nesterov form, with a restart that keeps the
 * perceptron's mistake bound: the {@code momentum} mixing mode.
 *
 * <pre>
 * Chen &amp; Huo, "Scalable training of deep learning machines by incremental block training with
 *   intra-block parallel optimization and blockwise model-update filtering", ICASSP 2016 (BMUF).
 * McDonald, Hall &amp; Mann, NAACL-HLT 2010 (iterative parameter mixing and its mistake bound).
 *
 * round t:  v_t = w_t + β·Δ_{t−1}                      look-ahead, broadcast to every worker
 *           g_t = Σ_i μ_i·(w_i − v_t)                 the mistake-weighted mix of the workers'
 *                                                        changes from v_t (μ_i = k_i / Σ_j k_j)
 *           w_{t+1} = v_t + g_t,   Δ_t = β·Δ_{t−1} + g_t
 * β = 1 − 1/W (W workers): block learning rate 1, so Δ builds up to about W·g, the sum of the
 *   workers' changes, over about W rounds, and damps what the workers' changes do not
 *   agree on.
 * </pre>
 *
 * <p><b>Why.</b> Mixing the W workers' changes by their mean moves the weights about as far as
 * one worker's pass over 1/W of the data: with many workers an epoch is worth a fraction of
 * a serial one (BENCHMARKS.md measures 4 to 15 points of accuracy lost at 16 to 64 workers).
 * Adding the changes instead overshoots and diverges wherever the workers correct the same
 * error (the intercept, dense features). Momentum accumulates the consistent part of the mean
 * change over rounds and lets the noise cancel; it needs enough rounds to act, which is why the
 * trainer cuts each epoch into several mixing rounds.
 *
 * <p><b>The bound.</b> For the perceptron rule (τ = η·s per update), let M_t be the update mass
 * Σ τ accumulated by the trajectory (each look-ahead adds β·m_Δ, the decayed mass of Δ; each
 * round adds Σ_i μ_i·m_i). On data separable with margin γ by a unit u, every Δ is a
 * non-negative combination of update vectors y·x̃, so u·w_t ≥ γ·M_t. A round's mix from v keeps
 * ‖w_{t+1}‖² ≤ ‖v_t‖² + ρ·Σ_i μ_i·m_i (each worker's own mistakes add at most τ²‖x̃‖² ≤ ρ·τ
 * with ρ = η·s_max·max‖x̃‖² (twice that for multiclass), and the mean is convex), so the
 * invariant ‖w_t‖² ≤ ‖w_0‖² + ρ·M_t holds as long as every look-ahead satisfies it. The look-ahead
 * is therefore checked, and skipped (Δ reset to 0: a restart, as in O'Donoghue &amp; Candès 2015)
 * when it would break it. With w_0 = 0 this gives γ·M ≤ ‖w‖ ≤ √(ρ·M), hence
 * Σ_t Σ_i μ_i,t·m_i,t ≤ M ≤ ρ/γ²: McDonald et al.'s bound R²/γ² for unit steps and weights.
 * The passive-aggressive rules' steps have no such per-mass bound ({@code rho ≤ 0}: never
 * checked, no bound claimed).
 *
 * <p>The check needs no pass of its own where it is plainly met: bounds on ‖w‖ and ‖Δ‖, measured
 * in each look-ahead's pass and grown by each mix, settle it whenever (‖w‖ + β‖Δ‖)² stays below
 * the bound ({@code certifiedBelow}), and the pass runs only when they cannot.
 *
 * <p>Cost: O(support) per round (the coordinates where w or Δ can be non-zero); Δ itself is one
 * dense K'·(d+1) array, allocated once per training (and reused by a barrier task,
 * {@link #resume}). The averaging
 * accumulator absorbs each jump at the round's clock c (u += c·jump), so the running average
 * w − u/c is unchanged by a jump and keeps averaging the weights the workers actually used.
 */
public final class BlockMomentum implements Serializable {
  private static final long serialVersionUID = 1L;

  private final double beta;
  private final double rho;
  private final double initialSquaredNorm;
  /** Δ, the last step w_{t+1} − w_t; after a look-ahead, its decayed part β·Δ. */
  private final double[] velocity;
  private double mass;
  private double velocityMass;
  private long restarts;
  /** The driver's buffer of moved coordinates, reused round after round (never shipped). */
  private transient int[] movedScratch;
  /**
   * Upper bounds on ‖w‖ and ‖Δ‖ where {@link #normBoundsKnown}: measured by each look-ahead's
   * pass, grown by each round's mix (‖w + g‖ ≤ ‖w‖ + ‖g‖), so that a look-ahead whose bound
   * proves it safe skips the norm's pass over the support ({@link #certifiedBelow}). Unknown
   * (false, also after deserialization) until a pass measured them, and again whenever w or Δ
   * changed behind this object's back (a stage's end state adopted, a checkpoint restored).
   */
  private transient boolean normBoundsKnown;
  private transient double weightNormBound;
  private transient double velocityNormBound;
  private transient long certifiedLookAheads;

  /**
   * @param length the state's length K'·(d+1)
   * @param beta the momentum β in [0, 1)
   * @param rho the norm growth bound per unit of update mass (see the class documentation), or
   *     ≤ 0 to never check the look-ahead
   * @param initialSquaredNorm ‖w_0‖² of the starting weights
   */
  public BlockMomentum(int length, double beta, double rho, double initialSquaredNorm) {
    this(new double[length], beta, rho, initialSquaredNorm);
  }

  private BlockMomentum(double[] velocity, double beta, double rho, double initialSquaredNorm) {
    if (!(beta >= 0 && beta < 1)) {
      throw new IllegalArgumentException("momentum must be in [0, 1), got " + beta);
    }
    this.beta = beta;
    this.rho = rho;
    this.initialSquaredNorm = initialSquaredNorm;
    this.velocity = velocity;
  }

  /**
   * Block momentum resumed where another copy of it stood (a barrier task's, from the driver's
   * state at the epoch's start): {@code velocity} is Δ itself, taken and updated in place, not
   * copied, so that a task over a huge state reuses an array instead of allocating and copying
   * K'·(d+1) values per epoch.
   */
  public static BlockMomentum resume(double[] velocity, double beta, double rho,
      double initialSquaredNorm, double mass, double velocityMass, long restarts) {
    BlockMomentum m = new BlockMomentum(velocity, beta, rho, initialSquaredNorm);
    m.mass = mass;
    m.velocityMass = velocityMass;
    m.restarts = restarts;
    return m;
  }

  /**
   * Relative slack on the norm bounds: covers the rounding of the norms measured in a pass and
   * of the pass the bound stands in for (below 3·10^−7 for up to 2^31 coordinates) with room.
   */
  private static final double BOUND_SLACK = 1e-6;

  /** β = 1 − 1/W for W workers, Chen &amp; Huo's choice (0 for one worker: no momentum). */
  public static double defaultMomentum(int workers) {
    return 1.0 - 1.0 / workers;
  }

  /** The most mixing rounds per epoch that {@link #automaticRounds} chooses. */
  public static final int MAX_AUTOMATIC_ROUNDS = 64;

  /**
   * The fewest training rows a worker's slice of one round holds, on average, under
   * {@link #automaticRounds}: m of R = min(W, 64, ⌊N / (W·m)⌋).
   */
  public static final int MIN_ROWS_PER_ROUND = 2;

  /**
   * Mixing rounds per epoch for block momentum over {@code workers} workers and {@code rows}
   * training rows in all (the automatic choice, {@code mixingRounds = 0}):
   * R = min(W, 64, ⌊N / (W·m)⌋), at least 1, with m = {@value #MIN_ROWS_PER_ROUND}. A pure
   * function of (W, N), so that the same input, workers and seed keep giving the same model.
   *
   * <p>Why these three bounds (BENCHMARKS.md, issue 18, from {@code MixingSimulation}, the
   * trainer's own code without Spark): β = 1 − 1/W rebuilds the step that averaging W workers
   * loses over about W rounds, so fewer than W rounds per epoch leave accuracy behind at many
   * workers (pendigits, 64 workers: 4 rounds lose 1.3 points, 64 rounds gain 0.7); past 64 the
   * rounds cost more (a Spark job each without barrier rounds) than they recover. And a round
   * needs rows: a worker whose slice holds no row makes no update, and a round in which no
   * worker updates resets the velocity, so rounds of less than a row or two per worker throw
   * the momentum away (pendigits' first 1,000 rows on 64 workers, 16 rows each: 64 rounds lose
   * 3.1 points, 16 rounds gain 1.3).
   */
  public static int automaticRounds(int workers, long rows) {
    long byRows = rows / ((long) workers * MIN_ROWS_PER_ROUND);
    return (int) Math.max(1, Math.min(Math.min(workers, MAX_AUTOMATIC_ROUNDS), byRows));
  }

  public double momentum() {
    return beta;
  }

  /** M, the update mass of the trajectory so far (the left side of the bound). */
  public double mass() {
    return mass;
  }

  /** Look-aheads skipped because they would have broken the bound's invariant. */
  public long restarts() {
    return restarts;
  }

  /**
   * Before a round: moves {@code w} to the look-ahead point w + β·Δ in place and lets the
   * averaging accumulator {@code u} (may be null) absorb the jump at {@code clock}; or, when the
   * look-ahead would break the bound's invariant, resets Δ and leaves {@code w} alone. Returns
   * whether it moved {@code w}.
   */
  public boolean lookAhead(double[] w, double[] u, double clock) {
    int[] all = new int[w.length];
    for (int j = 0; j < all.length; j++) {
      all[j] = j;
    }
    return lookAhead(w, u, clock, all, (TouchedSet) null);
  }

  /**
   * As {@link #lookAhead(double[], double[], double)} where w and Δ are zero outside
   * {@code support} (increasing coordinates): O(support), and the sums run in coordinate order
   * over exactly the terms the dense computation would add (a restart zeroes Δ on the support,
   * the only place it can be non-zero). The coordinates it moves are marked in {@code changed}
   * (may be null).
   */
  public boolean lookAhead(double[] w, double[] u, double clock, int[] support,
      TouchedSet changed) {
    int[] moved = null;
    if (changed != null) {
      if (movedScratch == null || movedScratch.length < support.length) {
        movedScratch = new int[support.length];
      }
      moved = movedScratch;
    }
    int n = lookAheadOver(w, u, clock, support, moved);
    for (int k = 0; k < n; k++) {
      changed.mark(moved[k]);
    }
    return n >= 0;
  }

  /**
   * As {@link #lookAhead(double[], double[], double, int[], TouchedSet)}, writing the
   * coordinates it moved (increasing) to the front of {@code moved} (at least as long as
   * {@code support}: a caller's buffer, reused round after round, since on a hashed model the
   * support holds millions of coordinates). Returns how many it moved, or −1 when it did not
   * look ahead.
   */
  public int lookAheadInto(double[] w, double[] u, double clock, int[] support, int[] moved) {
    if (moved.length < support.length) {
      throw new IllegalArgumentException("room for " + moved.length + " moved coordinates of "
          + support.length);
    }
    return lookAheadOver(w, u, clock, support, moved);
  }

  /**
   * The look-ahead over {@code support}; the coordinates it moves go to {@code moved} (may be
   * null). Returns how many it moved, or −1 when it did not look ahead.
   */
  private int lookAheadOver(double[] w, double[] u, double clock, int[] support,
      int[] moved) {
    if (velocityMass == 0.0) {
      return -1;
    }
    if (rho > 0) {
      double threshold = initialSquaredNorm + rho * (mass + beta * velocityMass);
      if (!certifiedBelow(threshold)) {
        double norm = 0.0;
        double weightSquares = 0.0;
        for (int j : support) {
          double v = w[j] + beta * velocity[j];
          norm += v * v;
          weightSquares += w[j] * w[j];
        }
        if (norm > threshold) {
          resetVelocity(support);
          restarts++;
          weightNormBound = Math.sqrt(weightSquares) * (1 + BOUND_SLACK);
          velocityNormBound = 0.0;
          normBoundsKnown = true;
          return -1;
        }
      } else {
        certifiedLookAheads++;
      }
    }
    int n = 0;
    double weightSquares = 0.0;
    double velocitySquares = 0.0;
    for (int j : support) {
      double jump = beta * velocity[j];
      velocity[j] = jump;
      if (jump != 0.0) {
        w[j] += jump;
        if (u != null) {
          u[j] += clock * jump;
        }
        if (moved != null) {
          moved[n++] = j;
        }
        velocitySquares += jump * jump;
      }
      weightSquares += w[j] * w[j];
    }
    mass += beta * velocityMass;
    velocityMass *= beta;
    weightNormBound = Math.sqrt(weightSquares) * (1 + BOUND_SLACK);
    velocityNormBound = Math.sqrt(velocitySquares) * (1 + BOUND_SLACK);
    normBoundsKnown = true;
    return n;
  }

  /**
   * Whether the bounds on ‖w‖ and ‖Δ‖ prove, without a pass over the support, that the
   * look-ahead's norm as the pass would compute it, Σ fl((w_j + β·Δ_j)²) summed in coordinate
   * order, is at most {@code threshold}: then the pass could not restart, and skipping it
   * changes nothing. ‖w + βΔ‖ ≤ ‖w‖ + β‖Δ‖ (the triangle inequality), and the pass's rounding
   * (each term within 2u of its exact value, a sum of n ≤ 2^31 non-negative terms within n·u,
   * u = 2^−53, so below 3·10^−7 in all) is inside {@link #BOUND_SLACK}.
   */
  private boolean certifiedBelow(double threshold) {
    if (!normBoundsKnown) {
      return false;
    }
    double reach = weightNormBound + beta * velocityNormBound;
    return reach * reach * (1 + BOUND_SLACK) <= threshold;
  }

  /** Δ ← 0 at {@code support} (null: everywhere), where Δ can be non-zero; its mass too. */
  private void resetVelocity(int[] support) {
    if (support == null) {
      Arrays.fill(velocity, 0.0);
    } else {
      for (int j : support) {
        velocity[j] = 0.0;
      }
    }
    velocityMass = 0.0;
  }

  /**
   * After a round: Δ ← (β·Δ, when the round looked ahead) + g, with g the mixed change just
   * applied, and the round's mixed update mass Σ_i μ_i·m_i added to both masses. A round without
   * a single update resets Δ: there is nothing left to extrapolate, and it makes an epoch without
   * updates leave the weights where every one of its rounds found no mistake (so "converged"
   * means the returned weights make none on the training rows).
   */
  public void afterRound(StateDelta mixed, double roundMass) {
    afterRound(mixed, roundMass, null);
  }

  /**
   * As {@link #afterRound(StateDelta, double)} where Δ is zero outside {@code support}
   * (increasing coordinates; null: anywhere), so that a reset costs O(support), not O(K·d).
   */
  public void afterRound(StateDelta mixed, double roundMass, int[] support) {
    boolean keeps = roundMass != 0.0;
    if (!keeps) {
      resetVelocity(support);
    }
    // One pass over the mix: Δ += g (unless reset) and ‖g‖ for the norm bounds.
    int n = mixed.storedEntries();
    double changeSquares = 0.0;
    for (int k = 0; k < n; k++) {
      double g = mixed.weightChange(k);
      changeSquares += g * g;
      if (keeps && g != 0.0) {
        velocity[mixed.coordinate(k)] += g;
      }
    }
    // w moved by the mix g; Δ by g as well, or to 0.
    double changeNorm = Math.sqrt(changeSquares) * (1 + BOUND_SLACK);
    weightNormBound = (weightNormBound + changeNorm) * (1 + BOUND_SLACK);
    if (!keeps) {
      velocityNormBound = 0.0;
      return;
    }
    velocityNormBound = (velocityNormBound + changeNorm) * (1 + BOUND_SLACK);
    mass += roundMass;
    velocityMass += roundMass;
  }

  /**
   * Look-aheads whose norm check the bounds on ‖w‖ and ‖Δ‖ settled without a pass over the
   * support (this object's, not saved; for tests and benchmarks).
   */
  public long certifiedLookAheads() {
    return certifiedLookAheads;
  }

  /** Δ (for checkpoints; mutable, owned by this object). */
  public double[] velocity() {
    return velocity;
  }

  /** ρ, the norm growth bound per unit of update mass (≤ 0: never checked; for checkpoints). */
  public double normBound() {
    return rho;
  }

  /** ‖w_0‖² of the starting weights (for checkpoints). */
  public double initialSquaredNorm() {
    return initialSquaredNorm;
  }

  /** The decayed mass of Δ (for checkpoints). */
  public double velocityMass() {
    return velocityMass;
  }

  /**
   * A copy of this momentum (Δ copied, the masses and restarts) with β {@code beta} and bound
   * {@code newRho}: a stream's momentum carried into a batch with the batch's own β.
   */
  public BlockMomentum copy(double beta, double newRho) {
    BlockMomentum m = new BlockMomentum(velocity.length, beta, newRho, initialSquaredNorm);
    m.restore(velocity, mass, velocityMass, restarts);
    return m;
  }

  /**
   * Takes the state another copy of this momentum reached (a barrier stage's workers, which ran
   * the same steps): Δ at {@code coordinates} (increasing; Δ is unchanged elsewhere) from
   * {@code values}, the masses and the restarts. O(coordinates).
   */
  public void adoptAt(int[] coordinates, double[] values, double newMass,
      double newVelocityMass, long newRestarts) {
    for (int k = 0; k < coordinates.length; k++) {
      velocity[coordinates[k]] = values[k];
    }
    normBoundsKnown = false;
    mass = newMass;
    velocityMass = newVelocityMass;
    restarts = newRestarts;
  }

  /** Restores the state a checkpoint recorded. */
  public void restore(double[] savedVelocity, double savedMass, double savedVelocityMass,
      long savedRestarts) {
    if (savedVelocity.length != velocity.length) {
      throw new IllegalArgumentException("momentum of length " + savedVelocity.length
          + " for a state of " + velocity.length);
    }
    System.arraycopy(savedVelocity, 0, velocity, 0, velocity.length);
    normBoundsKnown = false;
    mass = savedMass;
    velocityMass = savedVelocityMass;
    restarts = savedRestarts;
  }
}
