package io.github.sparkperceptron.internal.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.LocalWeights;
import io.github.sparkperceptron.internal.kernel.StateLayout;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.util.Random;
import java.util.UUID;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;

/**
 * The executor's pool of workers' working copies ({@link ExecutorWeights}) against the weights
 * the driver shipped: every copy a task checks out holds, at each of its worker's coordinates,
 * exactly the shipped weights of the round, whether it was gathered whole (new, or after a new
 * snapshot) or kept from an earlier round and set only where it or the driver changed something;
 * a copy is kept per worker, within the idle bound. (A failed task never releases its copy:
 * {@code train.RecoveryTest} and {@code train.BarrierRoundsTest} fail tasks mid-round.)
 */
class ExecutorWeightsTest {
  private static final JavaSparkContext JSC =
      JavaSparkContext.fromSparkContext(SparkTestSupport.spark().sparkContext());
  private static final int D = 1_000;
  private static final int K = 3;
  private static final int LENGTH = K * (D + 1);
  private static final LearnerConfig LEARNER = new LearnerConfig(D, K, true, 1.0,
      UpdateRule.PERCEPTRON, 1.0, Averaging.AVERAGE);
  /** Worker 0's features: a few of d, spread out. */
  private static final LocalFeatures FEATURES = new LocalFeatures(D,
      new int[] {0, 3, 10, 500, 998});

  private static ExecutorWeights.WorkerCopy checkout(WeightsRef ref, int worker,
      LocalFeatures features, long idleBytes) {
    return ExecutorWeights.checkout(ref, worker, LEARNER, features, StateLayout.FEATURE_MAJOR,
        idleBytes);
  }

  /** Asserts the copy holds {@code w} at every coordinate of its worker, its accumulator zero. */
  private static void assertHolds(double[] w, ExecutorWeights.WorkerCopy c, String when) {
    LocalWeights copy = c.weights();
    assertEquals(K * (copy.features().size() + 1), copy.weights().length);
    for (int slot = 0; slot < copy.weights().length; slot++) {
      int j = copy.globalCoordinate(slot);
      assertEquals(Double.doubleToRawLongBits(w[j]),
          Double.doubleToRawLongBits(copy.weights()[slot]), when + ": coordinate " + j);
      assertEquals(0.0, copy.average()[slot], when + ": accumulator at " + j);
    }
    assertEquals(0, copy.touched().count(), when);
  }

  private static double[] randomWeights(Random rnd) {
    double[] w = new double[LENGTH];
    for (int j = 0; j < LENGTH; j++) {
      w[j] = rnd.nextGaussian();
    }
    return w;
  }

  /** Changes {@code count} random coordinates of {@code w} and tells the shipper. */
  private static void change(Random rnd, double[] w, WeightShipper shipper, int count) {
    for (int i = 0; i < count; i++) {
      int j = rnd.nextInt(LENGTH);
      w[j] = rnd.nextGaussian();
      shipper.changed(j);
    }
  }

  @Test
  void aKeptCopyIsBroughtUpToDateAtTheCoordinatesThatChanged() {
    Random rnd = new Random(3);
    try (WeightShipper shipper = new WeightShipper(JSC, "test/" + UUID.randomUUID(), LENGTH)) {
      double[] w = randomWeights(rnd);
      ExecutorWeights.WorkerCopy first = checkout(shipper.ship(w), 0, FEATURES, Long.MAX_VALUE);
      assertHolds(w, first, "new");
      for (int round = 1; round <= 5; round++) {
        // The round leaves its copy off the shipped weights at two slots it names.
        LocalWeights copy = first.weights();
        int a = rnd.nextInt(copy.weights().length);
        int b = rnd.nextInt(copy.weights().length);
        copy.weights()[a] += 1.0;
        copy.weights()[b] -= 1.0;
        int[] differs = a == b ? new int[] {copy.globalCoordinate(a)}
            : new int[] {copy.globalCoordinate(Math.min(a, b)),
                copy.globalCoordinate(Math.max(a, b))};
        ExecutorWeights.release(first, differs);
        // The driver changes a few coordinates (some the worker holds, most not): a chain of
        // changes, no new snapshot.
        change(rnd, w, shipper, 40);
        w[FEATURES.global(2)] = -7.0 * round;
        shipper.changed(FEATURES.global(2));
        ExecutorWeights.WorkerCopy next = checkout(shipper.ship(w), 0, FEATURES,
            Long.MAX_VALUE);
        assertSame(first, next, "round " + round + ": the worker's copy is kept");
        assertHolds(w, next, "round " + round);
      }
      assertEquals(1, shipper.snapshots());
    }
  }

  @Test
  void aNewSnapshotGathersAKeptCopyWhole() {
    Random rnd = new Random(4);
    try (WeightShipper shipper = new WeightShipper(JSC, "test/" + UUID.randomUUID(), LENGTH)) {
      double[] w = randomWeights(rnd);
      ExecutorWeights.WorkerCopy c = checkout(shipper.ship(w), 0, FEATURES, Long.MAX_VALUE);
      ExecutorWeights.release(c, new int[0]);
      // Two versions later, after more than a quarter of the weights changed: a new snapshot.
      change(rnd, w, shipper, 10);
      shipper.ship(w);
      for (int j = 0; j < LENGTH; j += 2) {
        w[j] = rnd.nextGaussian();
        shipper.changed(j);
      }
      ExecutorWeights.WorkerCopy again = checkout(shipper.ship(w), 0, FEATURES, Long.MAX_VALUE);
      assertEquals(2, shipper.snapshots());
      assertSame(c, again);
      assertHolds(w, again, "after a new snapshot");
    }
  }

  @Test
  void copiesBelongToTheirWorkerAndStayWithinTheIdleBound() {
    Random rnd = new Random(5);
    LocalFeatures other = new LocalFeatures(D, new int[] {1, 2, 3, 4});
    try (WeightShipper shipper = new WeightShipper(JSC, "test/" + UUID.randomUUID(), LENGTH)) {
      double[] w = randomWeights(rnd);
      WeightsRef v1 = shipper.ship(w);
      // w and u over K × 6 coordinates, one word of touched bits: room for worker 0's copy only.
      long bytes = 8L * K * 6 * 2 + 8;
      ExecutorWeights.WorkerCopy zero = checkout(v1, 0, FEATURES, bytes);
      ExecutorWeights.WorkerCopy one = checkout(v1, 1, other, bytes);
      assertHolds(w, one, "worker 1");
      assertEquals(bytes, zero.weights().sizeInBytes());
      // Handed back in this order, worker 0's copy fills the room: worker 1's is dropped.
      ExecutorWeights.release(zero, new int[0]);
      ExecutorWeights.release(one, new int[0]);
      change(rnd, w, shipper, 5);
      WeightsRef v2 = shipper.ship(w);
      ExecutorWeights.WorkerCopy zeroAgain = checkout(v2, 0, FEATURES, bytes);
      ExecutorWeights.WorkerCopy oneAgain = checkout(v2, 1, other, bytes);
      assertSame(zero, zeroAgain);
      assertNotSame(one, oneAgain);
      assertHolds(w, oneAgain, "worker 1's new copy");
      // A block read back from Spark's cache is another map object with the same features.
      ExecutorWeights.release(zeroAgain, new int[0]);
      ExecutorWeights.WorkerCopy sameMap = checkout(v2, 0,
          new LocalFeatures(D, new int[] {0, 3, 10, 500, 998}), bytes);
      assertSame(zero, sameMap);
    }
  }

  /**
   * A task's private copy of all the weights ({@link ExecutorWeights#checkoutWhole}), changed in
   * place and handed back, is the next task's copy, equal bit for bit to the shipped weights of
   * its round: set where its last user wrote and where the driver's changes since its version
   * are, copied whole after a new snapshot; two tasks at once get two copies.
   */
  @Test
  void aPrivateWholeCopyIsReusedAndEqualsTheShippedWeightsOfItsRound() {
    Random rnd = new Random(6);
    try (WeightShipper shipper = new WeightShipper(JSC, "test/" + UUID.randomUUID(), LENGTH)) {
      double[] w = randomWeights(rnd);
      ExecutorWeights.WholeCopy first = ExecutorWeights.checkoutWhole(shipper.ship(w));
      assertBitsEqual(w, first.values(), "new");
      ExecutorWeights.WholeCopy second = ExecutorWeights.checkoutWhole(shipper.ship(w));
      assertNotSame(first.values(), second.values(), "two tasks at once, two copies");
      ExecutorWeights.releaseWhole(second, new int[0]);
      for (int round = 1; round <= 6; round++) {
        // The task writes its copy at a few coordinates (-0.0 too: set, never added, back).
        int[] written = rnd.ints(0, LENGTH).distinct().limit(7).sorted().toArray();
        for (int j : written) {
          first.values()[j] = round % 2 == 0 ? -0.0 : rnd.nextGaussian();
        }
        ExecutorWeights.releaseWhole(first, written);
        if (round == 4) {
          // More than a quarter of the weights change: the next version is a snapshot.
          for (int j = 0; j < LENGTH; j += 3) {
            w[j] = rnd.nextGaussian();
            shipper.changed(j);
          }
        } else {
          change(rnd, w, shipper, 30);
        }
        ExecutorWeights.WholeCopy next = ExecutorWeights.checkoutWhole(shipper.ship(w));
        assertSame(first, next, "round " + round + ": the copy handed back last is reused");
        assertBitsEqual(w, next.values(), "round " + round);
      }
      assertEquals(2, shipper.snapshots());
    }
  }

  private static void assertBitsEqual(double[] expected, double[] actual, String when) {
    assertEquals(expected.length, actual.length);
    for (int j = 0; j < expected.length; j++) {
      assertEquals(Double.doubleToRawLongBits(expected[j]), Double.doubleToRawLongBits(actual[j]),
          when + ": coordinate " + j);
    }
  }
}
