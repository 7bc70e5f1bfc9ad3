package io.github.sparkperceptron.internal.mixing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The tol rule's relative change of the weights over sparse supports, counted by hand. */
class WeightChangeTest {
  /**
   * Before: 3 at coordinate 1, 4 at 3; after: 0, 2 and 4 at coordinates 1, 2 and 3 (2 is new).
   * ‖after − before‖² = 9 + 4 + 0 = 13, ‖after‖² = 0 + 4 + 16 = 20: √(13/20). The pass that
   * keeps after's values writes 0, 2, 4 and returns the same bits.
   */
  @Test
  void theRelativeChangeOverTheSupportsAndTheValuesItKeeps() {
    int[] beforeIndex = {1, 3};
    double[] beforeValues = {3, 4};
    int[] afterIndex = {1, 2, 3};
    double[] after = {7, 0, 2, 4, 9};
    double expected = Math.sqrt(13.0 / 20.0);
    assertEquals(expected, WeightChange.relative(beforeIndex, beforeValues, afterIndex, after));
    double[] kept = new double[4];
    assertEquals(expected,
        WeightChange.relative(beforeIndex, beforeValues, afterIndex, after, kept));
    assertArrayEquals(new double[] {0, 2, 4, 0}, kept);
    assertArrayEquals(new double[] {0, 2, 4}, WeightChange.valuesAt(after, afterIndex));
    assertEquals(0.0, WeightChange.relative(afterIndex, new double[] {0, 2, 4}, afterIndex,
        after));
    assertEquals(Double.POSITIVE_INFINITY, WeightChange.relative(new int[] {1}, new double[] {1},
        new int[] {1}, new double[] {0, 0}));
  }
}
