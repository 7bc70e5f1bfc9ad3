package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * An epoch's work follows what the data touch, not the model's dimension d (issue 21: the
 * d = 2^24 epoch at most 1.5× the d = 2^16 one on the same rows). Counted without a clock: the
 * bytes every JVM thread allocates per epoch (HotSpot's per-thread allocation counters, which
 * load does not change) for the same 2,000 rows spread over d = 2^12 and d = 2^22 features
 * (the benchmark's {@code spread}: an increasing injection, so the learner sees the same
 * problem), with the defaults (block momentum, automatic rounds, averaging), the rounds in a
 * barrier stage and as one job each.
 *
 * <p>One array of the state at d = 2^22 is 32 MiB. Before this test, an epoch allocated several
 * of them (each barrier task cloned the epoch's weights and block momentum's Δ, and every round
 * allocated bit sets over all coordinates): hundreds of MiB more per epoch at 2^22 than at 2^12.
 * Per epoch = (fit of 5 epochs − fit of 1 epoch) / 4, so what a fit allocates once (the driver's
 * state, the executors' first copies, the first epoch's) cancels out. Threads that end during a
 * fit are not counted, which can only hide bytes, never invent them.
 */
class EpochAllocationByModelSizeTest {
  private static final int ROWS = 2_000;
  private static final int NNZ = 30;
  private static final int BASE_LOG_D = 12;
  /**
   * The larger d's exponent; {@code -Depoch.allocation.largeLogD=24} (and
   * {@code smallLogD=16}) measures the benchmark's two sizes (about 1.5 GB of heap at 2^24).
   */
  private static final int LARGE_LOG_D = Integer.getInteger("epoch.allocation.largeLogD", 22);
  private static final int SMALL_LOG_D = Integer.getInteger("epoch.allocation.smallLogD",
      BASE_LOG_D);

  @Test
  void anEpochAllocatesTheSameAtEveryModelSize() {
    SparkSession spark = SparkTestSupport.spark();
    String[] executions = {"barrier", "jobs"};
    long[][] bytes = new long[executions.length][];
    for (int e = 0; e < executions.length; e++) {
      bytes[e] = new long[] {bytesPerEpoch(spark, SMALL_LOG_D, executions[e]),
          bytesPerEpoch(spark, LARGE_LOG_D, executions[e])};
      System.out.printf(Locale.ROOT, "rounds as %s: d = 2^%d %,d B/epoch, d = 2^%d %,d B/epoch%n",
          executions[e], SMALL_LOG_D, bytes[e][0], LARGE_LOG_D, bytes[e][1]);
    }
    // A quarter of one state array (8 MiB at 2^22): far above the noise of Spark's own threads
    // (a few hundred KB either way), far below one d-long array per epoch (32 MiB), let alone one
    // per task. All threads count: a filter by name let a d-long clone in the tasks through.
    long bound = (8L << LARGE_LOG_D) / 4;
    for (int e = 0; e < executions.length; e++) {
      long more = bytes[e][1] - bytes[e][0];
      assertTrue(more < bound, String.format(Locale.ROOT, "with the rounds as %s, an epoch at"
          + " d = 2^%d allocates %,d bytes more than at d = 2^%d (bound %,d): something on the"
          + " epoch's path is d long again", executions[e], LARGE_LOG_D, more, SMALL_LOG_D,
          bound));
    }
  }

  /** Bytes all threads allocate per epoch of a default fit over the rows spread to 2^logD. */
  private static long bytesPerEpoch(SparkSession spark, int logD, String execution) {
    Dataset<Row> frame = rows(spark, logD).cache();
    frame.count();
    spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, execution);
    try {
      if (logD == SMALL_LOG_D) {
        // Loads the classes and compiles the code of this way of running the rounds.
        classifier(1).fit(frame);
      }
      long one = allocatedByFit(spark, frame, 1);
      long five = allocatedByFit(spark, frame, 5);
      return (five - one) / 4;
    } finally {
      spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
      frame.unpersist(true);
    }
  }

  private static PerceptronClassifier classifier(int epochs) {
    return new PerceptronClassifier().setMaxIter(epochs).setTol(0).setNumWorkers(2).setSeed(5);
  }

  private static long allocatedByFit(SparkSession spark, Dataset<Row> frame, int epochs) {
    SparkTestSupport.awaitListeners(spark);
    Map<Long, Long> before = allocatedByThread();
    classifier(epochs).fit(frame);
    SparkTestSupport.awaitListeners(spark);
    Map<Long, Long> after = allocatedByThread();
    long total = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return total;
  }

  private static Map<Long, Long> allocatedByThread() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    Map<Long, Long> out = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        out.put(ids[i], bytes[i]);
      }
    }
    return out;
  }

  /**
   * {@link #ROWS} rows of {@link #NNZ} non-zeros over 2^{@link #BASE_LOG_D} features, labelled by
   * a random hyperplane with 10% of the labels flipped (so every epoch updates), their feature j
   * moved to j·s + (hash(j) mod s), s = 2^(logD − base): the same rows at every d.
   */
  static Dataset<Row> rows(SparkSession spark, int logD) {
    int base = 1 << BASE_LOG_D;
    int s = 1 << (logD - BASE_LOG_D);
    Random rnd = new Random(17);
    double[] plane = new double[base];
    for (int j = 0; j < base; j++) {
      plane[j] = rnd.nextGaussian();
    }
    List<Row> rows = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      int[] idx = rnd.ints(0, base).distinct().limit(NNZ).sorted().toArray();
      double[] val = new double[NNZ];
      double margin = 0;
      for (int k = 0; k < NNZ; k++) {
        val[k] = rnd.nextGaussian();
        margin += plane[idx[k]] * val[k];
        long h = (idx[k] * 0x9E3779B97F4A7C15L) >>> 33;
        idx[k] = idx[k] * s + (int) (h % s);
      }
      double label = (margin > 0) != (rnd.nextDouble() < 0.1) ? 1.0 : 0.0;
      rows.add(RowFactory.create(label, Vectors.sparse(base * s, idx, val)));
    }
    StructField label = NominalAttribute.defaultAttr().withName("label").withNumValues(2)
        .toStructField();
    StructField features = new AttributeGroup("features", base * s).toStructField();
    return spark.createDataFrame(rows, new StructType(new StructField[] {
        new StructField("label", DataTypes.DoubleType, false, label.metadata()),
        new StructField("features", SQLDataTypes.VectorType(), false, features.metadata())}))
        .repartition(2);
  }
}
