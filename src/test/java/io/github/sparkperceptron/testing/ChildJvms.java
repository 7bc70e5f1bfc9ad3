package io.github.sparkperceptron.testing;

import java.util.Map;

/**
 * The environment that makes the JVMs a tagged test starts (REPLs, drivers of the submit/
 * scripts, a standalone cluster's daemons and executors, Maven) compile with C1 alone. They run
 * for seconds to a minute or two, mostly code that runs a few times (class loading, Spark's
 * start, javac's or scalac's code, tasks on sample-sized data), where C2's compilations cost more
 * CPU than they save, and on a 2-core machine whose two failsafe forks keep both cores busy, CPU
 * is what the tests wait for: examples/run-scala examples/pipeline.scala took 26.6 CPU-seconds
 * with C1 alone, 46.7 and 51.9 without. The JIT tier changes no result: Java's floating point is
 * strict, and HotSpot gives every tier the same Math intrinsics. Tests whose subject is the JVM's
 * start (ClassDataArchiveTest) or that read a script's stderr line for line (SubmitScriptTest)
 * leave it out: a JVM that picks JAVA_TOOL_OPTIONS up says so on stderr.
 */
public final class ChildJvms {
  private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

  private ChildJvms() {
  }

  /** JAVA_TOOL_OPTIONS: this JVM's own, if any, and C1 alone; for every JVM of a process tree. */
  public static Map<String, String> c1Only() {
    return Map.of("JAVA_TOOL_OPTIONS", with("JAVA_TOOL_OPTIONS"));
  }

  /** MAVEN_OPTS likewise, for the JVM of a Maven build (which prints nothing about it). */
  public static Map<String, String> mavenC1Only() {
    return Map.of("MAVEN_OPTS", with("MAVEN_OPTS"));
  }

  private static String with(String variable) {
    return (System.getenv().getOrDefault(variable, "") + " " + C1_ONLY).strip();
  }
}
