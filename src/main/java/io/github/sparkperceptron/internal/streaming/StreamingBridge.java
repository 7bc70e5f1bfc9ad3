package io.github.sparkperceptron.internal.streaming;

import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.ml.Lent;
import io.github.sparkperceptron.streaming.StreamingPerceptron;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * What the jobs use of {@code io.github.sparkperceptron.streaming}'s internals: a stream whose
 * micro-batches are read straight into the engine's blocks ({@link BatchInput}, e.g. text files
 * read in one pass), which the public {@link StreamingPerceptron} keeps package-private,
 * {@link Lent} as {@code internal.ml.EngineBridge} lends {@code ml}'s: the streaming package's
 * side ({@link Streaming}, implemented by its package-private {@code BridgeSide}) registers itself
 * when first needed. Not an API.
 */
public final class StreamingBridge {
  private static final Lent<Streaming> STREAMING = new Lent<>(StreamingPerceptron.class);

  private StreamingBridge() {
  }

  /** The internals the streaming package lends; reached only through the static methods. */
  public abstract static class Streaming {
    protected Streaming() {
    }

    protected abstract StreamingQuery startBatchInputs(StreamingPerceptron trainer,
        Dataset<Row> stream, Trigger trigger, Function<Dataset<Row>, BatchInput> toBatchInput)
        throws TimeoutException;
  }

  /** Registers the streaming package's side: its {@code BridgeSide}'s static initializer does. */
  public static void lend(Streaming streaming) {
    STREAMING.lend(streaming);
  }

  /**
   * {@code trainer.start(stream, trigger, ...)} with each micro-batch turned into a
   * {@link BatchInput} by {@code toBatchInput} (called on the driver, only for batches not
   * applied yet).
   */
  public static StreamingQuery startBatchInputs(StreamingPerceptron trainer, Dataset<Row> stream,
      Trigger trigger, Function<Dataset<Row>, BatchInput> toBatchInput) throws TimeoutException {
    return STREAMING.get().startBatchInputs(trainer, stream, trigger, toBatchInput);
  }
}
