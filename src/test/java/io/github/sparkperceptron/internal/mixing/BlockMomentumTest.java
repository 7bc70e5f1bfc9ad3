package io.github.sparkperceptron.internal.mixing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockMomentumTest {

  private static StateDelta change(double... dw) {
    return StateDelta.dense(dw.clone(), null);
  }

  /**
   * The automatic rounds, R = min(W, 64, ⌊N / (2·W)⌋), at least 1, worked by hand: W rounds while
   * every worker's slice of a round keeps two rows, never more than 64, never fewer than one.
   */
  @Test
  void automaticRoundsFollowTheWorkersTheCapAndTheRows() {
    assertEquals(1, BlockMomentum.automaticRounds(1, 7494));
    assertEquals(2, BlockMomentum.automaticRounds(2, 455));
    assertEquals(8, BlockMomentum.automaticRounds(8, 7494));
    // 7,494 / 128 = 58.5: 58 rounds of at least two rows per worker, not 64
    assertEquals(58, BlockMomentum.automaticRounds(64, 7494));
    assertEquals(64, BlockMomentum.automaticRounds(64, 8192));
    assertEquals(63, BlockMomentum.automaticRounds(64, 8191));
    assertEquals(64, BlockMomentum.automaticRounds(256, 1_000_000));
    // 455 rows on 64 workers: 7 rows each, 3 rounds
    assertEquals(3, BlockMomentum.automaticRounds(64, 455));
    assertEquals(1, BlockMomentum.automaticRounds(64, 100));
    assertEquals(1, BlockMomentum.automaticRounds(16, 0));
    assertEquals(64, BlockMomentum.automaticRounds(Integer.MAX_VALUE, Long.MAX_VALUE));
  }

  /** Two rounds worked by hand with β = 1/2 (two partitions) and no bound check. */
  @Test
  void nesterovStepsMatchAHandComputation() {
    BlockMomentum m = new BlockMomentum(2, 0.5, 0.0, 0.0);
    double[] w = {0, 0};
    double[] u = {0, 0};
    assertFalse(m.lookAhead(w, u, 0.0), "nothing to look ahead from in the first round");
    // round 1: g = (2, -1): w = (2, -1), Δ = (2, -1)
    StateDelta g1 = change(2, -1);
    g1.applyTo(w, u);
    m.afterRound(g1, 3.0);
    // round 2 at clock 10: v = w + 0.5 Δ = (3, -1.5); u absorbs 10 · (1, -0.5)
    assertTrue(m.lookAhead(w, u, 10.0));
    assertArrayEquals(new double[] {3, -1.5}, w, 0.0);
    assertArrayEquals(new double[] {10, -5}, u, 0.0);
    // g = (1, 1): w = (4, -0.5), Δ = 0.5·(2, -1) + (1, 1) = (2, 0.5)
    StateDelta g2 = change(1, 1);
    g2.applyTo(w, null);
    m.afterRound(g2, 2.0);
    assertArrayEquals(new double[] {2, 0.5}, m.velocity(), 0.0);
    // masses: M = 3 + 0.5·3 + 2, m_Δ = 0.5·3 + 2
    assertEquals(6.5, m.mass(), 0.0);
    assertEquals(3.5, m.velocityMass(), 0.0);
  }

  /**
   * The look-ahead is taken only while ‖v‖² ≤ ‖w₀‖² + ρ·(M + β·m_Δ), the invariant of the
   * mistake bound; otherwise momentum restarts from zero and the weights stay put.
   */
  @Test
  void aLookAheadThatWouldBreakTheBoundRestarts() {
    BlockMomentum m = new BlockMomentum(1, 0.5, 1.0, 0.0);
    double[] w = {0};
    StateDelta g = change(1);
    g.applyTo(w, null);
    m.afterRound(g, 1.0);
    // v = 1.5, ‖v‖² = 2.25 > ρ·(1 + 0.5) = 1.5: restart
    assertFalse(m.lookAhead(w, null, 1.0));
    assertArrayEquals(new double[] {1}, w, 0.0);
    assertEquals(1, m.restarts());
    assertArrayEquals(new double[] {0}, m.velocity(), 0.0);
    // with a looser ρ the same look-ahead is taken
    BlockMomentum loose = new BlockMomentum(1, 0.5, 2.0, 0.0);
    double[] w2 = {0};
    g.applyTo(w2, null);
    loose.afterRound(g, 1.0);
    assertTrue(loose.lookAhead(w2, null, 1.0));
    assertArrayEquals(new double[] {1.5}, w2, 0.0);
  }

  @Test
  void aRoundWithoutUpdatesResetsTheMomentum() {
    BlockMomentum m = new BlockMomentum(1, 0.5, 0.0, 0.0);
    double[] w = {0};
    m.afterRound(change(1), 1.0);
    assertTrue(m.lookAhead(w, null, 0.0));
    m.afterRound(change(0), 0.0);
    assertArrayEquals(new double[] {0}, m.velocity(), 0.0);
    assertFalse(m.lookAhead(w, null, 0.0), "no jump after a round without updates");
  }

  @Test
  void defaultMomentumIsOneMinusOneOverWorkers() {
    assertEquals(0.0, BlockMomentum.defaultMomentum(1), 0.0);
    assertEquals(0.5, BlockMomentum.defaultMomentum(2), 0.0);
    assertEquals(0.9375, BlockMomentum.defaultMomentum(16), 0.0);
  }

  /**
   * Over the support (where w and Δ can be non-zero) the look-ahead, its restarts and a round
   * without updates do what the dense computation does, bit for bit, on every coordinate; a
   * resumed copy over another Δ array ({@link BlockMomentum#resume}) continues the same
   * trajectory; {@link BlockMomentum#lookAheadInto} names exactly the coordinates that moved, at the
   * front of a reused buffer longer than the support.
   */
  @Test
  void theSupportsStepsEqualTheDenseOnesAndAResumedCopyContinuesThem() {
    int n = 50;
    Random rnd = new Random(8);
    for (double rho : new double[] {0.0, 0.02, 5.0}) {
      BlockMomentum dense = new BlockMomentum(n, 0.75, rho, 0.1);
      BlockMomentum sparse = null;
      double[] wd = new double[n];
      double[] ud = new double[n];
      double[] ws = new double[n];
      double[] us = new double[n];
      int[] support = new int[0];
      for (int round = 0; round < 40; round++) {
        if (round == 20) {
          // A task resuming from the driver's state: its own Δ array.
          sparse = BlockMomentum.resume(sparse.velocity().clone(), sparse.momentum(),
              sparse.normBound(), sparse.initialSquaredNorm(), sparse.mass(),
              sparse.velocityMass(), sparse.restarts());
        }
        if (sparse == null) {
          sparse = new BlockMomentum(n, 0.75, rho, 0.1);
        }
        double[] before = ws.clone();
        boolean movedDense = dense.lookAhead(wd, ud, round, allOf(n), null);
        // Stale values behind the front, as a buffer reused round after round holds.
        int[] buffer = new int[support.length + 3];
        Arrays.fill(buffer, n - 1);
        int count = sparse.lookAheadInto(ws, us, round, support, buffer);
        int[] moved = count < 0 ? null : Arrays.copyOf(buffer, count);
        assertEquals(movedDense, moved != null, "round " + round);
        assertBits(wd, ws, "look-ahead " + round);
        assertBits(ud, us, "accumulator " + round);
        for (int j = 0; j < n; j++) {
          boolean listed = moved != null && Arrays.binarySearch(moved, j) >= 0;
          if (listed) {
            assertTrue(Arrays.binarySearch(support, j) >= 0, "moved off the support");
          } else {
            assertEquals(Double.doubleToRawLongBits(before[j]),
                Double.doubleToRawLongBits(ws[j]), "round " + round + ": unlisted " + j);
          }
        }
        if (moved != null) {
          assertTrue(moved.length > 0 || round == 0, "round " + round + " moved nothing");
        }
        // A sparse mix of a few coordinates; every seventh round no update at all.
        int[] idx = rnd.ints(0, n).distinct().limit(4).sorted().toArray();
        double[] dw = new double[idx.length];
        for (int k = 0; k < idx.length; k++) {
          dw[k] = rnd.nextGaussian();
        }
        StateDelta mix = StateDelta.sparse(n, idx, dw, null);
        mix.applyTo(wd, null);
        mix.applyTo(ws, null);
        double mass = round % 7 == 6 ? 0.0 : 1.0 + rnd.nextDouble();
        support = SortedCoordinates.union(support, idx);
        dense.afterRound(mix, mass);
        sparse.afterRound(mix, mass, support);
        assertBits(dense.velocity(), sparse.velocity(), "velocity " + round);
        assertEquals(dense.mass(), sparse.mass(), 0.0);
        assertEquals(dense.velocityMass(), sparse.velocityMass(), 0.0);
        assertEquals(dense.restarts(), sparse.restarts());
      }
      if (rho == 0.02) {
        assertTrue(dense.restarts() > 0, "the tight bound restarts");
      }
    }
  }

  /**
   * A look-ahead whose norm check the bounds on ‖w‖ and ‖Δ‖ settle skips the pass and changes
   * nothing: against the check computed in every round ({@link AlwaysChecked}, the look-ahead
   * as it was before the bounds), w, u, Δ, the masses and the restarts stay the same bits over
   * random trajectories (sparse and dense mixes, rounds without updates, a resumed copy), for
   * bounds from tight (restarts) to loose; over the sweep, both skipped checks and checks that
   * ran and passed or restarted occur, so each path is taken.
   */
  @Test
  void aCheckTheNormBoundsSettleSkipsThePassAndChangesNothing() {
    int n = 40;
    long certified = 0;
    long checked = 0;
    long restarts = 0;
    for (double rho : new double[] {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 30.0}) {
      for (int seed = 0; seed < 6; seed++) {
        Random rnd = new Random(31 * seed + 7);
        double[] w0 = new double[n];
        for (int j = 0; j < n; j += 5) {
          w0[j] = rnd.nextGaussian();
        }
        double initial = Arrays.stream(w0).map(x -> x * x).sum();
        double[] wa = w0.clone();
        double[] ua = new double[n];
        double[] wb = w0.clone();
        double[] ub = new double[n];
        AlwaysChecked reference = new AlwaysChecked(n, 0.75, rho, initial);
        BlockMomentum m = new BlockMomentum(n, 0.75, rho, initial);
        int[] support = allOf(n);
        for (int round = 0; round < 60; round++) {
          if (round == 30) {
            certified += m.certifiedLookAheads();
            m = BlockMomentum.resume(m.velocity().clone(), m.momentum(), m.normBound(),
                m.initialSquaredNorm(), m.mass(), m.velocityMass(), m.restarts());
          }
          boolean looked = reference.lookAhead(wa, ua, round, support);
          assertEquals(looked, m.lookAhead(wb, ub, round, support, null), "round " + round);
          assertBits(wa, wb, "w, round " + round);
          assertBits(ua, ub, "u, round " + round);
          assertBits(reference.velocity, m.velocity(), "Δ, round " + round);
          // Mixes of a few coordinates or of all of them, scaled so that the bound is met
          // by some rounds and broken by others; every ninth round without updates.
          double scale = Math.exp(rnd.nextGaussian());
          StateDelta mix;
          if (rnd.nextBoolean()) {
            int[] idx = rnd.ints(0, n).distinct().limit(1 + rnd.nextInt(6)).sorted().toArray();
            mix = StateDelta.sparse(n, idx, rnd.doubles(idx.length).map(x -> scale * (x - 0.4))
                .toArray(), null);
          } else {
            mix = change(rnd.doubles(n).map(x -> scale * (x - 0.5) / 4).toArray());
          }
          double mass = round % 9 == 8 ? 0.0 : scale * (0.5 + rnd.nextDouble());
          mix.applyTo(wa, ua);
          mix.applyTo(wb, ub);
          reference.afterRound(mix, mass);
          m.afterRound(mix, mass, support);
          assertBits(reference.velocity, m.velocity(), "Δ after the mix, round " + round);
          assertEquals(reference.mass, m.mass(), 0.0);
          assertEquals(reference.velocityMass, m.velocityMass(), 0.0);
          assertEquals(reference.restarts, m.restarts(), "restarts, round " + round);
        }
        certified += m.certifiedLookAheads();
        checked += reference.checks;
        restarts += reference.restarts;
      }
    }
    assertTrue(certified > 0, "no check was settled by the bounds");
    assertTrue(restarts > 0, "no look-ahead restarted");
    assertTrue(checked - certified - restarts > 0, "no check ran its pass and passed: "
        + checked + " checks, " + certified + " settled, " + restarts + " restarts");
  }

  /**
   * Block momentum's look-ahead with the norm's pass in every round: the algorithm as the
   * class documentation states it, the reference for the bounds that skip the pass.
   */
  private static final class AlwaysChecked {
    final double beta;
    final double rho;
    final double initial;
    final double[] velocity;
    double mass;
    double velocityMass;
    long restarts;
    long checks;

    AlwaysChecked(int n, double beta, double rho, double initial) {
      this.beta = beta;
      this.rho = rho;
      this.initial = initial;
      this.velocity = new double[n];
    }

    boolean lookAhead(double[] w, double[] u, double clock, int[] support) {
      if (velocityMass == 0.0) {
        return false;
      }
      checks++;
      double norm = 0.0;
      for (int j : support) {
        double v = w[j] + beta * velocity[j];
        norm += v * v;
      }
      if (norm > initial + rho * (mass + beta * velocityMass)) {
        Arrays.fill(velocity, 0.0);
        velocityMass = 0.0;
        restarts++;
        return false;
      }
      for (int j : support) {
        double jump = beta * velocity[j];
        velocity[j] = jump;
        if (jump != 0.0) {
          w[j] += jump;
          u[j] += clock * jump;
        }
      }
      mass += beta * velocityMass;
      velocityMass *= beta;
      return true;
    }

    void afterRound(StateDelta mixed, double roundMass) {
      if (roundMass == 0.0) {
        Arrays.fill(velocity, 0.0);
        velocityMass = 0.0;
        return;
      }
      for (int k = 0; k < mixed.storedEntries(); k++) {
        double g = mixed.weightChange(k);
        if (g != 0.0) {
          velocity[mixed.coordinate(k)] += g;
        }
      }
      mass += roundMass;
      velocityMass += roundMass;
    }
  }

  private static int[] allOf(int n) {
    int[] all = new int[n];
    for (int j = 0; j < n; j++) {
      all[j] = j;
    }
    return all;
  }

  private static void assertBits(double[] expected, double[] actual, String what) {
    for (int j = 0; j < expected.length; j++) {
      assertEquals(Double.doubleToRawLongBits(expected[j]), Double.doubleToRawLongBits(actual[j]),
          what + ", coordinate " + j);
    }
  }
}
