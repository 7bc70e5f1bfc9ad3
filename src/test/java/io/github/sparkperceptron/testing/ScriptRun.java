package io.github.sparkperceptron.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the project's scripts (submit/, examples/) as a user would, from the project root,
 * and captures its exit status and its stdout and stderr together. A run that outlives its time
 * limit is killed with all its descendants (REPL and Spark JVMs), so a hung test leaves nothing
 * running.
 */
public final class ScriptRun {
  public final int exitCode;
  public final String output;
  public final Duration elapsed;
  private final String command;

  private ScriptRun(String command, int exitCode, String output, Duration elapsed) {
    this.command = command;
    this.exitCode = exitCode;
    this.output = output;
    this.elapsed = elapsed;
  }

  /**
   * Runs {@code command} (the first element relative to the project root) with the extra
   * environment {@code env}, standard input from /dev/null, for at most {@code limit}. SPARK_HOME
   * is removed from the environment: the build sets it to a fake distribution for local-cluster
   * sessions, and the scripts would take it for a real one with bin/spark-submit.
   */
  public static ScriptRun of(Duration limit, Map<String, String> env, String... command) {
    List<String> cmd = new ArrayList<>(Arrays.asList(command));
    cmd.set(0, TestData.projectRoot().resolve(command[0]).toString());
    Path log = null;
    try {
      log = Files.createTempFile("script-run", ".log");
      ProcessBuilder pb = new ProcessBuilder(cmd)
          .directory(TestData.projectRoot().toFile())
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .redirectInput(new File("/dev/null"));
      pb.environment().remove("SPARK_HOME");
      pb.environment().putAll(env);
      long start = System.nanoTime();
      Process p = pb.start();
      boolean finished = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor();
      }
      Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
      String output = Files.readString(log, StandardCharsets.UTF_8);
      if (!finished) {
        throw new AssertionError(String.join(" ", command) + " ran longer than " + limit
            + " and was killed; its output:\n" + output);
      }
      return new ScriptRun(String.join(" ", command), p.exitValue(), output, elapsed);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      if (log != null) {
        try {
          Files.deleteIfExists(log);
        } catch (IOException ignored) {
          // a temporary file; the OS cleans /tmp
        }
      }
    }
  }

  /**
   * Starts {@link #of} on a thread of its own ({@link Background}), for a test that starts two
   * processes which need nothing from each other: the second does not wait for the first to end.
   */
  public static Background<ScriptRun> inBackground(Duration limit, Map<String, String> env,
      String... command) {
    return Background.start("script-run " + command[0], () -> of(limit, env, command));
  }

  /** For assertion messages: the command, its status, time and output. */
  @Override
  public String toString() {
    return command + ": exit " + exitCode + " after " + elapsed.toSeconds() + " s\n" + output;
  }
}
