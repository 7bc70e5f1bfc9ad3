package io.github.sparkperceptron.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A stream's micro-batches in one Spark job give the models of the path before them, bit for
 * bit: a split layout dealt through a shuffle, a job to convert and score, then a job per round
 * (the {@code spark.perceptron.test.streamOneJob=false} seam keeps it). Same prequential counts,
 * same updates, same w, u and c after every batch, for binary and multiclass data, weighted
 * rows, one worker, several, and a layout dealt over more workers than input partitions; a bad
 * row stops the batch with the same message and nothing of it applied.
 */
class OnlineTrainingTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final JavaSparkContext JSC = JavaSparkContext.fromSparkContext(
      SPARK.sparkContext());
  private static final StructType WEIGHTED = new StructType(new StructField[] {
      DataTypes.createStructField("label", DataTypes.DoubleType, false),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), false),
      DataTypes.createStructField("weight", DataTypes.DoubleType, false)});

  /** What a run of batches did: per batch (correct, updates, jobs), and the final state. */
  private static final class Run {
    final List<long[]> batches = new ArrayList<>();
    double[] w;
    double[] u;
    double clock;
  }

  private static List<TestData.Example> examples(String dataset, int d) {
    return TestData.readLibSvm(TestData.sharedData(dataset, "train.libsvm"), d);
  }

  /** The examples cut into {@code count} batches, each a frame of {@code partitions}. */
  private static List<Dataset<Row>> batches(List<TestData.Example> all, int count,
      int partitions, boolean weighted) {
    List<Dataset<Row>> out = new ArrayList<>();
    int n = all.size();
    for (int b = 0; b < count; b++) {
      List<TestData.Example> slice = all.subList(b * n / count, (b + 1) * n / count);
      if (!weighted) {
        out.add(TestData.frameInOrder(SPARK, slice, partitions));
        continue;
      }
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < slice.size(); i++) {
        // Weights that are not sums of powers of two: their sums depend on the order.
        rows.add(RowFactory.create(slice.get(i).label, slice.get(i).features,
            0.1 + 0.37 * ((b * 7 + i) % 5)));
      }
      out.add(SPARK.createDataFrame(JSC.parallelize(rows, partitions), WEIGHTED));
    }
    return out;
  }

  private static Run run(PerceptronClassifier params, List<Dataset<Row>> batches,
      boolean oneJob) {
    JSC.setLocalProperty(Settings.TEST_STREAM_ONE_JOB, String.valueOf(oneJob));
    Run run = new Run();
    try (OnlineTraining training = new OnlineTraining(JSC, EngineBridge.config(params), 1, false,
        0, null)) {
      for (int b = 0; b < batches.size(); b++) {
        OnlineTraining.BatchOutcome outcome = training.trainBatch(batches.get(b), b,
            (rows, correct) -> false);
        run.batches.add(new long[] {outcome.prequentialCorrect, outcome.updates, outcome.jobs});
      }
      run.w = training.state().weights().clone();
      run.u = training.state().averageAccumulator() == null ? null
          : training.state().averageAccumulator().clone();
      run.clock = training.state().clock();
    } finally {
      JSC.setLocalProperty(Settings.TEST_STREAM_ONE_JOB, null);
    }
    return run;
  }

  private static long[] bits(double[] v) {
    return v == null ? null : Arrays.stream(v).mapToLong(Double::doubleToRawLongBits).toArray();
  }

  @ParameterizedTest(name = "{0} d={1} {2} batches of {3} partitions, {4} workers, {5} {6} {7}"
      + " weighted={8}")
  @CsvSource({
      // A split layout: one input partition dealt over 2 and 3 workers, averaged.
      "breast_cancer, 30, 4, 1, 2, average, mistakes, perceptron, false",
      "breast_cancer, 30, 3, 2, 3, average, uniform, perceptron, true",
      "iris,           4, 3, 1, 4, average, mistakes, pa1, false",
      // One worker over several input partitions (coalesced).
      "iris,           4, 3, 3, 1, average, mistakes, pa1, true",
      // Without averaging, workers need no T: coalesced over 2 workers.
      "breast_cancer, 30, 3, 4, 2, none, mistakes, perceptron, false",
  })
  void oneJobBatchesGiveThePreviousPathsModelsBitForBit(String dataset, int d, int count,
      int partitions, int workers, String averaging, String mixing, String rule,
      boolean weighted) {
    PerceptronClassifier params = new PerceptronClassifier().setNumWorkers(workers)
        .setAveraging(averaging).setMixing(mixing).setUpdateRule(rule).setSeed(11);
    if (weighted) {
      params.setWeightCol("weight");
    }
    List<Dataset<Row>> batches = batches(examples(dataset, d), count, partitions, weighted);
    Run oneJob = run(params, batches, true);
    Run previous = run(params, batches, false);
    for (int b = 0; b < count; b++) {
      long[] one = oneJob.batches.get(b);
      long[] two = previous.batches.get(b);
      assertEquals(two[0], one[0], "prequential count of batch " + b);
      assertEquals(two[1], one[1], "updates of batch " + b);
      if (b > 0) {
        assertEquals(1, one[2], "batch " + b + " took one job");
        assertTrue(two[2] >= 2, "the previous path takes a job to score and one to learn");
      }
    }
    assertArrayEquals(bits(previous.w), bits(oneJob.w));
    assertArrayEquals(bits(previous.u), bits(oneJob.u));
    assertEquals(Double.doubleToRawLongBits(previous.clock),
        Double.doubleToRawLongBits(oneJob.clock));
    assertTrue(Arrays.stream(oneJob.w).anyMatch(v -> v != 0.0), "something was learnt");
  }

  /**
   * A fresh model asked for once a batch is scored (the {@code reset} policy) learns the batch as
   * a new stream would: the state after it, and after the next batch, equals bit for bit that of
   * a training that starts at that batch (same batch ids, so the same shuffles), though the
   * batches before it had been learnt; the batch is scored by the old model, and the whole state
   * is to be saved (no change record can describe it).
   */
  @Test
  void aFreshModelLearnsTheBatchAsANewStreamWould() {
    List<Dataset<Row>> batches = batches(examples("breast_cancer", 30), 5, 1, false);
    PerceptronClassifier params = new PerceptronClassifier().setNumWorkers(2).setSeed(7);
    long[][] continued = new long[2][];
    long[] scoredByOld = new long[1];
    try (OnlineTraining stream = new OnlineTraining(JSC, EngineBridge.config(params), 1, true, 0,
        null)) {
      for (int b = 0; b < 5; b++) {
        int batch = b;
        OnlineTraining.BatchOutcome outcome = stream.trainBatch(batches.get(b), b,
            (rows, correct) -> batch == 3);
        assertEquals(b == 3, outcome.freshModel);
        if (b == 3) {
          scoredByOld[0] = outcome.prequentialCorrect;
          assertEquals(null, stream.writtenSinceSave(), "a fresh model is saved whole");
          continued[0] = bits(stream.state().weights());
        }
        stream.markSaved();
      }
      continued[1] = bits(stream.state().modelWeights());
    }
    try (OnlineTraining old = new OnlineTraining(JSC, EngineBridge.config(params), 1, false, 0,
        null)) {
      long correct = -1;
      for (int b = 0; b < 4; b++) {
        correct = old.trainBatch(batches.get(b), b, (rows, c) -> false).prequentialCorrect;
      }
      assertEquals(correct, scoredByOld[0], "the drift batch is scored by the model before it");
    }
    try (OnlineTraining fresh = new OnlineTraining(JSC, EngineBridge.config(params), 1, false, 0,
        null)) {
      fresh.trainBatch(batches.get(3), 3, (rows, correct) -> false);
      assertArrayEquals(bits(fresh.state().weights()), continued[0]);
      fresh.trainBatch(batches.get(4), 4, (rows, correct) -> false);
      assertArrayEquals(bits(fresh.state().modelWeights()), continued[1]);
    }
  }

  /**
   * A bad value in a later batch stops it with the message of the previous path (the earliest
   * bad row of the batch, whichever worker converted it), and the learner is as the batch before
   * left it: the change of a batch is applied only after its facts are checked.
   */
  @Test
  void aBadRowStopsTheBatchWithTheSameMessageAndChangesNothing() throws IOException {
    List<TestData.Example> all = examples("breast_cancer", 30);
    List<TestData.Example> bad = new ArrayList<>(all.subList(200, 300));
    for (int i : new int[] {61, 37}) {
      double[] x = bad.get(i).features.toArray();
      x[4] = Double.NaN;
      bad.set(i, new TestData.Example(bad.get(i).label, Vectors.dense(x)));
    }
    Dataset<Row> first = TestData.frameInOrder(SPARK, all.subList(0, 200), 1);
    Dataset<Row> broken = TestData.frameInOrder(SPARK, bad, 1);
    PerceptronClassifier params = new PerceptronClassifier().setNumWorkers(2).setSeed(3);
    List<String> messages = new ArrayList<>();
    for (boolean oneJob : new boolean[] {true, false}) {
      JSC.setLocalProperty(Settings.TEST_STREAM_ONE_JOB, String.valueOf(oneJob));
      try (OnlineTraining training = new OnlineTraining(JSC, EngineBridge.config(params), 1,
          false, 0, null)) {
        training.trainBatch(first, 0, (rows, correct) -> false);
        training.markSaved();
        long[] before = bits(training.state().weights());
        long[] beforeU = bits(training.state().averageAccumulator());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> training.trainBatch(broken, 1, (rows, correct) -> false));
        messages.add(e.getMessage());
        assertArrayEquals(before, bits(training.state().weights()));
        assertArrayEquals(beforeU, bits(training.state().averageAccumulator()));
        assertEquals(0, training.writtenSinceSave().length, "nothing written");
      } finally {
        JSC.setLocalProperty(Settings.TEST_STREAM_ONE_JOB, null);
      }
    }
    assertEquals(messages.get(1), messages.get(0));
    assertTrue(messages.get(0).contains("NaN at feature index 4 in row 37 of input partition 0"),
        messages.get(0));
  }
}
