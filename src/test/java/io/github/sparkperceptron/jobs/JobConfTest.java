package io.github.sparkperceptron.jobs;

import static io.github.sparkperceptron.jobs.JobFixtures.IRIS_TRAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

class JobConfTest {
  private static final Path TEMPLATE =
      TestData.projectRoot().resolve("conf/train.properties.template");

  @TempDir
  Path tmp;

  private Path conf(String... lines) throws IOException {
    Path p = tmp.resolve("job.properties");
    Files.write(p, List.of(lines));
    return p;
  }

  @Test
  void propertiesSetDefaultsAndFlagsWin() throws IOException {
    SparkTestSupport.spark();
    Path model = tmp.resolve("model");
    Path conf = conf("# comment", "train = " + IRIS_TRAIN, "max-iter = 4  ", "update-rule=pa1",
        "fit-intercept = false", "partitions = 1");
    JobRun run = JobRun.of(new TrainJob(), "--job-conf", conf.toString(), "--model",
        model.toString(), "--max-iter", "2");
    assertEquals(0, run.exitCode, run.toString());
    PerceptronClassificationModel loaded = PerceptronClassificationModel.load(model.toString());
    assertEquals(2, loaded.getMaxIter(), "the command line wins over the file");
    assertEquals("pa1", loaded.getUpdateRule(), "the file wins over the built-in default");
    assertFalse(loaded.getFitIntercept(), "a switch set to false in the file");
  }

  @Test
  void unknownKeysMissingFilesAndBadValuesAreUsageErrors() throws IOException {
    Path typo = conf("max-iters = 3");
    JobRun unknown = JobRun.of(new TrainJob(), "--job-conf", typo.toString(), "--train", "x",
        "--model", "y");
    assertEquals(2, unknown.exitCode, unknown.toString());
    assertTrue(unknown.err.startsWith("train: error: " + typo + ": unknown key 'max-iters'; the"
        + " keys are the long flag names without --: "), unknown.err);
    assertEquals(1, unknown.err.strip().lines().count(), unknown.err);

    JobRun missing = JobRun.of(new EvaluateJob(), "--job-conf=" + tmp.resolve("none"));
    assertEquals(2, missing.exitCode, missing.toString());
    assertEquals("evaluate: error: The job properties file (--job-conf) '" + tmp.resolve("none")
        + "' does not exist", missing.err.strip());

    Path bad = conf("max-iter = ten");
    JobRun badValue = JobRun.of(new TrainJob(), "--job-conf", bad.toString(), "--train", "x",
        "--model", "y");
    assertEquals(2, badValue.exitCode, badValue.toString());
    assertTrue(badValue.err.startsWith("train: error: Invalid value for option '--max-iter':"
        + " 'ten' is not an int (set by max-iter in " + bad + ")"), badValue.err);

    Path jobConfKey = conf("job-conf = other.properties");
    JobRun nested = JobRun.of(new PredictJob(), "--job-conf", jobConfKey.toString());
    assertEquals(2, nested.exitCode, nested.toString());
    assertTrue(nested.err.contains("unknown key 'job-conf'"), nested.err);
  }

  @Test
  void helpShowsTheDefaultsInEffect() throws IOException {
    JobRun plain = JobRun.of(new PredictJob(), "--help");
    assertTrue(plain.out.contains("(default: parquet)"), plain.out);
    Path conf = conf("output-format = json", "feature-cols = b,a");
    JobRun withConf = JobRun.of(new PredictJob(), "--job-conf", conf.toString(), "--help");
    assertEquals(0, withConf.exitCode, withConf.toString());
    assertTrue(withConf.out.contains("(default: json)"), withConf.out);
  }

  @Test
  void listValuedKeysAreSplitLikeTheFlag() throws IOException {
    PredictJob job = new PredictJob();
    CommandLine cli = new CommandLine(job);
    Path conf = conf("feature-cols = b, a", "input = in", "output = out", "model = m");
    cli.setDefaultValueProvider(new CommandLine.PropertiesDefaultProvider(
        JobSupport.loadJobConf(cli, conf.toString())));
    cli.parseArgs();
    assertEquals(List.of("b", " a"), job.input.featureCols,
        "picocli splits at commas and keeps the blanks, as it does for the flag");
    assertEquals("m", job.modelPath);
  }

  /**
   * The template lists every train flag: each one with a default as "# key = default" (the
   * default in effect: the job's own, or the estimator's for a hyper-parameter flag), the rest
   * (paths, feature-cols, weight-col) at least by name; and the template with every such line
   * uncommented is a valid job properties file.
   */
  @Test
  void templateListsEveryTrainFlagWithItsDefault() throws IOException {
    String template = Files.readString(TEMPLATE);
    Map<String, String> listed = new HashMap<>();
    Matcher m = Pattern.compile("(?m)^# ([a-z-]+) = (.*)$").matcher(template);
    while (m.find()) {
      listed.put(m.group(1), m.group(2).strip());
    }
    TrainJob job = new TrainJob();
    CommandLine cli = new CommandLine(job);
    JobDefaults defaults = new JobDefaults(null);
    int checked = 0;
    for (OptionSpec option : cli.getCommandSpec().options()) {
      String key = option.longestName().replaceFirst("^--", "");
      if (option.usageHelp() || option.versionHelp() || key.equals("job-conf")) {
        continue;
      }
      String inEffect = defaults.defaultValue(option) != null ? defaults.defaultValue(option)
          : option.defaultValue();
      if (inEffect != null) {
        assertEquals(inEffect, listed.get(key), "template line for " + key);
        checked++;
      } else {
        assertTrue(template.contains(key), "the template mentions " + key);
      }
    }
    assertTrue(checked >= 19, "defaults checked (19 flags had one when written): " + checked);

    Path uncommented = tmp.resolve("train.properties");
    Files.writeString(uncommented, template.replaceAll("(?m)^# ([a-z-]+ = )", "$1"));
    Properties loaded = JobSupport.loadJobConf(new CommandLine(new TrainJob()),
        uncommented.toString());
    assertEquals(listed.keySet(), loaded.stringPropertyNames());
  }
}
