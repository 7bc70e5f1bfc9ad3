package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.plan.MemoryPlan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;
import scala.runtime.AbstractFunction2;

/**
 * One Spark job that runs a task over every partition of an RDD and brings what the tasks return
 * to the driver: {@code SparkContext.runJob} given a function object that is not a Scala
 * closure, in place of {@code mapPartitionsWithIndex(task).collect()} or
 * {@code .treeAggregate(...)}.
 *
 * <p>Why: each of Spark's RDD methods wraps its argument in a Scala closure of its own, and
 * Spark's closure cleaner reads and parses the bytecode of that closure's class (RDD's: 186 kB)
 * on every call, several times per job. In small trainings (the fast tests' slowest classes) it
 * took a quarter of the sampled CPU time, and it doubles a small job's latency (about 12 ms
 * against 6 ms a job over 2 cached partitions, warm, {@code local[2]}: {@code submit/bench
 * --sections small-fits}, BENCHMARKS.md, issue 31); a training runs such a job per mixing round
 * when rounds run as jobs, a stream per micro-batch. A function object that is not a closure is
 * passed by as it is, so a job costs what its tasks cost. The task must be serializable, as every task is; a task that is not is
 * reported by Spark's scheduler when it ships the tasks.
 */
public final class PartitionJob {
  private static final ClassTag<List<Object>> LISTS = ClassTag$.MODULE$.apply(List.class);

  private PartitionJob() {
  }

  /**
   * Everything {@code task} returns for each partition of {@code rdd}, in partition order, from
   * one job: what {@code JavaRDD.fromRDD(rdd).mapPartitionsWithIndex(task, true).collect()}
   * returns.
   */
  public static <T, U> List<U> collect(RDD<T> rdd,
      Function2<Integer, Iterator<T>, Iterator<U>> task) {
    Object[] perPartition = (Object[]) rdd.context().runJob(rdd, new Task<>(task),
        CollectionConverters.asScala(partitions(rdd)).toSeq(), LISTS);
    List<U> values = new ArrayList<>();
    for (Object partition : perPartition) {
      @SuppressWarnings("unchecked")
      List<U> list = (List<U>) partition;
      values.addAll(list);
    }
    return values;
  }

  /**
   * What {@code JavaRDD.fromRDD(rdd).mapPartitionsWithIndex(task, true).treeAggregate(zero, add,
   * merge, depth)} returns, for {@code add} and {@code merge} that give the same bits in any order
   * (as the engine's order-independent mixes do): where Spark's tree would have no level between
   * the tasks and the driver at this depth ({@link MemoryPlan#treeAggregatePartials}, Spark's own
   * rule; never at depth 1), one job whose values the driver adds to {@code zero}; else Spark's
   * tree, which spares the driver many partitions' values at once.
   */
  public static <T, V, U> U aggregate(RDD<T> rdd,
      Function2<Integer, Iterator<T>, Iterator<V>> task, U zero, Function2<U, V, U> add,
      Function2<U, U, U> merge, int depth) {
    int partitions = rdd.getNumPartitions();
    if (MemoryPlan.treeAggregatePartials(partitions, depth) < partitions) {
      return JavaRDD.fromRDD(rdd, PartitionJob.<T>elementTag()).mapPartitionsWithIndex(task, true)
          .treeAggregate(zero, add, merge, depth);
    }
    U sum = zero;
    for (V value : collect(rdd, task)) {
      try {
        sum = add.call(sum, value);
      } catch (Exception e) {
        throw PartitionJob.<RuntimeException>rethrow(e);
      }
    }
    return sum;
  }

  /**
   * {@code f} of every element of {@code rdd}, in partition order, from one job: what
   * {@code rdd.map(f).collect()} returns.
   */
  public static <T, U> List<U> map(JavaRDD<T> rdd, Function<T, U> f) {
    return collect(rdd.rdd(), (partition, elements) -> {
      List<U> values = new ArrayList<>(1);
      while (elements.hasNext()) {
        values.add(f.call(elements.next()));
      }
      return values.iterator();
    });
  }

  private static List<Object> partitions(RDD<?> rdd) {
    List<Object> indices = new ArrayList<>();
    for (int p = 0; p < rdd.getNumPartitions(); p++) {
      indices.add(p);
    }
    return indices;
  }

  @SuppressWarnings("unchecked")
  private static <T> ClassTag<T> elementTag() {
    return (ClassTag<T>) ClassTag$.MODULE$.AnyRef();
  }

  /**
   * Throws {@code e} as it is, checked or not, as Spark's own Java wrappers let a task's
   * exception through (Scala has no checked exceptions): the failure reads the same either way.
   */
  @SuppressWarnings("unchecked")
  static <E extends Exception> E rethrow(Exception e) throws E {
    throw (E) e;
  }

  /** The task's function: a named class, not a closure, so the closure cleaner passes it by. */
  private static final class Task<T, U> extends AbstractFunction2<TaskContext,
      scala.collection.Iterator<T>, List<Object>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Function2<Integer, Iterator<T>, Iterator<U>> task;

    Task(Function2<Integer, Iterator<T>, Iterator<U>> task) {
      this.task = task;
    }

    @Override
    public List<Object> apply(TaskContext context, scala.collection.Iterator<T> elements) {
      Iterator<U> values;
      try {
        values = task.call(context.partitionId(), CollectionConverters.asJava(elements));
      } catch (Exception e) {
        throw PartitionJob.<RuntimeException>rethrow(e);
      }
      if (!values.hasNext()) {
        return Collections.emptyList();
      }
      List<Object> list = new ArrayList<>(1);
      values.forEachRemaining(list::add);
      return list;
    }
  }
}
