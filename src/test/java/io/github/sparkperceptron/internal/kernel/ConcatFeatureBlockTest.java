package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The view of several blocks as one against the same rows built as one block: every row reads
 * and updates the same stored values, whichever part holds it, with empty parts anywhere and
 * both ways of finding a row's part (counted for a few parts, searched by halves for many).
 */
class ConcatFeatureBlockTest {
  private static final int D = 50;

  @Test
  void everyRowOfTheViewIsTheRowOfOneBlockWithTheSameRows() {
    // 3 parts (counted), 8 (counted, the limit), 13 (searched); empty parts first, inside, last.
    int[][] layouts = {{4, 0, 7}, {1, 2, 0, 3, 5, 0, 8, 1}, {0, 3, 1, 0, 0, 6, 2, 9, 1, 4, 0, 2, 0}};
    Random rnd = new Random(7);
    for (int[] sizes : layouts) {
      TrainingBlockBuilder whole = new TrainingBlockBuilder(D);
      TrainingBlock[] parts = new TrainingBlock[sizes.length];
      for (int p = 0; p < sizes.length; p++) {
        TrainingBlockBuilder part = new TrainingBlockBuilder(D);
        for (int r = 0; r < sizes[p]; r++) {
          int[] idx = rnd.ints(6, 0, D).distinct().sorted().toArray();
          double[] val = rnd.doubles(idx.length, -1, 1).toArray();
          int label = rnd.nextInt(2);
          part.addSparse(label, 1.0, idx, val, idx.length);
          whole.addSparse(label, 1.0, idx, val, idx.length);
        }
        parts[p] = part.build();
      }
      TrainingBlock view = TrainingBlock.concat(parts);
      TrainingBlock oracle = whole.build();
      String what = Arrays.toString(sizes);
      assertEquals(oracle.numRows(), view.numRows(), what);
      double[] w = rnd.doubles(D + 1, -1, 1).toArray();
      double[] wView = w.clone();
      double[] uView = new double[D + 1];
      double[] wOracle = w.clone();
      double[] uOracle = new double[D + 1];
      int[] indices = new int[D];
      double[] values = new double[D];
      int[] oracleIndices = new int[D];
      double[] oracleValues = new double[D];
      for (int r = 0; r < oracle.numRows(); r++) {
        assertEquals(oracle.label(r), view.label(r), what + " row " + r);
        FeatureBlock x = view.features();
        FeatureBlock y = oracle.features();
        assertEquals(y.dot(r, w, 0), x.dot(r, w, 0), 0.0, what + " row " + r);
        assertEquals(y.squaredNorm(r), x.squaredNorm(r), 0.0, what + " row " + r);
        int n = x.copyRow(r, indices, values);
        assertEquals(y.copyRow(r, oracleIndices, oracleValues), n, what + " row " + r);
        assertArrayEquals(Arrays.copyOf(oracleIndices, n), Arrays.copyOf(indices, n));
        assertArrayEquals(Arrays.copyOf(oracleValues, n), Arrays.copyOf(values, n), 0.0);
        x.addScaledTwice(r, 0.5, wView, 0.25, uView, 0);
        y.addScaledTwice(r, 0.5, wOracle, 0.25, uOracle, 0);
      }
      assertArrayEquals(wOracle, wView, 0.0, what);
      assertArrayEquals(uOracle, uView, 0.0, what);
    }
  }
}
