package io.github.sparkperceptron.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.onnx.OnnxExport;
import java.nio.DoubleBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * The benchmarks of issue 23 (models that leave Spark), section {@code export}:
 *
 * <pre>
 * export time   OnnxExport.toBytes and model.write().format("onnx").save of a K = 100,
 *               d = 2^16 model (trained 1 epoch on TextLikeData): target under 2 s
 * scoring       N dense rows of breast_cancer's shape (30 features: the shipped training rows
 *               drawn with replacement, seed 23) scored by the breast_cancer model's transform
 *               on the Spark master (the noop sink computes every output column) against its
 *               ONNX export in ONNX Runtime (one run of all N rows from a Java double[], after
 *               one warm-up run): target ONNX Runtime faster
 * dense limit   a binary model of d = 2^X features: its ONNX bytes, ONNX Runtime's session
 *               creation and one dense row scored, next to the largest d protobuf's 2 GiB allows
 * </pre>
 */
final class ExportBench {
  private final SparkSession spark;
  private final Report report;
  private final String master;
  private final int partitions;
  private final int repeats;
  private final Path dataDir;
  private final Path out;

  ExportBench(SparkSession spark, Report report, String master, int partitions, int repeats,
      Path dataDir, Path out) {
    this.spark = spark;
    this.report = report;
    this.master = master;
    this.partitions = partitions;
    this.repeats = repeats;
    this.dataDir = dataDir;
    this.out = out;
  }

  void run(long wideRows, long scoringRows, int denseLogD) throws Exception {
    report.markdown(Report.f("## Models that leave Spark: ONNX export and scoring (issue 23)\n\n"
        + "`%s`, %d partition(s), %d repetition(s) per timing, medians. ONNX Runtime %s"
        + " (Java API, CPU, default session options). %s\n\n", master, partitions, repeats,
        OrtEnvironment.getEnvironment().getVersion(), SystemLoad.text()));
    Report.Table t = new Report.Table("measurement", "value", "target", "met");
    exportTime(t, wideRows);
    scoring(t, scoringRows);
    report.markdown(t.toString());
    if (denseLogD > 0) {
      denseLimit(denseLogD);
    }
    report.markdown("After the section: " + SystemLoad.text() + "\n\n");
    report.flush();
  }

  private void exportTime(Report.Table t, long rows) throws Exception {
    int d = 1 << 16;
    int k = 100;
    TextLikeData data = new TextLikeData(d, k, 30, 1.0, 200, 0.3, 43);
    Dataset<Row> train = data.frame(spark, 0, rows, partitions).cache();
    train.count();
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(1).fit(train);
    train.unpersist(true);
    DataShape shape = new DataShape("export K=100 d=2^16", rows, d, 30L * rows, k, 43L, false);
    List<Double> bytesTimes = new ArrayList<>();
    List<Double> saveTimes = new ArrayList<>();
    int size = 0;
    for (int r = 0; r < repeats; r++) {
      long start = System.nanoTime();
      size = OnnxExport.toBytes(model).length;
      bytesTimes.add((System.nanoTime() - start) / 1e9);
      Path dir = out.resolve("export-k100");
      start = System.nanoTime();
      model.write().format("onnx").overwrite().save(dir.toString());
      saveTimes.add((System.nanoTime() - start) / 1e9);
    }
    double bytesSeconds = median(bytesTimes);
    double saveSeconds = median(saveTimes);
    report.add("export", shape, partitions, "OnnxExport.toBytes", "seconds", bytesSeconds, "s");
    report.add("export", shape, partitions, "write().format(onnx).save", "seconds",
        saveSeconds, "s");
    report.add("export", shape, partitions, "ONNX file", "bytes", size, "B");
    t.row("export of K=100, d=2^16 (OnnxExport.toBytes)", Report.f("%.3f s", bytesSeconds),
        "< 2 s", bytesSeconds < 2 ? "yes" : "no");
    t.row("export of K=100, d=2^16 (write().format(\"onnx\").save, local file)",
        Report.f("%.3f s", saveSeconds), "< 2 s", saveSeconds < 2 ? "yes" : "no");
    t.row("its ONNX file", Report.f("%,d bytes", size), "", "");
    report.flush();
  }

  private void scoring(Report.Table t, long n) throws Exception {
    String train = dataDir.resolve("breast_cancer").resolve("train.libsvm").toString();
    Dataset<Row> shipped = spark.read().format("libsvm").option("numFeatures", "30").load(train);
    PerceptronClassificationModel model = new PerceptronClassifier().fit(shipped);
    List<Row> source = shipped.select("features").collectAsList();
    Random random = new Random(23);
    int d = 30;
    double[] x = new double[Math.toIntExact(n * d)];
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] v = ((Vector) source.get(random.nextInt(source.size())).get(0)).toArray();
      System.arraycopy(v, 0, x, i * d, d);
      rows.add(RowFactory.create(Vectors.dense(v)));
    }
    StructType schema = new StructType(new StructField[] {
        DataTypes.createStructField("features", SQLDataTypes.VectorType(), false)});
    Dataset<Row> frame = spark.createDataFrame(rows, schema).repartition(partitions)
        .persist(StorageLevel.MEMORY_ONLY());
    frame.count();
    DataShape shape = new DataShape("breast_cancer-shaped dense", n, d, n * d, 2, 23L, true);

    List<Double> sparkTimes = new ArrayList<>();
    for (int r = 0; r < repeats + 1; r++) {
      long start = System.nanoTime();
      model.transform(frame).select("prediction", "rawPrediction").write().format("noop")
          .mode("overwrite").save();
      if (r > 0) {
        sparkTimes.add((System.nanoTime() - start) / 1e9);
      }
    }
    frame.unpersist(true);

    OrtEnvironment env = OrtEnvironment.getEnvironment();
    List<Double> ortTimes = new ArrayList<>();
    double checksum = 0;
    try (OrtSession session = env.createSession(OnnxExport.toBytes(model),
        new OrtSession.SessionOptions())) {
      for (int r = 0; r < repeats + 1; r++) {
        long start = System.nanoTime();
        try (OnnxTensor input = OnnxTensor.createTensor(env, DoubleBuffer.wrap(x),
                new long[] {n, d});
            OrtSession.Result result = session.run(Map.of("features", input))) {
          double[] prediction = (double[]) result.get("prediction").orElseThrow().getValue();
          checksum = Arrays.stream(prediction).sum();
        }
        if (r > 0) {
          ortTimes.add((System.nanoTime() - start) / 1e9);
        }
      }
    }
    double sparkSeconds = median(sparkTimes);
    double ortSeconds = median(ortTimes);
    report.add("export", shape, partitions, "Spark transform (noop sink)", "seconds",
        sparkSeconds, "s");
    report.add("export", shape, partitions, "ONNX Runtime run", "seconds", ortSeconds, "s");
    t.row(Report.f("Spark `transform` of %,d dense rows × 30 (%s, noop sink)", n, master),
        Report.f("%.3f s", sparkSeconds), "", "");
    t.row(Report.f("ONNX Runtime, the same %,d rows in one run (%,.0f predicted 1)", n,
        checksum), Report.f("%.3f s (%.1fx faster)", ortSeconds, sparkSeconds / ortSeconds),
        "faster than Spark", ortSeconds < sparkSeconds ? "yes" : "no");
    report.flush();
  }

  private void denseLimit(int logD) throws Exception {
    int d = 1 << logD;
    Random random = new Random(29);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int[] idx = random.ints(0, d).distinct().limit(20).sorted().toArray();
      rows.add(RowFactory.create((double) random.nextInt(2),
          Vectors.sparse(d, idx, random.doubles(idx.length, -1, 1).toArray())));
    }
    StructType schema = new StructType(new StructField[] {
        DataTypes.createStructField("label", DataTypes.DoubleType, false),
        DataTypes.createStructField("features", SQLDataTypes.VectorType(), false)});
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(1)
        .fit(spark.createDataFrame(rows, schema));
    long start = System.nanoTime();
    byte[] onnx = OnnxExport.toBytes(model);
    double exportSeconds = (System.nanoTime() - start) / 1e9;
    Vector first = (Vector) rows.get(0).get(1);
    double[] row = first.toArray();
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    start = System.nanoTime();
    double scored;
    double sessionSeconds;
    try (OrtSession session = env.createSession(onnx, new OrtSession.SessionOptions())) {
      sessionSeconds = (System.nanoTime() - start) / 1e9;
      start = System.nanoTime();
      try (OnnxTensor input = OnnxTensor.createTensor(env, DoubleBuffer.wrap(row),
              new long[] {1, d});
          OrtSession.Result result = session.run(Map.of("features", input))) {
        scored = ((double[][]) result.get("rawPrediction").orElseThrow().getValue())[0][1];
      }
    }
    double runSeconds = (System.nanoTime() - start) / 1e9;
    double spark = model.predictRaw(first).apply(1);
    long weightBytes = OnnxExport.MAX_MODEL_BYTES - (64 << 10);
    report.markdown(Report.f("Dense limit: a binary model of d = 2^%d (%,d features): ONNX file"
        + " %,d bytes, exported in %.3f s; ONNX Runtime session %.3f s, one dense row (%,d"
        + " bytes of input) scored in %.3f s, margin %s (Spark: %s). Protobuf's 2 GiB allow at"
        + " most d = %,d features for a binary model, %,d for K = 10, %,d for K = 100; the"
        + " export refuses more.\n\n", logD, d, onnx.length, exportSeconds, sessionSeconds,
        8L * d, runSeconds, scored, spark, weightBytes / 8 - 1, weightBytes / 80 - 1,
        weightBytes / 800 - 1));
    report.add("export", new DataShape("dense limit d=2^" + logD, 200, d, 4000, 2, 29L, false),
        partitions, "ONNX file", "bytes", onnx.length, "B");
    Files.createDirectories(out);
  }

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
