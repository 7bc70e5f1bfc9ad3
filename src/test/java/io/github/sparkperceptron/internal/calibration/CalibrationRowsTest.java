package io.github.sparkperceptron.internal.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.CalibrationHash;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The rule that picks calibration rows: the hash of its Javadoc recomputed from the formula
 * ({@link CalibrationHash}, SplitMix64's finalizer written out again), its independence from the
 * row's form, the
 * shares and folds it gives, and the floor under which the default cross-fits instead.
 */
class CalibrationRowsTest {
  private static double unit(long seed, int classIndex, double[] x) {
    return CalibrationHash.unit(seed, classIndex, x);
  }

  private static double[] row(Random r, int d) {
    double[] x = new double[d];
    for (int j = 0; j < d; j++) {
      x[j] = r.nextDouble() < 0.5 ? 0.0 : r.nextGaussian();
    }
    return x;
  }

  @Test
  void aRowIsHeldOutExactlyWhenItsHashFallsBelowTheShare() {
    Random r = new Random(3);
    CalibrationRows held = CalibrationRows.heldOut(0.1, 42);
    int chosen = 0;
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      double[] x = row(r, 6);
      int c = r.nextInt(3);
      boolean expected = unit(42, c, x) < 0.1;
      assertEquals(expected, held.holdsDense(c, x), "row " + i);
      chosen += expected ? 1 : 0;
    }
    // Binomial(20,000, 0.1): mean 2,000, sd 42.4; 5 sd either way fails once in 3.5 million.
    assertTrue(Math.abs(chosen - 2_000) < 5 * 42.4, chosen + " rows of 20,000");
  }

  @Test
  void theSparseFormTheDenseFormAndAnyOrderOfTheValuesHashAlike() {
    double[] dense = {0.0, 1.5, 0.0, -0.0, -2.0, 3.25};
    int[] indices = {5, 1, 4, 3};
    double[] values = {3.25, 1.5, -2.0, 0.0};
    for (long seed = 0; seed < 200; seed++) {
      CalibrationRows fold = CalibrationRows.fold((int) (seed % 4), 4, seed);
      assertEquals(fold.holdsDense(1, dense), fold.holdsSparse(1, indices, values, 4));
      assertEquals(fold.holdsDense(0, dense), fold.holdsSparse(0, indices, values, 3));
      CalibrationRows held = CalibrationRows.heldOut(0.5, seed);
      assertEquals(held.holdsDense(1, dense), held.holdsSparse(1, indices, values, 4));
    }
  }

  @Test
  void theFoldsOfASeedSplitTheRowsOnceEach() {
    Random r = new Random(5);
    int k = 3;
    int[] sizes = new int[k];
    for (int i = 0; i < 3_000; i++) {
      double[] x = row(r, 4);
      int c = r.nextInt(2);
      int in = 0;
      for (int f = 0; f < k; f++) {
        if (CalibrationRows.fold(f, k, 9).holdsDense(c, x)) {
          in++;
          sizes[f]++;
          assertEquals(f, (int) (unit(9, c, x) * k), "the fold is floor(u k)");
        }
      }
      assertEquals(1, in, "row " + i + " lies in exactly one fold");
    }
    // Multinomial(3,000, 1/3 each): sd 25.8 a fold; 5 sd.
    for (int f = 0; f < k; f++) {
      assertTrue(Math.abs(sizes[f] - 1_000) < 5 * 25.8, "fold " + f + ": " + sizes[f]);
    }
  }

  @Test
  void theClassAndTheSeedMoveTheHash() {
    double[] x = {1, 2, 3};
    assertTrue(unit(1, 0, x) != unit(1, 1, x));
    assertTrue(unit(1, 0, x) != unit(2, 0, x));
    assertFalse(CalibrationRows.NONE.isActive());
    assertFalse(CalibrationRows.NONE.holdsDense(0, x));
    assertTrue(CalibrationRows.heldOut(0.1, 1).isHeldOutShare());
    assertFalse(CalibrationRows.fold(0, 2, 1).isHeldOutShare());
    assertThrows(IllegalArgumentException.class, () -> CalibrationRows.heldOut(1.0, 1));
    assertThrows(IllegalArgumentException.class, () -> CalibrationRows.fold(2, 2, 1));
  }

  @Test
  void theDefaultNeedsFiftyHeldOutRowsOfEveryClassAndTwoClasses() {
    assertNull(CalibrationRows.shortfall(new long[] {450, 460}, new long[] {50, 51}));
    assertEquals("the 10% of the rows held out for calibration hold 17 row(s) of class 0 (of"
        + " 170), fewer than the 50 a class it calibrates on",
        CalibrationRows.shortfall(new long[] {153, 260}, new long[] {17, 25}));
    // A class seen only among the held-out rows has no training row: cross-fit instead.
    assertEquals("all 60 row(s) of class 2 fell among the 10% held out for calibration,"
        + " leaving none to train on",
        CalibrationRows.shortfall(new long[] {900, 900}, new long[] {100, 100, 60}));
    assertEquals("the data hold a single class",
        CalibrationRows.shortfall(new long[] {0, 900}, new long[] {0, 100}));
    // A class declared but absent from the data needs no rows.
    assertNull(CalibrationRows.shortfall(new long[] {900, 0, 900}, new long[] {100, 0, 100}));
  }

  /**
   * In a million rows or more a rare class needs only 5 held-out rows: the fallback would train
   * three more models on all of them. Just below a million rows the 50 still hold.
   */
  @Test
  void largeDataCalibrateOnTheHeldOutRowsOfARareClass() {
    assertNull(CalibrationRows.shortfall(new long[] {899_940, 60}, new long[] {99_995, 5}));
    assertEquals("the 10% of the rows held out for calibration hold 4 row(s) of class 1 (of"
        + " 64), fewer than the 5 a class it calibrates on",
        CalibrationRows.shortfall(new long[] {899_940, 60}, new long[] {99_996, 4}));
    assertEquals("the 10% of the rows held out for calibration hold 5 row(s) of class 1 (of"
        + " 65), fewer than the 50 a class it calibrates on",
        CalibrationRows.shortfall(new long[] {899_930, 60}, new long[] {99_994, 5}));
  }
}
