package io.github.sparkperceptron.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * Samples the heap every 50 ms on a daemon thread and keeps the largest live set seen: the heap
 * in use right after a garbage collection (each pool's collection usage), which, unlike plain
 * "used", does not count garbage waiting to be collected.
 */
final class HeapSampler implements AutoCloseable {
  private final Thread thread;
  private volatile boolean running = true;
  private volatile long peakLive;
  private volatile long peakUsed;

  HeapSampler() {
    System.gc();
    thread = new Thread(this::sample, "heap-sampler");
    thread.setDaemon(true);
    thread.start();
  }

  private void sample() {
    while (running) {
      long live = 0;
      long used = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() != MemoryType.HEAP) {
          continue;
        }
        MemoryUsage after = pool.getCollectionUsage();
        if (after != null) {
          live += after.getUsed();
        }
        used += pool.getUsage().getUsed();
      }
      peakLive = Math.max(peakLive, live);
      peakUsed = Math.max(peakUsed, used);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Largest heap in use just after a collection, in bytes. */
  long peakLiveBytes() {
    return peakLive;
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
