package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layers depend one way: kernel ← mixing ← exchange ← ml / io ← jobs, and ml ← streaming ←
 * jobs; drift (the drift detectors) sits at the floor beside kernel, importing nothing. The math must stay free of Spark (so it can be read, tested and benchmarked alone), the
 * library free of the jobs, and batch training free of streaming.
 */
class LayeringTest {
  private static final Path MAIN = TestData.projectRoot()
      .resolve("src/main/java/io/github/sparkperceptron");

  private static List<String> violations(String pkg, String... forbidden) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(MAIN.resolve(pkg))) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        for (String line : Files.readAllLines(f)) {
          for (String prefix : forbidden) {
            if (line.startsWith("import " + prefix) || line.startsWith("import static " + prefix)) {
              found.add(f.getFileName() + ": " + line);
            }
          }
        }
      }
    }
    return found;
  }

  @Test
  void kernelImportsNeitherSparkNorOtherLayers() throws IOException {
    List<String> v = violations("kernel", "org.apache.spark", "org.apache.hadoop", "scala.",
        "io.github.sparkperceptron.mixing", "io.github.sparkperceptron.ml",
        "io.github.sparkperceptron.io", "io.github.sparkperceptron.jobs");
    assertTrue(v.isEmpty(), v.toString());
  }

  @Test
  void driftDetectorsImportNeitherSparkNorAnyOtherLayer() throws IOException {
    List<String> v = violations("drift", "org.apache.spark", "org.apache.hadoop", "scala.",
        "io.github.sparkperceptron.");
    assertTrue(v.isEmpty(), v.toString());
  }

  @Test
  void mixingImportsNoSparkAndOnlyTheKernel() throws IOException {
    List<String> v = violations("mixing", "org.apache.spark", "org.apache.hadoop", "scala.",
        "io.github.sparkperceptron.ml", "io.github.sparkperceptron.io",
        "io.github.sparkperceptron.jobs");
    assertTrue(v.isEmpty(), v.toString());
  }

  @Test
  void exchangeDependsOnlyOnTheMathAndSpark() throws IOException {
    List<String> v = violations("exchange", "io.github.sparkperceptron.ml",
        "io.github.sparkperceptron.io", "io.github.sparkperceptron.jobs",
        "io.github.sparkperceptron.data");
    assertTrue(v.isEmpty(), v.toString());
  }

  @Test
  void syntheticDataDependsOnlyOnTheKernelAndSpark() throws IOException {
    List<String> v = violations("data", "io.github.sparkperceptron.mixing",
        "io.github.sparkperceptron.ml", "io.github.sparkperceptron.io",
        "io.github.sparkperceptron.jobs");
    assertTrue(v.isEmpty(), v.toString());
  }

  @Test
  void libraryDoesNotDependOnJobs() throws IOException {
    List<String> v = violations("ml", "io.github.sparkperceptron.jobs");
    v.addAll(violations("io", "io.github.sparkperceptron.jobs"));
    v.addAll(violations("exchange", "io.github.sparkperceptron.jobs"));
    assertTrue(v.isEmpty(), v.toString());
  }

  /**
   * The ONNX export builds on the model's public face and the kernel's vote; only the jobs build
   * on it, and the model reaches it through Spark's format registry, never by import. Its graph
   * builders are Spark-free: the model's numbers in, protobuf out.
   */
  @Test
  void onnxExportBuildsOnTheModelAndOnlyTheJobsBuildOnIt() throws IOException {
    List<String> v = violations("onnx", "io.github.sparkperceptron.jobs",
        "io.github.sparkperceptron.streaming", "io.github.sparkperceptron.io.",
        "io.github.sparkperceptron.mixing", "io.github.sparkperceptron.exchange",
        "io.github.sparkperceptron.data");
    for (String lower : new String[] {"kernel", "mixing", "exchange", "ml", "io", "data",
        "streaming"}) {
      v.addAll(violations(lower, "io.github.sparkperceptron.onnx"));
    }
    for (String graph : new String[] {"PerceptronGraphs.java", "VoteLayout.java",
        "OnnxGraph.java"}) {
      for (String line : Files.readAllLines(MAIN.resolve("onnx").resolve(graph))) {
        if (line.startsWith("import org.apache.spark") || line.startsWith("import scala.")
            || line.startsWith("import io.github.sparkperceptron.ml")) {
          v.add(graph + ": " + line);
        }
      }
    }
    assertTrue(v.isEmpty(), v.toString());
  }

  @Test
  void streamingBuildsOnMlAndOnlyTheJobsBuildOnStreaming() throws IOException {
    List<String> v = violations("streaming", "io.github.sparkperceptron.jobs",
        "io.github.sparkperceptron.io", "io.github.sparkperceptron.mixing",
        "io.github.sparkperceptron.data");
    for (String lower : new String[] {"kernel", "mixing", "exchange", "ml", "io", "data"}) {
      v.addAll(violations(lower, "io.github.sparkperceptron.streaming"));
    }
    assertTrue(v.isEmpty(), v.toString());
  }
}
