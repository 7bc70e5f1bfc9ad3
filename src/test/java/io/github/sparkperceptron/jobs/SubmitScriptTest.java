package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code submit/train} script in a subprocess: the launcher, spark-submit and the job
 * together keep the one-line, exit-2 contract, and {@code run-job} passes the conf directory's
 * train.properties. The script builds the job jar first when the sources are newer.
 */
@Tag("script")
// Each test starts JVMs or builds (processes, not Spark jobs of this JVM): minutes under load,
// beyond junit-platform.properties' default of 5.
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class SubmitScriptTest {
  private static final Path ROOT = TestData.projectRoot();

  @TempDir
  static Path confDir;

  @TempDir
  Path tmp;

  /** Exit code, stdout and stderr of one script run. */
  private static final class Result {
    final int exitCode;
    final String out;
    final String err;

    Result(int exitCode, String out, String err) {
      this.exitCode = exitCode;
      this.out = out;
      this.err = err;
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  private static Result submit(Path logs, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(ROOT.resolve("submit/train").toString(),
        "--master", "local[1]"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    // Surefire's SPARK_HOME points at an empty directory for local-cluster tests; with it the
    // script would look for a Spark distribution there.
    pb.environment().remove("SPARK_HOME");
    pb.environment().remove("SPARK_PERCEPTRON_DEBUG");
    pb.environment().put("SPARK_PERCEPTRON_CONF_DIR", confDir.toString());
    Files.createDirectories(logs);
    Path out = logs.resolve("stdout");
    Path err = logs.resolve("stderr");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("submit/train did not finish in 10 minutes");
    }
    return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** Builds the jar if needed, so that the runs below print nothing but the job's own lines. */
  @BeforeAll
  static void build() throws Exception {
    Result version = submit(confDir.resolve("build-logs"), "--version");
    assertEquals(0, version.exitCode, version.toString());
    // From the job jar: the version the build wrote into it, the pom's, -SNAPSHOT included.
    assertEquals("spark-perceptron train " + JobVersionTest.pomVersion(), version.out.strip(),
        version.toString());
  }

  @Test
  void malformedInputGivesExitTwoAndOneStderrLine() throws Exception {
    Path bad = tmp.resolve("bad.libsvm");
    Files.writeString(bad, "1 1:0.5\n0 2:0.1 1:0.3\n");
    Path model = tmp.resolve("model");
    Result r = submit(tmp.resolve("logs"), "--train", bad.toString(), "--model",
        model.toString());
    assertEquals(2, r.exitCode, r.toString());
    assertEquals(List.of("train: error: " + bad + ":2: feature index 1 follows 2; indices must"
        + " increase strictly within a line (training data (--train), LIBSVM format: label"
        + " index:value ..., 1-based increasing indices)"), r.err.strip().lines().toList());
    assertFalse(Files.exists(model));
  }

  @Test
  void aMisspeltFlagIsNamedWithTheFlagMeant() throws Exception {
    Result r = submit(tmp.resolve("logs-typo"), "--trian", "data.libsvm", "--model", "m");
    assertEquals(2, r.exitCode, r.toString());
    assertEquals(List.of("train: error: Unknown option: '--trian'; did you mean '--train'? (see"
        + " 'submit/train --help' for the options and their defaults)"),
        r.err.strip().lines().toList());
  }

  @Test
  void confDirectoryTrainPropertiesAreUsedUnlessAJobConfIsGiven() throws Exception {
    Path auto = confDir.resolve("train.properties");
    Files.writeString(auto, "max-iter = ten\n");
    try {
      Result r = submit(tmp.resolve("logs-auto"), "--train", "x", "--model", "y");
      assertEquals(2, r.exitCode, r.toString());
      assertEquals(List.of("train: error: Invalid value for option '--max-iter': 'ten' is not an"
          + " int (set by max-iter in " + auto + ") (see 'submit/train --help' for the options and"
          + " their defaults)"), r.err.strip().lines().toList());

      Path explicit = tmp.resolve("mine.properties");
      Files.writeString(explicit, "seed = many\n");
      Result own = submit(tmp.resolve("logs-own"), "--train", "x", "--model", "y",
          "--job-conf", explicit.toString());
      assertEquals(2, own.exitCode, own.toString());
      assertTrue(own.err.startsWith("train: error: Invalid value for option '--seed': 'many'"
          + " is not a long (set by seed in " + explicit + ")"), own.toString());
    } finally {
      Files.delete(auto);
    }
  }
}
