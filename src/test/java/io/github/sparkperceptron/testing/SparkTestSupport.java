package io.github.sparkperceptron.testing;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * The one local[2] SparkSession the test JVM shares: Surefire runs many test classes in each of
 * its JVMs (pom.xml, test.forkCount), and starting a session costs seconds. Classes that need
 * another master or settings ask for their session with {@link #restart}; the next class that
 * asks for the shared one with {@link #spark()} gets it back then, so that a class need not
 * restore it when it ends, and two classes in a row that need the same session share it too.
 */
public final class SparkTestSupport {
  private SparkTestSupport() {
  }

  /** The tests' master: two threads, as on the CI machines. */
  public static final String MASTER = "local[2]";

  /** The master and settings of the session this class started last, or null. */
  private static String started;

  /** The shared local[2] session with the tests' settings (started again if another runs). */
  public static synchronized SparkSession spark() {
    return restart(MASTER, Map.of());
  }

  /**
   * A session on {@code master} (e.g. local[2,3] for retries): the running one if this class
   * started it with the same master and no other settings, else a new one in its place.
   */
  public static synchronized SparkSession restart(String master) {
    return restart(master, Map.of());
  }

  /** As {@link #restart(String)}, with these Spark settings besides the tests' own. */
  public static synchronized SparkSession restart(String master,
      Map<String, String> settings) {
    String wanted = master + " " + new TreeMap<>(settings);
    SparkSession running = SparkSession.getDefaultSession().getOrElse(() -> null);
    if (wanted.equals(started) && running != null && !running.sparkContext().isStopped()) {
      SparkSession.setActiveSession(running);
      return running;
    }
    SparkSession.getActiveSession().foreach(session -> {
      session.stop();
      return null;
    });
    SparkSession.getDefaultSession().foreach(session -> {
      session.stop();
      return null;
    });
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    SparkSession.Builder builder = builder(master);
    settings.forEach(builder::config);
    SparkSession session = builder.getOrCreate();
    started = wanted;
    return session;
  }

  /**
   * Waits until Spark's listener bus has delivered every event posted so far. The bus is
   * asynchronous: when a job returns, its listeners may not have heard of its last tasks yet, so
   * a test reads what a listener recorded only after this.
   */
  public static void awaitListeners(SparkSession spark) {
    try {
      // Minutes, not Spark's 10 s default: a loaded CI machine can be slow to deliver.
      spark.sparkContext().listenerBus().waitUntilEmpty(120_000L);
    } catch (TimeoutException e) {
      throw new AssertionError("Spark's listener bus did not drain in 2 minutes", e);
    }
  }

  /**
   * The largest result, in bytes, that a task of the jobs {@code action} runs returned to the
   * driver (Spark's task metrics), read once the listener bus has delivered every task's end.
   */
  public static long largestTaskResult(SparkSession spark, Runnable action) {
    long[] largest = {0};
    SparkListener listener =
        new SparkListener() {
          @Override
          public void onTaskEnd(SparkListenerTaskEnd end) {
            if (end.taskMetrics() != null) {
              synchronized (largest) {
                largest[0] = Math.max(largest[0], end.taskMetrics().resultSize());
              }
            }
          }
        };
    spark.sparkContext().addSparkListener(listener);
    try {
      action.run();
      awaitListeners(spark);
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    synchronized (largest) {
      return largest[0];
    }
  }

  private static SparkSession.Builder builder(String master) {
    return SparkSession.builder()
        .master(master)
        .appName("spark-perceptron-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        // Each test plans queries of its own over a few hundred rows, so generating and
        // compiling Java for every plan (Janino, then the JIT) costs more than it saves;
        // Spark's interpreted expressions compute the same values (its own suites run both).
        // What runs in processes of its own (the submit/ scripts, the notebooks' REPLs: mvn
        // verify's script, notebook and cluster tests) keeps code generation, as users run it.
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN");
  }
}
