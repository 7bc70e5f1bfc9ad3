package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages stand on floors and depend only downwards, so there is no cycle and no arrow back
 * up:
 * <pre>
 * 6  jobs                        the spark-submit front ends
 * 5  streaming, onnx             the stream learner (not the readers, the mixing rules or data);
 *                               the ONNX export of a trained model
 * 4  ml                          the Spark face: estimator, model, params, summaries
 * 3  train                       the engine: input layout, the mixing loop, checkpoints, memory
 * 2  exchange, data              how weights travel; synthetic data
 * 1  mixing, store, io,          Spark-free mixing; state files; the readers;
 *    calibration                 Spark-free probability calibration (Platt, temperature, isotonic)
 * 0  kernel, drift, evaluation   Spark-free learning on primitive arrays; drift detectors;
 *                               ranked scores and curve areas
 * </pre>
 * The math ({@code kernel}, {@code drift}, {@code evaluation}, {@code mixing},
 * {@code calibration}) stays free of
 * Spark, Hadoop and Scala, and the state files ({@code store}) free of Spark, so they can be read, tested and
 * benchmarked alone. Every reference counts, an import or a fully qualified name written in the
 * code; comments and strings do not.
 */
class LayeringTest {
  private static final Path MAIN = TestData.projectRoot()
      .resolve("src/main/java/io/github/sparkperceptron");
  private static final String ROOT = "io.github.sparkperceptron.";

  private static final Map<String, Integer> FLOOR = Map.ofEntries(Map.entry("kernel", 0),
      Map.entry("drift", 0), Map.entry("evaluation", 0),
      Map.entry("mixing", 1), Map.entry("store", 1), Map.entry("io", 1),
      Map.entry("calibration", 1),
      Map.entry("exchange", 2), Map.entry("data", 2), Map.entry("train", 3), Map.entry("ml", 4),
      Map.entry("streaming", 5), Map.entry("onnx", 5), Map.entry("jobs", 6));

  /** Lower packages a package must not use although they stand below it. */
  private static final Map<String, Set<String>> AVOIDS = Map.of(
      "streaming", Set.of("io", "mixing", "data"),
      "onnx", Set.of("io", "mixing", "exchange", "data", "train"));

  /** Frameworks a package must not use. */
  private static final Map<String, List<String>> FRAMEWORK_FREE = Map.of(
      "kernel", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "drift", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "evaluation", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "mixing", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "calibration", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "store", List.of("org.apache.spark", "scala."));

  private static final Pattern OURS = Pattern.compile("\\bio\\.github\\.sparkperceptron\\.(\\w+)");

  /** The code of a Java file without its comments and the contents of its string literals. */
  static String code(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
        int end = source.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
        int end = source.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && source.charAt(j) != c) {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        out.append(c).append(c);
        i = j + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static List<Path> sources(String pkg) throws IOException {
    try (Stream<Path> files = Files.list(MAIN.resolve(pkg))) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted()
          .collect(Collectors.toList());
    }
  }

  @Test
  void everyPackageStandsOnAFloor() throws IOException {
    Set<String> packages;
    try (Stream<Path> dirs = Files.list(MAIN)) {
      packages = dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
    assertEquals(new TreeSet<>(FLOOR.keySet()), packages,
        "a new package needs its floor in LayeringTest");
  }

  @Test
  void everyPackageDependsOnlyOnPackagesBelowIt() throws IOException {
    List<String> violations = new ArrayList<>();
    for (String pkg : FLOOR.keySet()) {
      for (Path f : sources(pkg)) {
        Matcher m = OURS.matcher(code(Files.readString(f)));
        Set<String> used = new TreeSet<>();
        while (m.find()) {
          used.add(m.group(1));
        }
        for (String other : used) {
          if (other.equals(pkg)) {
            continue;
          }
          Integer floor = FLOOR.get(other);
          if (floor == null || floor >= FLOOR.get(pkg)
              || AVOIDS.getOrDefault(pkg, Set.of()).contains(other)) {
            violations.add(pkg + "/" + f.getFileName() + " uses " + ROOT + other);
          }
        }
      }
    }
    assertTrue(violations.isEmpty(), String.join("\n", violations));
  }

  @Test
  void theMathAndTheStateFilesStayFreeOfTheirFrameworks() throws IOException {
    List<String> violations = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : FRAMEWORK_FREE.entrySet()) {
      for (Path f : sources(e.getKey())) {
        String code = code(Files.readString(f));
        for (String framework : e.getValue()) {
          if (Pattern.compile("\\b" + Pattern.quote(framework)).matcher(code).find()) {
            violations.add(e.getKey() + "/" + f.getFileName() + " uses " + framework);
          }
        }
      }
    }
    assertTrue(violations.isEmpty(), String.join("\n", violations));
  }

  /** The scanner sees what the compiler sees: not comments, not strings. */
  @Test
  void fullyQualifiedNamesInCodeCountAndCommentsAndStringsDoNot() {
    String source = "/** see {@link io.github.sparkperceptron.ml.Foo} */\n"
        + "class A { // io.github.sparkperceptron.jobs.X\n"
        + "  String s = \"io.github.sparkperceptron.streaming.Y \\\" still a string\";\n"
        + "  char q = '\"';\n"
        + "  Object o = new io.github.sparkperceptron.ml.Bar();\n"
        + "}\n";
    Matcher m = OURS.matcher(code(source));
    List<String> found = new ArrayList<>();
    while (m.find()) {
      found.add(m.group(1));
    }
    assertEquals(List.of("ml"), found);
  }

  /**
   * The ONNX graphs are built from plain weights, apart from Spark: only {@code OnnxExport} (the
   * model's side) and {@code OnnxFormat} (Spark's writer hook) touch Spark and the model.
   */
  @Test
  void theOnnxGraphBuildersStayFreeOfSparkAndTheModel() throws IOException {
    List<String> violations = new ArrayList<>();
    for (String graph : new String[] {"PerceptronGraphs.java", "VoteLayout.java",
        "OnnxGraph.java", "ProbabilityGraph.java"}) {
      String code = code(Files.readString(MAIN.resolve("onnx").resolve(graph)));
      for (String framework : new String[] {"org.apache.spark", "scala.", ROOT + "ml"}) {
        if (Pattern.compile("\\b" + Pattern.quote(framework)).matcher(code).find()) {
          violations.add("onnx/" + graph + " uses " + framework);
        }
      }
    }
    assertTrue(violations.isEmpty(), String.join("\n", violations));
  }
}
