package io.github.sparkperceptron.internal.mixing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The workers' all-reduce against the driver's {@link ParameterMix}: every worker ends a round
 * with the driver's mixed change, bit for bit, whatever the number of workers, the density of
 * their changes or the order in which their threads run; and the frames carry a delta exactly.
 */
class RoundTreeTest {

  /** A leaf with a random change: sparse or dense, with or without δu, μ sometimes zero. */
  private static WorkerResult randomLeaf(Random rnd, int worker, int length,
      boolean averaging) {
    EpochStats stats = new EpochStats();
    stats.updates = rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(40);
    stats.stepSum = stats.updates * (0.5 + rnd.nextDouble());
    double[] w = new double[length];
    double[] base = new double[length];
    double[] u = averaging ? new double[length] : null;
    List<Integer> touched = new ArrayList<>();
    double share = rnd.nextInt(3) == 0 ? 0.9 : 0.1;
    for (int j = 0; j < length; j++) {
      base[j] = rnd.nextGaussian();
      w[j] = base[j];
      if (rnd.nextDouble() < share) {
        touched.add(j);
        w[j] += rnd.nextGaussian() * Math.pow(10, rnd.nextInt(8) - 4);
        if (u != null) {
          u[j] = rnd.nextGaussian() * 100;
        }
      }
    }
    int[] idx = touched.stream().mapToInt(Integer::intValue).toArray();
    StateDelta delta = StateDelta.between(idx, w, base, u, false);
    return new WorkerResult(worker, stats.updates, delta, new EpochStats[] {stats});
  }

  private static double[][] dense(StateDelta d) {
    double[] w = new double[d.length()];
    double[] u = new double[d.length()];
    for (int k = 0; k < d.storedEntries(); k++) {
      w[d.coordinate(k)] = d.weightChange(k);
      u[d.coordinate(k)] = d.averageChange(k);
    }
    return new double[][] {w, u};
  }

  /** In-memory links: one queue per (from, to), as a socket per pair would be. */
  private static final class Queues {
    final BlockingQueue<ByteBuffer>[][] q;

    @SuppressWarnings("unchecked")
    Queues(int workers) {
      q = new BlockingQueue[workers][workers];
      for (int a = 0; a < workers; a++) {
        for (int b = 0; b < workers; b++) {
          q[a][b] = new LinkedBlockingQueue<>();
        }
      }
    }

    RoundTree.Link of(int self) {
      return new RoundTree.Link() {
        @Override
        public void send(int peer, ByteBuffer frame) {
          ByteBuffer copy = ByteBuffer.allocate(frame.remaining());
          copy.put(frame.duplicate()).flip();
          q[self][peer].add(copy);
        }

        @Override
        public ByteBuffer receive(int peer) throws IOException {
          try {
            ByteBuffer b = q[peer][self].poll(30, TimeUnit.SECONDS);
            if (b == null) {
              throw new IOException("worker " + self + " waited for " + peer + " in vain");
            }
            return b;
          } catch (InterruptedException e) {
            throw new IOException(e);
          }
        }
      };
    }
  }

  @Test
  void everyWorkerEndsWithTheDriversMixBitForBit() throws Exception {
    Random rnd = new Random(7);
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      for (int workers : new int[] {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 33}) {
        for (boolean averaging : new boolean[] {true, false}) {
          List<WorkerResult> leaves = new ArrayList<>();
          for (int p = 0; p < workers; p++) {
            leaves.add(randomLeaf(rnd, p, 40, averaging));
          }
          // The driver: ParameterMix over the leaves in a random arrival order.
          List<WorkerResult> shuffled = new ArrayList<>();
          for (WorkerResult l : leaves) {
            shuffled.add(WorkerResult.node(l.worker(), l.mixWeight(), l.stepSum(),
                l.delta()));
          }
          Collections.shuffle(shuffled, rnd);
          ParameterMix mix = new ParameterMix(workers);
          for (WorkerResult l : shuffled) {
            mix.add(l);
          }
          WorkerResult driver = mix.result();
          Queues queues = new Queues(workers);
          List<Future<RoundTree.Mixed>> done = new ArrayList<>();
          for (int p = 0; p < workers; p++) {
            WorkerResult leaf = leaves.get(p);
            RoundTree.Link link = queues.of(p);
            done.add(pool.submit(() -> RoundTree.allReduce(leaf, workers, link)));
          }
          double[][] expected = dense(driver.delta());
          for (int p = 0; p < workers; p++) {
            RoundTree.Mixed m = done.get(p).get(60, TimeUnit.SECONDS);
            double[][] actual = dense(m.delta());
            String what = workers + " workers, worker " + p;
            assertArrayEquals(expected[0], actual[0], 0.0, what);
            assertArrayEquals(expected[1], actual[1], 0.0, what);
            assertEquals(Double.doubleToRawLongBits(driver.stepSum()),
                Double.doubleToRawLongBits(m.stepSum()), what);
            assertEquals(driver.delta().isDense(), m.delta().isDense(), what);
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theTreeIsParameterMixsBinomialTree() {
    for (int workers = 1; workers <= 70; workers++) {
      int[] parentOf = new int[workers];
      Arrays.fill(parentOf, -2);
      for (int p = 0; p < workers; p++) {
        int[] children = RoundTree.children(p, workers);
        for (int k = 0; k < children.length; k++) {
          int c = children[k];
          assertTrue(c > p && c < workers, "children lie to the right");
          assertEquals(1 << k, c - p, "the k-th child covers the next 2^k workers");
          assertEquals(-2, parentOf[c], "one parent each");
          parentOf[c] = p;
        }
      }
      for (int p = 1; p < workers; p++) {
        assertEquals(RoundTree.parent(p), parentOf[p], "parent and children agree");
      }
      assertEquals(-1, RoundTree.parent(0));
    }
  }

  @Test
  void aFrameCarriesADeltaExactlyInItsOwnRepresentation() {
    double[] w = {0.0, -0.0, 1e-310, Double.MAX_VALUE, 3.5, -2.25};
    double[] base = new double[w.length];
    int[] all = {0, 1, 2, 3, 4, 5};
    double[] u = {1, 2, 3, 4, 5, 6};
    for (StateDelta d : new StateDelta[] {
        StateDelta.between(new int[] {1, 3, 4}, w, base, u, false),
        StateDelta.between(new int[] {1, 3, 4}, w, base, null, true),
        StateDelta.between(all, w, base, u, false),
        StateDelta.between(all, w, base, null, true),
        StateDelta.between(new int[0], w, base, u, false),
        StateDelta.between(new int[] {2}, w, base, u, false, Double.POSITIVE_INFINITY)}) {
      ByteBuffer out = ByteBuffer.allocate(d.serializedSize());
      d.write(out);
      assertEquals(0, out.remaining(), "serializedSize is what write writes");
      out.flip();
      StateDelta back = StateDelta.read(out, d.length(), d.hasAverage());
      assertEquals(d.length(), back.length());
      assertEquals(d.isDense(), back.isDense());
      assertEquals(d.hasAverage(), back.hasAverage());
      assertEquals(d.storedEntries(), back.storedEntries());
      for (int k = 0; k < d.storedEntries(); k++) {
        assertEquals(d.coordinate(k), back.coordinate(k));
        assertEquals(Double.doubleToRawLongBits(d.weightChange(k)),
            Double.doubleToRawLongBits(back.weightChange(k)));
        assertEquals(Double.doubleToRawLongBits(d.averageChange(k)),
            Double.doubleToRawLongBits(back.averageChange(k)));
      }
      // Exact weights (one worker) are set, not added: applied to a base other than the one
      // they came from, both deltas must still write the same bits.
      double[] afterD = {7, 7, 7, 7, 7, 7};
      double[] afterBack = afterD.clone();
      d.applyTo(afterD, null);
      back.applyTo(afterBack, null);
      for (int j = 0; j < afterD.length; j++) {
        assertEquals(Double.doubleToRawLongBits(afterD[j]),
            Double.doubleToRawLongBits(afterBack[j]), "coordinate " + j + " after applying");
      }
    }
  }

  @Test
  void aCorruptedFrameIsRefusedNotApplied() {
    StateDelta d = StateDelta.sparse(10, new int[] {2, 5}, new double[] {1, 2}, null);
    ByteBuffer frame = RoundTree.encode(new WorkerResult(0, 1, d, new EpochStats[0]));
    // The second index (after worker, μ, mass, length, share, flags, count, first index).
    frame.putInt(4 + 8 + 8 + 4 + 8 + 1 + 4 + 4, 12);
    assertThrows(IllegalArgumentException.class, () -> RoundTree.decode(frame.duplicate(), 1, d));
    ByteBuffer longer = ByteBuffer.allocate(frame.capacity() + 1);
    longer.put(RoundTree.encode(new WorkerResult(0, 1, d, new EpochStats[0]))).put((byte) 0)
        .flip();
    assertThrows(IllegalArgumentException.class, () -> RoundTree.decode(longer, 1, d));
  }

  /**
   * A frame that announces more than it holds, or another state than the round's, is refused
   * before anything of the announced size is allocated: a count of 2³⁰ entries in a 60-byte
   * frame, a delta over another length, averages where the round has none, a worker outside
   * [0, W), unknown flags.
   */
  @Test
  void aHostileFrameIsRefusedBeforeAllocating() {
    StateDelta shape = StateDelta.sparse(10, new int[] {2, 5}, new double[] {1, 2}, null);
    ByteBuffer good = RoundTree.encode(new WorkerResult(1, 1, shape, new EpochStats[0]));
    assertEquals(1, RoundTree.decode(good.duplicate(), 2, shape).worker());
    int count = 4 + 8 + 8 + 4 + 8 + 1;
    int flags = count - 1;
    ByteBuffer huge = copy(good);
    huge.putInt(count, 1 << 30);
    ByteBuffer longer = copy(good);
    longer.putInt(4 + 8 + 8, 1 << 30);
    ByteBuffer averaged = copy(good);
    averaged.put(flags, (byte) 2);
    ByteBuffer unknown = copy(good);
    unknown.put(flags, (byte) 8);
    ByteBuffer stranger = copy(good);
    stranger.putInt(0, 7);
    for (ByteBuffer bad : List.of(huge, longer, averaged, unknown, stranger)) {
      assertThrows(IllegalArgumentException.class, () -> RoundTree.decode(bad, 2, shape));
    }
    assertTrue(RoundTree.maxFrameBytes(10) >= good.remaining());
    assertEquals(Integer.MAX_VALUE - 8, RoundTree.maxFrameBytes(Integer.MAX_VALUE));
  }

  private static ByteBuffer copy(ByteBuffer b) {
    ByteBuffer out = ByteBuffer.allocate(b.remaining());
    out.put(b.duplicate()).flip();
    return out;
  }
}
