package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where a job's time goes, stage by stage (start-up, reading, training, ...): the wall-clock
 * seconds, printed in the report and written to the metrics JSON with the CPU seconds the driver
 * JVM used (all its threads: in local mode, the executors' too), so that a slow run says what was
 * slow, also on a busy machine where wall-clock times stretch. Run from {@code main}, the first
 * stage is the JVM's and spark-submit's own start-up: from the JVM's start to the job's
 * {@code main}.
 */
final class StageTimes {
  /** The stages' keys (in the JSON) and names (in the report). */
  private static final Map<String, String> NAMES = Map.of(
      "jvm", "JVM and spark-submit start-up", "spark", "Spark start-up", "read", "reading",
      "train", "training", "save", "saving the model", "evaluate", "evaluation",
      "write", "writing outputs");

  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private final Map<String, Double> cpuSeconds = new LinkedHashMap<>();
  private long last;
  private long lastCpu;

  /**
   * Starts the clock now; with {@code mainStartMillis} > 0 (the job ran from its main method at
   * that time) first records the stage "JVM and spark-submit start-up" up to it.
   */
  StageTimes(long mainStartMillis, long mainStartCpuNanos) {
    if (mainStartMillis > 0) {
      long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
      seconds.put("jvm", (mainStartMillis - jvmStart) / 1000.0);
      cpuSeconds.put("jvm", mainStartCpuNanos / 1e9);
      last = mainStartMillis;
      lastCpu = mainStartCpuNanos;
    } else {
      last = System.currentTimeMillis();
      lastCpu = processCpuNanos();
    }
  }

  /** CPU time the JVM has used so far, all threads, or 0 where the JVM does not say. */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun
        ? Math.max(0, sun.getProcessCpuTime()) : 0;
  }

  /**
   * Ends {@code stage} now (adding to it if it ran before) and starts the next one.
   *
   * @param stage jvm, spark, read, train, save, evaluate or write
   */
  void end(String stage) {
    if (!NAMES.containsKey(stage)) {
      throw new IllegalArgumentException("unknown stage " + stage);
    }
    long now = System.currentTimeMillis();
    long cpu = processCpuNanos();
    seconds.merge(stage, (now - last) / 1000.0, Double::sum);
    cpuSeconds.merge(stage, (cpu - lastCpu) / 1e9, Double::sum);
    last = now;
    lastCpu = cpu;
  }

  double total() {
    return sum(seconds);
  }

  private static double sum(Map<String, Double> values) {
    double sum = 0;
    for (double s : values.values()) {
      sum += s;
    }
    return sum;
  }

  /** "Time: 9.8 s: JVM and spark-submit start-up 1.2 s, Spark start-up 2.5 s, ...". */
  String describe() {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "Time: %.1f s:", total()));
    String sep = " ";
    for (Map.Entry<String, Double> e : seconds.entrySet()) {
      sb.append(sep).append(String.format(Locale.ROOT, "%s %.1f s", NAMES.get(e.getKey()),
          e.getValue()));
      sep = ", ";
    }
    return sb.toString();
  }

  /**
   * {"jvm": s, "spark": s, ..., "total": s} for the stages that ran: wall-clock seconds in
   * {@code wall}, CPU seconds in {@code cpu}.
   */
  void writeTo(ObjectNode wall, ObjectNode cpu) {
    for (Map.Entry<String, Double> e : seconds.entrySet()) {
      Json.putNumber(wall, e.getKey(), e.getValue());
      Json.putNumber(cpu, e.getKey(), cpuSeconds.get(e.getKey()));
    }
    Json.putNumber(wall, "total", total());
    Json.putNumber(cpu, "total", sum(cpuSeconds));
  }
}
