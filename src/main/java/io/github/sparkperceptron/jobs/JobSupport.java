package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.io.BadInputException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

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
    if (defaults != null) {
      cli.setDefaultValueProvider(new CommandLine.PropertiesDefaultProvider(defaults));
    }
    cli.setParameterExceptionHandler((e, a) -> {
      PrintWriter err = e.getCommandLine().getErr();
      // One line, as for every other error: the SPEC promises a one-line message on stderr.
      err.println(name + ": error: " + e.getMessage() + fromJobConf(e, defaults, confFile, args)
          + " (see '" + name + " --help' for the options and their defaults)");
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
   * without spark-submit (from an IDE, say).
   */
  static SparkSession session(String appName) {
    SparkSession.Builder builder = SparkSession.builder().appName(appName);
    if (!new SparkConf().contains("spark.master")) {
      builder.master("local[*]");
    }
    return builder.getOrCreate();
  }
}
