package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The report's largest weights against a full sort by magnitude, ties in feature order. */
class CoefficientsTest {

  private static int[] bySorting(double[] w, int n) {
    Integer[] order = new Integer[w.length];
    for (int j = 0; j < w.length; j++) {
      order[j] = j;
    }
    Arrays.sort(order, Comparator.comparingDouble((Integer j) -> -Math.abs(w[j]))
        .thenComparingInt(j -> j));
    int[] top = new int[Math.min(n, w.length)];
    for (int i = 0; i < top.length; i++) {
      top[i] = order[i];
    }
    return top;
  }

  @Test
  void theLargestAreThoseAFullSortPutsFirst() {
    Random rnd = new Random(3);
    for (int trial = 0; trial < 200; trial++) {
      int d = 1 + rnd.nextInt(60);
      double[] w = new double[d];
      for (int j = 0; j < d; j++) {
        // Few distinct magnitudes of both signs: many ties.
        w[j] = (rnd.nextInt(7) - 3) * 0.5;
      }
      for (int n : new int[] {0, 1, 3, 10, d}) {
        int shown = Math.min(n, d);
        assertArrayEquals(bySorting(w, shown), Coefficients.largest(w, shown),
            Arrays.toString(w) + " n=" + shown);
      }
    }
  }
}
