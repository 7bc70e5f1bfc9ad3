package io.github.sparkperceptron.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Records what one logger writes at {@code INFO} and above while it is open (the tests' log4j2
 * configuration keeps our package at {@code error}, so nothing reaches the console), for tests that
 * assert what the library tells its users in the log.
 */
public final class LogCapture implements AutoCloseable {
  private final String loggerName;
  private final LoggerContext context;
  private final Recorder recorder = new Recorder();

  private LogCapture(Class<?> logger) {
    this.loggerName = logger.getName();
    this.context = (LoggerContext) LogManager.getContext(false);
    recorder.start();
    Configuration config = context.getConfiguration();
    LoggerConfig own = new LoggerConfig(loggerName, Level.INFO, false);
    own.addAppender(recorder, Level.INFO, null);
    config.addLogger(loggerName, own);
    context.updateLoggers();
  }

  /** Starts recording the logger named after {@code logger}. */
  public static LogCapture of(Class<?> logger) {
    return new LogCapture(logger);
  }

  /** The formatted messages logged at {@code level}, in order. */
  public List<String> messages(Level level) {
    List<String> out = new ArrayList<>();
    synchronized (recorder) {
      for (String[] e : recorder.events) {
        if (e[0].equals(level.name())) {
          out.add(e[1]);
        }
      }
    }
    return out;
  }

  /** The formatted messages logged at {@code level} that start with {@code prefix}, in order. */
  public List<String> messages(Level level, String prefix) {
    List<String> out = messages(level);
    out.removeIf(m -> !m.startsWith(prefix));
    return out;
  }

  @Override
  public void close() {
    context.getConfiguration().removeLogger(loggerName);
    context.updateLoggers();
    recorder.stop();
  }

  private static final class Recorder extends AbstractAppender {
    final List<String[]> events = new ArrayList<>();

    Recorder() {
      super("test-log-capture", null, null, true, Property.EMPTY_ARRAY);
    }

    @Override
    public synchronized void append(LogEvent event) {
      events.add(new String[] {event.getLevel().name(),
          event.getMessage().getFormattedMessage()});
    }
  }
}
