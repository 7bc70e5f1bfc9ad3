package io.github.sparkperceptron.packaging;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.onnx.OnnxProto.ModelProto;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.onnx.OnnxExport;
import io.github.sparkperceptron.onnx.OnnxFormat;
import io.github.sparkperceptron.testing.ChildJvms;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.StandardScaler;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library as a user's project gets it: the main artifact this build packaged
 * (target/spark-perceptron.jar with the project's pom) is installed with maven-install-plugin into
 * an empty temporary repository, and a separate Maven project ({@code src/test/resources/consumer},
 * Spark {@code provided} of its own) compiles against it there and fits, saves and reloads a
 * Pipeline with it, run the way the README tells a user to run such a program: its
 * {@code mvn compile exec:java ...} line, read from the README, with
 * {@code conf/log4j2.properties.template} copied to the project's
 * {@code src/main/resources/log4j2.properties} as the README says; then Spark logs nothing at INFO
 * (a run without it printed some 2,000 INFO lines).
 *
 * <p>It checks what a library user relies on: the installed pom brings neither the jobs' picocli
 * nor JFreeChart (optional dependencies), the jar holds only our classes and the
 * protobuf runtime relocated under our package, the pipeline fitted through the artifact is bit
 * for bit the one fitted here from the build's classes (same data, same single input partition,
 * same seed: the library promises identical models), and so is its ONNX export.
 *
 * <p>Nothing is fetched from the network: the consumer's build resolves Spark and the Maven plugins
 * through a mirror onto the Maven repository this build already filled (its local repository,
 * passed in as {@code sp.build.repository}; the exec plugin is among this build's test libraries
 * for that reason). Needs the packaged jar: run it with
 * {@code mvn verify -Dit.test=ConsumerProjectTest}.
 */
@Tag("consumer")
// Each test starts JVMs or builds (processes, not Spark jobs of this JVM): minutes under load,
// beyond junit-platform.properties' default of 5.
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ConsumerProjectTest {
  private static final Path ROOT = TestData.projectRoot();
  private static final Path LIBRARY_JAR = ROOT.resolve("target/spark-perceptron.jar");
  private static final Path JOBS_JAR = ROOT.resolve("target/spark-perceptron-jobs.jar");
  private static final Path TRAIN = TestData.sharedData("breast_cancer", "train.libsvm");
  private static final Path TEST = TestData.sharedData("breast_cancer", "test.libsvm");
  /** The simple names of the library's classes: the loggers of its own INFO lines. */
  private static final Set<String> OUR_CLASSES = ourClasses();

  @TempDir
  Path tmp;

  @Test
  void aSeparateProjectBuildsAgainstTheInstalledArtifactAndFitsAPipeline() throws Exception {
    requirePackaged(LIBRARY_JAR);
    String version = property("sp.version");
    Path buildRepository = Path.of(property("sp.build.repository"));

    Path repository = tmp.resolve("repository");
    run(tmp, "install", List.of("mvn", "-B", "-q", "-o",
        "org.apache.maven.plugins:maven-install-plugin:3.1.2:install-file",
        "-Dfile=" + LIBRARY_JAR, "-DpomFile=" + ROOT.resolve("pom.xml"),
        "-DlocalRepositoryPath=" + repository, "-Dmaven.repo.local=" + buildRepository));
    Path installed = repository.resolve("io/github/sparkperceptron/spark-perceptron")
        .resolve(version).resolve("spark-perceptron-" + version + ".jar");
    assertTrue(Files.exists(installed), "install-file did not install " + installed);

    Path settings = tmp.resolve("settings.xml");
    Files.writeString(settings, "<settings><mirrors><mirror><id>build-repository</id>"
        + "<mirrorOf>*</mirrorOf><url>" + buildRepository.toUri() + "</url></mirror></mirrors>"
        + "</settings>\n");
    Path project = copyConsumerProject(tmp.resolve("consumer"));
    Path classpathFile = tmp.resolve("classpath.txt");
    run(project, "build", List.of("mvn", "-B", "-q", "-s", settings.toString(),
        "-Dmaven.repo.local=" + repository, "-Dsp.version=" + version,
        "-Dspark.version=" + property("spark.version"),
        "-Dscala.version=" + property("scala.version"),
        "-Dscala.binary.version=" + property("scala.binary.version"),
        "compile", "dependency:build-classpath", "-Dmdep.outputFile=" + classpathFile));

    List<String> classpath = Arrays.asList(
        Files.readString(classpathFile).strip().split(File.pathSeparator));
    assertTrue(classpath.contains(installed.toString()),
        "the consumer does not use the installed artifact: " + classpath);
    for (String entry : classpath) {
      String name = Path.of(entry).getFileName().toString();
      assertTrue(!name.startsWith("picocli") && !name.startsWith("jfreechart"),
          "a library user gets a jobs-only dependency: " + entry);
    }

    // Run as the README says: its exec:java command, Spark quiet through the log4j2 template
    // copied to src/main/resources/log4j2.properties.
    Files.createDirectories(project.resolve("src/main/resources"));
    Files.copy(ROOT.resolve("conf/log4j2.properties.template"),
        project.resolve("src/main/resources/log4j2.properties"));
    List<String> command = new ArrayList<>(List.of("mvn", "-B", "-s", settings.toString(),
        "-Dmaven.repo.local=" + repository, "-Dsp.version=" + version,
        "-Dspark.version=" + property("spark.version"),
        "-Dscala.version=" + property("scala.version"),
        "-Dscala.binary.version=" + property("scala.binary.version")));
    for (String word : readmeExecJava()) {
      command.add(word.startsWith("-Dexec.mainClass=")
          ? "-Dexec.mainClass=example.ConsumerPipeline" : word);
    }
    command.add("-Dexec.args=" + TRAIN + " " + TEST + " " + tmp.resolve("pipeline") + " "
        + tmp.resolve("onnx"));
    String output = run(project, "run", command);
    // An INFO line in either layout, the template's ("08:36:49 INFO  MixingLoop: ...") or
    // Spark's default ("26/11/27 08:35:29 INFO BlockManager: ..."), names its logger's class.
    Pattern info = Pattern.compile("\\bINFO +([\\w$]+): ");
    List<String> notOurs = output.lines().filter(l -> {
      Matcher m = info.matcher(l);
      return m.find() && !OUR_CLASSES.contains(m.group(1));
    }).toList();
    assertTrue(notOurs.isEmpty(), notOurs.size() + " INFO lines from outside the library:"
        + " Spark's logging is not quiet:\n" + output);

    double accuracy = Double.parseDouble(line(output, "accuracy="));
    double intercept = Double.parseDouble(line(output, "intercept="));
    String list = line(output, "coefficients=");
    double[] coefficients = Arrays.stream(list.substring(1, list.length() - 1).split(", "))
        .mapToDouble(Double::parseDouble).toArray();

    PipelineModel here = readmePipeline().fit(read(TRAIN));
    PerceptronClassificationModel perceptron = (PerceptronClassificationModel) here.stages()[1];
    assertArrayEquals(perceptron.coefficients().toArray(), coefficients, 0.0, output);
    assertEquals(perceptron.intercept(), intercept, 0.0, output);
    assertEquals(new MulticlassClassificationEvaluator().setMetricName("accuracy")
        .evaluate(here.transform(read(TEST))), accuracy, 0.0, output);
    // The same model exported through the installed jar (protobuf relocated inside it) and
    // through the build's classes (protobuf-java on the class path): the same ONNX model, apart
    // from the texts that name the model's (random) uid.
    assertEquals(withoutTexts(OnnxExport.toBytes(perceptron)), withoutTexts(Files.readAllBytes(
        Path.of(line(output, "onnx=")).resolve(OnnxFormat.FILE_NAME))), output);
  }

  private static ModelProto withoutTexts(byte[] onnx) throws IOException {
    ModelProto model = ModelProto.parseFrom(onnx);
    return model.toBuilder().clearDocString().clearMetadataProps()
        .setGraph(model.getGraph().toBuilder().clearDocString()).build();
  }

  @Test
  void theLibraryJarHoldsOurClassesAndTheJobJarAddsOnlyTheJobsLibraries() throws IOException {
    requirePackaged(LIBRARY_JAR);
    requirePackaged(JOBS_JAR);
    List<String> library = entries(LIBRARY_JAR);
    for (String e : library) {
      assertTrue(e.startsWith("io/github/sparkperceptron/") || e.startsWith("META-INF/"), e);
    }
    assertTrue(library.contains("META-INF/LICENSE"), "no LICENSE in " + LIBRARY_JAR);
    assertTrue(library.contains("io/github/sparkperceptron/ml/PerceptronClassifier.class"));
    // The ONNX export's protobuf runtime, relocated: nothing of it under com/google/protobuf, and
    // the generated ONNX classes refer to the relocated copy only.
    assertTrue(library.contains(
        "io/github/sparkperceptron/shaded/protobuf/GeneratedMessageLite.class"), "no protobuf");
    assertTrue(library.contains("META-INF/LICENSE-protobuf"), "no protobuf licence");
    assertTrue(library.contains("META-INF/services/org.apache.spark.ml.util.MLFormatRegister"));
    assertTrue(library.contains("META-INF/services/org.apache.spark.ml.Estimator"));
    assertTrue(library.contains("META-INF/services/org.apache.spark.ml.Transformer"));
    try (ZipFile zip = new ZipFile(LIBRARY_JAR.toFile())) {
      String generated = new String(zip.getInputStream(zip.getEntry(
          "io/github/sparkperceptron/internal/onnx/OnnxProto$ModelProto.class")).readAllBytes(),
          StandardCharsets.ISO_8859_1);
      assertTrue(!generated.contains("com/google/protobuf")
          && generated.contains("io/github/sparkperceptron/shaded/protobuf"),
          "the generated classes are not relocated");
    }

    List<String> jobs = entries(JOBS_JAR);
    assertTrue(jobs.containsAll(library.stream().filter(e -> !e.startsWith("META-INF/")).toList()),
        "the job jar lacks some of the library's classes");
    for (String e : jobs) {
      assertTrue(e.startsWith("io/github/sparkperceptron/") || e.startsWith("META-INF/")
          || e.startsWith("picocli/") || e.startsWith("org/jfree/"), e);
    }
    assertTrue(jobs.contains("picocli/CommandLine.class"));
    assertTrue(jobs.contains("org/jfree/chart/JFreeChart.class"));
  }

  /** The jars come from `package`, which `mvn verify` runs before this test and `mvn test` not. */
  private static void requirePackaged(Path jar) throws IOException {
    Path classes = ROOT.resolve("target/classes");
    assertTrue(Files.exists(jar) && Files.getLastModifiedTime(jar)
        .compareTo(Files.getLastModifiedTime(classes)) >= 0, "needs a fresh " + jar
        + ": run mvn verify -Dit.test=" + ConsumerProjectTest.class.getSimpleName());
  }

  /** The README's Java example: what example.ConsumerPipeline fits. */
  private static Pipeline readmePipeline() {
    PerceptronClassifier perceptron = new PerceptronClassifier()
        .setFeaturesCol("scaled").setMaxIter(20).setAveraging("average");
    return new Pipeline().setStages(new PipelineStage[] {
        new StandardScaler().setInputCol("features").setOutputCol("scaled"), perceptron});
  }

  private static Dataset<Row> read(Path file) {
    SparkSession spark = SparkTestSupport.spark();
    return spark.read().format("libsvm").option("numFeatures", "30").load(file.toString());
  }

  private static List<String> entries(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return zip.stream().filter(e -> !e.isDirectory()).map(ZipEntry::getName).toList();
    }
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    assertTrue(value != null && !value.isEmpty(), "the build passes no -D" + name);
    return value;
  }

  private static String line(String output, String prefix) {
    return output.lines().filter(l -> l.startsWith(prefix)).findFirst()
        .map(l -> l.substring(prefix.length()))
        .orElseThrow(() -> new AssertionError("no '" + prefix + "' line in:\n" + output));
  }

  /**
   * The README's command that runs a program of one's own from Maven ("Add it to a project"),
   * without its leading {@code mvn}: its words as a user types them.
   */
  private static List<String> readmeExecJava() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    String section = readme.substring(readme.indexOf("## Add it to a project"));
    Matcher m = Pattern.compile("(?m)^mvn ([^\n]*exec:java[^\n]*)$").matcher(section);
    assertTrue(m.find(), "no `mvn ... exec:java` line in the README's \"Add it to a project\"");
    List<String> words = Arrays.asList(m.group(1).strip().split(" +"));
    assertTrue(words.contains("-Dexec.classpathScope=compile"), "Spark is provided: exec:java"
        + " needs the compile class path, which the README's command must say: " + words);
    return words;
  }

  private static Set<String> ourClasses() {
    try (Stream<Path> files = Files.walk(ROOT.resolve("src/main/java"))) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".java"))
          .map(n -> n.substring(0, n.length() - ".java".length())).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path copyConsumerProject(Path to) throws IOException {
    Path from = ROOT.resolve("src/test/resources/consumer");
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return to;
  }

  /**
   * Runs a command in {@code dir}; fails with its output unless it exits 0 within 10 minutes (a
   * minute or two on an idle machine: the limit only stops a hung build).
   */
  private static String run(Path dir, String what, List<String> command) {
    // The class path makes the java command line tens of kilobytes long: messages show the rest.
    String shown = command.stream().map(a -> a.length() > 300 ? "<class path>" : a)
        .collect(Collectors.joining(" "));
    try {
      Path log = Files.createTempFile(dir, what, ".log");
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(log.toFile())
          .redirectInput(new File("/dev/null"));
      // Maven's JVM, which runs the consumer's pipeline too (exec:java), with C1 alone.
      pb.environment().putAll(ChildJvms.mavenC1Only());
      Process p = pb.start();
      boolean finished = p.waitFor(10, TimeUnit.MINUTES);
      if (!finished) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly().waitFor();
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertTrue(finished, what + " ran longer than 10 minutes: " + shown + "\n" + output);
      assertEquals(0, p.exitValue(), what + " failed: " + shown + "\n" + output);
      return output;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
