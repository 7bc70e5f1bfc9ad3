package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The visiting orders of {@link VisitOrder}, above all the chunked one (shuffleScope=chunks). */
class VisitOrderTest {

  private static void assertPermutation(int[] order, int n) {
    assertEquals(n, order.length);
    int[] sorted = order.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < n; i++) {
      assertEquals(i, sorted[i], "not a permutation of 0.." + (n - 1));
    }
  }

  @Test
  void theChunkedOrderIsAPermutationForEveryShape() {
    int[] sizes = {0, 1, 2, 63, 64, 65, 127, 128, 1000, 4097};
    int[] chunks = {1, 2, 7, 64, 256, 5000};
    for (int n : sizes) {
      for (int c : chunks) {
        assertPermutation(VisitOrder.chunked(5, 1, 0, n, c).rows(), n);
      }
    }
  }

  @Test
  void isAPureFunctionOfSeedEpochAndPartitionAndDiffersAcrossThem() {
    int[] a = VisitOrder.chunked(42, 3, 7, 5000, 64).rows();
    assertArrayEquals(a, VisitOrder.chunked(42, 3, 7, 5000, 64).rows());
    assertFalse(Arrays.equals(a, VisitOrder.chunked(42, 4, 7, 5000, 64).rows()), "epoch");
    assertFalse(Arrays.equals(a, VisitOrder.chunked(42, 3, 8, 5000, 64).rows()), "partition");
    assertFalse(Arrays.equals(a, VisitOrder.chunked(43, 3, 7, 5000, 64).rows()), "seed");

    VisitOrder order = VisitOrder.of(true, ShuffleScope.CHUNKS, 42);
    int[] layout = order.layout(7, 5000);
    assertPermutation(layout, 5000);
    assertArrayEquals(layout, order.layout(7, 5000));
    assertFalse(Arrays.equals(layout, order.layout(8, 5000)), "partition");
    assertFalse(Arrays.equals(layout, VisitOrder.of(true, ShuffleScope.CHUNKS, 43)
        .layout(7, 5000)), "seed");
  }

  /** Pinned values: the order must not change across JDKs or releases (saved seeds stay valid). */
  @Test
  void streamIsStableAcrossReleases() {
    // Cut at 8: chunks {8, 9, 0, 1}, {2, 3, 4, 5}, {6, 7}, visited as chunks 2, 0, 1.
    assertArrayEquals(new int[] {7, 6, 8, 0, 9, 1, 3, 4, 5, 2},
        VisitOrder.chunked(42, 1, 0, 10, 4).rows());
    assertArrayEquals(new int[] {4, 0, 5, 3, 7, 6, 9, 1, 8, 2},
        VisitOrder.of(true, ShuffleScope.CHUNKS, 42).layout(0, 10));
  }

  @Test
  void theOtherOrdersAreTheInputOrderAndTheFullShuffleOfEarlierReleases() {
    FeatureBlock rows = sortedBlock(1000).features();
    VisitOrder none = VisitOrder.of(false, ShuffleScope.CHUNKS, 3);
    assertNull(none.layout(0, 1000));
    int[] identity = new int[1000];
    for (int i = 0; i < identity.length; i++) {
      identity[i] = i;
    }
    assertArrayEquals(identity, none.epochOrder(2, 0, rows).rows());
    VisitOrder full = VisitOrder.of(true, ShuffleScope.ROWS, 3);
    assertNull(full.layout(0, 1000));
    assertArrayEquals(SeededShuffle.forEpoch(3, 2, 1).permutation(1000),
        full.epochOrder(2, 1, rows).rows());
  }

  /**
   * Scope auto is rows for a worker of one stored chunk and chunks for a worker of several, each
   * order and layout the very one of that scope; unresolved it refuses to lay out chunks.
   */
  @Test
  void autoIsRowsForOneStoredChunkAndChunksForSeveral() {
    FeatureBlock rows = sortedBlock(1000).features();
    VisitOrder auto = VisitOrder.of(true, ShuffleScope.AUTO, 3);
    VisitOrder full = VisitOrder.of(true, ShuffleScope.ROWS, 3);
    VisitOrder chunked = VisitOrder.of(true, ShuffleScope.CHUNKS, 3);
    for (int stored : new int[] {0, 1}) {
      assertEquals(ShuffleScope.ROWS, auto.forStoredChunks(stored).scope());
    }
    for (int stored : new int[] {2, 3, 1 << 16}) {
      assertEquals(ShuffleScope.CHUNKS, auto.forStoredChunks(stored).scope());
    }
    assertSame(full, full.forStoredChunks(5));
    assertSame(chunked, chunked.forStoredChunks(1));
    assertNull(auto.layout(0, 1000), "one block: laid out as rows (input order)");
    assertArrayEquals(full.epochOrder(2, 1, rows).rows(), auto.epochOrder(2, 1, rows).rows());
    VisitOrder several = auto.forStoredChunks(4);
    assertArrayEquals(chunked.layout(1, 2, 1000), several.layout(1, 2, 1000));
    assertArrayEquals(chunked.epochOrder(2, 1, rows).rows(),
        several.epochOrder(2, 1, rows).rows());
    assertEquals(3, several.seed());
    assertTrue(several.shuffle());
    assertThrows(IllegalStateException.class, () -> auto.layout(0, 1, 1000));
    assertEquals(ShuffleScope.AUTO, ShuffleScope.fromParam("auto"));
  }

  /**
   * What makes the order cache-friendly: it visits chunk after chunk, each chunk once and whole,
   * and a chunk is C consecutive stored rows (on the ring cut at the epoch's first draw), so
   * inside a chunk the rows lie within C·(bytes per row) of each other in memory.
   */
  @Test
  void visitsEachChunkOfNeighbouringRowsWholeAndOnce() {
    for (int n : new int[] {10_000, 10_007}) {
      int c = 128;
      int chunks = (n + c - 1) / c;
      for (int epoch = 1; epoch <= 3; epoch++) {
        int[] order = VisitOrder.chunked(1, epoch, 0, n, c).rows();
        int cut = SeededShuffle.forEpoch(1, epoch, 0).nextInt(n);
        boolean[] done = new boolean[chunks];
        int t = 0;
        while (t < n) {
          int chunk = Math.floorMod(order[t] - cut, n) / c;
          assertFalse(done[chunk], "chunk " + chunk + " visited twice");
          done[chunk] = true;
          int length = Math.min(c, n - chunk * c);
          for (int i = 0; i < length; i++) {
            assertEquals(chunk, Math.floorMod(order[t + i] - cut, n) / c, "position " + (t + i));
          }
          t += length;
        }
      }
    }
  }

  /**
   * The cut is uniform in [0, n), so chunk boundaries move every epoch and two neighbouring rows
   * share a chunk in some epochs and not in others. Over 20 epochs and C = 128 the cuts fall in
   * about 18.6 distinct residues mod C on average; 15 or more is the bar.
   */
  @Test
  void chunkBoundariesMoveFromEpochToEpoch() {
    int n = 10_000;
    int c = 128;
    Set<Integer> residues = new HashSet<>();
    for (int epoch = 1; epoch <= 20; epoch++) {
      residues.add(SeededShuffle.forEpoch(1, epoch, 0).nextInt(n) % c);
    }
    assertTrue(residues.size() >= 15, residues.toString());
  }

  /**
   * Label-sorted input (5,000 zeros, then 5,000 ones). Within an epoch the input rows are visited
   * in the order layout∘chunked, a uniformly random permutation whatever the chunked order is, so
   * label runs are those of a full shuffle: given a run's first row, the next L − 1 rows share its
   * label with probability ≤ (1/2)^(L−1); a union over the 10,000 starting rows bounds P(a run ≥
   * 30) by 10⁴·2⁻²⁹ ≈ 2·10⁻⁵ per epoch (the expected longest run is about log₂ 10⁴ ≈ 13). Without
   * the layout the same orders would run for whole chunks (≥ 64), as the second part shows.
   */
  @Test
  void noLongRunsOfOneLabelOnLabelSortedInput() {
    int n = 10_000;
    for (long seed = 1; seed <= 3; seed++) {
      VisitOrder order = VisitOrder.of(true, ShuffleScope.CHUNKS, seed);
      for (int partition = 0; partition < 2; partition++) {
        TrainingBlock block = sortedBlock(n, order.layout(partition, n));
        for (int epoch = 1; epoch <= 5; epoch++) {
          int[] visit = order.epochOrder(epoch, partition, block.features()).rows();
          assertTrue(longestRun(block, visit) <= 30, "seed " + seed + " epoch " + epoch);
          int[] small = VisitOrder.chunked(seed, epoch, partition, n, 64).rows();
          assertTrue(longestRun(block, small) <= 30, "seed " + seed + " epoch " + epoch);
          assertTrue(longestRun(sortedBlock(n), small) >= 64, "without the layout");
        }
      }
    }
  }

  private static int longestRun(TrainingBlock block, int[] order) {
    int longest = 0;
    int run = 0;
    for (int t = 0; t < order.length; t++) {
      run = t > 0 && block.label(order[t]) == block.label(order[t - 1]) ? run + 1 : 1;
      longest = Math.max(longest, run);
    }
    return longest;
  }

  /**
   * The Javadoc's claim, checked by counting: for a fixed chunked order, a uniform layout makes
   * the input row at each visiting position uniform. 8 rows in 4 chunks of 2, 40,000 seeds:
   * 5,000 expected per (position, row) cell, standard deviation about 66; 6 sigma is 400. (The
   * chunked order alone is far from uniform: position 1 is always next to position 0.)
   */
  @Test
  void withTheLayoutEveryPositionVisitsEveryInputRowEquallyOften() {
    int n = 8;
    int trials = 40_000;
    int[][] counts = new int[n][n];
    for (int t = 0; t < trials; t++) {
      int[] layout = VisitOrder.of(true, ShuffleScope.CHUNKS, t).layout(0, n);
      int[] visit = VisitOrder.chunked(t, 1, 0, n, 2).rows();
      for (int i = 0; i < n; i++) {
        counts[i][layout[visit[i]]]++;
      }
    }
    double expected = trials / (double) n;
    for (int[] row : counts) {
      for (int count : row) {
        assertTrue(Math.abs(count - expected) < 400, "cell count " + count);
      }
    }
  }

  @Test
  void chunksSpanAboutChunkBytesOfStoredRows() {
    // 20 non-zeros: 12·20 + 4 (row start) bytes per row → 65,536 / 244 = 268 rows.
    assertEquals(VisitOrder.CHUNK_BYTES / 244, VisitOrder.chunkRows(sparseBlock(1000, 20)));
    // Very short rows: capped; very long rows: at least MIN_CHUNK_ROWS.
    assertEquals(VisitOrder.MAX_CHUNK_ROWS, VisitOrder.chunkRows(sparseBlock(1000, 1)));
    assertEquals(VisitOrder.MIN_CHUNK_ROWS, VisitOrder.chunkRows(sparseBlock(100, 5000)));
  }

  /**
   * The kernel reads the next chunk ahead of its visit (FeatureBlock.touch): reads only, so an
   * epoch over the chunked order equals, bit for bit, the same rows visited as a plain order.
   */
  @Test
  void readingTheNextChunkAheadChangesNoResult() {
    Random rnd = new Random(5);
    for (boolean dense : new boolean[] {false, true}) {
      for (int classes : new int[] {2, 3}) {
        int d = dense ? 6 : 200;
        int n = 1_001;
        TrainingBlockBuilder builder = new TrainingBlockBuilder(d);
        for (int r = 0; r < n; r++) {
          double[] row = new double[d];
          for (int j = 0; j < d; j++) {
            row[j] = dense || rnd.nextInt(20) == 0 ? rnd.nextGaussian() : 0.0;
          }
          builder.addDense(rnd.nextInt(classes), 1.0, row);
        }
        TrainingBlock block = builder.build(VisitOrder.of(true, ShuffleScope.CHUNKS, 1)
            .layout(0, n));
        LearnerConfig config = new LearnerConfig(d, classes, true, 1.0, UpdateRule.PERCEPTRON,
            1.0, Averaging.AVERAGE);
        LinearState ahead = LinearState.zero(config);
        LinearState plain = LinearState.zero(config);
        for (int epoch = 1; epoch <= 3; epoch++) {
          EpochOrder order = VisitOrder.chunked(1, epoch, 0, n, 64);
          assertTrue(order.chunks() > 1);
          OnlineLearner.runEpoch(config, block, order, ahead, 1.0, new EpochStats(), null);
          OnlineLearner.runEpoch(config, block, order.rows(), plain, 1.0, new EpochStats(),
              null);
        }
        assertArrayEquals(plain.weights(), ahead.weights(), 0.0);
        assertArrayEquals(plain.averageAccumulator(), ahead.averageAccumulator(), 0.0);
      }
    }
  }

  /**
   * Mixing rounds run an epoch in slices of its order (one per round, cut anywhere: inside a
   * chunk, on a chunk's edge, empty): the slices together equal the whole epoch in the plain
   * order bit for bit, the read-ahead resuming in the middle of a chunk, and mark the same
   * coordinates as touched (TouchedSet: what the round's sparse change carries).
   */
  @Test
  void anEpochInSlicesEqualsTheWholeEpoch() {
    Random rnd = new Random(8);
    int d = 300;
    int n = 777;
    TrainingBlockBuilder builder = new TrainingBlockBuilder(d);
    for (int r = 0; r < n; r++) {
      double[] row = new double[d];
      for (int j = 0; j < d; j++) {
        row[j] = rnd.nextInt(30) == 0 ? rnd.nextGaussian() : 0.0;
      }
      builder.addDense(rnd.nextInt(3), 1.0, row);
    }
    TrainingBlock block = builder.build(VisitOrder.of(true, ShuffleScope.CHUNKS, 4).layout(0, n));
    LearnerConfig config = new LearnerConfig(d, 3, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    int[][] cuts = {{0, 777}, {0, 100, 777}, {0, 64, 128, 500, 777}, {0, 0, 1, 63, 65, 776, 777},
        {0, 300, 300, 777}};
    for (int[] cut : cuts) {
      LinearState sliced = LinearState.zero(config);
      LinearState whole = LinearState.zero(config);
      for (int epoch = 1; epoch <= 3; epoch++) {
        EpochOrder order = VisitOrder.chunked(4, epoch, 0, n, 64);
        TouchedSet touchedSliced = new TouchedSet(sliced.weights().length);
        TouchedSet touchedWhole = new TouchedSet(whole.weights().length);
        EpochStats stats = new EpochStats();
        for (int i = 0; i + 1 < cut.length; i++) {
          OnlineLearner.runEpoch(config, block, order, cut[i], cut[i + 1], sliced, 1.0, stats,
              null, touchedSliced);
        }
        EpochStats wholeStats = new EpochStats();
        OnlineLearner.runEpoch(config, block, order.rows(), 0, n, whole, 1.0, wholeStats, null,
            touchedWhole);
        assertEquals(wholeStats.examples, stats.examples);
        assertEquals(wholeStats.updates, stats.updates);
        assertArrayEquals(touchedWhole.toArray(), touchedSliced.toArray());
      }
      assertArrayEquals(whole.weights(), sliced.weights(), 0.0);
      assertArrayEquals(whole.averageAccumulator(), sliced.averageAccumulator(), 0.0);
      assertEquals(whole.clock(), sliced.clock(), 0.0);
    }
    assertThrows(IllegalArgumentException.class, () -> OnlineLearner.runEpoch(config, block,
        VisitOrder.chunked(4, 1, 0, n, 64), 5, n + 1, LinearState.zero(config), 1.0,
        new EpochStats(), null, null));
  }

  private static TrainingBlock sortedBlock(int n) {
    return sortedBlock(n, null);
  }

  /** n rows of one non-zero, the first half labelled 0 and the second 1. */
  private static TrainingBlock sortedBlock(int n, int[] layout) {
    TrainingBlockBuilder builder = new TrainingBlockBuilder(10);
    for (int r = 0; r < n; r++) {
      builder.addSparse(r < n / 2 ? 0 : 1, 1.0, new int[] {r % 10}, new double[] {1.0}, 1);
    }
    return builder.build(layout);
  }

  private static FeatureBlock sparseBlock(int n, int nnz) {
    TrainingBlockBuilder builder = new TrainingBlockBuilder(10 * nnz);
    int[] idx = new int[nnz];
    double[] val = new double[nnz];
    for (int j = 0; j < nnz; j++) {
      idx[j] = j;
      val[j] = 1.0;
    }
    for (int r = 0; r < n; r++) {
      builder.addSparse(0, 1.0, idx, val, nnz);
    }
    return builder.build().features();
  }
}
