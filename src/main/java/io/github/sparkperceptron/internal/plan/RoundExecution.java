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
 * <tr><td>{@value #TIMEOUT_KEY}</td><td>seconds, default {@value #DEFAULT_TIMEOUT_S}</td>
 * <td>the longest any single wait of the exchange may last (a dead peer is noticed at once
 * through its closed socket, a killed task within 100 ms)</td></tr>
 * <tr><td>{@value #PORT_KEY}</td><td>port, default 0 (any free one)</td><td>the driver's
 * rendezvous port, for clusters whose executors reach the driver only on chosen ports</td></tr>
 * </table>
 */
public final class RoundExecution implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String MODE_KEY = "spark.perceptron.roundExecution";
  public static final String EXCHANGE_KEY = "spark.perceptron.barrier.exchange";
  public static final String RESULTS_KEY = "spark.perceptron.barrier.results";
  public static final String TIMEOUT_KEY = "spark.perceptron.barrier.timeout";
  public static final String PORT_KEY = "spark.perceptron.barrier.port";
  public static final int DEFAULT_TIMEOUT_S = 600;

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

  public final Mode mode;
  public final Exchange exchange;
  public final Results results;
  public final int timeoutMillis;
  /** The driver's rendezvous port (0: any free port). */
  public final int port;

  private RoundExecution(Mode mode, Exchange exchange, Results results, int timeoutMillis,
      int port) {
    this.mode = mode;
    this.exchange = exchange;
    this.results = results;
    this.timeoutMillis = timeoutMillis;
    this.port = port;
  }

  /**
   * The keys' values for the calling thread.
   *
   * @throws IllegalArgumentException naming the key, the value and what it allows, for a bad
   *     value
   */
  public static RoundExecution read(JavaSparkContext jsc) {
    Mode mode = parse(Mode.class, MODE_KEY, setting(jsc, MODE_KEY, "auto"));
    Exchange exchange = parse(Exchange.class, EXCHANGE_KEY, setting(jsc, EXCHANGE_KEY, "tree"));
    Results results = parse(Results.class, RESULTS_KEY, setting(jsc, RESULTS_KEY, "mixes"));
    int timeoutSeconds = wholeNumber(TIMEOUT_KEY,
        setting(jsc, TIMEOUT_KEY, String.valueOf(DEFAULT_TIMEOUT_S)));
    if (timeoutSeconds == 0 || timeoutSeconds > Integer.MAX_VALUE / 1000) {
      throw new IllegalArgumentException(TIMEOUT_KEY + " must be between 1 and "
          + Integer.MAX_VALUE / 1000 + " seconds, got " + timeoutSeconds);
    }
    int port = wholeNumber(PORT_KEY, setting(jsc, PORT_KEY, "0"));
    if (port > 65535) {
      throw new IllegalArgumentException(PORT_KEY + " must be a port (0 to 65535), got " + port);
    }
    return new RoundExecution(mode, exchange, results, timeoutSeconds * 1000, port);
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
