package io.github.sparkperceptron.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Writes the submit/ jobs' class-data archive (JEP 350; submit/lib/common.sh, {@code sp_cds_dump})
 * in the background as a test JVM whose scripts run with it starts: the failsafe forks of
 * {@code mvn verify}, whose environment leaves {@code SP_CDS} on, so that the jobs the tagged
 * tests start map Spark's classes as a user's jobs do (the default) instead of the tests alone
 * running a configuration no user runs. The build's jar has no archive yet (Maven wrote it), so
 * without this the first job of the phase would write it, a quick start's worth of time inside
 * whichever test came first. Here neither fork waits: the fork that takes the script's lock
 * (target/cds/writing) writes it while its tests run; the other fork's call returns at once, and
 * jobs that start before the archive is there start without it, as the scripts do for a job that
 * finds another writer. The archive changes nothing but start-up time
 * ({@code ClassDataArchiveTest} compares a job's metrics with and without it).
 *
 * <p>Surefire's forks ({@code mvn test}) set {@code SP_CDS=0}: nothing is written there. A fork
 * whose tests end first waits for its dump (a minute or less; five at most, then it is stopped
 * with its JVM), so that no process outlives the build.
 */
public final class JobArchiveWriter implements LauncherSessionListener {
  private Process dump;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    Path root = TestData.projectRoot();
    if ("0".equals(System.getenv("SP_CDS"))
        || !Files.isRegularFile(root.resolve("target/spark-perceptron-jobs.jar"))
        || !Files.isRegularFile(root.resolve("target/classpath.txt"))) {
      return;
    }
    ProcessBuilder pb = new ProcessBuilder("bash", "-c",
        "source submit/lib/common.sh && sp_cds_dump")
        .directory(root.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectInput(new File("/dev/null"));
    pb.environment().remove("SPARK_HOME");
    pb.environment().remove("SPARK_PERCEPTRON_CONF_DIR");
    pb.environment().putAll(ChildJvms.c1Only());
    try {
      dump = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the class-data archive's dump", e);
    }
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (dump == null || !dump.isAlive()) {
      return;
    }
    try {
      if (dump.waitFor(5, TimeUnit.MINUTES)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    dump.descendants().forEach(ProcessHandle::destroyForcibly);
    dump.destroyForcibly();
  }
}
