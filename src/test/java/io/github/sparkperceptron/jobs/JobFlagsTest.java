package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.ml.param.Param;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/**
 * The train job's flags: a misspelt flag is named with the flag meant, before any complaint about
 * a missing one; hyper-parameter flags set only what the user gave, so the estimator's own
 * defaults rule the rest; and --help shows those defaults.
 */
class JobFlagsTest {
  @TempDir
  Path tmp;

  /** Parses args into a fresh TrainJob as JobSupport does, without running it. */
  private static TrainJob parsed(Properties jobConf, String... args) {
    TrainJob job = new TrainJob();
    CommandLine cli = new CommandLine(job);
    cli.setDefaultValueProvider(new JobDefaults(jobConf));
    cli.parseArgs(args);
    return job;
  }

  /** The train job's training flags and the params they set, from the one table. */
  private static Map<String, String> paramOfFlag() {
    Map<String, String> paramOfFlag = new LinkedHashMap<>();
    for (TrainingFlags.Flag f : TrainingFlags.TABLE) {
      paramOfFlag.put(f.name(), f.param());
    }
    return paramOfFlag;
  }

  @Test
  void aMisspeltFlagIsNamedWithTheNearestOneBeforeTheMissingRequiredFlag() {
    JobRun run = JobRun.of(new TrainJob(), "--trian", "data.libsvm", "--model", "m");
    assertEquals(2, run.exitCode, run.toString());
    assertEquals("train: error: Unknown option: '--trian'; did you mean '--train'? (see 'submit/train"
        + " --help' for the options and their defaults)", run.err.strip());

    JobRun value = JobRun.of(new TrainJob(), "--train", "x", "--model", "m", "--max-iters=3");
    assertTrue(value.err.contains("Unknown option: '--max-iters'; did you mean '--max-iter'?"),
        value.err);
    JobRun far = JobRun.of(new TrainJob(), "--train", "x", "--model", "m", "--colour");
    assertTrue(far.err.startsWith("train: error: Unknown option: '--colour' (see"), far.err);
    assertEquals(1, far.err.strip().lines().count(), far.err);
  }

  @Test
  void flagValuesNegativeNumbersAndNegatedSwitchesAreNotUnknownFlags() {
    CommandSpec spec = new CommandLine(new TrainJob()).getCommandSpec();
    assertNull(JobSupport.unknownFlag(spec, new String[] {"--threshold", "-1.5", "--no-shuffle",
        "--fit-intercept", "--train", "-weird-but-a-value", "--seed=-3", "--", "--anything"}));
    assertEquals("Unknown option: '--shufle'; did you mean '--shuffle'?",
        JobSupport.unknownFlag(spec, new String[] {"--shufle"}));
    assertEquals("Unknown option: '--no-shufle'; did you mean '--no-shuffle'?",
        JobSupport.unknownFlag(spec, new String[] {"--no-shufle"}));
  }

  @Test
  void editDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps() {
    assertEquals(0, JobSupport.editDistance("--train", "--train"));
    assertEquals(1, JobSupport.editDistance("--trian", "--train"), "one swap");
    assertEquals(1, JobSupport.editDistance("--tran", "--train"), "one insertion");
    assertEquals(1, JobSupport.editDistance("--trainn", "--train"), "one deletion");
    assertEquals(1, JobSupport.editDistance("--trein", "--train"), "one substitution");
    assertEquals(3, JobSupport.editDistance("abc", ""));
    // Optimal string alignment edits no substring twice: a swap then an insertion inside it is
    // not counted as 2 (true Damerau-Levenshtein), so "ca" -> "abc" takes 3.
    assertEquals(3, JobSupport.editDistance("ca", "abc"));
  }

  @Test
  void flagsTheUserDidNotGiveLeaveTheEstimatorsDefaults() {
    PerceptronClassifier untouched = parsed(null, "--train", "x", "--model", "m").estimator();
    for (Param<?> p : untouched.params()) {
      assertFalse(untouched.isSet(p), p.name() + " was set although no flag gave it");
    }
    assertEquals(10, untouched.getCheckpointInterval(), "the library's default, not the job's");

    PerceptronClassifier given = parsed(null, "--train", "x", "--model", "m", "--max-iter", "7",
        "--no-shuffle", "--checkpoint-interval", "2").estimator();
    assertEquals(7, given.getMaxIter());
    assertFalse(given.getShuffle());
    assertEquals(2, given.getCheckpointInterval());
    assertTrue(given.isSet(given.maxIter()) && given.isSet(given.shuffle()));
    assertFalse(given.isSet(given.seed()) || given.isSet(given.tol()));

    Properties conf = new Properties();
    conf.setProperty("update-rule", "pa1");
    PerceptronClassifier fromFile = parsed(conf, "--train", "x", "--model", "m").estimator();
    assertTrue(fromFile.isSet(fromFile.updateRule()), "a --job-conf value is given by the user");
    assertEquals("pa1", fromFile.getUpdateRule());
    assertFalse(fromFile.isSet(fromFile.maxIter()));
  }

  @Test
  void everyHyperParameterFlagSetsItsParamWhenGiven() throws Exception {
    PerceptronClassifier defaults = new PerceptronClassifier();
    for (Map.Entry<String, String> e : paramOfFlag().entrySet()) {
      Param<Object> param = defaults.getParam(e.getValue());
      boolean isSwitch = e.getKey().equals("--shuffle") || e.getKey().equals("--fit-intercept");
      String value = defaults.hasDefault(param)
          ? String.valueOf(defaults.getDefault(param).get()) : "x";
      TrainJob job = isSwitch ? parsed(null, "--train", "x", "--model", "m", e.getKey())
          : parsed(null, "--train", "x", "--model", "m", e.getKey(), value);
      PerceptronClassifier set = job.estimator();
      assertTrue(set.isSet(set.getParam(e.getValue())), e.getKey() + " does not set "
          + e.getValue());
      assertEquals(1, Arrays.stream(set.params()).filter(set::isSet).count(),
          e.getKey() + " sets exactly its own param");
    }
  }

  @Test
  void everyHyperParameterFlagNamesAParamAndShowsItsDefault() throws Exception {
    TrainJob job = new TrainJob();
    CommandLine cli = new CommandLine(job);
    cli.setDefaultValueProvider(new JobDefaults(null));
    PerceptronClassifier estimator = new PerceptronClassifier();
    String help = cli.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
    for (Map.Entry<String, String> e : paramOfFlag().entrySet()) {
      OptionSpec option = cli.getCommandSpec().findOption(e.getKey());
      assertNotNull(option, "no flag " + e.getKey());
      assertTrue(estimator.hasParam(e.getValue()), "no param " + e.getValue());
      assertNull(option.defaultValue(), e.getKey() + " repeats a default in the job");
      Param<Object> param = estimator.getParam(e.getValue());
      String expected = estimator.hasDefault(param)
          ? String.valueOf(estimator.getDefault(param).get()) : "";
      String shown = cli.getCommandSpec().defaultValueProvider().defaultValue(option);
      assertEquals(expected.isEmpty() ? null : expected, shown, e.getKey());
      if (shown != null) {
        // description() is the text as --help renders it, ${DEFAULT-VALUE} filled in.
        assertTrue(String.join(" ", option.description()).contains("(default: " + shown + ")"),
            e.getKey() + " does not show its default in --help: " + option.description()[0]);
      }
    }
    // As rendered: the library's checkpoint interval, not the 1 the job used to repeat.
    assertTrue(help.contains("--checkpoint-interval=K with --checkpoint-dir, checkpoint every K"
        + " epochs (default: 10)"), help);
  }

  @Test
  void helpShowsTheJobConfValueAsTheDefault() throws IOException {
    Path conf = tmp.resolve("train.properties");
    Files.write(conf, List.of("checkpoint-interval = 4"));
    JobRun help = JobRun.of(new TrainJob(), "--job-conf", conf.toString(), "--help");
    assertEquals(0, help.exitCode, help.toString());
    String text = help.out.replaceAll("\\s+", " ");
    assertTrue(text.contains("--checkpoint-interval=K with --checkpoint-dir, checkpoint every K"
        + " epochs (default: 4)"), text);
  }
}
