package io.github.sparkperceptron.internal.mixing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.LocalWeights;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import io.github.sparkperceptron.internal.kernel.StateLayout;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The round protocol of a worker that trains on its own coordinates ({@link LocalWeights}: local
 * feature numbers, feature-major for K &gt; 2) against today's (a global class-major copy of the
 * round's weights): over several epochs of several mixing rounds of W workers, every worker's
 * {@link StateDelta} (coordinates, δw, δu, exact weights; sparse and dense) and the mixed state
 * after every round are the same bits. The local copies are kept between rounds and brought up to
 * date only at the coordinates that changed (their own and the mix's), as an executor's are.
 */
class LocalRoundsTest {

  @Test
  void localWorkersProduceTheGlobalDeltasAndStates() {
    Random rnd = new Random(4);
    int runs = 0;
    for (int workers : new int[] {1, 3}) {
      for (int k : new int[] {2, 5, 40}) {
        for (Averaging averaging : new Averaging[] {Averaging.NONE, Averaging.AVERAGE}) {
          for (double denseAbove : new double[] {StateDelta.DENSE_ABOVE, 0.0}) {
            run(rnd, workers, k, averaging, denseAbove);
            runs++;
          }
        }
      }
    }
    assertEquals(2 * 3 * 2 * 2, runs);
  }

  private static void run(Random rnd, int workers, int k, Averaging averaging,
      double denseAbove) {
    String where = "W=" + workers + " K=" + k + " " + averaging + " denseAbove=" + denseAbove;
    int d = 3_000;
    int rows = 60;
    LearnerConfig config = new LearnerConfig(d, k, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        averaging);
    TrainingBlock[] global = new TrainingBlock[workers];
    TrainingBlock[] local = new TrainingBlock[workers];
    for (int i = 0; i < workers; i++) {
      // Each worker has its own 25 features of d, drawn from overlapping ranges of 200, so
      // that some are shared (the mix moves them) and most of d is nobody's.
      int[] pool = rnd.ints(i * 100, i * 100 + 200).distinct().limit(25).sorted().toArray();
      TrainingBlockBuilder a = new TrainingBlockBuilder(d);
      TrainingBlockBuilder b = new TrainingBlockBuilder(d);
      int[] idx = new int[pool.length];
      double[] val = new double[pool.length];
      for (int r = 0; r < rows; r++) {
        int m = 0;
        for (int g : pool) {
          if (rnd.nextInt(3) == 0) {
            idx[m] = g;
            val[m++] = rnd.nextGaussian();
          }
        }
        int label = rnd.nextInt(k);
        a.addSparse(label, 1.0, idx, val, m);
        b.addSparse(label, 1.0, idx, val, m);
      }
      global[i] = a.build();
      local[i] = b.buildLocal(null);
    }
    boolean exact = workers == 1;
    int rounds = 3;
    LinearState globalState = LinearState.zero(config);
    LinearState localState = LinearState.zero(config);
    LocalWeights[] copies = new LocalWeights[workers];
    int[][] ownChanges = new int[workers][];
    int[] mixChanges = null;
    double totalWeight = workers * rows;
    long updates = 0;
    for (int epoch = 1; epoch <= 2; epoch++) {
      for (int round = 0; round < rounds; round++) {
        double clock = globalState.clock();
        double roundEnd = clock + totalWeight / rounds;
        ParameterMix globalMix = new ParameterMix(workers);
        ParameterMix localMix = new ParameterMix(workers);
        for (int i = 0; i < workers; i++) {
          int[] order = SeededShuffle.forEpoch(11, epoch, i).permutation(rows);
          int from = rows * round / rounds;
          int to = rows * (round + 1) / rounds;
          double scale = totalWeight / rows;

          double[] base = globalState.weights();
          double[] w = base.clone();
          double[] u = averaging.keepsAverage() ? new double[w.length] : null;
          TouchedSet touched = new TouchedSet(w.length);
          EpochStats stats = new EpochStats();
          OnlineLearner.runEpoch(config, global[i], order, from, to, new LinearState(w, u, clock),
              scale, stats, null, touched);
          StateDelta expected = StateDelta.between(touched.drain(), w, base, u, exact,
              denseAbove);

          double[] localBase = localState.weights();
          if (copies[i] == null) {
            copies[i] = new LocalWeights(config, local[i].localFeatures(),
                StateLayout.FEATURE_MAJOR);
            copies[i].load(localBase);
          } else {
            copies[i].refresh(localBase, ownChanges[i]);
            copies[i].refresh(localBase, mixChanges);
          }
          LocalWeights copy = copies[i];
          EpochStats localStats = new EpochStats();
          OnlineLearner.runEpoch(copy.config(), local[i], order, from, to, copy.state(clock),
              scale, localStats, null, copy.touched());
          LocalWeights.Touched written = copy.drainTouched();
          StateDelta delta = StateDelta.between(written.global, written.local, copy.weights(),
              localBase, copy.average(), exact, denseAbove);
          copy.clearAverage(written.local);
          ownChanges[i] = written.global;

          String at = where + " epoch " + epoch + " round " + round + " worker " + i;
          assertSameDelta(expected, delta, at);
          assertEquals(stats.updates, localStats.updates, at);
          updates += stats.updates;
          double mixWeight = MixingMode.MISTAKES.mixWeight(rows, stats.updates);
          globalMix.add(new WorkerResult(i, mixWeight, expected, new EpochStats[] {stats}));
          localMix.add(new WorkerResult(i, mixWeight, delta,
              new EpochStats[] {localStats}));
        }
        StateDelta globalChange = globalMix.result().delta();
        globalChange.applyTo(globalState.weights(), globalState.averageAccumulator());
        StateDelta localChange = localMix.result().delta();
        localChange.applyTo(localState.weights(), localState.averageAccumulator());
        mixChanges = new int[localChange.storedEntries()];
        for (int e = 0; e < mixChanges.length; e++) {
          mixChanges[e] = localChange.coordinate(e);
        }
        globalState.setClock(roundEnd);
        localState.setClock(roundEnd);
        assertArrayEquals(bits(globalState.weights()), bits(localState.weights()), where);
        if (averaging.keepsAverage()) {
          assertArrayEquals(bits(globalState.averageAccumulator()),
              bits(localState.averageAccumulator()), where);
        }
      }
    }
    assertTrue(updates > 0, where + ": the rounds updated");
  }

  private static void assertSameDelta(StateDelta expected, StateDelta actual, String at) {
    assertEquals(expected.isDense(), actual.isDense(), at);
    assertEquals(expected.length(), actual.length(), at);
    assertEquals(expected.storedEntries(), actual.storedEntries(), at);
    for (int e = 0; e < expected.storedEntries(); e++) {
      assertEquals(expected.coordinate(e), actual.coordinate(e), at);
      assertEquals(Double.doubleToRawLongBits(expected.weightChange(e)),
          Double.doubleToRawLongBits(actual.weightChange(e)), at + " entry " + e);
      assertEquals(Double.doubleToRawLongBits(expected.averageChange(e)),
          Double.doubleToRawLongBits(actual.averageChange(e)), at + " entry " + e);
    }
    // Applied to the same state, both write the same bits (a one-worker delta carries the
    // worker's weights themselves, which applying writes in place of w + Δw).
    double[] w1 = new double[expected.length()];
    double[] u1 = new double[expected.length()];
    double[] w2 = new double[expected.length()];
    double[] u2 = new double[expected.length()];
    expected.applyTo(w1, u1);
    actual.applyTo(w2, u2);
    assertArrayEquals(bits(w1), bits(w2), at + ": the applied weights");
    assertArrayEquals(bits(u1), bits(u2), at + ": the applied accumulator");
  }

  private static long[] bits(double[] a) {
    return Arrays.stream(a).mapToLong(Double::doubleToRawLongBits).toArray();
  }
}
