package io.github.sparkperceptron.jobs;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;

/** Runs a picocli job with the project's exit codes and one-line errors. */
final class JobSupport {
  private JobSupport() {
  }

  /**
   * Parses {@code args} into {@code job} and runs it. Usage errors print "NAME: error: ..." and a
   * hint, and give 2; failures print one line and give 1 or 2 (see {@link JobFailure}).
   */
  static int run(Callable<Integer> job, String[] args) {
    CommandLine cli = new CommandLine(job);
    cli.setOut(new PrintWriter(System.out, true));
    cli.setErr(new PrintWriter(System.err, true));
    String name = cli.getCommandName();
    cli.setParameterExceptionHandler((e, a) -> {
      PrintWriter err = e.getCommandLine().getErr();
      err.println(name + ": error: " + e.getMessage());
      err.println("Run '" + name + " --help' for the options and their defaults.");
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
