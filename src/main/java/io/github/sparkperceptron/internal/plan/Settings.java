package io.github.sparkperceptron.internal.plan;

import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * Every Spark configuration key of the library, in one table: each is read from a local property
 * of the fitting (or streaming) thread first, so that a test or a notebook can set it for one
 * fit, then from the Spark configuration. A key exists only where a param cannot serve: it says
 * where and how the same arithmetic runs, or it is a seam for tests; none of the product's keys
 * changes a model. The README's "Settings" section documents the product's keys for users (a
 * test holds the two lists equal); the {@code test.} keys are seams, not settings.
 *
 * <table>
 * <caption>Keys</caption>
 * <tr><th>key</th><th>values</th><th>meaning</th></tr>
 * <tr><td>{@value #ROUND_EXECUTION}</td><td>auto (default), barrier, jobs</td><td>auto: the
 * rounds of the epochs run in barrier stages where Spark can run them, else one job per round,
 * and the log says why; barrier: an error naming the reason when it cannot; jobs: always one
 * job per round ({@link RoundExecution})</td></tr>
 * <tr><td>{@value #BARRIER_PORT}</td><td>port, default 0 (any free one)</td><td>the driver's
 * rendezvous port, for clusters whose executors reach the driver only on chosen ports</td></tr>
 * <tr><td>{@value #BARRIER_CONNECT_TIMEOUT}</td><td>seconds, default
 * {@value RoundExecution#DEFAULT_CONNECT_TIMEOUT_S}</td><td>how long setting up one connection
 * of the exchange may take (the TCP connect and the handshake, retries included; on the
 * listening side, how long a connection may take to authenticate): a firewalled or unreachable
 * peer makes the training fall back to one job per round after about this long</td></tr>
 * <tr><td>{@value #BARRIER_TIMEOUT}</td><td>seconds, default
 * {@value RoundExecution#DEFAULT_TIMEOUT_S}</td><td>liveness: how long an established connection
 * may go unanswered at the TCP level (keep-alive probes) before its peer's host counts as gone.
 * Not a bound on a round: a slow worker's host answers the probes</td></tr>
 * <tr><td>{@value #BARRIER_ENCRYPTION}</td><td>auto (default), always, jobs</td><td>auto: the
 * exchange's frames are sealed (AES-256-GCM) when one of Spark's security settings is on
 * ({@link RoundExecution#SPARK_SECURITY_KEYS}), else they travel in clear after the mutual
 * handshake; always: sealed whatever Spark's settings; jobs: under Spark's security settings the
 * exchange is not used, and the rounds run as one Spark job each</td></tr>
 * <tr><td>{@value #DELTA_ENCODING}</td><td>auto (default), sparse, dense</td><td>how the
 * workers' changes of a round are encoded: by their density, or always as index/value pairs, or
 * always as whole arrays ({@link MixingSettings})</td></tr>
 * <tr><td>{@value #MEMORY_CHECK}</td><td>refuse (default), warn</td><td>what the memory plan
 * does with a training it says cannot fit: refuse it with a message naming the fix, or log the
 * same message and train anyway ({@link MemoryPlan})</td></tr>
 * <tr><td>{@value #TEST_CHUNK_BYTES}</td><td>bytes</td><td>test seam: bytes per chunk of cached
 * rows (changes the models of workers beyond a window: windows are whole chunks)</td></tr>
 * <tr><td>{@value #TEST_WINDOW_BYTES}</td><td>bytes</td><td>test seam: bytes per window of an
 * epoch (changes the models of workers beyond it)</td></tr>
 * <tr><td>{@value #TEST_INJECT_FAILURE}</td><td>a failure mode</td><td>test seam: a worker's
 * task fails, hangs, lies or ends its JVM where the mode says (FaultInjection)</td></tr>
 * <tr><td>{@value #TEST_STREAM_ONE_JOB}</td><td>true (default), false</td><td>test seam: false
 * makes every stream batch take the path of three jobs and a shuffle, the reference the one-job
 * batches are tested against</td></tr>
 * <tr><td>{@value #TEST_PAUSE_AFTER_BATCH}</td><td>a batch number</td><td>test seam: the stream's
 * driver stops dead after saving that batch's state, before Spark commits it</td></tr>
 * </table>
 */
public final class Settings {
  /** How the rounds run: {@code auto}, {@code barrier} or {@code jobs}. */
  public static final String ROUND_EXECUTION = "spark.perceptron.roundExecution";
  /** The driver's rendezvous port of the barrier exchange. */
  public static final String BARRIER_PORT = "spark.perceptron.barrier.port";
  /** Seconds one connection of the barrier exchange may take to set up. */
  public static final String BARRIER_CONNECT_TIMEOUT = "spark.perceptron.barrier.connectTimeout";
  /** Seconds an established connection may go unanswered at the TCP level. */
  public static final String BARRIER_TIMEOUT = "spark.perceptron.barrier.timeout";
  /** Whether the barrier exchange seals its frames: {@code auto}, {@code always}, {@code jobs}. */
  public static final String BARRIER_ENCRYPTION = "spark.perceptron.barrier.encryption";
  /** The encoding of the workers' changes: {@code auto}, {@code sparse} or {@code dense}. */
  public static final String DELTA_ENCODING = "spark.perceptron.deltaEncoding";
  /** What the memory plan does with a training that cannot fit: {@code refuse} or {@code warn}. */
  public static final String MEMORY_CHECK = "spark.perceptron.memoryCheck";
  /** Test seam: bytes per chunk of cached rows. */
  public static final String TEST_CHUNK_BYTES = "spark.perceptron.test.chunkBytes";
  /** Test seam: bytes per window of an epoch's visits. */
  public static final String TEST_WINDOW_BYTES = "spark.perceptron.test.windowBytes";
  /** Test seam: the failure a worker's task injects. */
  public static final String TEST_INJECT_FAILURE = "spark.perceptron.test.injectFailure";
  /** Test seam: {@code false} sends stream batches down the reference path of three jobs. */
  public static final String TEST_STREAM_ONE_JOB = "spark.perceptron.test.streamOneJob";
  /** Test seam: the stream batch after which the driver stops dead. */
  public static final String TEST_PAUSE_AFTER_BATCH = "spark.perceptron.test.pauseAfterBatch";

  private Settings() {
  }

  /** A key's value for the calling thread: its local property, else the Spark configuration. */
  public static String read(JavaSparkContext jsc, String key, String defaultValue) {
    String local = jsc.getLocalProperty(key);
    return local != null ? local : jsc.getConf().get(key, defaultValue);
  }

  /**
   * {@code value} as a whole number of at least 1.
   *
   * @throws IllegalArgumentException naming the key and the value
   */
  static long positiveLong(String key, String value) {
    try {
      long v = Long.parseLong(value.trim());
      if (v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(key + " must be a whole number >= 1, got '" + value + "'");
  }

  /**
   * The storage level {@code value} names (Spark's names, case-insensitive).
   *
   * @throws IllegalArgumentException naming the setting, the value and the levels
   */
  public static StorageLevel storageLevel(String what, String value) {
    if (value == null) {
      throw new IllegalArgumentException(what + " must name a Spark storage level, got null");
    }
    try {
      StorageLevel level = StorageLevel.fromString(value.trim().toUpperCase(Locale.ROOT));
      if (level.equals(StorageLevel.NONE())) {
        throw new IllegalArgumentException(what + "=NONE would keep nothing");
      }
      return level;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " must name a Spark storage level (MEMORY_AND_DISK,"
          + " MEMORY_AND_DISK_SER, DISK_ONLY, MEMORY_ONLY, OFF_HEAP, ... and their _2 forms),"
          + " got '" + value + "'");
    }
  }
}
