package io.github.sparkperceptron.internal.blocks;

import java.io.Serializable;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * The cached RDD of a training's blocks: one element per worker, converted from the worker's
 * input partition (one-to-one) by a {@link Conversion} that stores the rows as chunks and
 * returns the facts and where the chunks are ({@link WorkerBlocks}). Spark caches the small
 * elements; the chunks are blocks of their own.
 *
 * <p>The tasks of the training read it through {@link #handed}, which gives each element the
 * means to convert the worker's input again inside the task ({@link #rebuild}) should one of
 * its chunks be missing: the conversion is a pure function of the input partition, so the
 * rebuilt chunks are the lost ones, bit for bit, and a recomputed input partition (through a
 * shuffle whose output was lost, say) is Spark's to recompute, as for any narrow dependency.
 */
public final class WorkerBlocksRdd<T> extends RDD<WorkerBlocks> {
  private static final long serialVersionUID = 1L;
  public static final ClassTag<WorkerBlocks> TAG = ClassTag$.MODULE$.apply(WorkerBlocks.class);

  /** How the tasks see a cached element: as it is, or read at the input's width. */
  @FunctionalInterface
  interface View extends Serializable {
    WorkerBlocks of(WorkerBlocks cached);
  }

  /** The cached elements as they are. */
  static final View AS_CACHED = (View) cached -> cached;

  /** The cached elements read at the input's width {@code width} ({@link WorkerBlocks#widened}). */
  static final class Widened implements View {
    private static final long serialVersionUID = 1L;
    private final int width;

    Widened(int width) {
      this.width = width;
    }

    @Override
    public WorkerBlocks of(WorkerBlocks cached) {
      return cached.widened(width);
    }
  }

  /** Converts one worker's input partition into its blocks. */
  @FunctionalInterface
  interface Conversion<T> extends Serializable {
    WorkerBlocks convert(int worker, Iterator<T> input);
  }

  private final RDD<T> parent;
  private final Conversion<T> conversion;

  WorkerBlocksRdd(RDD<T> parent, Conversion<T> conversion) {
    super(parent, TAG);
    this.parent = parent;
    this.conversion = conversion;
  }

  @Override
  public scala.collection.Iterator<WorkerBlocks> compute(Partition split, TaskContext context) {
    return CollectionConverters.asScala(Collections.singletonList(convert(split, context))
        .iterator());
  }

  private WorkerBlocks convert(Partition split, TaskContext context) {
    return conversion.convert(split.index(), CollectionConverters.asJava(
        parent.iterator(split, context)));
  }

  @Override
  public Partition[] getPartitions() {
    return parent.partitions();
  }

  /**
   * Worker {@code split}'s blocks converted again from its input, in this task: its chunks
   * stored again on this executor. The cached element, equal to the returned one, stays.
   */
  WorkerBlocks rebuild(Partition split, TaskContext context) {
    return convert(split, context);
  }

  /**
   * What the training's tasks run over: this RDD's elements, each able to rebuild its chunks in
   * the task that reads it. Not cached itself; one-to-one, so a barrier stage accepts it.
   */
  RDD<WorkerBlocks> handed(View view) {
    return new Handed(this, view);
  }

  /** The cached elements, handed out with the means to rebuild their chunks. */
  private static final class Handed extends RDD<WorkerBlocks> {
    private static final long serialVersionUID = 1L;
    private final WorkerBlocksRdd<?> cached;
    private final View view;

    Handed(WorkerBlocksRdd<?> cached, View view) {
      super(cached, TAG);
      this.cached = cached;
      this.view = view;
    }

    @Override
    public scala.collection.Iterator<WorkerBlocks> compute(Partition split,
        TaskContext context) {
      WorkerBlocks part = view.of(cached.iterator(split, context).next());
      return CollectionConverters.asScala(Collections.singletonList(
          part.rebuiltBy(() -> view.of(cached.rebuild(split, context)))).iterator());
    }

    @Override
    public Partition[] getPartitions() {
      return cached.partitions();
    }
  }
}
