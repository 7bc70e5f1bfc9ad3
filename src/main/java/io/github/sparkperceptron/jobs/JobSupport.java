package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.store.NioLocalFileSystem;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/** Runs a picocli job with the project's exit codes and one-line errors. */
final class JobSupport {
  private JobSupport() {
  }

  /**
   * Parses {@code args} into {@code job} and runs it. A {@code --job-conf FILE} among the args
   * supplies defaults for the other flags. Usage errors print "NAME: error: ..." and give 2 (one
   * line, ending with a pointer to --help); failures print one line and give 1 or 2
   * (see {@link JobFailure}).
   */
  static int run(Callable<Integer> job, String[] args) {
    CommandLine cli = new CommandLine(job);
    cli.setOut(new PrintWriter(System.out, true));
    cli.setErr(new PrintWriter(System.err, true));
    String name = cli.getCommandName();
    String confFile = jobConfArgument(args);
    Properties defaults;
    try {
      defaults = confFile == null ? null : loadJobConf(cli, confFile);
    } catch (BadInputException e) {
      cli.getErr().println(name + ": error: " + e.getMessage());
      cli.getErr().flush();
      return JobFailure.BAD_INPUT;
    }
    cli.setDefaultValueProvider(new JobDefaults(defaults));
    cli.setParameterExceptionHandler((e, a) -> {
      PrintWriter err = e.getCommandLine().getErr();
      // A misspelt flag first: picocli reports a missing required flag before an unknown one,
      // and "--train is missing" misleads when the user typed --trian.
      String unknown = unknownFlag(e.getCommandLine().getCommandSpec(), a);
      // One line, as for every other error: the SPEC promises a one-line message on stderr.
      err.println(name + ": error: "
          + (unknown != null ? unknown : e.getMessage() + fromJobConf(e, defaults, confFile, a))
          + " (see 'submit/" + name + " --help' for the options and their defaults)");
      err.flush();
      return JobFailure.BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      int code = JobFailure.exitCode(e);
      err.println(name + ": " + (code == JobFailure.BAD_INPUT ? "error: " : "failed: ")
          + JobFailure.oneLine(e));
      if (JobFailure.debug()) {
        e.printStackTrace(err);
      } else if (code == JobFailure.FAILURE) {
        err.println("(set SPARK_PERCEPTRON_DEBUG=1 to see the stack trace)");
      }
      err.flush();
      return code;
    });
    try {
      return cli.execute(args);
    } finally {
      cli.getOut().flush();
      cli.getErr().flush();
    }
  }

  /**
   * "Unknown option: '--trian'; did you mean '--train'?" for the first argument that looks like a
   * flag the command does not have, or null when every flag is known. Values of flags that take
   * one (e.g. the -1.5 of --threshold -1.5) are skipped, and negative numbers are never flags.
   */
  static String unknownFlag(CommandSpec spec, String[] args) {
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--")) {
        return null;
      }
      if (!arg.startsWith("-") || arg.length() < 2 || NUMBER.matcher(arg).matches()) {
        continue;
      }
      int eq = arg.indexOf('=');
      String flag = eq < 0 ? arg : arg.substring(0, eq);
      OptionSpec option = spec.findOption(flag);
      if (option == null && spec.negatedOptionsMap().containsKey(flag)) {
        continue;
      }
      if (option == null) {
        String refused = whyNot(spec, flag);
        if (refused != null) {
          return refused;
        }
        String closest = closestFlag(spec, flag);
        return "Unknown option: '" + flag + "'"
            + (closest == null ? "" : "; did you mean '" + closest + "'?");
      }
      boolean takesValue = option.arity().min() > 0
          || (option.arity().max() > 0 && i + 1 < args.length && !args[i + 1].startsWith("-"));
      if (eq < 0 && takesValue) {
        i++;
      }
    }
    return null;
  }

  /**
   * Why the job of {@code spec} refuses {@code flag}, or null: stream-train is the job that knows
   * flags of another job (train's that mean nothing to a stream) which it does not take.
   */
  private static String whyNot(CommandSpec spec, String flag) {
    return spec.userObject() instanceof StreamTrainJob stream ? stream.whyNot(flag) : null;
  }

  /** The master of a job run without spark-submit (from an IDE, say): every core here. */
  private static final String DEFAULT_MASTER = "local[*]";

  /** What Spark strips from a setting's key to give it to Hadoop. */
  private static final String HADOOP_PREFIX = "spark.hadoop.";

  private static final Pattern NUMBER =
      Pattern.compile("-[0-9.].*");

  /**
   * The command's flag nearest to {@code typed} in edit distance (insertions, deletions,
   * substitutions and swaps of two neighbours, each counting 1), if it is near enough to be a
   * slip: at most 2 edits, and fewer than a third of the flag's letters.
   */
  static String closestFlag(CommandSpec spec, String typed) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    List<String> names = new ArrayList<>();
    for (OptionSpec option : spec.options()) {
      if (!option.hidden()) {
        names.addAll(Arrays.asList(option.names()));
      }
    }
    names.addAll(spec.negatedOptionsMap().keySet());
    for (String name : names) {
      int d = editDistance(typed, name);
      if (d < bestDistance) {
        best = name;
        bestDistance = d;
      }
    }
    String word = typed.replaceFirst("^-+", "");
    return bestDistance <= 2 && bestDistance * 3 < Math.max(word.length(), 3) ? best : null;
  }

  /** Optimal string alignment distance (Damerau-Levenshtein without repeated edits). */
  static int editDistance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  /** The value of the last {@code --job-conf FILE} or {@code --job-conf=FILE} in args, or null. */
  static String jobConfArgument(String[] args) {
    String file = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(JobConfOption.NAME) && i + 1 < args.length) {
        file = args[i + 1];
      } else if (args[i].startsWith(JobConfOption.NAME + "=")) {
        file = args[i].substring(JobConfOption.NAME.length() + 1);
      }
    }
    return file;
  }

  /**
   * Reads a job properties file and checks that every key is one of the command's long option
   * names without "--" (a misspelt key would otherwise be silently ignored). Values are trimmed:
   * {@link Properties} keeps trailing blanks, which no number parser accepts.
   */
  static Properties loadJobConf(CommandLine cli, String file) {
    Properties raw = new Properties();
    try (Reader in = Files.newBufferedReader(Paths.get(file), StandardCharsets.UTF_8)) {
      raw.load(in);
    } catch (NoSuchFileException e) {
      throw new BadInputException("The job properties file (" + JobConfOption.NAME + ") '" + file
          + "' does not exist");
    } catch (IOException | RuntimeException e) {
      throw new BadInputException("Cannot read the job properties file (" + JobConfOption.NAME
          + ") '" + file + "': " + JobFailure.oneLine(e), e);
    }
    Set<String> keys = new TreeSet<>();
    for (OptionSpec option : cli.getCommandSpec().options()) {
      if (!option.usageHelp() && !option.versionHelp()
          && !option.longestName().equals(JobConfOption.NAME)) {
        keys.add(option.longestName().replaceFirst("^-+", ""));
      }
    }
    Properties trimmed = new Properties();
    for (String key : new TreeSet<>(raw.stringPropertyNames())) {
      String refused = keys.contains(key) ? null : whyNot(cli.getCommandSpec(), "--" + key);
      if (refused != null) {
        throw new BadInputException(file + ": key '" + key + "': " + refused);
      }
      if (!keys.contains(key)) {
        throw new BadInputException(file + ": unknown key '" + key + "'; the keys are the long"
            + " flag names without --: " + String.join(", ", keys));
      }
      trimmed.setProperty(key, raw.getProperty(key).strip());
    }
    return trimmed;
  }

  /** " (set by KEY in FILE)" when a bad option value came from the job properties file. */
  private static String fromJobConf(CommandLine.ParameterException e, Properties defaults,
      String file, String[] args) {
    if (defaults == null || !(e.getArgSpec() instanceof OptionSpec)) {
      return "";
    }
    String longName = ((OptionSpec) e.getArgSpec()).longestName();
    String key = longName.replaceFirst("^-+", "");
    for (String a : args) {
      if (a.equals(longName) || a.startsWith(longName + "=")) {
        return "";
      }
    }
    return defaults.containsKey(key) ? " (set by " + key + " in " + file + ")" : "";
  }

  /**
   * The session spark-submit configured, or a local one using every core when the class runs
   * without spark-submit (from an IDE, say), with the {@link #addedSettings}.
   */
  static SparkSession session(String appName) {
    SparkSession.Builder builder = SparkSession.builder().appName(appName);
    SparkConf conf = new SparkConf();
    if (!conf.contains("spark.master")) {
      builder.master(DEFAULT_MASTER);
    }
    addedSettings(conf, new Configuration()).forEach(builder::config);
    return builder.getOrCreate();
  }

  /**
   * What a job's session adds to the settings spark-submit gave ({@code spark}): on a local
   * master, {@code file:} paths through {@link NioLocalFileSystem} (no {@code chmod} process
   * per file written), unless the settings or Hadoop's configuration files ({@code hadoop}: a
   * core-site.xml on the class path) name a file system of their own. A cluster's executors keep
   * Hadoop's: they would need this jar on the class path their Hadoop loads from.
   */
  static Map<String, String> addedSettings(SparkConf spark, Configuration hadoop) {
    Map<String, String> added = new TreeMap<>();
    if (spark.get("spark.master", DEFAULT_MASTER).startsWith("local")) {
      NioLocalFileSystem.settings().forEach((key, value) -> {
        String hadoopKey = key.substring(HADOOP_PREFIX.length());
        if (!spark.contains(key) && !namedInFiles(hadoop, hadoopKey)) {
          added.put(key, value);
        }
      });
    }
    return added;
  }

  /** Whether a file other than Hadoop's own defaults (core-default.xml) sets {@code key}. */
  private static boolean namedInFiles(Configuration hadoop, String key) {
    String[] sources = hadoop.getPropertySources(key);
    return sources != null && !Arrays.asList(sources).equals(List.of("core-default.xml"));
  }
}
