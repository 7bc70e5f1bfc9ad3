package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.testing.TestData;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * submit/lib/maven-progress, which the scripts pipe Maven's output through: a user sees what the
 * build is doing (downloads counted with their sizes, compiling, packaging, errors) in a few
 * lines, and the log keeps everything. Run on Maven 3.8's batch-mode lines; stderr is a file
 * here, not a terminal, so the count is printed once at the end (and every 10 s in between).
 */
class MavenProgressTest {
  @TempDir
  Path tmp;

  @Test
  void summarisesDownloadsAndPhasesAndPassesErrorsThrough() throws Exception {
    List<String> maven = List.of(
        "[INFO] Scanning for projects...",
        "Downloading from central: https://repo.maven.apache.org/maven2/a/b/1/b-1.pom",
        "Downloaded from central: https://repo.maven.apache.org/maven2/a/b/1/b-1.pom (2.3 kB at 45 kB/s)",
        "Downloaded from central: https://repo.maven.apache.org/maven2/a/c/1/c-1.jar (12 MB at 4.5 MB/s)",
        "Downloaded from central: https://repo.maven.apache.org/maven2/a/d/1/d-1.jar (512 B at 4 kB/s)",
        "[INFO] --- maven-compiler-plugin:3.14.0:compile (default-compile) @ spark-perceptron ---",
        "[WARNING] a warning nobody needs on the console",
        "[INFO] --- maven-compiler-plugin:3.14.0:testCompile (default-testCompile) @ x ---",
        "[INFO] --- maven-jar-plugin:3.4.2:jar (default-jar) @ spark-perceptron ---",
        "[INFO] --- maven-shade-plugin:3.6.0:shade (default) @ spark-perceptron ---",
        "[ERROR] Failed to execute goal: something");
    Path in = Files.write(tmp.resolve("maven.out"), maven);
    Path log = tmp.resolve("build.log");
    Path err = tmp.resolve("stderr");
    Process p = new ProcessBuilder(
        TestData.projectRoot().resolve("submit/lib/maven-progress").toString(), log.toString())
        .redirectInput(in.toFile()).redirectError(err.toFile())
        .redirectOutput(new File("/dev/null")).start();
    p.waitFor(1, TimeUnit.MINUTES);
    assertEquals(0, p.exitValue());
    assertEquals(List.of(
        "  downloaded 3 files, 12 MB",
        "  compiling",
        "  packaging the jars",
        "[ERROR] Failed to execute goal: something"), read(err));
    assertEquals(maven, read(log), "the log keeps every line");
  }

  private static List<String> read(Path file) throws IOException {
    return Files.readAllLines(file, StandardCharsets.UTF_8);
  }
}
