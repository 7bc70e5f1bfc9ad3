package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.testing.Background;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs' class-data archive (JEP 350) as a user gets it: the first job of a jar that has no
 * archive yet (the scripts' build writes one, but a jar Maven rebuilt itself, with {@code mvn
 * package} or {@code mvn install}, has none) writes it first, saying so, removes the archives of
 * earlier jars, and maps it (the JVM's own class-loading log says so); {@code SP_CDS=0} starts
 * without it; the two runs learn and report the same model and metrics, only their seconds
 * differ. A dump that failed is not tried again for the same jar, and a job that finds another
 * one writing leaves the archive to it.
 *
 * <p>It works in a copy of what the scripts use (submit/, the conf templates, the breast cancer
 * sample, the build's job jar and class path, under a temporary root), so that stale archives can
 * be laid out and the jar "rebuilt" without touching the build's own target/. The build's
 * environment turns the archive off for the other tests (SP_CDS=0 in pom.xml); this one sets
 * SP_CDS=1 where it wants it.
 */
@Tag("script")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ClassDataArchiveTest {
  private static final Path ROOT = TestData.projectRoot();
  private static final String SPARK_CONTEXT = "org.apache.spark.SparkContext ";
  private static final Map<String, String> ON = Map.of("SP_CDS", "1");

  @TempDir
  Path tmp;

  /** The copy the scripts run in: their SP_ROOT. */
  private Path root;

  /** The job jar and class path, built by the scripts themselves when missing or stale. */
  @BeforeAll
  static void build() throws Exception {
    Path log = Files.createTempFile("cds-build", ".log");
    try {
      int exit = run(ROOT, List.of(ROOT.resolve("submit/train").toString(), "--version"),
          Map.of("SP_CDS", "0"), log);
      assertEquals(0, exit, Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.delete(log);
    }
  }

  @BeforeEach
  void copyWhatTheScriptsUse() throws IOException {
    root = tmp.resolve("root");
    copyTree(ROOT.resolve("submit"), root.resolve("submit"));
    copyTree(ROOT.resolve("data-samples/breast_cancer"),
        root.resolve("data-samples/breast_cancer"));
    Files.createDirectories(root.resolve("conf"));
    for (String template : new String[] {"log4j2.properties.template",
        "spark-defaults.conf.template", "train.properties.template"}) {
      Files.copy(ROOT.resolve("conf").resolve(template), root.resolve("conf").resolve(template));
    }
    Files.createDirectories(root.resolve("target"));
    for (String built : new String[] {"spark-perceptron-jobs.jar", "classpath.txt"}) {
      Files.copy(ROOT.resolve("target").resolve(built), root.resolve("target").resolve(built));
    }
    // Sources older than the jar: the scripts take the jar as built and build nothing.
    FileTime old = FileTime.from(Instant.parse("2001-01-01T00:00:00Z"));
    Files.copy(ROOT.resolve("pom.xml"), root.resolve("pom.xml"));
    Files.setLastModifiedTime(root.resolve("pom.xml"), old);
    Files.setLastModifiedTime(Files.createDirectories(root.resolve("src/main")), old);
  }

  @Test
  void aJarWithoutAnArchiveGetsOneAtItsFirstJobWhichReplacesTheOldAndChangesNothingButTime()
      throws Exception {
    // What an earlier build of the jar left: its archive, and a failed dump's mark.
    Path cds = Files.createDirectories(root.resolve("target/cds"));
    Files.writeString(cds.resolve("jobs-1.jsa"), "the archive of an earlier jar");
    Files.writeString(cds.resolve("jobs-2.failed"), "");

    // The run without the archive, meanwhile: SP_CDS=0 neither reads nor writes target/cds/.
    Background<JsonNode> withoutRun = Background.start("quick start without the archive",
        () -> quickStart("without", Map.of("SP_CDS", "0")));
    JsonNode with = quickStart("with", ON);
    String output = Files.readString(tmp.resolve("with/output.log"), StandardCharsets.UTF_8);
    assertTrue(output.contains("Writing the jobs' class-data archive for this build of the jar"),
        output);
    Path archive = archive(ON);
    assertTrue(Files.isRegularFile(archive), "no archive at " + archive + ":\n" + output);
    assertTrue(Files.size(archive) > 10L << 20, "an archive of Spark's classes is tens of MB");
    assertEquals(new TreeSet<>(List.of(archive.getFileName().toString(), "dump.log")),
        names(cds), "the earlier jar's archive and mark are gone, no lock is left");
    // Written with the jars alone, mapped by a JVM whose class path adds the conf directory.
    String loadedWith = Files.readString(tmp.resolve("with/classes.log"));
    assertTrue(sparkContextLine(loadedWith).contains("shared objects file"),
        sparkContextLine(loadedWith));
    // So another conf directory maps the same archive instead of writing one of its own.
    Path otherConf = Files.createDirectories(tmp.resolve("other-conf"));
    assertEquals(archive, archive(Map.of("SP_CDS", "1", "SPARK_PERCEPTRON_CONF_DIR",
        otherConf.toString())));

    JsonNode without = withoutRun.get();
    String loadedWithout = Files.readString(tmp.resolve("without/classes.log"));
    assertFalse(sparkContextLine(loadedWithout).contains("shared objects file"),
        sparkContextLine(loadedWithout));
    assertEquals(withoutSeconds(without), withoutSeconds(with));

    // Maven rewrites the jar: the archive that fits it has another name, so the next job finds
    // none and writes it, as the first one did above.
    Files.setLastModifiedTime(root.resolve("target/spark-perceptron-jobs.jar"),
        FileTime.from(Instant.now().plusSeconds(60)));
    assertNotEquals(archive, archive(ON));
  }

  @Test
  void aFailedDumpIsNotTriedAgainForTheSameJarAndASecondWriterLeavesItToTheFirst()
      throws Exception {
    Path archive = archive(ON);
    Path failed = archive.resolveSibling(archive.getFileName().toString()
        .replace(".jsa", ".failed"));
    Files.createDirectories(archive.getParent());
    Files.writeString(failed, "");
    // No java starts: both return at once, print nothing and write nothing.
    assertEquals("", dumpOutput(ON));
    assertFalse(Files.exists(archive));

    Files.delete(failed);
    Path lock = Files.createDirectories(archive.resolveSibling("writing"));
    assertEquals("", dumpOutput(ON));
    assertFalse(Files.exists(archive));
    assertTrue(Files.isDirectory(lock), "the other writer's lock is its own to remove");
  }

  /** The README's quick start into {@code tmp/name}, with the JVM's class-loading log. */
  private JsonNode quickStart(String name, Map<String, String> env) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name));
    Path metrics = dir.resolve("metrics.json");
    List<String> command = List.of(root.resolve("submit/train").toString(), "--master",
        "local[2]", "--train", "data-samples/breast_cancer/train.libsvm", "--test",
        "data-samples/breast_cancer/test.libsvm", "--model", dir.resolve("model").toString(),
        "--metrics", metrics.toString(), "--driver-java-options",
        "-Xlog:class+load=info:file=" + dir.resolve("classes.log"));
    Path log = dir.resolve("output.log");
    int exit = run(root, command, env, log);
    assertEquals(0, exit, Files.readString(log, StandardCharsets.UTF_8));
    return new ObjectMapper().readTree(metrics.toFile());
  }

  /** Where the scripts look for the archive of the copy's jar and class path. */
  private Path archive(Map<String, String> env) throws Exception {
    return Path.of(bash("source submit/lib/common.sh && sp_cds_archive", env).strip());
  }

  /** What {@code sp_cds_dump} prints when called on its own, as the build calls it. */
  private String dumpOutput(Map<String, String> env) throws Exception {
    return bash("source submit/lib/common.sh && sp_cds_dump", env);
  }

  private String bash(String script, Map<String, String> env) throws Exception {
    Path log = Files.createTempFile(tmp, "bash", ".log");
    int exit = run(root, List.of("bash", "-c", script), env, log);
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertEquals(0, exit, script + ":\n" + output);
    return output;
  }

  private static TreeSet<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          // COPY_ATTRIBUTES: the scripts stay executable.
          Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
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
        if (field.toLowerCase(Locale.ROOT).contains("seconds")) {
          timings.add(field);
        }
      }
      object.remove(timings);
    }
    for (JsonNode child : node) {
      strip(child);
    }
  }

  private static int run(Path dir, List<String> command, Map<String, String> env, Path output)
      throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    pb.environment().remove("SPARK_HOME");
    pb.environment().remove("SPARK_PERCEPTRON_CONF_DIR");
    pb.environment().putAll(env);
    pb.redirectErrorStream(true).redirectOutput(output.toFile());
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(command.get(0) + " did not finish in 10 minutes");
    }
    return p.exitValue();
  }
}
