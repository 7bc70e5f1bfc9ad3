package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/**
 * An epoch over a worker's chunks, checked against its definition (EpochPlan's documentation),
 * written out again here: the windows, their chunks and the order of their rows.
 */
class EpochPlanTest {
  private static final long SEED = 17;

  private static FeatureBlock rows(int n) {
    TrainingBlockBuilder b = new TrainingBlockBuilder(3);
    for (int i = 0; i < n; i++) {
      b.addSparse(i % 2, 1.0, new int[] {i % 3}, new double[] {1.0 + i}, 1);
    }
    return b.build().features();
  }

  @Test
  void chunksWithinOneWindowAreVisitedAsOneUnchunkedWorkersRows() {
    int[] chunkRows = {40, 25, 35};
    long[] bytes = {1000, 800, 900};
    for (ShuffleScope scope : ShuffleScope.values()) {
      VisitOrder visits = VisitOrder.of(true, scope, SEED).withWindowBytes(2700);
      EpochPlan plan = EpochPlan.of(visits, 3, 5, chunkRows, bytes);
      assertEquals(1, plan.windows());
      assertArrayEquals(new int[] {0, 1, 2}, plan.chunks(0));
      assertEquals(100, plan.rows());
      FeatureBlock all = rows(100);
      // Scope auto: three stored chunks are visited as scope chunks visits them.
      VisitOrder resolved = scope == ShuffleScope.AUTO
          ? VisitOrder.of(true, ShuffleScope.CHUNKS, SEED) : visits;
      assertArrayEquals(resolved.epochOrder(3, 5, all).rows(), plan.order(0, all).rows(),
          scope.paramValue());
    }
  }

  @Test
  void scopeAutoVisitsOneStoredChunkAsRowsAndSeveralAsChunks() {
    VisitOrder auto = VisitOrder.of(true, ShuffleScope.AUTO, SEED);
    FeatureBlock all = rows(100);
    EpochPlan one = EpochPlan.of(auto, 2, 1, new int[] {100}, new long[] {2700});
    assertEquals(ShuffleScope.ROWS, one.visits().scope());
    assertArrayEquals(SeededShuffle.forEpoch(SEED, 2, 1).permutation(100),
        one.order(0, all).rows());
    EpochPlan two = EpochPlan.of(auto, 2, 1, new int[] {60, 40}, new long[] {1600, 1100});
    assertEquals(ShuffleScope.CHUNKS, two.visits().scope());
    assertArrayEquals(VisitOrder.chunked(SEED, 2, 1, 100, VisitOrder.chunkRows(all)).rows(),
        two.order(0, all).rows());
  }

  @Test
  void windowsCutTheChunksShuffledOrderIntoGroupsOfAtMostTheWindowBytes() {
    int chunks = 23;
    int[] chunkRows = new int[chunks];
    long[] bytes = new long[chunks];
    for (int c = 0; c < chunks; c++) {
      chunkRows[c] = 10 + c;
      bytes[c] = 300 + 37L * c;
    }
    long window = 1500;
    VisitOrder visits = VisitOrder.of(true, ShuffleScope.ROWS, SEED).withWindowBytes(window);
    for (int epoch = 1; epoch <= 4; epoch++) {
      EpochPlan plan = EpochPlan.of(visits, epoch, 2, chunkRows, bytes);
      // The definition: the chunks in the order of part stream 0, cut greedily.
      int[] order = SeededShuffle.forPart(SEED, epoch, 2, 0).permutation(chunks);
      BitSet seen = new BitSet();
      int at = 0;
      long visitsSoFar = 0;
      for (int k = 0; k < plan.windows(); k++) {
        long sum = 0;
        int from = at;
        while (at < chunks && (at == from || sum + bytes[order[at]] <= window)) {
          sum += bytes[order[at]];
          at++;
        }
        int[] expected = Arrays.copyOfRange(order, from, at);
        Arrays.sort(expected);
        assertArrayEquals(expected, plan.chunks(k), "epoch " + epoch + ", window " + k);
        assertTrue(sum <= window || expected.length == 1);
        assertEquals(visitsSoFar, plan.visitStart(k));
        int n = 0;
        for (int c : expected) {
          assertTrue(!seen.get(c), "chunk " + c + " twice");
          seen.set(c);
          n += chunkRows[c];
        }
        visitsSoFar += n;
        // Each window: a permutation of its rows from part stream k + 1.
        assertArrayEquals(SeededShuffle.forPart(SEED, epoch, 2, k + 1).permutation(n),
            plan.order(k, rows(n)).rows());
      }
      assertEquals(chunks, at);
      assertEquals(chunks, seen.cardinality());
      assertEquals(visitsSoFar, plan.rows());
      assertEquals(plan.windows() - 1, plan.windowAt(plan.rows() - 1));
      assertEquals(0, plan.windowAt(0));
    }
  }

  @Test
  void withoutShuffleEveryChunkIsAWindowInStorageOrder() {
    VisitOrder visits = VisitOrder.of(false, ShuffleScope.ROWS, SEED).withWindowBytes(1 << 20);
    EpochPlan plan = EpochPlan.of(visits, 1, 0, new int[] {3, 0, 4}, new long[] {10, 0, 10});
    assertEquals(3, plan.windows());
    assertArrayEquals(new int[] {1}, plan.chunks(1));
    assertArrayEquals(new int[] {0, 1, 2}, plan.order(0, rows(3)).rows());
    // Visit 3 lies in chunk 2 (chunk 1 is empty).
    assertEquals(2, plan.windowAt(3));
  }

  @Test
  void aChunkLargerThanTheWindowIsAWindowOfItsOwn() {
    VisitOrder visits = VisitOrder.of(true, ShuffleScope.CHUNKS, SEED).withWindowBytes(100);
    EpochPlan plan = EpochPlan.of(visits, 2, 1, new int[] {5, 6}, new long[] {500, 40});
    assertEquals(2, plan.windows());
    int total = 0;
    for (int k = 0; k < plan.windows(); k++) {
      total += plan.chunks(k).length;
    }
    assertEquals(2, total);
  }
}
