package io.github.sparkperceptron.internal.mixing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class StateDeltaTest {

  /** A random sparse change over {@code n} coordinates touching about {@code share} of them. */
  private static StateDelta randomSparse(Random rnd, int n, double share) {
    TreeSet<Integer> coords = new TreeSet<>();
    for (int j = 0; j < n; j++) {
      if (rnd.nextDouble() < share) {
        coords.add(j);
      }
    }
    int[] idx = coords.stream().mapToInt(Integer::intValue).toArray();
    double[] dw = new double[idx.length];
    double[] du = new double[idx.length];
    for (int k = 0; k < idx.length; k++) {
      // Some exact zeros: a coordinate touched but moved back must mix like an untouched one.
      dw[k] = rnd.nextInt(7) == 0 ? 0.0 : rnd.nextGaussian() * Math.pow(10, rnd.nextInt(6) - 3);
      du[k] = rnd.nextGaussian() * 100;
    }
    return StateDelta.sparse(n, idx, dw, du);
  }

  private static double[][] applied(StateDelta d, long seed) {
    Random rnd = new Random(seed);
    double[] w = new double[d.length()];
    double[] u = new double[d.length()];
    for (int j = 0; j < w.length; j++) {
      w[j] = rnd.nextGaussian();
      u[j] = rnd.nextGaussian();
    }
    d.applyTo(w, u);
    return new double[][] {w, u};
  }

  /**
   * The exchange may carry a partition's change sparsely or densely, and a merge may meet either
   * on each side: every combination must mix and apply to the same bits.
   */
  @Test
  void sparseAndDenseBlendToBitIdenticalStates() {
    Random rnd = new Random(11);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + rnd.nextInt(300);
      StateDelta a = randomSparse(rnd, n, rnd.nextDouble() * 0.8);
      StateDelta b = randomSparse(rnd, n, rnd.nextDouble() * 0.8);
      double r = rnd.nextDouble();
      double[][] reference = applied(a.toDense().blend(b.toDense(), r), trial);
      for (StateDelta left : new StateDelta[] {a, a.toDense()}) {
        for (StateDelta right : new StateDelta[] {b, b.toDense()}) {
          double[][] got = applied(left.blend(right, r), trial);
          assertArrayEquals(reference[0], got[0], 0.0);
          assertArrayEquals(reference[1], got[1], 0.0);
        }
      }
    }
  }

  @Test
  void blendIsTheWeightedMeanCoordinateByCoordinate() {
    StateDelta a = StateDelta.sparse(10, new int[] {0, 2, 5}, new double[] {1, 2, 3},
        new double[] {10, 20, 30});
    StateDelta b = StateDelta.sparse(10, new int[] {2, 3}, new double[] {6, 8},
        new double[] {60, 80});
    StateDelta m = a.blend(b, 0.25);
    assertFalse(m.isDense());
    double[] w = new double[10];
    double[] u = new double[10];
    m.applyTo(w, u);
    // a + 0.25 (b - a) with absent = 0: 0.75 a + 0.25 b
    assertArrayEquals(new double[] {0.75, 0, 3.0, 2.0, 0, 2.25, 0, 0, 0, 0}, w, 0.0);
    assertArrayEquals(new double[] {7.5, 0, 30.0, 20.0, 0, 22.5, 0, 0, 0, 0}, u, 0.0);
    assertEquals(4, m.storedEntries());
  }

  @Test
  void aBlendCoveringMostCoordinatesIsStoredDensely() {
    StateDelta a = StateDelta.sparse(4, new int[] {0, 1}, new double[] {1, 1}, null);
    StateDelta b = StateDelta.sparse(4, new int[] {2}, new double[] {1}, null);
    assertTrue(a.blend(b, 0.5).isDense(), "3 of 4 coordinates");
    StateDelta c = StateDelta.sparse(8, new int[] {0}, new double[] {1}, null);
    StateDelta e = StateDelta.sparse(8, new int[] {7}, new double[] {1}, null);
    assertFalse(c.blend(e, 0.5).isDense(), "2 of 8 coordinates");
  }

  @Test
  void betweenReturnsTheChangeAtTouchedCoordinatesAndTheWeightsWhenAsked() {
    double[] base = {1, 2, 3, 4, 5, 6, 7, 8};
    double[] w = base.clone();
    w[1] = 2.5;
    w[6] = -1;
    double[] u = new double[8];
    u[1] = 0.25;
    u[6] = 3;
    StateDelta d = StateDelta.between(new int[] {1, 6}, w, base, u, true);
    assertFalse(d.isDense());
    assertEquals(2, d.storedEntries());
    assertEquals(1, d.coordinate(0));
    assertEquals(0.5, d.weightChange(0), 0.0);
    assertEquals(-8, d.weightChange(1), 0.0);
    assertEquals(3, d.averageChange(1), 0.0);
    // With exact weights the result is w itself, bit for bit, even where w − base + base ≠ w.
    double[] a = {0.1, 0.2};
    double[] b = {0.1 + 0.2, 0.3};
    StateDelta tricky = StateDelta.between(new int[] {0, 1}, b, a, null, true);
    double[] target = a.clone();
    tricky.applyTo(target, null);
    assertArrayEquals(b, target, 0.0);
    assertTrue(StateDelta.between(new int[] {0, 1, 2, 3, 4}, w, base, u, false).isDense());
  }

  @Test
  void malformedDeltasAreRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> StateDelta.sparse(4, new int[] {2, 1}, new double[2], null));
    assertThrows(IllegalArgumentException.class,
        () -> StateDelta.sparse(4, new int[] {4}, new double[1], null));
    assertThrows(IllegalArgumentException.class,
        () -> StateDelta.sparse(4, new int[] {1}, new double[2], null));
    StateDelta d = StateDelta.dense(new double[3], null);
    assertThrows(IllegalArgumentException.class, () -> d.applyTo(new double[4], null));
  }
}
