package io.github.sparkperceptron.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Work a test starts on a thread of its own while it goes on with something that needs nothing
 * from it, typically while a process it started runs: the reference run of a job in this JVM
 * beside the script run it is compared with, or the second of two independent processes. Each
 * such process spends a good part of its time on its JVM's and Spark's start, in which a second
 * core is free for the other. {@link #get()} waits for the result and rethrows what the work
 * threw (an assertion failure included) as it was thrown.
 */
public final class Background<T> {
  private final CompletableFuture<T> result = new CompletableFuture<>();

  private Background() {
  }

  /** Starts {@code work} on a new daemon thread named {@code name}. */
  public static <T> Background<T> start(String name, Callable<T> work) {
    Background<T> background = new Background<>();
    Thread thread = new Thread(() -> {
      try {
        background.result.complete(work.call());
      } catch (Throwable t) {
        background.result.completeExceptionally(t);
      }
    }, name);
    thread.setDaemon(true);
    thread.start();
    return background;
  }

  /** The work's result, once it is done; what it threw, rethrown. */
  public T get() throws Exception {
    try {
      return result.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception checked) {
        throw checked;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }
}
