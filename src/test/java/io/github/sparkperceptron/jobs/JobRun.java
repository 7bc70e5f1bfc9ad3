package io.github.sparkperceptron.jobs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * Runs a job in this JVM (on the tests' shared session) and captures its console. Public for the
 * tests of other packages that need a job's local-mode run as a reference (cluster).
 */
public final class JobRun {
  public final int exitCode;
  public final String out;
  public final String err;

  private JobRun(int exitCode, String out, String err) {
    this.exitCode = exitCode;
    this.out = out;
    this.err = err;
  }

  public static synchronized JobRun of(Callable<Integer> job, String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = JobSupport.run(job, args);
      return new JobRun(code, out.toString(StandardCharsets.UTF_8),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
