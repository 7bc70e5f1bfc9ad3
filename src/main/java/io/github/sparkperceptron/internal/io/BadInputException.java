package io.github.sparkperceptron.internal.io;

/**
 * Input that cannot be used as given: a missing or unreadable path, a malformed line, a value out
 * of range. The message is one line that names the place (file:line where there is one), the
 * problem and the fix; jobs print it and exit with code 2.
 */
public final class BadInputException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public BadInputException(String message) {
    super(message);
  }

  public BadInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
