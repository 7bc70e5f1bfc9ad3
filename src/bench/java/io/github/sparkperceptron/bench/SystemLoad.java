package io.github.sparkperceptron.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The machine's load average, which every timing section prints beside its figures, and a wait
 * for it to fall before a timing that a busy machine would distort.
 *
 * <p>Why wait: `submit/bench` builds its classes with Maven right before it runs, and some
 * sections generate their data first, so a section's first timing starts with the 1-minute load
 * at 3-4 on 2 cores (BENCHMARKS.md, issue 32, eighteenth stop: the stream section's plain loop
 * ran at 66,000 rows/s there against 104,000-165,000 at a load below 1). A single-threaded
 * reference timed then makes every ratio to it look better than it is.
 */
final class SystemLoad {
  private SystemLoad() {}

  /** The 1-minute load average (negative where the platform has none). */
  static double now() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  /** "System load average (1 min): L on N cores." */
  static String text() {
    return String.format(Locale.ROOT, "System load average (1 min): %.2f on %d cores.", now(),
        Runtime.getRuntime().availableProcessors());
  }

  /**
   * Waits until the 1-minute load average is below {@code below} or {@code maxSeconds} have
   * passed, and returns the load when it stopped waiting (to be written beside the timing).
   */
  static double settle(double below, int maxSeconds) {
    long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
    double load = now();
    while (load >= below && System.nanoTime() < deadline) {
      try {
        Thread.sleep(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      load = now();
    }
    return load;
  }
}
