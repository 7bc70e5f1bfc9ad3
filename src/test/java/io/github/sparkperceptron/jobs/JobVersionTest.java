package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.SparkPerceptronVersion;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every job's {@code --version} names the job and the version the project's pom gives, a
 * snapshot's {@code -SNAPSHOT} included (they printed 0.1.0 for 0.1.0-SNAPSHOT). The version is
 * read from pom.xml here, not from the resource the build filtered, so a stale or unfiltered
 * resource fails the test. No Spark: picocli answers --version before a job starts.
 */
class JobVersionTest {

  /** The project's own version in pom.xml: the one after its artifactId, before any parent's. */
  static String pomVersion() throws IOException {
    String pom = Files.readString(TestData.projectRoot().resolve("pom.xml"));
    Matcher m = Pattern.compile("<artifactId>spark-perceptron</artifactId>\\s*"
        + "<version>([^<]+)</version>").matcher(pom);
    assertTrue(m.find(), "pom.xml names no version after its artifactId");
    return m.group(1);
  }

  @Test
  void theLibraryKnowsThePomsVersion() throws IOException {
    assertEquals(pomVersion(), SparkPerceptronVersion.VERSION);
  }

  @Test
  void everyJobsVersionIsSparkPerceptronTheJobAndThePomsVersion() throws IOException {
    Map<String, Callable<Integer>> jobs = new LinkedHashMap<>();
    jobs.put("train", new TrainJob());
    jobs.put("predict", new PredictJob());
    jobs.put("evaluate", new EvaluateJob());
    jobs.put("export", new ExportJob());
    jobs.put("generate", new GenerateJob());
    jobs.put("stream-train", new StreamTrainJob());
    String version = pomVersion();
    for (Map.Entry<String, Callable<Integer>> job : jobs.entrySet()) {
      JobRun run = JobRun.of(job.getValue(), "--version");
      assertEquals(0, run.exitCode, run.toString());
      assertEquals("spark-perceptron " + job.getKey() + " " + version, run.out.strip(),
          run.toString());
    }
  }
}
