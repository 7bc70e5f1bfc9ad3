package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /**
   * A real first build, recorded with Maven 3.8.7 (Maven writes "[INFO] Downloaded from ..."):
   * {@code mvn -B -Dmaven.repo.local=EMPTY -DskipTests package} of a one-class project with
   * picocli and this project's plugin versions, from an empty local repository, its colour codes
   * kept. Piped as the scripts pipe it (sp_without_colour, then maven-progress), the user sees
   * the download count grow to every file Maven downloaded and their size, then the phases.
   */
  @Test
  void countsTheDownloadsOfARecordedMaven38Build() throws Exception {
    Path recording = TestData.projectRoot()
        .resolve("src/test/resources/maven/maven-3.8.7-first-build.out");
    int files = 0;
    double bytes = 0;
    Pattern size = Pattern.compile(
        "\\(([0-9.]+) (B|kB|MB) at ");
    for (String line : read(recording)) {
      if (line.contains("Downloaded from central: ")) {
        files++;
        Matcher m = size.matcher(line);
        if (m.find()) {
          double v = Double.parseDouble(m.group(1));
          // Maven's units are decimal: 1 kB = 1,000 bytes.
          bytes += v * (m.group(2).equals("MB") ? 1e6 : m.group(2).equals("kB") ? 1e3 : 1);
        }
      }
    }
    assertEquals(146, files, "the recording's downloads");

    Path log = tmp.resolve("build.log");
    Path err = tmp.resolve("stderr");
    Path root = TestData.projectRoot();
    Process p = new ProcessBuilder("bash", "-c", "source submit/lib/common.sh"
        + " && sp_without_colour | submit/lib/maven-progress \"$0\"", log.toString())
        .directory(root.toFile()).redirectInput(recording.toFile()).redirectError(err.toFile())
        .redirectOutput(new File("/dev/null")).start();
    p.waitFor(1, TimeUnit.MINUTES);
    assertEquals(0, p.exitValue());
    List<String> shown = read(err);
    String last = shown.get(shown.size() - 1);
    Matcher total = Pattern.compile(
        "  downloaded (\\d+) files, (\\d+) MB").matcher(last);
    assertTrue(total.matches(), shown.toString());
    assertEquals(files, Integer.parseInt(total.group(1)));
    // Whole MB, rounded down.
    assertEquals((long) (bytes / 1e6), Long.parseLong(total.group(2)), shown.toString());
    assertTrue(shown.indexOf("  compiling") >= 0
        && shown.indexOf("  compiling") < shown.indexOf("  packaging the jars"), shown.toString());
    // Maven ends with colour resets and no newline: nothing of a line once the colour is gone.
    List<String> withoutColour = new ArrayList<>();
    for (String line : read(recording)) {
      withoutColour.add(line.replaceAll("\u001b\\[[0-9;]*m", ""));
    }
    while (withoutColour.get(withoutColour.size() - 1).isEmpty()) {
      withoutColour.remove(withoutColour.size() - 1);
    }
    assertEquals(withoutColour, read(log), "the log keeps every line");
  }

  private static List<String> read(Path file) throws IOException {
    return Files.readAllLines(file, StandardCharsets.UTF_8);
  }
}
