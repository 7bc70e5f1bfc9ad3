package io.github.sparkperceptron.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Samples the heap in use every 50 ms on a daemon thread and keeps the largest value: how close a
 * run came to its -Xmx. It counts garbage not yet collected too, so it is an upper bound on what
 * the run needed; the run itself finishing without OutOfMemoryError is the proof that it fitted.
 */
final class HeapSampler implements AutoCloseable {
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile long peakUsed;

  HeapSampler() {
    thread = new Thread(this::sample, "heap-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  private void sample() {
    while (running) {
      peakUsed = Math.max(peakUsed, memory.getHeapMemoryUsage().getUsed());
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Largest heap in use at any sample (garbage included), in bytes. */
  long peakUsedBytes() {
    return peakUsed;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
