package io.github.sparkperceptron.internal.plan;

import java.io.Serializable;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * How a training's mixing rounds are asked to run, read once from the Spark configuration keys
 * below (each also a local property of the fitting thread, which wins, like
 * {@code spark.perceptron.exchange}). None of them changes a model: only where and how fast the
 * rounds run.
 *
 * <table>
 * <caption>Keys</caption>
 * <tr><th>key</th><th>values</th><th>meaning</th></tr>
 * <tr><td>{@value #MODE_KEY}</td><td>auto (default), barrier, jobs</td><td>auto: an epoch's
 * rounds run in one barrier stage where Spark can run it ({@link BarrierRounds}), else one job
 * per round ({@link JobPerRound}), and the log says why; barrier: an error naming the reason
 * when it cannot; jobs: always one job per round</td></tr>
 * <tr><td>{@value #EXCHANGE_KEY}</td><td>tree (default), allgather</td><td>how the barrier
 * tasks exchange a round's changes: sockets along the mixing tree, or Spark's
 * {@code BarrierTaskContext.allGather} (about a second a round; kept to measure it)</td></tr>
 * <tr><td>{@value #RESULTS_KEY}</td><td>mixes (default), leaves</td><td>what the barrier tasks
 * send the driver after an epoch: per round every worker's stats and worker 0's mixed change, or
 * every worker's own change too (the driver then re-mixes them: W times the bytes)</td></tr>
 * <tr><td>{@value #CONNECT_TIMEOUT_KEY}</td><td>seconds, default
 * {@value #DEFAULT_CONNECT_TIMEOUT_S}</td><td>how long setting up one connection of the exchange
 * may take (the TCP connect and the handshake, retries included; on the listening side, how long
 * a connection may take to authenticate): a firewalled or unreachable peer makes the training
 * fall back to one job per round after about this long</td></tr>
 * <tr><td>{@value #TIMEOUT_KEY}</td><td>seconds, default {@value #DEFAULT_TIMEOUT_S}</td>
 * <td>liveness: how long an established connection may go unanswered at the TCP level (keep-alive
 * probes) before its peer's host counts as gone. Not a bound on a round: a slow worker's host
 * answers the probes, and a round waits for it as long as its task runs (a failed or killed
 * peer is noticed at once through its closed socket, a killed task within 100 ms)</td></tr>
 * <tr><td>{@value #PORT_KEY}</td><td>port, default 0 (any free one)</td><td>the driver's
 * rendezvous port, for clusters whose executors reach the driver only on chosen ports</td></tr>
 * <tr><td>{@value #ENCRYPTION_KEY}</td><td>auto (default), always, jobs</td><td>auto: the
 * exchange's frames are sealed (AES-256-GCM) when one of Spark's security settings is on
 * ({@link #SPARK_SECURITY_KEYS}), else they travel in clear after the handshake (connections are
 * always mutually authenticated); always: sealed whatever Spark's settings; jobs: under Spark's
 * security settings the exchange is not used at all, and the rounds run as one Spark job each
 * (through Spark's own RPC; one log line says so)</td></tr>
 * </table>
 */
public final class RoundExecution implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String MODE_KEY = "spark.perceptron.roundExecution";
  public static final String EXCHANGE_KEY = "spark.perceptron.barrier.exchange";
  public static final String RESULTS_KEY = "spark.perceptron.barrier.results";
  public static final String TIMEOUT_KEY = "spark.perceptron.barrier.timeout";
  public static final String CONNECT_TIMEOUT_KEY = "spark.perceptron.barrier.connectTimeout";
  public static final String PORT_KEY = "spark.perceptron.barrier.port";
  public static final String ENCRYPTION_KEY = "spark.perceptron.barrier.encryption";
  public static final int DEFAULT_TIMEOUT_S = 120;
  public static final int DEFAULT_CONNECT_TIMEOUT_S = 5;
  /**
   * Spark's settings that ask it to authenticate or encrypt its own traffic: with any of them
   * on, the exchange seals its frames too (or stays closed, {@link Encryption#JOBS}).
   */
  public static final String[] SPARK_SECURITY_KEYS = {"spark.authenticate",
      "spark.network.crypto.enabled", "spark.ssl.enabled", "spark.ssl.rpc.enabled"};

  /** How the rounds of an epoch run. */
  public enum Mode {
    AUTO, BARRIER, JOBS
  }

  /** How the workers of a barrier stage exchange a round's changes. */
  public enum Exchange {
    /** Sockets among the tasks, reduce and broadcast along ParameterMix's tree. */
    TREE,
    /** Spark's {@code BarrierTaskContext.allGather} (about a second per round: measured only). */
    ALLGATHER
  }

  /** What the workers send the driver after an epoch (see {@link #RESULTS_KEY}). */
  public enum Results {
    MIXES, LEAVES
  }

  /** When the exchange seals its frames (see {@link #ENCRYPTION_KEY}). */
  enum Encryption {
    AUTO, ALWAYS, JOBS
  }

  public final Mode mode;
  public final Exchange exchange;
  public final Results results;
  /** Liveness of an established connection ({@link #TIMEOUT_KEY}). */
  public final int timeoutMillis;
  public final int connectTimeoutMillis;
  /** The driver's rendezvous port (0: any free port). */
  public final int port;
  final Encryption encryption;
  /** The first of Spark's security settings that is on ("key=value"), or null. */
  public final String sparkSecurity;

  /**
   * The keys' values for the calling thread.
   *
   * @throws IllegalArgumentException naming the key, the value and what it allows, for a bad
   *     value
   */
  private RoundExecution(JavaSparkContext jsc) {
    this.mode = parse(Mode.class, MODE_KEY, setting(jsc, MODE_KEY, "auto"));
    this.exchange = parse(Exchange.class, EXCHANGE_KEY, setting(jsc, EXCHANGE_KEY, "tree"));
    this.results = parse(Results.class, RESULTS_KEY, setting(jsc, RESULTS_KEY, "mixes"));
    this.timeoutMillis = seconds(jsc, TIMEOUT_KEY, DEFAULT_TIMEOUT_S) * 1000;
    this.connectTimeoutMillis = seconds(jsc, CONNECT_TIMEOUT_KEY, DEFAULT_CONNECT_TIMEOUT_S)
        * 1000;
    this.port = wholeNumber(PORT_KEY, setting(jsc, PORT_KEY, "0"));
    if (port > 65535) {
      throw new IllegalArgumentException(PORT_KEY + " must be a port (0 to 65535), got " + port);
    }
    this.encryption = parse(Encryption.class, ENCRYPTION_KEY,
        setting(jsc, ENCRYPTION_KEY, "auto"));
    String security = null;
    for (String key : SPARK_SECURITY_KEYS) {
      if (security == null && jsc.getConf().getBoolean(key, false)) {
        security = key + "=true";
      }
    }
    this.sparkSecurity = security;
  }

  /** Whether the exchange seals its frames. */
  public boolean sealed() {
    return encryption == Encryption.ALWAYS || sparkSecurity != null;
  }

  /**
   * Why the exchange must stay closed ({@link Encryption#JOBS} under Spark's security), or
   * null.
   */
  String closedBySecurity() {
    return encryption == Encryption.JOBS && sparkSecurity != null ? sparkSecurity + " and "
        + ENCRYPTION_KEY + "=jobs: the rounds' changes travel only through Spark's own RPC"
        : null;
  }

  /** The keys' values for the calling thread (see the constructor). */
  static RoundExecution read(JavaSparkContext jsc) {
    return new RoundExecution(jsc);
  }

  /** A duration setting in whole seconds ("5" or "5s"), at least 1. */
  private static int seconds(JavaSparkContext jsc, String key, int defaultSeconds) {
    String value = setting(jsc, key, String.valueOf(defaultSeconds)).trim();
    int v = wholeNumber(key, value.endsWith("s") ? value.substring(0, value.length() - 1)
        : value);
    if (v == 0 || v > Integer.MAX_VALUE / 1000) {
      throw new IllegalArgumentException(key + " must be between 1 and "
          + Integer.MAX_VALUE / 1000 + " seconds, got '" + value + "'");
    }
    return v;
  }

  /** A setting read from the fitting thread's local properties, else the Spark configuration. */
  private static String setting(JavaSparkContext jsc, String key, String defaultValue) {
    String local = jsc.getLocalProperty(key);
    return local != null ? local : jsc.getConf().get(key, defaultValue);
  }

  private static <E extends Enum<E>> E parse(Class<E> type, String key, String value) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value.trim())) {
        return e;
      }
    }
    StringBuilder allowed = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      allowed.append(allowed.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
    }
    throw new IllegalArgumentException(key + " must be one of " + allowed + ", got '" + value
        + "'");
  }

  private static int wholeNumber(String key, String value) {
    try {
      int v = Integer.parseInt(value.trim());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(key + " must be a whole number >= 0, got '" + value + "'");
  }
}
