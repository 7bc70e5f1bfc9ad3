package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SeededShuffleTest {

  @Test
  void isAPermutationAndAPureFunctionOfSeedEpochAndPartition() {
    int[] a = SeededShuffle.forEpoch(42, 3, 7).permutation(1000);
    int[] b = SeededShuffle.forEpoch(42, 3, 7).permutation(1000);
    assertArrayEquals(a, b);
    int[] sorted = a.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < sorted.length; i++) {
      assertEquals(i, sorted[i]);
    }
    assertFalse(Arrays.equals(a, SeededShuffle.forEpoch(42, 4, 7).permutation(1000)));
    assertFalse(Arrays.equals(a, SeededShuffle.forEpoch(42, 3, 8).permutation(1000)));
    assertFalse(Arrays.equals(a, SeededShuffle.forEpoch(43, 3, 7).permutation(1000)));
  }

  /** Pinned values: the order must not change across JDKs or releases (saved seeds stay valid). */
  @Test
  void streamIsStableAcrossReleases() {
    assertArrayEquals(new int[] {3, 0, 1, 2, 4}, SeededShuffle.forEpoch(42, 1, 0).permutation(5));
  }

  @Test
  void everyPositionIsRoughlyUniform() {
    int n = 8;
    int trials = 40_000;
    int[][] counts = new int[n][n];
    for (int t = 0; t < trials; t++) {
      int[] p = SeededShuffle.forEpoch(t, 1, 0).permutation(n);
      for (int i = 0; i < n; i++) {
        counts[i][p[i]]++;
      }
    }
    double expected = trials / (double) n;
    for (int[] row : counts) {
      for (int c : row) {
        // 5000 expected per cell, standard deviation about 66: 6 sigma is 400.
        assertTrue(Math.abs(c - expected) < 400, "cell count " + c);
      }
    }
  }
}
