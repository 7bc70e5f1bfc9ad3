package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.BadInputException;
import java.util.Locale;
import org.apache.spark.sql.AnalysisException;

/**
 * Turns whatever a job threw into its exit code and one line for the console. Spark wraps task
 * failures in its own exceptions; the user's mistake is the innermost argument error, so that is
 * what the line shows, unless the project's own code wrapped it in a {@link BadInputException}
 * that says more (which input it was, e.g. "Cannot load the model (--model) ...").
 */
final class JobFailure {
  static final int OK = 0;
  static final int FAILURE = 1;
  static final int BAD_INPUT = 2;

  private JobFailure() {
  }

  /**
   * The outermost {@link BadInputException} in the cause chain, else the innermost
   * {@link IllegalArgumentException} (or analysis error).
   */
  static Throwable userError(Throwable t) {
    Throwable found = null;
    for (Throwable c = t; c != null && c != c.getCause(); c = c.getCause()) {
      if (c instanceof BadInputException) {
        return c;
      }
      if (c instanceof IllegalArgumentException || c instanceof AnalysisException) {
        found = c;
      }
    }
    return found;
  }

  static int exitCode(Throwable t) {
    return userError(t) != null ? BAD_INPUT : FAILURE;
  }

  /** One line: the user error's message, or the failure's type and first line. */
  static String oneLine(Throwable t) {
    Throwable user = userError(t);
    Throwable shown = user != null ? user : t;
    String message = shown.getMessage();
    if (shown instanceof AnalysisException) {
      message = ((AnalysisException) shown).getSimpleMessage();
    }
    if (message == null || message.isBlank()) {
      message = shown.getClass().getSimpleName();
    }
    message = message.strip();
    int nl = message.indexOf('\n');
    if (nl >= 0) {
      message = message.substring(0, nl).strip();
    }
    if (user == null) {
      message = shown.getClass().getSimpleName() + ": " + message;
    }
    return message;
  }

  static boolean debug() {
    String v = System.getenv("SPARK_PERCEPTRON_DEBUG");
    return v != null && !v.isEmpty() && !v.toLowerCase(Locale.ROOT).equals("0");
  }
}
