package io.github.sparkperceptron.internal.rounds;

import java.io.Serializable;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.HashPartitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SimpleFutureAction;
import org.apache.spark.SparkException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.CollectionAccumulator;
import scala.Tuple2;
import scala.reflect.ClassTag$;

/**
 * Runs a barrier stage and brings its tasks' outputs to the driver in one hop: the stage runs
 * as a map stage of its own ({@code SparkContext.submitMapStage}) that writes nothing, and each
 * task hands its outputs to an accumulator, whose update travels in the task's own result.
 *
 * <p>Why a map stage: Spark retries a failed barrier ShuffleMapStage as a whole, while a failed
 * task of a barrier ResultStage aborts the job ({@code DAGScheduler}: "Could not recover from a
 * failed barrier ResultStage"). The stage used to reach that retry through a shuffle of its
 * outputs, read back by a second stage of W tasks: a launch, a shuffle write and read, and a
 * second serialization of every output, per stage (7 of the 28 ms of a small default fit's
 * barrier job; BENCHMARKS.md, issue 32). Spark merges an accumulator's update for successful
 * tasks only; a task of a failed attempt that had finished delivered what its retry delivers,
 * bit for bit (every attempt starts from the same shipped state), so the latest delivery per
 * worker is kept.
 *
 * <p>Spark refuses a barrier map stage at once where it cannot place it (too few slots, dynamic
 * allocation), where it would retry a barrier job every 15 s: {@link #cannotPlace} tells the
 * caller, which checks the slots before each stage anyway.
 */
final class StageOutputs {
  private StageOutputs() {
  }

  /** An output and the stage attempt that delivered it. */
  private record Delivered(int stageAttempt, BarrierEpochTask.Output output)
      implements Serializable {
  }

  /** The task side: every output into the accumulator, nothing into the shuffle. */
  private static final class Deliver implements
      PairFlatMapFunction<Iterator<BarrierEpochTask.Output>, Integer, Integer> {
    private static final long serialVersionUID = 1L;
    private final CollectionAccumulator<Delivered> sink;

    Deliver(CollectionAccumulator<Delivered> sink) {
      this.sink = sink;
    }

    @Override
    public Iterator<Tuple2<Integer, Integer>> call(Iterator<BarrierEpochTask.Output> outputs) {
      int attempt = TaskContext.get().stageAttemptNumber();
      while (outputs.hasNext()) {
        sink.add(new Delivered(attempt, outputs.next()));
      }
      return Collections.emptyIterator();
    }
  }

  /**
   * Runs {@code stage} (a barrier RDD of one partition per worker) and returns each worker's
   * output, indexed by worker. A failed job throws Spark's own exception, as {@code runJob}
   * does.
   *
   * @param epoch the stage's first epoch, for the message of a worker without an output
   */
  static BarrierEpochTask.Output[] collect(JavaSparkContext jsc,
      RDD<BarrierEpochTask.Output> stage, int workers, int epoch) {
    CollectionAccumulator<Delivered> sink = new CollectionAccumulator<>();
    // Unnamed: Spark then leaves its values out of the listener events and the UI.
    jsc.sc().register(sink);
    RDD<?> shuffled = JavaRDD.fromRDD(stage,
            ClassTag$.MODULE$.<BarrierEpochTask.Output>apply(BarrierEpochTask.Output.class))
        .mapPartitionsToPair(new Deliver(sink), true).partitionBy(new HashPartitioner(1)).rdd();
    @SuppressWarnings("unchecked")
    ShuffleDependency<Integer, Integer, Integer> dependency =
        (ShuffleDependency<Integer, Integer, Integer>) shuffled.dependencies().head();
    SimpleFutureAction<?> job = jsc.sc().submitMapStage(dependency);
    try {
      job.get();
    } catch (SparkException e) {
      // get() wraps the job's failure ("Exception thrown in awaitResult"); callers see the
      // job's own exception, as runJob throws it.
      throw StageOutputs.<RuntimeException>rethrow(e.getCause() != null ? e.getCause() : e);
    }
    BarrierEpochTask.Output[] byWorker = new BarrierEpochTask.Output[workers];
    int[] attemptOf = new int[workers];
    List<Delivered> delivered = sink.value();
    for (Delivered d : delivered) {
      int w = d.output().worker;
      if (byWorker[w] == null || d.stageAttempt() > attemptOf[w]) {
        byWorker[w] = d.output();
        attemptOf[w] = d.stageAttempt();
      }
    }
    for (int w = 0; w < workers; w++) {
      if (byWorker[w] == null) {
        throw new IllegalStateException("the barrier stage from epoch " + epoch
            + " completed without an output of worker " + w + " (" + delivered.size()
            + " delivered)");
      }
    }
    return byWorker;
  }

  /**
   * Spark's reason for refusing to place a barrier stage ({@code BarrierJobAllocationFailed}:
   * too few slots, dynamic allocation, an RDD chain it does not run under a barrier), or null
   * for any other failure.
   */
  static String cannotPlace(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
        if (c.getName().equals("org.apache.spark.scheduler.BarrierJobAllocationFailed")) {
          return t.getMessage();
        }
      }
    }
    return null;
  }

  /**
   * Throws {@code t} as it is: Spark's Scala code throws the checked SparkException without
   * declaring it, and the callers of a fit have always seen it so.
   */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T rethrow(Throwable t) throws T {
    throw (T) t;
  }
}
