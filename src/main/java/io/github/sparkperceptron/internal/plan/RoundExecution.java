package io.github.sparkperceptron.internal.plan;

import java.io.Serializable;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * How a training's mixing rounds are asked to run, read once from the {@link Settings} keys
 * {@value Settings#ROUND_EXECUTION} and {@code spark.perceptron.barrier.*} (each also a local
 * property of the fitting thread, which wins). None of them changes a model: only where and how
 * fast the rounds run.
 */
public final class RoundExecution implements Serializable {
  private static final long serialVersionUID = 1L;

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

  /** When the exchange seals its frames (see {@link Settings#BARRIER_ENCRYPTION}). */
  enum Encryption {
    AUTO, ALWAYS, JOBS
  }

  public final Mode mode;
  /** Liveness of an established connection ({@link Settings#BARRIER_TIMEOUT}). */
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
    this.mode = parse(Mode.class, Settings.ROUND_EXECUTION,
        Settings.read(jsc, Settings.ROUND_EXECUTION, "auto"));
    this.timeoutMillis = seconds(jsc, Settings.BARRIER_TIMEOUT, DEFAULT_TIMEOUT_S) * 1000;
    this.connectTimeoutMillis = seconds(jsc, Settings.BARRIER_CONNECT_TIMEOUT,
        DEFAULT_CONNECT_TIMEOUT_S) * 1000;
    this.port = wholeNumber(Settings.BARRIER_PORT, Settings.read(jsc, Settings.BARRIER_PORT, "0"));
    if (port > 65535) {
      throw new IllegalArgumentException(Settings.BARRIER_PORT + " must be a port (0 to 65535),"
          + " got " + port);
    }
    this.encryption = parse(Encryption.class, Settings.BARRIER_ENCRYPTION,
        Settings.read(jsc, Settings.BARRIER_ENCRYPTION, "auto"));
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
        + Settings.BARRIER_ENCRYPTION + "=jobs: the rounds' changes travel only through Spark's"
        + " own RPC"
        : null;
  }

  /** The keys' values for the calling thread (see the constructor). */
  static RoundExecution read(JavaSparkContext jsc) {
    return new RoundExecution(jsc);
  }

  /** A duration setting in whole seconds ("5" or "5s"), at least 1. */
  private static int seconds(JavaSparkContext jsc, String key, int defaultSeconds) {
    String value = Settings.read(jsc, key, String.valueOf(defaultSeconds)).trim();
    int v = wholeNumber(key, value.endsWith("s") ? value.substring(0, value.length() - 1)
        : value);
    if (v == 0 || v > Integer.MAX_VALUE / 1000) {
      throw new IllegalArgumentException(key + " must be between 1 and "
          + Integer.MAX_VALUE / 1000 + " seconds, got '" + value + "'");
    }
    return v;
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
