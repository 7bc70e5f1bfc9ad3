package io.github.sparkperceptron.internal.rounds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.status.api.v1.ExecutorSummary;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.RDDBlockId;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;

/**
 * Where the tasks of an epoch's barrier stage should run, so that Spark launches them at once.
 *
 * <p>Spark launches a barrier stage only when it can place all W tasks in one round of resource
 * offers, and its delay scheduling holds a task back while the executor that caches its block is
 * busy ({@code spark.locality.wait}, 3 s per locality level). When the cached blocks sit unevenly
 * (two workers' blocks on an executor of one task slot: the blocks were built while another
 * executor was busy or not yet registered, or rebuilt after a loss), every epoch's stage waited
 * out that delay before its tasks started: on the standalone cluster of
 * {@code StandaloneClusterTest}, every epoch, after which one task ran NODE_LOCAL; on several
 * hosts it would be twice the delay (process, then node level).
 *
 * <p>So, before each epoch, the driver assigns the workers to executors: each worker to an
 * executor that caches its block while that executor has a free task slot (its
 * {@code maxTasks}), in worker order; the others to the executors with the most slots left. The
 * stage runs over {@link Placed}, the cached blocks under these preferences: a task whose block
 * sits elsewhere reads it from there (what Spark does after the wait anyway), without the wait.
 * Where nothing is known (no executor listed, a block not cached), the task keeps Spark's own
 * preference. Placement never changes a result: a task computes the same bits wherever it runs.
 */
final class BarrierPlacement {
  private BarrierPlacement() {
  }

  /**
   * The blocks of {@code blocks} (one per worker, cached) under this moment's balanced
   * preferences, for a barrier stage.
   */
  static <T> RDD<T> placed(JavaSparkContext jsc, RDD<T> blocks, ClassTag<T> tag) {
    int workers = blocks.getNumPartitions();
    BlockId[] ids = new BlockId[workers];
    for (int j = 0; j < workers; j++) {
      ids[j] = new RDDBlockId(blocks.id(), j);
    }
    List<String[]> holders = new ArrayList<>(workers);
    Map<String, String> hostOf = new LinkedHashMap<>();
    for (Seq<BlockManagerId> at : CollectionConverters.asJava(
        SparkEnv.get().blockManager().master().getLocations(ids))) {
      List<String> executors = new ArrayList<>();
      for (BlockManagerId b : CollectionConverters.asJava(at)) {
        executors.add(b.executorId());
        hostOf.put(b.executorId(), b.host());
      }
      holders.add(executors.toArray(new String[0]));
    }
    Map<String, Integer> slots = new LinkedHashMap<>();
    for (ExecutorSummary e : CollectionConverters.asJava(jsc.sc().statusStore()
        .executorList(true))) {
      if (e.isActive() && e.maxTasks() > 0) {
        slots.put(e.id(), e.maxTasks());
        hostOf.putIfAbsent(e.id(), host(e.hostPort()));
      }
    }
    String[] executors = assign(holders, slots);
    String[] preferred = new String[workers];
    for (int j = 0; j < workers; j++) {
      String e = executors[j];
      preferred[j] = e == null || hostOf.get(e) == null ? null
          // Spark's form of an executor location (ExecutorCacheTaskLocation): process-local.
          : "executor_" + hostOf.get(e) + "_" + e;
    }
    return new Placed<>(blocks, preferred, tag);
  }

  /**
   * The executor each worker's task should run on: worker j (in order) on the first executor of
   * {@code holders[j]} (those caching its block) with a slot left in {@code slots} (task slots
   * per executor, in a fixed order); the workers left over on the executors with the most slots
   * left (the first such in {@code slots}' order); null for a worker when no executor is known
   * or no slot is left.
   */
  static String[] assign(List<String[]> holders, Map<String, Integer> slots) {
    Map<String, Integer> left = new LinkedHashMap<>(slots);
    String[] out = new String[holders.size()];
    for (int j = 0; j < out.length; j++) {
      for (String e : holders.get(j)) {
        Integer free = left.get(e);
        if (free != null && free > 0) {
          left.put(e, free - 1);
          out[j] = e;
          break;
        }
      }
    }
    for (int j = 0; j < out.length; j++) {
      if (out[j] == null) {
        String most = null;
        for (Map.Entry<String, Integer> e : left.entrySet()) {
          if (e.getValue() > 0 && (most == null || e.getValue() > left.get(most))) {
            most = e.getKey();
          }
        }
        if (most != null) {
          left.put(most, left.get(most) - 1);
          out[j] = most;
        }
      }
    }
    return out;
  }

  /** The host of a "host:port" address ("[v6]:port" for IPv6). */
  private static String host(String hostPort) {
    return BarrierEpochTask.hostOf(hostPort);
  }

  /**
   * An RDD's partitions as they are (one-to-one, computed by the parent, its cached blocks
   * read), preferring the given locations; a null location keeps the parent's preference.
   */
  static final class Placed<T> extends RDD<T> {
    private static final long serialVersionUID = 1L;
    private final RDD<T> parent;
    /** Only the driver's scheduler asks for them. */
    private final transient String[] preferred;

    Placed(RDD<T> parent, String[] preferred, ClassTag<T> tag) {
      super(parent, tag);
      this.parent = parent;
      this.preferred = preferred;
    }

    @Override
    public Iterator<T> compute(Partition split, TaskContext context) {
      return parent.iterator(split, context);
    }

    @Override
    public Partition[] getPartitions() {
      return parent.partitions();
    }

    @Override
    public Seq<String> getPreferredLocations(Partition split) {
      String at = preferred == null ? null : preferred[split.index()];
      return at == null ? CollectionConverters.asScala(List.<String>of()).toList()
          : CollectionConverters.asScala(Arrays.asList(at)).toList();
    }
  }
}
