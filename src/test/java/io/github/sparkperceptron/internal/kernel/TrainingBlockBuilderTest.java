package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TrainingBlockBuilderTest {

  @Test
  void sparseRowsBecomeCsrAndDenseRowsBecomeDense() {
    TrainingBlockBuilder sparse = new TrainingBlockBuilder(100);
    for (int r = 0; r < 50; r++) {
      sparse.addSparse(r % 2, 1.0, new int[] {r, r + 1}, new double[] {1.5, -2.0}, 2);
    }
    TrainingBlock s = sparse.build();
    assertInstanceOf(CsrFeatureBlock.class, s.features());
    assertEquals(100, s.features().storedValues());
    assertEquals(12L * 100 + 4L * 51 + 4L * 50, s.sizeInBytes());
    assertNull(s.weightArray());

    TrainingBlockBuilder dense = new TrainingBlockBuilder(3);
    for (int r = 0; r < 50; r++) {
      dense.addDense(r % 2, 1.0, new double[] {1, r + 1, r % 5 == 0 ? 0 : 2});
    }
    TrainingBlock d = dense.build();
    assertInstanceOf(DenseFeatureBlock.class, d.features());
    assertEquals(150, d.features().storedValues());
    assertEquals(8L * 150 + 4L * 50, d.sizeInBytes());
  }

  @Test
  void bothLayoutsComputeTheSameProducts() {
    double[][] rows = {{0, 1.5, 0, -2}, {3, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}};
    TrainingBlockBuilder builder = new TrainingBlockBuilder(4);
    for (double[] row : rows) {
      builder.addDense(0, 1.0, row);
    }
    TrainingBlock csrBlock = builder.build();
    FeatureBlock dense = new DenseFeatureBlock(4, 4, new double[] {0, 1.5, 0, -2, 3, 0, 0, 0, 0,
        0, 0, 0, 1, 1, 1, 1});
    FeatureBlock csr = csrBlock.features();
    assertInstanceOf(CsrFeatureBlock.class, csr);
    double[] w = {0.5, -1, 2, 0.25, 9};
    for (int r = 0; r < 4; r++) {
      assertEquals(dense.dot(r, w, 0), csr.dot(r, w, 0), 0.0);
      assertEquals(dense.dot(r, w, 1), csr.dot(r, w, 1), 0.0);
      assertEquals(dense.squaredNorm(r), csr.squaredNorm(r), 0.0);
      double[] a = new double[5];
      double[] b = new double[5];
      double[] ua = new double[5];
      double[] ub = new double[5];
      dense.addScaledTwice(r, 2.0, a, -3.0, ua, 1);
      csr.addScaledTwice(r, 2.0, b, -3.0, ub, 1);
      org.junit.jupiter.api.Assertions.assertArrayEquals(a, b, 0.0);
      org.junit.jupiter.api.Assertions.assertArrayEquals(ua, ub, 0.0);
    }
  }

  @Test
  void weightsAreKeptOnlyWhenSomeDiffersFromOne() {
    TrainingBlockBuilder builder = new TrainingBlockBuilder(2);
    builder.addDense(0, 1.0, new double[] {1, 2});
    builder.addDense(1, 2.5, new double[] {1, 2});
    TrainingBlock block = builder.build();
    assertEquals(1.0, block.weight(0), 0.0);
    assertEquals(2.5, block.weight(1), 0.0);
    assertEquals(3.5, block.totalWeight(), 0.0);
  }

  @Test
  void aLayoutStoresRowLayoutIAtPositionIWithItsLabelAndWeight() {
    int[] layout = {2, 0, 3, 1};
    double[][] rows = {{0, 1.5, 0, 0, 0, 0}, {3, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 7},
        {0, 0, 0, 0, 0, 0}};
    for (boolean dense : new boolean[] {false, true}) {
      TrainingBlockBuilder builder = new TrainingBlockBuilder(6);
      for (int r = 0; r < rows.length; r++) {
        double[] row = dense ? new double[] {r + 1, 1, 1, 1, 1, 1} : rows[r];
        builder.addDense(r % 3, 1.0 + r, row);
      }
      TrainingBlock block = builder.build(layout);
      assertEquals(dense, block.features() instanceof DenseFeatureBlock);
      for (int i = 0; i < layout.length; i++) {
        int from = layout[i];
        assertEquals(from % 3, block.label(i));
        assertEquals(1.0 + from, block.weight(i), 0.0);
        double[] w = {1, 10, 100, 1000, 10_000, 100_000};
        double expected = 0;
        double[] row = dense ? new double[] {from + 1, 1, 1, 1, 1, 1} : rows[from];
        for (int j = 0; j < 6; j++) {
          expected += row[j] * w[j];
        }
        assertEquals(expected, block.features().dot(i, w, 0), 0.0, "stored row " + i);
      }
      assertEquals(10.0, block.totalWeight(), 0.0);
    }
  }

  @Test
  void aLayoutMustBeAPermutationOfTheRows() {
    for (int[] bad : new int[][] {{0, 1}, {0, 1, 1}, {0, 1, 3}, {-1, 0, 1}}) {
      TrainingBlockBuilder builder = new TrainingBlockBuilder(2);
      for (int r = 0; r < 3; r++) {
        builder.addDense(0, 1.0, new double[] {r, 1});
      }
      org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> builder.build(bad), Arrays.toString(bad));
    }
  }
}
