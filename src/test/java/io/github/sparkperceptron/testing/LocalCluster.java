package io.github.sparkperceptron.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster on 127.0.0.1 started through {@code submit/cluster}, as a user
 * would: a master and workers in JVMs of their own, which start executor JVMs for each
 * application. Its state lives in target/cluster-test/ (not target/cluster/, which a developer's
 * own cluster may be using), on free ports. {@link #close()} stops it; a JVM shutdown hook does
 * too if a test run dies first, so no daemon outlives the test JVM.
 */
public final class LocalCluster implements AutoCloseable {
  private final Path dir;
  private final String masterUrl;
  private final int webUiPort;
  private final Thread shutdownHook;
  private boolean stopped;

  private LocalCluster(Path dir, String masterUrl, int webUiPort) {
    this.dir = dir;
    this.masterUrl = masterUrl;
    this.webUiPort = webUiPort;
    this.shutdownHook = new Thread(this::stop, "stop-local-cluster");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts a master and {@code workers} workers offering {@code cores} and {@code memory}. */
  public static LocalCluster start(int workers, int cores, String memory) {
    Path dir = TestData.projectRoot().resolve("target/cluster-test");
    int port = freePort();
    int webUiPort = freePort();
    ScriptRun run = ScriptRun.of(Duration.ofMinutes(3), env(dir), "submit/cluster", "start",
        "--workers", String.valueOf(workers), "--cores", String.valueOf(cores),
        "--memory", memory, "--port", String.valueOf(port),
        "--webui-port", String.valueOf(webUiPort));
    String url = "spark://127.0.0.1:" + port;
    if (run.exitCode != 0 || !run.output.contains(url)) {
      ScriptRun.of(Duration.ofMinutes(1), env(dir), "submit/cluster", "stop");
      throw new IllegalStateException("submit/cluster start failed: " + run);
    }
    return new LocalCluster(dir, url, webUiPort);
  }

  /**
   * The cluster's directory; and C1 alone for the master's and workers' JVMs and the executors
   * they start, which inherit a worker's environment (ChildJvms).
   */
  private static Map<String, String> env(Path dir) {
    Map<String, String> env = new HashMap<>(ChildJvms.c1Only());
    env.put("SPARK_PERCEPTRON_CLUSTER_DIR", dir.toString());
    return env;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String masterUrl() {
    return masterUrl;
  }

  /** The master's status as JSON, http://127.0.0.1:PORT/json/. */
  public String masterJsonUrl() {
    return "http://127.0.0.1:" + webUiPort + "/json/";
  }

  /** Where the workers keep each executor's directory (work/worker-I/APP/EXECUTOR/stderr). */
  public Path workDir() {
    return dir.resolve("work");
  }

  /** The worker processes, from their pid files. */
  public List<ProcessHandle> workers() {
    List<ProcessHandle> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        if (name.startsWith("worker-") && name.endsWith(".pid")) {
          ProcessHandle.of(Long.parseLong(Files.readString(f).trim())).ifPresent(out::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The live executor JVMs: the workers' CoarseGrainedExecutorBackend children. */
  public List<ProcessHandle> executors() {
    List<ProcessHandle> out = new ArrayList<>();
    for (ProcessHandle worker : workers()) {
      worker.children()
          .filter(p -> p.info().commandLine().orElse("")
              .contains("org.apache.spark.executor.CoarseGrainedExecutorBackend"))
          .forEach(out::add);
    }
    return out;
  }

  private synchronized void stop() {
    if (!stopped) {
      stopped = true;
      ScriptRun.of(Duration.ofMinutes(1), env(dir), "submit/cluster", "stop");
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway, and stop() is idempotent
    }
  }
}
