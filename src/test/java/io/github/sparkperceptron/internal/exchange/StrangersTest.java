package io.github.sparkperceptron.internal.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.RoundTree;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.testing.Strangers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every kind of {@link Strangers} hammering the driver's rendezvous and the tasks' listeners
 * while a stage's tasks meet there and run their rounds, on loopback: the tasks' mixes are the
 * driver's, the stage sets up long before any stranger's connection could have timed out (so no
 * task waited behind one), every listener binds to the address given (none to every
 * interface), and the rendezvous serves the next stage afterwards.
 *
 * <p>To give the strangers the tasks' listeners to find, worker 3 of 4 registers half a second
 * after the others, so that workers 0 and 2, which have children, listen meanwhile.
 */
class StrangersTest {
  /**
   * The connect timeout: a connection in its handshake costs the gate at most this long, so a
   * stage that waited behind a stranger would take at least this long.
   */
  private static final int CONNECT_TIMEOUT_MS = 20_000;
  private static final WireSettings WIRE = new WireSettings(new byte[WireSettings.SECRET_BYTES],
      false, CONNECT_TIMEOUT_MS, 120_000);
  private static final int WORKERS = 4;
  private static final int ROUNDS = 2;
  private static final int LENGTH = 30;

  private ExecutorService pool;
  private Rendezvous rendezvous;

  @BeforeEach
  void start() throws Exception {
    pool = Executors.newCachedThreadPool();
    rendezvous = Rendezvous.start("127.0.0.1", "127.0.0.1", 0, WIRE);
  }

  @AfterEach
  void stop() {
    rendezvous.close();
    pool.shutdownNow();
  }

  private static WorkerResult leaf(Random rnd, int worker) {
    double[] dw = new double[LENGTH];
    for (int j = 0; j < LENGTH; j++) {
      dw[j] = rnd.nextInt(3) == 0 ? rnd.nextGaussian() : 0.0;
    }
    EpochStats stats = new EpochStats();
    stats.updates = 1 + rnd.nextInt(5);
    stats.stepSum = stats.updates;
    return new WorkerResult(worker, stats.updates, StateDelta.dense(dw, null),
        new EpochStats[] {stats});
  }

  private static double[] applied(StateDelta d) {
    double[] w = new double[d.length()];
    d.applyTo(w, null);
    return w;
  }

  /**
   * Runs one stage of {@link #WORKERS} tasks; returns how long its set-up took (ns). With
   * {@code whileWaiting}, the last task starts half a second late and {@code whileWaiting} runs
   * just before it, while the others listen; without, all start at once.
   */
  private long stage(long group, WorkerResult[][] leaves, Runnable whileWaiting)
      throws Exception {
    List<Future<List<double[]>>> done = new ArrayList<>();
    long[] lastStarted = new long[1];
    for (int p = 0; p < WORKERS; p++) {
      int worker = p;
      if (worker == WORKERS - 1) {
        if (whileWaiting != null) {
          Thread.sleep(500);
          whileWaiting.run();
        }
        lastStarted[0] = System.nanoTime();
      }
      done.add(pool.submit(() -> {
        List<double[]> mixes = new ArrayList<>();
        try (PeerLinks links = PeerLinksTest.connect(rendezvous, WIRE, group, WORKERS, worker,
            new AtomicBoolean())) {
          for (int r = 0; r < ROUNDS; r++) {
            mixes.add(applied(RoundTree.allReduce(leaves[r][worker], WORKERS, links).delta()));
          }
        }
        return mixes;
      }));
    }
    for (int r = 0; r < ROUNDS; r++) {
      ParameterMix mix = new ParameterMix(WORKERS);
      for (int p = 0; p < WORKERS; p++) {
        WorkerResult l = leaves[r][p];
        mix.add(new WorkerResult(p, l.mixWeight(), l.delta(), new EpochStats[0]));
      }
      double[] expected = applied(mix.result().delta());
      for (int p = 0; p < WORKERS; p++) {
        assertArrayEquals(expected, done.get(p).get(120, TimeUnit.SECONDS).get(r), 0.0,
            "round " + r + ", worker " + p);
      }
    }
    return System.nanoTime() - lastStarted[0];
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Strangers.Kind.class)
  void aStrangerCannotHurtTheRendezvousOrTheTasksListeners(Strangers.Kind kind)
      throws Exception {
    Random rnd = new Random(kind.ordinal());
    WorkerResult[][] leaves = new WorkerResult[ROUNDS][WORKERS];
    for (int r = 0; r < ROUNDS; r++) {
      for (int p = 0; p < WORKERS; p++) {
        leaves[r][p] = leaf(rnd, p);
      }
    }
    Set<Integer> before = Strangers.listenersOfThisJvm(null);
    before.remove(rendezvous.port());
    Set<Integer> wildcard = new HashSet<>();
    Set<Integer> seen = new HashSet<>();
    long setup;
    try (Strangers.Scout scout = Strangers.newListenersOfThisJvm(rendezvous.port());
        Strangers stranger = Strangers.start(kind, scout)) {
      setup = stage(5L << 32, leaves, () -> {
        seen.addAll(Strangers.listenersOfThisJvm(wildcard));
        seen.removeAll(before);
        wildcard.removeAll(before);
      });
      assertTrue(stranger.connections() > 0, "the stranger connected");
    }
    // Workers 0 and 2 listened while worker 3 was late, on the loopback address given.
    assertEquals(3, seen.size(), "the rendezvous and two listeners: " + seen);
    assertTrue(wildcard.isEmpty(), "ports bound to every interface: " + wildcard);
    assertTrue(setup < CONNECT_TIMEOUT_MS / 2 * 1_000_000L, "the stage took " + setup / 1e6
        + " ms after its last task started: it waited behind a stranger");
    // The rendezvous still serves: the next stage meets, undisturbed.
    stage(6L << 32, leaves, null);
    assertEquals(2, rendezvous.completedGroups());
  }
}
