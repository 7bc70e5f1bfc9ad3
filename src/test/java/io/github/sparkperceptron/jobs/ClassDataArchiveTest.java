package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.testing.TestData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs' class-data archive (JEP 350) as a user's build makes it: {@code sp_cds_dump} (what the
 * scripts' build runs after packaging) writes it, a job's JVM then loads Spark's classes from it
 * (the JVM's own class-loading log says so), {@code SP_CDS=0} starts without it, and the two runs
 * learn and report the same model and metrics, only their seconds differ.
 */
@Tag("script")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ClassDataArchiveTest {
  private static final Path ROOT = TestData.projectRoot();
  private static final String SPARK_CONTEXT = "org.apache.spark.SparkContext ";

  @TempDir
  Path tmp;

  @Test
  void theBuildsArchiveIsMappedByTheJobsAndChangesNothingButTime() throws Exception {
    // The archive for this class path and jar, written as the build writes it.
    Path dumpLog = tmp.resolve("dump.log");
    int dumped = run(List.of("bash", "-c",
        "source submit/lib/common.sh && sp_cds_dump && sp_cds_archive"), Map.of(), dumpLog);
    String lines = Files.readString(dumpLog, StandardCharsets.UTF_8);
    assertEquals(0, dumped, lines);
    Path archive = Path.of(lines.strip().lines().reduce((a, b) -> b).orElseThrow());
    assertTrue(Files.isRegularFile(archive), "no archive at " + archive + ":\n" + lines);
    assertTrue(Files.size(archive) > 10L << 20, "an archive of Spark's classes is tens of MB");

    JsonNode with = quickStart("with", Map.of());
    JsonNode without = quickStart("without", Map.of("SP_CDS", "0"));
    String loadedWith = Files.readString(tmp.resolve("with/classes.log"));
    String loadedWithout = Files.readString(tmp.resolve("without/classes.log"));
    assertTrue(sparkContextLine(loadedWith).contains("shared objects file"),
        sparkContextLine(loadedWith));
    assertFalse(sparkContextLine(loadedWithout).contains("shared objects file"),
        sparkContextLine(loadedWithout));
    assertEquals(withoutSeconds(without), withoutSeconds(with));
  }

  /** The README's quick start into {@code tmp/name}, with the JVM's class-loading log. */
  private JsonNode quickStart(String name, Map<String, String> env) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name));
    Path metrics = dir.resolve("metrics.json");
    List<String> command = List.of(ROOT.resolve("submit/train").toString(), "--master",
        "local[2]", "--train", "data-samples/breast_cancer/train.libsvm", "--test",
        "data-samples/breast_cancer/test.libsvm", "--model", dir.resolve("model").toString(),
        "--metrics", metrics.toString(), "--driver-java-options",
        "-Xlog:class+load=info:file=" + dir.resolve("classes.log"));
    Path log = dir.resolve("output.log");
    int exit = run(command, env, log);
    assertEquals(0, exit, Files.readString(log, StandardCharsets.UTF_8));
    return new ObjectMapper().readTree(metrics.toFile());
  }

  private static String sparkContextLine(String classLog) {
    return classLog.lines().filter(l -> l.contains(SPARK_CONTEXT)).findFirst()
        .orElse("SparkContext was not loaded:\n" + classLog.substring(0,
            Math.min(classLog.length(), 2000)));
  }

  /** The metrics with every timing and the model's path removed, at every depth. */
  private static JsonNode withoutSeconds(JsonNode metrics) {
    JsonNode copy = metrics.deepCopy();
    strip(copy);
    ((ObjectNode) copy).remove("model");
    return copy;
  }

  private static void strip(JsonNode node) {
    if (node instanceof ObjectNode object) {
      List<String> timings = new ArrayList<>();
      for (Iterator<String> names = object.fieldNames(); names.hasNext();) {
        String field = names.next();
        if (field.toLowerCase(java.util.Locale.ROOT).contains("seconds")) {
          timings.add(field);
        }
      }
      object.remove(timings);
    }
    for (JsonNode child : node) {
      strip(child);
    }
  }

  private static int run(List<String> command, Map<String, String> env, Path output)
      throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.environment().remove("SPARK_HOME");
    pb.environment().remove("SPARK_PERCEPTRON_CONF_DIR");
    pb.environment().putAll(env);
    pb.redirectErrorStream(true).redirectOutput(output.toFile());
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(command.get(0) + " did not finish in 10 minutes");
    }
    return p.exitValue();
  }
}
