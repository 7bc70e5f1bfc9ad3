package io.github.sparkperceptron.internal.mixing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ParameterMixTest {

  /** A leaf whose change is {@code w} (dense, with δu = w too). */
  private static WorkerResult leaf(int partition, double weight, double[] w, long updates) {
    EpochStats stats = new EpochStats();
    stats.updates = updates;
    stats.stepSum = updates;
    stats.perceptronLoss = 0.1 * (partition + 1);
    return new WorkerResult(partition, weight, StateDelta.dense(w.clone(), w.clone()),
        new EpochStats[] {stats});
  }

  /** The change a result describes, as dense weights. */
  private static double[] weights(WorkerResult r) {
    double[] w = new double[r.delta().length()];
    r.delta().applyTo(w, null);
    return w;
  }

  private static List<WorkerResult> randomLeaves(Random rnd, int p, int d) {
    List<WorkerResult> leaves = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      double[] w = new double[d];
      for (int j = 0; j < d; j++) {
        w[j] = rnd.nextGaussian() * Math.pow(10, rnd.nextInt(8) - 4);
      }
      leaves.add(leaf(i, rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(50), w, rnd.nextInt(9)));
    }
    return leaves;
  }

  private static List<WorkerResult> copies(List<WorkerResult> leaves) {
    List<WorkerResult> out = new ArrayList<>();
    for (WorkerResult r : leaves) {
      out.add(new WorkerResult(r.worker(), r.mixWeight(), r.delta(),
          new EpochStats[] {r.epochs()[0].copy()}));
    }
    return out;
  }

  /**
   * The mix must not depend on arrival order nor on how Spark groups results (treeAggregate's
   * levels): random orders and random groupings give bit-identical weights and losses.
   */
  @Test
  void resultIsBitIdenticalForEveryArrivalOrderAndGrouping() {
    Random rnd = new Random(3);
    for (int p : new int[] {1, 2, 3, 5, 8, 13, 16}) {
      List<WorkerResult> leaves = randomLeaves(rnd, p, 6);
      WorkerResult reference = null;
      for (int trial = 0; trial < 30; trial++) {
        List<WorkerResult> shuffled = copies(leaves);
        Collections.shuffle(shuffled, rnd);
        // random grouping into sub-mixes, merged in random order
        List<ParameterMix> groups = new ArrayList<>();
        for (WorkerResult r : shuffled) {
          if (groups.isEmpty() || rnd.nextBoolean()) {
            groups.add(new ParameterMix(p));
          }
          groups.get(rnd.nextInt(groups.size())).add(r);
        }
        Collections.shuffle(groups, rnd);
        ParameterMix total = new ParameterMix(p);
        for (ParameterMix g : groups) {
          total.merge(g);
        }
        WorkerResult result = total.result();
        if (reference == null) {
          reference = result;
        } else {
          assertArrayEquals(weights(reference), weights(result), 0.0);
          assertEquals(reference.epochs()[0].perceptronLoss, result.epochs()[0].perceptronLoss,
              0.0);
        }
      }
    }
  }

  @Test
  void resultIsTheWeightedMean() {
    Random rnd = new Random(5);
    List<WorkerResult> leaves = randomLeaves(rnd, 7, 4);
    double total = 0;
    double[] expected = new double[4];
    long updates = 0;
    for (WorkerResult r : leaves) {
      total += r.mixWeight();
      updates += r.epochs()[0].updates;
    }
    for (WorkerResult r : leaves) {
      for (int j = 0; j < 4; j++) {
        expected[j] += r.mixWeight() / total * weights(r)[j];
      }
    }
    ParameterMix mix = new ParameterMix(7);
    for (WorkerResult r : copies(leaves)) {
      mix.add(r);
    }
    WorkerResult result = mix.result();
    for (int j = 0; j < 4; j++) {
      // Pairwise blending and a direct weighted sum round differently; weights span 1e-4..1e4.
      assertEquals(expected[j], weights(result)[j], 1e-9 * (1 + Math.abs(expected[j])));
    }
    assertEquals(total, result.mixWeight(), 0.0);
    assertEquals(updates, result.epochs()[0].updates);
  }

  @Test
  void singlePartitionPassesThroughUntouched() {
    double[] w = {0.1, 0.2, 0.30000000000000004};
    WorkerResult only = leaf(0, 3, w, 3);
    WorkerResult result = new ParameterMix(1).add(only).result();
    assertSame(only, result);
    assertArrayEquals(w, weights(result), 0.0);
  }

  @Test
  void zeroWeightPartitionsDoNotCountAndAllZeroKeepsTheLeftmost() {
    ParameterMix mix = new ParameterMix(3)
        .add(leaf(0, 0, new double[] {100}, 0))
        .add(leaf(1, 2, new double[] {1}, 2))
        .add(leaf(2, 0, new double[] {-100}, 0));
    assertArrayEquals(new double[] {1}, weights(mix.result()), 0.0);

    ParameterMix none = new ParameterMix(2).add(leaf(1, 0, new double[] {7}, 0))
        .add(leaf(0, 0, new double[] {7}, 0));
    assertArrayEquals(new double[] {7}, weights(none.result()), 0.0);
  }

  @Test
  void incompleteOrDuplicatedInputIsRefused() {
    ParameterMix mix = new ParameterMix(3).add(leaf(0, 1, new double[] {1}, 1));
    assertThrows(IllegalStateException.class, mix::result);
    assertThrows(IllegalStateException.class, () -> mix.add(leaf(0, 1, new double[] {1}, 1)));
    assertThrows(IllegalArgumentException.class, () -> mix.add(leaf(3, 1, new double[] {1}, 1)));
  }
}
