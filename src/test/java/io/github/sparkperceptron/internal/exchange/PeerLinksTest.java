package io.github.sparkperceptron.internal.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.RoundTree;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The barrier exchange's sockets on the loopback interface, without Spark: tasks meet at the
 * driver's {@link Rendezvous}, connect along the tree and run rounds whose mix is the driver's,
 * in clear and sealed; a task that dies, a killed task and a task of another training never
 * leave the others waiting.
 */
class PeerLinksTest {
  /** Far longer than any wait below (connect timeout and liveness): reaching it would be a hang. */
  private static final int TIMEOUT_MS = 120_000;
  /** The training's settings, with a fixed secret (tests only). */
  static final WireSettings WIRE = new WireSettings(new byte[WireSettings.SECRET_BYTES], false,
      TIMEOUT_MS, TIMEOUT_MS);

  private ExecutorService pool;
  private Rendezvous rendezvous;

  @BeforeEach
  void start() throws IOException {
    pool = Executors.newCachedThreadPool();
    rendezvous = Rendezvous.start("127.0.0.1", "127.0.0.1", 0, WIRE);
  }

  @AfterEach
  void stop() {
    rendezvous.close();
    pool.shutdownNow();
  }

  /** Another training's settings: the same but for the secret's last byte. */
  static WireSettings otherTraining(WireSettings wire) {
    byte[] secret = wire.secret.clone();
    secret[secret.length - 1] ^= 1;
    return new WireSettings(secret, wire.sealed, wire.connectTimeoutMillis, wire.livenessMillis);
  }

  /** The same training, sealed. */
  static WireSettings sealed(WireSettings wire) {
    return new WireSettings(wire.secret, true, wire.connectTimeoutMillis, wire.livenessMillis);
  }

  static PeerLinks connect(Rendezvous at, WireSettings wire, long group, int workers,
      int worker, AtomicBoolean cancelled) throws IOException {
    return PeerLinks.connect(new Rendezvous.Ticket("127.0.0.1", at.port(), wire),
        new PeerLinks.Seat(group, workers, worker, "127.0.0.1", "127.0.0.1",
            RoundTree.maxFrameBytes(25)), cancelled::get);
  }

  private PeerLinks connect(long group, int workers, int worker, WireSettings wire,
      AtomicBoolean cancelled) throws IOException {
    return connect(rendezvous, wire, group, workers, worker, cancelled);
  }

  private static WorkerResult leaf(Random rnd, int worker, int length) {
    double[] dw = new double[length];
    for (int j = 0; j < length; j++) {
      dw[j] = rnd.nextInt(3) == 0 ? rnd.nextGaussian() * 1e3 : 0.0;
    }
    EpochStats stats = new EpochStats();
    stats.updates = 1 + rnd.nextInt(9);
    stats.stepSum = stats.updates;
    return new WorkerResult(worker, stats.updates, StateDelta.dense(dw, null),
        new EpochStats[] {stats});
  }

  private static double[] applied(StateDelta d) {
    double[] w = new double[d.length()];
    d.applyTo(w, null);
    return w;
  }

  @ParameterizedTest(name = "sealed={0}")
  @ValueSource(booleans = {false, true})
  void tasksMeetAndEveryRoundEndsWithTheDriversMix(boolean sealed) throws Exception {
    WireSettings wire = sealed ? sealed(WIRE) : WIRE;
    if (sealed) {
      rendezvous.close();
      rendezvous = Rendezvous.start("127.0.0.1", "127.0.0.1", 0, wire);
    }
    int workers = 6;
    int rounds = 3;
    Random rnd = new Random(11);
    WorkerResult[][] leaves = new WorkerResult[rounds][workers];
    for (int r = 0; r < rounds; r++) {
      for (int p = 0; p < workers; p++) {
        leaves[r][p] = leaf(rnd, p, 25);
      }
    }
    List<Future<List<double[]>>> done = new ArrayList<>();
    for (int p = 0; p < workers; p++) {
      int worker = p;
      done.add(pool.submit(() -> {
        List<double[]> mixes = new ArrayList<>();
        try (PeerLinks links = connect(1L << 32, workers, worker, wire,
            new AtomicBoolean())) {
          for (int r = 0; r < rounds; r++) {
            mixes.add(applied(RoundTree.allReduce(leaves[r][worker], workers, links).delta()));
          }
          assertTrue(links.bytesSent() > 0);
        }
        return mixes;
      }));
    }
    for (int r = 0; r < rounds; r++) {
      ParameterMix mix = new ParameterMix(workers);
      for (int p = workers - 1; p >= 0; p--) {
        WorkerResult l = leaves[r][p];
        mix.add(new WorkerResult(p, l.mixWeight(), l.delta(), new EpochStats[0]));
      }
      double[] expected = applied(mix.result().delta());
      for (int p = 0; p < workers; p++) {
        assertArrayEquals(expected, done.get(p).get(60, TimeUnit.SECONDS).get(r), 0.0,
            "round " + r + ", worker " + p);
      }
    }
    assertEquals(1, rendezvous.completedGroups());
  }

  @Test
  void aTaskThatDiesFailsItsNeighboursAtOnceNotAtTheTimeout() throws Exception {
    int workers = 4;
    List<Future<Object>> done = new ArrayList<>();
    for (int p = 0; p < workers; p++) {
      int worker = p;
      done.add(pool.submit(() -> {
        try (PeerLinks links = connect(2L << 32, workers, worker, WIRE,
            new AtomicBoolean())) {
          if (worker == 2) {
            return null;
          }
          return RoundTree.allReduce(leaf(new Random(worker), worker, 5), workers, links);
        }
      }));
    }
    // Worker 2 closes its links at once; its parent 0 waits for it and must fail, and with
    // worker 0 gone, workers 1 and 3 too, long before the 120 s timeout.
    for (int p : new int[] {0, 1, 3}) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> done.get(p).get(60, TimeUnit.SECONDS), "worker " + p);
      assertTrue(e.getCause() instanceof IOException, e.toString());
    }
  }

  @Test
  void aKilledTaskStopsWaiting() throws Exception {
    AtomicBoolean killed = new AtomicBoolean();
    // Worker 0 of two waits at the rendezvous for worker 1, which never comes.
    Future<PeerLinks> waiting = pool.submit(() -> connect(3L << 32, 2, 0, WIRE, killed));
    Thread.sleep(300);
    killed.set(true);
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> waiting.get(60, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof Frames.Abandoned, e.toString());
    assertTrue(e.getCause().getMessage().contains("killed"), e.getCause().getMessage());
  }

  @Test
  void aTaskOfAnotherTrainingCannotJoin() throws Exception {
    Future<PeerLinks> stranger = pool.submit(() -> connect(4L << 32, 2, 1,
        otherTraining(WIRE), new AtomicBoolean()));
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> stranger.get(60, TimeUnit.SECONDS));
    // Refused at once by the task itself: the rendezvous' proof does not match its secret.
    assertTrue(e.getCause() instanceof Handshake.Refused, e.toString());
    // The group still waits for its real worker 1.
    Future<PeerLinks> zero = pool.submit(() -> connect(4L << 32, 2, 0, WIRE,
        new AtomicBoolean()));
    Future<PeerLinks> one = pool.submit(() -> connect(4L << 32, 2, 1, WIRE,
        new AtomicBoolean()));
    zero.get(60, TimeUnit.SECONDS).close();
    one.get(60, TimeUnit.SECONDS).close();
    assertEquals(1, rendezvous.completedGroups());
  }

  @Test
  void aLaterStageAttemptReleasesTheTasksOfAnEarlierOne() throws Exception {
    long stage = 9L << 32;
    // In either order: an attempt-0 task that registered first is released, one that comes
    // after attempt 1 is refused.
    Future<PeerLinks> old = pool.submit(() -> connect(stage, 2, 0, WIRE, new AtomicBoolean()));
    Thread.sleep(300);
    Future<PeerLinks> retried = pool.submit(() -> connect(stage | 1, 2, 0, WIRE,
        new AtomicBoolean()));
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> old.get(60, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof IOException, e.toString());
    Future<PeerLinks> partner = pool.submit(() -> connect(stage | 1, 2, 1, WIRE,
        new AtomicBoolean()));
    retried.get(60, TimeUnit.SECONDS).close();
    partner.get(60, TimeUnit.SECONDS).close();
  }
}
