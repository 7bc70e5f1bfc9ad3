package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.StreamRefusals;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.TestData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.ml.param.Param;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/**
 * The one table of training flags: it covers the estimator's training params, train and
 * stream-train take their flags from it (stream-train every one that applies to a stream, and
 * refuses the others with the reason), both set only what the user gave, and a param's error
 * names the flag. No Spark job runs here: every check ends before the session is needed.
 */
class TrainingFlagsTest {
  @TempDir
  Path tmp;

  private static CommandSpec spec(Object job) {
    CommandLine cli = new CommandLine(job);
    cli.setDefaultValueProvider(new JobDefaults(null));
    return cli.getCommandSpec();
  }

  @Test
  void theTableCoversEveryTrainingParamButTheColumnsTheReadersSet() {
    PerceptronClassifier estimator = new PerceptronClassifier();
    Set<String> fromTable = new HashSet<>();
    Set<String> flags = new HashSet<>();
    for (TrainingFlags.Flag f : TrainingFlags.TABLE) {
      assertTrue(estimator.hasParam(f.param()), f.name() + " names no param: " + f.param());
      assertTrue(fromTable.add(f.param()), f.param() + " has two flags");
      assertTrue(flags.add(f.name()), f.name() + " is in the table twice");
    }
    Set<String> training = new HashSet<>();
    for (Param<?> p : EngineBridge.trainingParams(estimator)) {
      training.add(p.name());
    }
    Set<String> withoutFlag = new HashSet<>(training);
    withoutFlag.removeAll(fromTable);
    // --label-col and --features-col name the readers' columns; train's --validation sets the
    // validation column itself.
    assertEquals(Set.of("labelCol", "featuresCol", "validationIndicatorCol"), withoutFlag);
    assertTrue(training.containsAll(fromTable), "every flag sets a training param");
  }

  @Test
  void streamTrainOffersEveryTrainingFlagOfTrainThatAppliesToStreamsAndRefusesTheRest()
      throws Exception {
    CommandSpec train = spec(new TrainJob());
    StreamTrainJob streamJob = new StreamTrainJob();
    CommandSpec stream = spec(streamJob);
    String help = stream.commandLine().getUsageMessage(CommandLine.Help.Ansi.OFF);
    List<String> refused = new ArrayList<>();
    for (OptionSpec option : TrainingFlags.of(train).optionsInOrder()) {
      String name = option.longestName();
      OptionSpec offered = stream.findOption(name);
      String why = streamJob.whyNot(name);
      if (name.equals("--checkpoint-dir")) {
        // stream-train's own --checkpoint-dir (the stream's state), not train's param.
        assertNotNull(offered);
        assertNull(TrainingFlags.of(stream).paramOf(offered));
        continue;
      }
      if (offered != null) {
        assertNull(why, name);
        assertTrue(help.contains(name.startsWith("--") && option.negatable()
            ? "--[no-]" + name.substring(2) : name + "="), name + " is not in --help:\n" + help);
        assertEquals(option.type(), offered.type(), name);
        assertEquals(train.defaultValueProvider().defaultValue(option),
            stream.defaultValueProvider().defaultValue(offered), "the default of " + name);
      } else {
        assertNotNull(why, name + " is neither offered nor refused by stream-train");
        assertTrue(why.startsWith(name + " (a flag of submit/train) does not apply to streams: "),
            why);
        refused.add(name);
      }
    }
    assertEquals(List.of("--max-iter", "--validation-patience", "--class-weight",
        "--calibration", "--calibration-folds", "--checkpoint-interval"), refused);
    // The three missing flags are there.
    for (String flag : new String[] {"--mixing-rounds", "--shuffle-scope", "--weight-col"}) {
      assertNotNull(stream.findOption(flag), flag);
    }
  }

  /**
   * stream-train's --help says what a stream does with block momentum: its velocity carries over
   * from batch to batch (StreamingPerceptronTest#blockMomentumCarriesAcrossBatches proves it, bit
   * for bit against a naive chain of batches); the help once said it restarted every batch.
   */
  @Test
  void streamTrainsHelpSaysTheMomentumCarriesOverFromBatchToBatch() {
    String help = new CommandLine(new StreamTrainJob()).getUsageMessage(CommandLine.Help.Ansi.OFF)
        .replaceAll("\\s+", " ");
    assertTrue(help.contains("--mixing=MODE uniform, mistakes or momentum (block momentum, its"
        + " velocity carried over from batch to batch as if the batches were one epoch's rounds)"),
        help);
    assertTrue(!help.contains("restarted every batch"), help);
  }

  @Test
  void aRefusedFlagIsOneLineWithTheReasonOnTheCommandLineAndInTheJobConf() throws IOException {
    JobRun flag = JobRun.of(new StreamTrainJob(), "--input", "in", "--model", "m",
        "--checkpoint-dir", "c", "--class-weight", "balanced");
    assertEquals(2, flag.exitCode, flag.toString());
    assertEquals("stream-train: error: --class-weight (a flag of submit/train) does not apply to"
        + " streams: --class-weight balanced needs every class's size before training starts,"
        + " which a stream does not know; use a weight column (--weight-col) instead (see"
        + " 'submit/stream-train --help' for the options and their defaults)",
        flag.err.strip());

    Path conf = tmp.resolve("stream-train.properties");
    Files.write(conf, List.of("max-iter = 3"));
    JobRun fromFile = JobRun.of(new StreamTrainJob(), "--job-conf", conf.toString(), "--input",
        "in", "--model", "m", "--checkpoint-dir", "c");
    assertEquals(2, fromFile.exitCode, fromFile.toString());
    assertEquals("stream-train: error: " + conf + ": key 'max-iter': --max-iter (a flag of"
        + " submit/train) does not apply to streams: a stream has no number of epochs; every"
        + " batch is learnt --epochs-per-batch times", fromFile.err.strip());
  }

  /**
   * The one list of a stream's refusals names real params and values they accept (a misspelt
   * name or value would silently refuse nothing), and the library refuses each value it lists
   * with its reason.
   */
  @Test
  void everyStreamRefusalNamesAParamAndAValueItAccepts() {
    for (StreamRefusals.Refusal r : StreamRefusals.ALL) {
      PerceptronClassifier estimator = new PerceptronClassifier();
      assertTrue(estimator.hasParam(r.param()), r.param());
      if (r.value() == null) {
        continue;
      }
      Param<Object> p = estimator.getParam(r.param());
      estimator.set(p, r.value().isEmpty() ? "x" : r.value());
      assertEquals(r.reason(), StreamRefusals.problem(estimator), r.param());
    }
    assertNull(StreamRefusals.problem(new PerceptronClassifier()),
        "the defaults learn from a stream");
  }

  @Test
  void streamTrainSetsOnlyTheFlagsGivenAsTrainDoes() {
    StreamTrainJob untouched = new StreamTrainJob();
    new CommandLine(untouched).setDefaultValueProvider(new JobDefaults(null))
        .parseArgs("--input", "in", "--model", "m", "--checkpoint-dir", "c");
    PerceptronClassifier defaults = untouched.estimator();
    for (Param<?> p : defaults.params()) {
      assertFalse(defaults.isSet(p), p.name() + " was set although no flag gave it");
    }

    StreamTrainJob given = new StreamTrainJob();
    Properties conf = new Properties();
    conf.setProperty("update-rule", "pa2");
    new CommandLine(given).setDefaultValueProvider(new JobDefaults(conf))
        .parseArgs("--input", "in", "--model", "m", "--checkpoint-dir", "c", "--seed", "7",
            "--no-shuffle", "--weight-col", "w", "--mixing-rounds", "3", "--shuffle-scope",
            "chunks");
    PerceptronClassifier set = given.estimator();
    assertEquals(7L, set.getSeed());
    assertFalse(set.getShuffle());
    assertEquals("pa2", set.getUpdateRule(), "from the job properties");
    assertEquals("w", set.getWeightCol());
    assertEquals(3, set.getMixingRounds());
    assertEquals("chunks", set.getShuffleScope());
    assertEquals(6, Arrays.stream(set.params()).filter(set::isSet).count(),
        "the six given, nothing else");
  }

  @Test
  void aParamsErrorNamesTheFlagTheUserTyped() {
    JobRun workers = JobRun.of(new TrainJob(), "--train", "x", "--model", "m", "--workers",
        "-1");
    assertEquals(2, workers.exitCode, workers.toString());
    assertEquals("train: error: --workers must be >= 0 (0 = auto: the cluster's task slots),"
        + " got -1", workers.err.strip());
    JobRun rule = JobRun.of(new StreamTrainJob(), "--input", "in", "--model", "m",
        "--checkpoint-dir", "c", "--update-rule", "pa3");
    assertEquals(2, rule.exitCode, rule.toString());
    assertEquals("stream-train: error: --update-rule must be one of [perceptron, pa, pa1, pa2],"
        + " got 'pa3'", rule.err.strip());
  }

  @Test
  void helpListsTheTrainingFlagsUnderTheirOwnHeadingAfterTheJobsOwn() {
    String help = new CommandLine(new TrainJob()).getUsageMessage(CommandLine.Help.Ansi.OFF);
    // Option lines, not the synopsis above them, which names every flag too.
    int heading = help.indexOf("\nTraining (params of PerceptronClassifier");
    assertTrue(heading > help.indexOf("\n      --train=PATH"), help);
    assertTrue(heading > help.indexOf("\n      --partitions=P"), help);
    assertTrue(heading > help.indexOf("\n  -h, --help"), help);
    int maxIter = help.indexOf("\n      --max-iter=N");
    assertTrue(heading < maxIter && heading < help.indexOf("\n      --workers=W"), help);
    assertEquals(maxIter, help.lastIndexOf("\n      --max-iter=N"), "listed once");
  }

  /**
   * Every job's --help formats cleanly: picocli reads a description as a format string, and the
   * calibration flag's "10% of the rows" once made it print four warnings above the usage.
   */
  @Test
  void everyJobsHelpFormatsWithoutAPicocliWarning() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<String> helps = new ArrayList<>();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (Object job : new Object[] {new TrainJob(), new StreamTrainJob(), new PredictJob(),
          new EvaluateJob(), new ExportJob(), new GenerateJob()}) {
        helps.add(new CommandLine(job).getUsageMessage(CommandLine.Help.Ansi.OFF));
      }
    } finally {
      System.setErr(stderr);
    }
    String warnings = captured.toString(StandardCharsets.UTF_8);
    assertFalse(warnings.contains("picocli WARN"), warnings);
    String train = helps.get(0).replaceAll("\\s+", " ");
    assertTrue(train.contains("else a seeded 10% of the training rows held out"), train);
    for (String help : helps) {
      assertFalse(help.contains("%%") || help.contains("%n"), help);
    }
  }

  /** The README's Params table names, for every param with a flag, the flag of the table. */
  @Test
  void theReadmesParamsTableNamesEachParamsFlag() throws IOException {
    String readme = Files.readString(TestData.projectRoot()
        .resolve("README.md"));
    Map<String, String> shown = new HashMap<>();
    Matcher row = Pattern
        .compile("(?m)^\\| `(\\w+)` \\| `(--[^`]+)` \\|").matcher(readme);
    while (row.find()) {
      shown.put(row.group(1), row.group(2).replace("[no-]", ""));
    }
    Map<String, String> table = new HashMap<>();
    for (TrainingFlags.Flag f : TrainingFlags.TABLE) {
      table.put(f.param(), f.name());
    }
    assertEquals(table, shown);
  }

  @Test
  void jobConfExampleNamesAFlagOfEveryJobThatTakesAJobConf() {
    for (Object job : new Object[] {new TrainJob(), new StreamTrainJob(), new PredictJob(),
        new EvaluateJob()}) {
      CommandSpec s = spec(job);
      String description = String.join(" ", s.findOption("--job-conf").description());
      Matcher m = Pattern.compile("e\\.g\\. ([a-z-]+) = ")
          .matcher(description);
      assertTrue(m.find(), description);
      assertNotNull(s.findOption("--" + m.group(1)), s.name() + " has no --" + m.group(1));
    }
  }
}
