package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A clone with nothing beside it builds, tests and benchmarks: no source, script, example or
 * configuration reaches outside the repository for data (the developers' machines have a data
 * directory next to the clone; users and CI do not), and every real dataset ships with a README
 * that states its source and licence. {@code .ci/run} proves the first part end to end by running
 * the build in a fresh clone in an empty directory; this test names the offending line sooner.
 */
class SelfContainedTest {
  private static final Path ROOT = TestData.projectRoot();

  /**
   * A path into the sibling data directory, however spelled: the parent directory's
   * {@code shared} folder in any path syntax (slash, backslash, Python's path operator, Java's
   * {@code Path.of} parts), or the absolute path of the developers' machines. The pattern and its
   * test examples are assembled from pieces, so that no line of this file spells such a path.
   */
  private static final Pattern OUTSIDE = Pattern.compile(
      "\\.\\.\"?\\s*[/\\\\,]\\s*\"?" + "shared\\b|/work/" + "shared\\b");

  private static final List<String> SCANNED = List.of("src", "submit", "examples", "conf",
      ".ci", "pom.xml");

  @Test
  void nothingInTheRepositoryReadsDataFromBesideIt() throws IOException {
    List<String> found = new ArrayList<>();
    int files = 0;
    for (String top : SCANNED) {
      Path start = ROOT.resolve(top);
      if (!Files.exists(start)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(start)) {
        for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
          List<String> lines;
          try {
            lines = Files.readAllLines(f, StandardCharsets.UTF_8);
          } catch (MalformedInputException binary) {
            continue;
          }
          files++;
          for (int i = 0; i < lines.size(); i++) {
            if (OUTSIDE.matcher(lines.get(i)).find()) {
              found.add(ROOT.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
          }
        }
      }
    }
    assertTrue(files > 100, "scanned only " + files + " files under " + ROOT);
    assertTrue(found.isEmpty(), "references to data outside the repository:\n"
        + String.join("\n", found));
  }

  @Test
  void thePatternCatchesEverySpelling() {
    // Assembled from pieces, so that no line of the repository spells such a path itself.
    String up = "..";
    String sibling = "shared";
    for (String line : List.of("Paths.get(\"" + up + "/" + sibling + "/data\")",
        up + "\\" + sibling + "\\data", "REPO / \"" + up + "\" / \"" + sibling + "\" / \"data\"",
        "Path.of(\"" + up + "\", \"" + sibling + "\")",
        "cat /work/" + sibling + "/data/iris/README.md")) {
      assertTrue(OUTSIDE.matcher(line).find(), line);
    }
    for (String line : List.of("data-samples/iris", "sharedData(\"iris\", \"train.libsvm\")",
        "one shared session", up + "/" + sibling + "lib")) {
      assertEquals(false, OUTSIDE.matcher(line).find(), line);
    }
  }

  @Test
  void everyDatasetShipsWithItsSourceAndLicence() throws IOException {
    List<Path> datasets;
    try (Stream<Path> dirs = Files.list(ROOT.resolve("data-samples"))) {
      datasets = dirs.filter(Files::isDirectory).sorted().toList();
    }
    assertTrue(datasets.size() >= 5, datasets.toString());
    String index = Files.readString(ROOT.resolve("data-samples/README.md"));
    for (Path d : datasets) {
      String readme = Files.readString(d.resolve("README.md"));
      assertTrue(readme.contains("## Source") && readme.contains("## Licence"),
          d + "/README.md states no source or licence");
      assertTrue(index.contains("`" + d.getFileName() + "/`"),
          "data-samples/README.md does not list " + d.getFileName());
    }
  }
}
