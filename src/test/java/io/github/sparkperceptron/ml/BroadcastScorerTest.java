package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.logging.log4j.Level;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.scheduler.DAGScheduler;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockUpdated;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.BlockId;
import org.junit.jupiter.api.Test;

/**
 * {@code transform} broadcasts one scorer instead of closing its UDFs over the model: the output
 * is Spark's {@code ProbabilisticClassificationModel.transform}'s (the same columns, types,
 * nullability and metadata as {@code LogisticRegressionModel}'s, which inherits it unchanged; the
 * values of a plain
 * class-major reference computed here, bit for bit), and the task binary of a K = 100,
 * d = 2^16 model stays under 1 MB where the model itself weighs 52 MB.
 */
class BroadcastScorerTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final StructType SCHEMA = new StructType()
      .add("label", DataTypes.DoubleType).add("features", SQLDataTypes.VectorType());

  private static PerceptronClassificationModel randomModel(Random rnd, int k, int d) {
    int rows = k == 2 ? 1 : k;
    double[] coef = new double[rows * d];
    double[] icpt = new double[rows];
    for (int i = 0; i < coef.length; i++) {
      coef[i] = rnd.nextGaussian();
    }
    for (int i = 0; i < rows; i++) {
      icpt[i] = rnd.nextGaussian();
    }
    return new PerceptronClassificationModel("scorer_" + k, k, d, coef, icpt, null);
  }

  /** Sparse rows (with an explicit zero now and then) and dense rows, in one column. */
  private static Dataset<Row> rows(Random rnd, int n, int d) {
    Object[][] out = new Object[n][];
    for (int r = 0; r < n; r++) {
      Vector x;
      if (r % 3 == 2) {
        double[] v = new double[d];
        for (int j = 0; j < d; j++) {
          v[j] = rnd.nextInt(3) == 0 ? 0.0 : rnd.nextGaussian();
        }
        x = Vectors.dense(v);
      } else {
        int[] idx = rnd.ints(0, d).distinct().limit(Math.min(d, 5)).sorted().toArray();
        double[] v = new double[idx.length];
        for (int t = 0; t < v.length; t++) {
          v[t] = t == 1 ? 0.0 : rnd.nextGaussian();
        }
        x = Vectors.sparse(d, idx, v);
      }
      out[r] = new Object[] {(double) rnd.nextInt(2), x};
    }
    return TestData.rows(SPARK, SCHEMA, out).repartition(2);
  }

  /** The scores as the model stores them, class-major, summed in index order: no shared code. */
  private static double[] naiveScores(PerceptronClassificationModel model, Vector x) {
    int rows = model.numClasses() == 2 ? 1 : model.numClasses();
    double[] coef = model.coefficientMatrix().toArray(); // column-major K' x d
    double[] icpt = model.interceptVector().toArray();
    double[] scores = new double[rows];
    for (int k = 0; k < rows; k++) {
      double sum = 0.0;
      if (x instanceof SparseVector) {
        SparseVector sv = (SparseVector) x;
        for (int t = 0; t < sv.indices().length; t++) {
          sum += sv.values()[t] * coef[sv.indices()[t] * rows + k];
        }
      } else {
        double[] v = ((DenseVector) x).values();
        for (int j = 0; j < v.length; j++) {
          sum += v[j] * coef[j * rows + k];
        }
      }
      scores[k] = sum + icpt[k];
    }
    return scores;
  }

  @Test
  void transformGivesTheReferenceScoresBitForBit() {
    Random rnd = new Random(8);
    for (int k : new int[] {2, 3, 10}) {
      PerceptronClassificationModel model = randomModel(rnd, k, 7);
      Dataset<Row> data = rows(rnd, 30, 7);
      for (double threshold : k == 2 ? new double[] {0.0, 0.7} : new double[] {0.0}) {
        model.setThreshold(threshold);
        List<Row> out = model.transform(data).collectAsList();
        assertEquals(30, out.size());
        for (Row r : out) {
          Vector x = r.getAs("features");
          double[] expected = naiveScores(model, x);
          double[] raw = ((Vector) r.getAs("rawPrediction")).toArray();
          double[] expectedRaw = k == 2 ? new double[] {-expected[0], expected[0]} : expected;
          assertEquals(expectedRaw.length, raw.length);
          for (int c = 0; c < raw.length; c++) {
            assertEquals(Double.doubleToRawLongBits(expectedRaw[c]),
                Double.doubleToRawLongBits(raw[c]), "K=" + k + " " + x + " class " + c);
          }
          double predicted = r.getAs("prediction");
          int rule = k == 2 ? (expected[0] > threshold ? 1 : 0) : argmax(expected);
          assertEquals(rule, predicted, 0.0);
          assertEquals(model.predict(x), predicted, 0.0);
          assertEquals(model.predictRaw(x), r.getAs("rawPrediction"));
        }
      }
    }
  }

  private static int argmax(double[] s) {
    int best = 0;
    for (int c = 1; c < s.length; c++) {
      if (s[c] > s[best]) {
        best = c;
      }
    }
    return best;
  }

  @Test
  void eitherOutputColumnAloneAndNeither() {
    Random rnd = new Random(9);
    PerceptronClassificationModel model = randomModel(rnd, 4, 6);
    Dataset<Row> data = rows(rnd, 12, 6);
    List<Row> both = model.transform(data).select("features", "rawPrediction", "prediction")
        .collectAsList();
    PerceptronClassificationModel noRaw = model.copy(new ParamMap())
        .setRawPredictionCol("").setProbabilityCol("");
    Dataset<Row> predictionOnly = noRaw.transform(data);
    assertEquals(List.of("label", "features", "prediction"),
        List.of(predictionOnly.columns()));
    PerceptronClassificationModel noPrediction = model.copy(
        new ParamMap()).setPredictionCol("").setProbabilityCol("");
    Dataset<Row> rawOnly = noPrediction.transform(data);
    assertEquals(List.of("label", "features", "rawPrediction"), List.of(rawOnly.columns()));
    Map<Vector, Row> byFeatures = new HashMap<>();
    for (Row r : both) {
      byFeatures.put(r.getAs("features"), r);
    }
    for (Row r : predictionOnly.collectAsList()) {
      assertEquals(byFeatures.get(r.<Vector>getAs("features")).<Double>getAs("prediction"),
          r.<Double>getAs("prediction"));
    }
    for (Row r : rawOnly.collectAsList()) {
      assertEquals(byFeatures.get(r.<Vector>getAs("features")).<Vector>getAs("rawPrediction"),
          r.<Vector>getAs("rawPrediction"));
    }
    PerceptronClassificationModel none = noRaw.copy(new ParamMap())
        .setPredictionCol("");
    assertEquals(List.of("label", "features"), List.of(none.transform(data).columns()));
  }

  /**
   * The output schema is ProbabilisticClassificationModel.transform's: LogisticRegressionModel
   * inherits that transform unchanged, so a binary model of ours and a LogisticRegressionModel
   * give the same fields (types, nullability, metadata); multiclass output carries
   * transformSchema's metadata (K values).
   */
  @Test
  void outputColumnsAndMetadataAreSparks() {
    Random rnd = new Random(10);
    Dataset<Row> data = rows(rnd, 6, 5);
    PerceptronClassificationModel ours = randomModel(rnd, 2, 5);
    LogisticRegressionModel lr = new LogisticRegressionModel("lr", Vectors.dense(new double[5]),
        0.0);
    StructType expected = lr.transform(data).schema();
    StructType actual = ours.transform(data).schema();
    assertEquals(expected, actual);
    for (StructField f : expected.fields()) {
      assertEquals(f.metadata(), actual.apply(f.name()).metadata(), f.name());
    }
    PerceptronClassificationModel multi = randomModel(rnd, 6, 5);
    StructType multiOut = multi.transform(data).schema();
    StructType declared = multi.transformSchema(data.schema());
    for (String col : new String[] {"rawPrediction", "probability", "prediction"}) {
      assertEquals(declared.apply(col).metadata(), multiOut.apply(col).metadata(), col);
      assertEquals(declared.apply(col).dataType(), multiOut.apply(col).dataType(), col);
    }
    assertTrue(multiOut.apply("rawPrediction").metadata().toString().contains("6"),
        multiOut.apply("rawPrediction").metadata().toString());
  }

  /** Bytes of the broadcast pieces stored, by broadcast id (what executors fetch). */
  private static final class BroadcastPieces extends SparkListener {
    final Map<String, Long> bytes = new HashMap<>();

    @Override
    public synchronized void onBlockUpdated(SparkListenerBlockUpdated event) {
      BlockId id = event.blockUpdatedInfo().blockId();
      long size = event.blockUpdatedInfo().memSize() + event.blockUpdatedInfo().diskSize();
      if (id.isBroadcast() && id.name().contains("_piece") && size > 0) {
        bytes.merge(id.name().substring(0, id.name().indexOf("_piece")), size, Long::sum);
      }
    }

    synchronized long largest() {
      return bytes.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    synchronized void clear() {
      bytes.clear();
    }
  }

  /**
   * K = 100, d = 2^16: 52 MB of coefficients. Spark warns "Broadcasting large task binary" when
   * a stage's serialised (RDD, function) exceeds 1000 KiB (TaskSetManager.TASK_SIZE_TO_WARN_KIB);
   * the task binary is itself a broadcast, whose stored pieces the listener weighs. Ours: no
   * warning and a task binary of kilobytes. The control, the same model closed over by a UDF as
   * Spark's transform does, gets the warning and a task binary of tens of MB: the measurement
   * can tell the two apart.
   */
  @Test
  void theTaskBinaryOfAHundredClassModelStaysUnderOneMegabyte() throws Exception {
    Random rnd = new Random(11);
    int d = 1 << 16;
    PerceptronClassificationModel model = randomModel(rnd, 100, d);
    List<Object[]> sparse = new ArrayList<>();
    for (int r = 0; r < 20; r++) {
      sparse.add(new Object[] {0.0, Vectors.sparse(d, new int[] {r, 1000 + r, 60000 + r},
          new double[] {1, 2, 3})});
    }
    Dataset<Row> data = TestData.rows(SPARK, SCHEMA, sparse.toArray(new Object[0][]))
        .repartition(2);
    BroadcastPieces pieces = new BroadcastPieces();
    SPARK.sparkContext().addSparkListener(pieces);
    try (LogCapture log = LogCapture.of(DAGScheduler.class)) {
      Dataset<Row> out = model.transform(data);
      SPARK.sparkContext().listenerBus().waitUntilEmpty();
      long scorerBytes = pieces.largest();
      pieces.clear();
      List<Row> rows = out.collectAsList();
      SPARK.sparkContext().listenerBus().waitUntilEmpty();
      long taskBinary = pieces.largest();
      assertEquals(20, rows.size());
      assertTrue(scorerBytes > 40_000_000L, "the scorer itself was broadcast: " + scorerBytes);
      assertTrue(taskBinary < 1_000_000L, "task binary pieces of " + taskBinary + " bytes");
      assertFalse(warnedLarge(log), log.messages(Level.WARN).toString());

      pieces.clear();
      UDF1<Vector, Vector> closesOverTheModel = model::predictRaw;
      data.withColumn("raw", functions.udf(closesOverTheModel, SQLDataTypes.VectorType())
          .apply(functions.col("features"))).collectAsList();
      SPARK.sparkContext().listenerBus().waitUntilEmpty();
      long controlBinary = pieces.largest();
      assertTrue(controlBinary > 40_000_000L, "the control's task binary: " + controlBinary);
      assertTrue(warnedLarge(log), "Spark warns about the control's task binary");
    } finally {
      SPARK.sparkContext().removeSparkListener(pieces);
    }
  }

  private static boolean warnedLarge(LogCapture log) {
    return log.messages(Level.WARN).stream()
        .anyMatch(m -> m.contains("Broadcasting large task binary"));
  }
}
