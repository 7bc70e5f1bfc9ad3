package io.github.sparkperceptron.jobs;

import java.util.Properties;
import org.apache.spark.ml.param.Param;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where a job flag's value comes from when the command line does not give it: the user's
 * {@code --job-conf} file first, then, for a training flag ({@link TrainingFlags}), the default
 * of the param it sets on the estimator itself, so that {@code --help} shows the default that
 * applies and no default is written down twice. A job sets on the estimator only the flags the
 * user gave ({@link #given}); the others leave the estimator's own defaults in force.
 */
final class JobDefaults implements IDefaultValueProvider {
  private final Properties jobConf;

  /** @param jobConf the --job-conf file's values by key (the long flag name without --), or null */
  JobDefaults(Properties jobConf) {
    this.jobConf = jobConf == null ? new Properties() : jobConf;
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec option)) {
      return null;
    }
    String fromFile = jobConf.getProperty(key(option));
    if (fromFile != null) {
      return fromFile;
    }
    TrainingFlags training = option.command() == null ? null : TrainingFlags.of(option.command());
    Param<Object> param = training == null ? null : training.paramOf(option);
    if (param == null || !training.defaults().hasDefault(param)) {
      return null;
    }
    String value = String.valueOf(training.defaults().getDefault(param).get());
    // Spark's convention for an optional column param: "" means unset; picocli shows no default.
    return value.isEmpty() ? null : value;
  }

  /** The job properties key of a flag: its long name without the dashes. */
  static String key(OptionSpec option) {
    return option.longestName().replaceFirst("^-+", "");
  }

  /**
   * Whether the user gave {@code flag}: on the command line, or in the --job-conf file. A flag
   * left to its default is not given, and the job leaves the estimator's param alone.
   */
  static boolean given(CommandSpec spec, String flag) {
    if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
      return true;
    }
    OptionSpec option = spec.findOption(flag);
    if (option == null) {
      throw new IllegalArgumentException("no flag " + flag);
    }
    IDefaultValueProvider provider = spec.defaultValueProvider();
    return provider instanceof JobDefaults defaults
        && defaults.jobConf.getProperty(key(option)) != null;
  }
}
