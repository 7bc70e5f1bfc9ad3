package io.github.sparkperceptron.jobs;

import picocli.CommandLine.Option;

/**
 * The {@code --job-conf FILE} flag every job has (a picocli mixin). The option only documents the
 * flag and keeps picocli from rejecting it: {@link JobSupport} reads the file before parsing, so
 * that its values can serve as the defaults of the other flags.
 */
final class JobConfOption {
  static final String NAME = "--job-conf";

  @Option(names = NAME, paramLabel = "FILE",
      description = "a properties file of defaults for the other flags: keys are the long flag"
          + " names without --, e.g. format = csv; flags on the command line win (submit/"
          + " passes conf/<job>.properties when it exists)")
  String file;
}
