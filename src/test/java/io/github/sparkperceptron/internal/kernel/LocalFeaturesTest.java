package io.github.sparkperceptron.internal.kernel;

import static io.github.sparkperceptron.internal.kernel.FeatureMajorKernelTest.assertSameStats;
import static io.github.sparkperceptron.internal.kernel.FeatureMajorKernelTest.assertSameTrace;
import static io.github.sparkperceptron.internal.kernel.FeatureMajorKernelTest.bits;
import static io.github.sparkperceptron.internal.kernel.FeatureMajorKernelTest.classWeights;
import static io.github.sparkperceptron.internal.kernel.FeatureMajorKernelTest.randomState;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Worker-local feature numbers: a block built with {@link TrainingBlockBuilder#buildLocal} and
 * trained on a {@link LocalWeights} copy (m features, feature-major for K &gt; 2) writes exactly
 * the values the global-coordinate class-major kernel writes, at the mapped coordinates, and
 * nothing anywhere else: compared as raw bits after every epoch, with the statistics, the touched
 * coordinates (in global numbers) and the vote's recorded rows (in global feature numbers).
 */
class LocalFeaturesTest {

  /** The same rows into a global and a local block: few of d features, with gaps. */
  private static TrainingBlock[] blocks(Random rnd, int n, int d, int k, boolean dense,
      int[] layout) {
    TrainingBlockBuilder global = new TrainingBlockBuilder(d);
    TrainingBlockBuilder local = new TrainingBlockBuilder(d);
    // The features this worker has: about 30 of d, spread over the whole range.
    int[] pool = rnd.ints(0, d).distinct().limit(dense ? d : 30).sorted().toArray();
    int[] idx = new int[pool.length];
    double[] val = new double[pool.length];
    for (int r = 0; r < n; r++) {
      int m = 0;
      for (int g : pool) {
        if (dense || rnd.nextInt(4) == 0) {
          idx[m] = g;
          val[m] = rnd.nextGaussian();
          m++;
        }
      }
      int label = rnd.nextInt(k);
      double w = rnd.nextInt(6) == 0 ? 0.0 : 0.5 + rnd.nextDouble();
      global.addSparse(label, w, idx, val, m);
      local.addSparse(label, w, idx, val, m);
    }
    return new TrainingBlock[] {global.build(layout), local.buildLocal(layout)};
  }

  @Test
  void renumberingIsDenseAndMonotone() {
    int[] indices = {5, 70, 5, 3, 128, 199};
    LocalFeatures map = LocalFeatures.renumber(200, indices, 5);
    // Distinct features among the first 5: 3, 5, 70, 128 → local 0, 1, 2, 3; the 6th is untouched.
    assertArrayEquals(new int[] {1, 2, 1, 0, 3, 199}, indices);
    assertEquals(4, map.size());
    assertEquals(200, map.globalFeatures());
    int[] globals = {3, 5, 70, 128};
    for (int l = 0; l < 4; l++) {
      assertEquals(globals[l], map.global(l));
      assertEquals(l, map.local(globals[l]));
    }
    assertEquals(-1, map.local(4));
    assertEquals(-1, map.local(199));
    assertThrows(IllegalArgumentException.class, () -> new LocalFeatures(10, new int[] {3, 3}));
    assertThrows(IllegalArgumentException.class, () -> new LocalFeatures(10, new int[] {10}));
  }

  @Test
  void buildLocalRenumbersSparseBlocksAndKeepsDenseOnes() {
    Random rnd = new Random(1);
    TrainingBlock[] sparse = blocks(rnd, 40, 1_000_000, 3, false, null);
    assertNull(sparse[0].localFeatures());
    LocalFeatures map = sparse[1].localFeatures();
    assertTrue(map.size() <= 30 && map.size() > 0, "m = " + map.size());
    assertEquals(map.size(), sparse[1].features().numFeatures());
    assertInstanceOf(CsrFeatureBlock.class, sparse[1].features());
    // Row by row, the same values at the mapped features, in the same order.
    int[] gi = new int[30];
    double[] gv = new double[30];
    int[] li = new int[30];
    double[] lv = new double[30];
    for (int r = 0; r < 40; r++) {
      int n = sparse[0].features().copyRow(r, gi, gv);
      assertEquals(n, sparse[1].features().copyRow(r, li, lv));
      for (int t = 0; t < n; t++) {
        assertEquals(gi[t], map.global(li[t]));
        assertEquals(Double.doubleToRawLongBits(gv[t]), Double.doubleToRawLongBits(lv[t]));
      }
    }
    TrainingBlock[] dense = blocks(rnd, 40, 12, 3, true, null);
    assertInstanceOf(DenseFeatureBlock.class, dense[1].features());
    assertEquals(12, dense[1].localFeatures().size(), "a dense block keeps every column");
  }

  @Test
  void localNumbersTrainTheSameWeightsAsGlobalOnes() {
    Random rnd = new Random(17);
    int runs = 0;
    for (int k : new int[] {2, 3, 10}) {
      for (boolean dense : new boolean[] {false, true}) {
        int d = dense ? 14 : 5_000;
        int n = 80;
        int[] layout = SeededShuffle.forEpoch(9, 0, 0).permutation(n);
        TrainingBlock[] pair = blocks(rnd, n, d, k, dense, layout);
        for (UpdateRule rule : new UpdateRule[] {UpdateRule.PERCEPTRON, UpdateRule.PA2}) {
          for (Averaging averaging : Averaging.values()) {
            for (boolean fitIntercept : new boolean[] {false, true}) {
              LearnerConfig config = new LearnerConfig(d, k, fitIntercept, 1.0, rule, 0.5,
                  averaging, rnd.nextBoolean() ? classWeights(rnd, k) : null);
              for (StateLayout layoutOfCopy : StateLayout.values()) {
                compare(config, pair[0], pair[1], layoutOfCopy, rnd.nextLong(),
                    "K=" + k + " dense=" + dense + " " + rule + " " + averaging + " intercept="
                        + fitIntercept + " copy " + layoutOfCopy);
                runs++;
              }
            }
          }
        }
      }
    }
    assertEquals(3 * 2 * 2 * 3 * 2 * 2, runs);
  }

  private static void compare(LearnerConfig config, TrainingBlock global, TrainingBlock local,
      StateLayout layoutOfCopy, long seed, String where) {
    Random rnd = new Random(seed);
    LinearState reference = randomState(rnd, config);
    // The accumulator of a round starts at zero (the round's δu), as on a worker.
    if (reference.averageAccumulator() != null) {
      Arrays.fill(reference.averageAccumulator(), 0.0);
    }
    double[] start = reference.weights().clone();
    LocalWeights copy = new LocalWeights(config, local.localFeatures(), layoutOfCopy);
    copy.load(reference.weights());
    int n = global.numRows();
    long updates = 0;
    double clock = reference.clock();
    for (int epoch = 1; epoch <= 3; epoch++) {
      int[] order = SeededShuffle.forEpoch(seed, epoch, 0).permutation(n);
      EpochStats expectedStats = new EpochStats();
      EpochStats stats = new EpochStats();
      TouchedSet expectedTouched = new TouchedSet(config.stateLength());
      boolean vote = config.averaging() == Averaging.VOTE;
      VoteTrace expectedTrace = vote ? new VoteTrace(global.features(), 0, clock) : null;
      VoteTrace trace = vote ? new VoteTrace(local.features(), local.localFeatures(), 0, clock)
          : null;
      OnlineLearner.runEpoch(config, global, order, 0, n, reference, 0.5, expectedStats,
          expectedTrace, expectedTouched);
      LinearState localState = copy.state(clock);
      OnlineLearner.runEpoch(copy.config(), local, order, 0, n, localState, 0.5, stats, trace,
          copy.touched());
      clock = reference.clock();
      String at = where + " epoch " + epoch;
      assertSameStats(expectedStats, stats, at);
      assertEquals(Double.doubleToRawLongBits(clock),
          Double.doubleToRawLongBits(localState.clock()), at);
      if (vote) {
        assertSameTrace(expectedTrace, trace, at);
      }
      // Every global coordinate: the local value where the worker holds it, else untouched.
      double[] w = reference.weights();
      double[] u = reference.averageAccumulator();
      boolean[] held = new boolean[w.length];
      for (int c = 0; c < copy.weights().length; c++) {
        int j = copy.globalCoordinate(c);
        assertEquals(c, copy.localCoordinate(j), at + ": the coordinate maps back");
        held[j] = true;
        assertEquals(Double.doubleToRawLongBits(w[j]),
            Double.doubleToRawLongBits(copy.weights()[c]), at + ": w at " + j);
        if (u != null) {
          assertEquals(Double.doubleToRawLongBits(u[j]),
              Double.doubleToRawLongBits(copy.average()[c]), at + ": u at " + j);
        }
      }
      for (int j = 0; j < w.length; j++) {
        if (!held[j]) {
          assertEquals(Double.doubleToRawLongBits(start[j]), Double.doubleToRawLongBits(w[j]),
              at + ": a feature the worker lacks moved at " + j);
          assertEquals(-1, copy.localCoordinate(j), at);
        }
      }
      int[] expectedCoordinates = expectedTouched.drain();
      LocalWeights.Touched touched = copy.drainTouched();
      assertArrayEquals(expectedCoordinates, touched.global, at + ": touched, in global order");
      for (int i = 0; i < touched.local.length; i++) {
        assertEquals(touched.global[i], copy.globalCoordinate(touched.local[i]), at);
      }
      assertEquals(0, copy.touched().count(), "drained");
      updates += stats.updates;
    }
    assertTrue(updates > 0, where + ": the update path ran");
    assertArrayEquals(bits(reference.weights()), bits(mergedGlobal(copy, start)), where);
  }

  /** The global weights the local copy stands for: start outside its features. */
  private static double[] mergedGlobal(LocalWeights copy, double[] start) {
    double[] out = start.clone();
    for (int c = 0; c < copy.weights().length; c++) {
      out[copy.globalCoordinate(c)] = copy.weights()[c];
    }
    return out;
  }

  @Test
  void refreshSetsOnlyTheHeldCoordinates() {
    LearnerConfig config = new LearnerConfig(10, 3, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    LocalFeatures map = new LocalFeatures(10, new int[] {2, 7});
    LocalWeights copy = new LocalWeights(config, map, StateLayout.FEATURE_MAJOR);
    double[] global = new double[config.stateLength()];
    for (int j = 0; j < global.length; j++) {
      global[j] = j + 0.5;
    }
    // Global coordinates 13 = class 1, feature 2 (held); 14 = class 1, feature 3 (not held);
    // 21 = class 1, bias; 29 = class 2, feature 7.
    assertEquals(3, copy.refresh(global, new int[] {13, 14, 21, 29}));
    // Feature-major, m = 2: local feature l's classes at 3l .. 3l+2, bias (l = 2) at 6 .. 8.
    assertArrayEquals(new double[] {0, 13.5, 0, 0, 0, 29.5, 0, 21.5, 0}, copy.weights(), 0.0);
    copy.load(global);
    assertArrayEquals(new double[] {2.5, 13.5, 24.5, 7.5, 18.5, 29.5, 10.5, 21.5, 32.5},
        copy.weights(), 0.0);
    assertEquals(9, copy.config().stateLength());
    assertEquals(2, copy.config().numFeatures());
  }

  /**
   * The galloping search finds what a binary search over the whole map finds, from any start
   * below which every feature is smaller; a refresh from coordinates in increasing order, in
   * random order and with repeats sets exactly what setting each held coordinate one by one
   * ({@link LocalWeights#localCoordinate}) sets.
   */
  @Test
  void refreshInAnyOrderSetsWhatTheCoordinatesOneByOneSet() {
    Random random = new Random(3);
    int d = 5_000;
    int[] held = random.ints(0, d).distinct().limit(700).sorted().toArray();
    LocalFeatures map = new LocalFeatures(d, held);
    for (int g = -1; g <= d; g++) {
      int expected = Arrays.binarySearch(held, g);
      int start = expected >= 0 ? expected : -expected - 1;
      for (int from : new int[] {0, start / 2, start}) {
        assertEquals(expected, map.search(g, from), "g=" + g + " from " + from);
      }
    }
    LearnerConfig config = new LearnerConfig(d, 4, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    double[] global = new double[config.stateLength()];
    for (int j = 0; j < global.length; j++) {
      global[j] = j + 0.25;
    }
    int[] increasing = random.ints(0, global.length).distinct().limit(3_000).sorted().toArray();
    int[] shuffled = random.ints(0, global.length).limit(3_000).toArray();
    for (int[] coordinates : new int[][] {increasing, shuffled}) {
      LocalWeights copy = new LocalWeights(config, map, StateLayout.FEATURE_MAJOR);
      double[] expected = new double[copy.weights().length];
      int set = 0;
      for (int j : coordinates) {
        int c = copy.localCoordinate(j);
        if (c >= 0) {
          expected[c] = global[j];
          set++;
        }
      }
      assertEquals(set, copy.refresh(global, coordinates));
      assertArrayEquals(expected, copy.weights(), 0.0);
    }
  }

  /**
   * Both ways of renumbering (a bit per feature where the block holds a value per 64 features,
   * sorting a copy of the indices where it is sparser, so that no scratch grows with d) give the
   * naive answer: the sorted distinct features, each index replaced by its rank among them.
   */
  @Test
  void renumberingBySortingAndByBitsGiveTheRankAmongTheDistinctFeatures() {
    Random rnd = new Random(9);
    for (int d : new int[] {200, 5_000, 1 << 30}) {
      for (int count : new int[] {0, 1, 7, 100, 3_000}) {
        int[] indices = rnd.ints(count, 0, d).toArray();
        TreeSet<Integer> distinct = new TreeSet<>();
        for (int g : indices) {
          distinct.add(g);
        }
        int[] expected = new int[count];
        for (int t = 0; t < count; t++) {
          expected[t] = distinct.headSet(indices[t]).size();
        }
        int[] renumbered = indices.clone();
        LocalFeatures map = LocalFeatures.renumber(d, renumbered, count);
        String where = "d=" + d + " count=" + count
            + (count < (d + 63) / 64 ? " (sorting)" : " (bits)");
        assertArrayEquals(expected, renumbered, where);
        assertEquals(distinct.size(), map.size(), where);
        int l = 0;
        for (int g : distinct) {
          assertEquals(g, map.global(l++), where);
        }
      }
    }
  }

  /**
   * A linear predictor restricted to a worker's features (the streaming job scores its batches'
   * training rows, numbered by the worker's own features, with it) scores a local row with the
   * bits the model's predictor gives the same row in the model's numbers.
   */
  @Test
  void aPredictorForAWorkersFeaturesScoresItsRowsAsTheModelDoes() {
    Random rnd = new Random(10);
    for (int k : new int[] {2, 3, 10}) {
      for (boolean dense : new boolean[] {false, true}) {
        int d = dense ? 12 : 5_000;
        TrainingBlock[] b = blocks(rnd, 40, d, k, dense, null);
        int rows = k == 2 ? 1 : k;
        double[] state = new double[rows * (d + 1)];
        for (int j = 0; j < state.length; j++) {
          state[j] = rnd.nextGaussian();
        }
        Predictor model = Predictor.linear(k, d, 0.25, state);
        Predictor local = model.forFeatures(b[1].localFeatures());
        int[] gi = new int[d];
        double[] gv = new double[d];
        int[] li = new int[d];
        double[] lv = new double[d];
        for (int r = 0; r < 40; r++) {
          int n = b[0].features().copyRow(r, gi, gv);
          int m = b[1].features().copyRow(r, li, lv);
          assertArrayEquals(bits(model.rawScores(gi, gv, n)), bits(local.rawScores(li, lv, m)),
              "K=" + k + " dense=" + dense + " row " + r);
          assertEquals(model.predict(b[0].features(), r, null, null),
              local.predict(b[1].features(), r, null, null));
        }
      }
    }
  }
}
