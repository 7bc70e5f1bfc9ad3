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
 * 9  jobs                        the spark-submit front ends
 * 8  streaming, onnx             the stream learner (not the readers, the mixing rules or data);
 *                               the ONNX export of a trained model
 * 7  ml                          the Spark face: estimator, model, params, summaries
 *    internal.                   the engine and the math, not an API:
 * 6    engine                    the training loop, one-shot mixing, checkpoints, a stream's batch
 * 5    rounds                    how an epoch's mixing rounds run: a job each, or one barrier stage
 * 4    blocks                    input laid out over the workers, converted into cached blocks
 * 3    plan                      what a training asks and how it runs: settings, memory, rounds
 * 2    exchange, data            how weights travel; synthetic data (public)
 * 1    mixing, store, io,        Spark-free mixing; state files; the readers;
 *      calibration               Spark-free probability calibration (Platt, temperature, isotonic)
 * 0    kernel, drift, evaluation Spark-free learning on primitive arrays; drift detectors;
 *                               ranked scores and curve areas
 * -    (the root package)        the vocabulary the public API shares with the engine
 *                               (StopReason): every floor may use it, it uses nothing of ours
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

  private static final Map<String, Integer> FLOOR = Map.ofEntries(
      Map.entry("internal.kernel", 0), Map.entry("internal.drift", 0),
      Map.entry("internal.evaluation", 0),
      Map.entry("internal.mixing", 1), Map.entry("internal.store", 1), Map.entry("internal.io", 1),
      Map.entry("internal.calibration", 1),
      Map.entry("internal.exchange", 2), Map.entry("data", 2), Map.entry("internal.plan", 3),
      Map.entry("internal.blocks", 4), Map.entry("internal.rounds", 5),
      Map.entry("internal.engine", 6), Map.entry("ml", 7),
      Map.entry("streaming", 8), Map.entry("onnx", 8), Map.entry("jobs", 9));

  /** Lower packages a package must not use although they stand below it. */
  private static final Map<String, Set<String>> AVOIDS = Map.of(
      "streaming", Set.of("internal.io", "internal.mixing", "data"),
      "onnx", Set.of("internal.io", "internal.mixing", "internal.exchange", "data",
          "internal.plan", "internal.blocks", "internal.rounds", "internal.engine"));

  /** Frameworks a package must not use. */
  private static final Map<String, List<String>> FRAMEWORK_FREE = Map.of(
      "internal.kernel", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "internal.drift", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "internal.evaluation", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "internal.mixing", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "internal.calibration", List.of("org.apache.spark", "org.apache.hadoop", "scala."),
      "internal.store", List.of("org.apache.spark", "scala."));

  private static final Pattern OURS = Pattern.compile(
      "\\bio\\.github\\.sparkperceptron\\.((?:internal\\.)?\\w+)");

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
    try (Stream<Path> files = Files.list(MAIN.resolve(pkg.replace('.', '/')))) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted()
          .collect(Collectors.toList());
    }
  }

  @Test
  void everyPackageStandsOnAFloor() throws IOException {
    Set<String> packages;
    try (Stream<Path> dirs = Files.walk(MAIN)) {
      packages = dirs.filter(d -> !d.equals(MAIN) && Files.isDirectory(d)
          && !d.equals(MAIN.resolve("internal")))
          .map(d -> MAIN.relativize(d).toString().replace('/', '.'))
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
          if (other.equals(pkg) || Character.isUpperCase(other.charAt(0))) {
            continue; // the same package, or a type of the root package
          }
          Integer floor = FLOOR.get(other);
          if (floor == null || floor >= FLOOR.get(pkg)
              || AVOIDS.getOrDefault(pkg, Set.of()).contains(other)) {
            violations.add(pkg + "." + f.getFileName() + " uses " + ROOT + other);
          }
        }
      }
    }
    assertTrue(violations.isEmpty(), String.join("\n", violations));
  }

  @Test
  void theRootPackageUsesNothingOfOurs() throws IOException {
    List<String> violations = new ArrayList<>();
    for (Path f : sources("")) {
      Matcher m = OURS.matcher(code(Files.readString(f)));
      while (m.find()) {
        if (!Character.isUpperCase(m.group(1).charAt(0))) {
          violations.add(f.getFileName() + " uses " + ROOT + m.group(1));
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
