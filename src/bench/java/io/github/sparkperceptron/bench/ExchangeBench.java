package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.SparseVector;
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
 * The benchmarks of issue 10 (what an epoch costs as the model grows, at fixed data):
 *
 * <pre>
 * model-size  the same rows at d = 2^14 .. 2^26 (binary) and K = 2 .. 1000 (d = 2^16): median
 *             epoch, fit time, broadcast bytes and task result bytes per epoch, longest task
 * many-class  a generated text-like set (6,400 + 1,600 held-out rows x 55,000 features, 105
 *             classes, 160 non-zeros a row): 10 epochs of the defaults against MLlib's
 *             multinomial LogisticRegression (defaults) on the same cached data
 * </pre>
 *
 * <p>Uses only the estimator's public API, so the same class measures an older checkout.
 */
final class ExchangeBench {
  /** Features of the d sweep's base rows; every larger d spreads them (see {@link #spread}). */
  static final int BASE_LOG_D = 14;

  private final SparkSession spark;
  private final Report report;
  private final Path out;
  private final String master;
  private final int partitions;
  private final int repeats;
  private final ExchangeMetrics metrics = new ExchangeMetrics();

  ExchangeBench(SparkSession spark, Report report, Path out, String master, int partitions,
      int repeats) {
    this.spark = spark;
    this.report = report;
    this.out = out;
    this.master = master;
    this.partitions = partitions;
    this.repeats = repeats;
    spark.sparkContext().addSparkListener(metrics);
  }

  /** One configuration's medians over the repetitions. */
  static final class Measured {
    double epoch;
    double fit;
    double broadcastPerEpoch;
    double resultPerEpoch;
    double longestTask;
    double accuracy;
    int epochsPooled;
  }

  // -------------------------------------------------------------------------------- model size

  void modelSize(long rows, int epochs, int[] logDs, int[] ks) {
    report.markdown(Report.f("## Model size: the same rows, growing d and K (issue 10)\n\n"
        + "`%s`, %d partitions, %,d training rows × 30 non-zeros, %,d held-out rows;"
        + " PerceptronClassifier defaults with maxIter=%d, tol=0. Epoch: median of"
        + " `summary().epochSeconds()` of epochs 2..%d pooled over %d fit(s); fit: median"
        + " wall time of `fit` (building the blocks included). Broadcast bytes: the broadcast"
        + " pieces the driver stored during the fit (Spark's serialised, compressed chunks),"
        + " per epoch; result bytes: Σ `resultSize` of the epoch tasks (Spark's task metrics),"
        + " per epoch; outside tasks = epoch − longest task (scheduling, broadcast, task"
        + " results, tree aggregation, the driver's mixing). d sweep: SyntheticData d=2^%d,"
        + " binary, margin 0.05, noise 0.05, seed 41, the feature j of a base row becoming"
        + " j·s + h(j) mod s with s = d / 2^%d (a fixed injective spread, so every d sees the"
        + " same rows, labels and values, on 2^%d distinct coordinates spread over d). K"
        + " sweep: TextLikeData d=2^16, 30 non-zeros (Zipf s=1), topics of 200 features,"
        + " topic share 0.3, seed 43. %s\n\n", master, partitions, rows, rows / 10, epochs,
        epochs, repeats, BASE_LOG_D, BASE_LOG_D, BASE_LOG_D, SystemLoad.text()));
    Report.Table t = new Report.Table("d", "K", "state coordinates K'·(d+1)", "median epoch s",
        "/ reference", "fit s", "broadcast B/epoch", "task results B/epoch",
        "longest task ms", "outside tasks ms", "test accuracy");
    Map<String, List<double[]>> curves = new LinkedHashMap<>();
    Double dReference = null;
    Double d24 = null;
    if (logDs.length > 0) {
      SyntheticData base = SyntheticData.builder().numFeatures(1 << BASE_LOG_D)
          .nonZerosPerRow(30).margin(0.05).labelNoise(0.05).seed(41).build();
      Dataset<Row> baseTrain = base.frame(spark, 0, rows, partitions).persist(
          StorageLevel.MEMORY_ONLY());
      Dataset<Row> baseTest = base.frame(spark, rows, rows / 10, partitions).persist(
          StorageLevel.MEMORY_ONLY());
      baseTrain.count();
      baseTest.count();
      List<double[]> points = new ArrayList<>();
      for (int logD : logDs) {
        int d = 1 << logD;
        Dataset<Row> train = spread(baseTrain, d, 2).cache();
        Dataset<Row> test = spread(baseTest, d, 2).cache();
        train.count();
        test.count();
        DataShape shape = new DataShape("model-size d=2^" + logD, rows, d, 30L * rows, 2, 41L,
            false);
        Measured m = measure(shape, train, test, epochs);
        if (logD == 16) {
          dReference = m.epoch;
        }
        if (logD == 24) {
          d24 = m.epoch;
        }
        row(t, "2^" + logD, 2, d + 1L, m, dReference);
        points.add(new double[] {logD, m.epoch});
        train.unpersist(true);
        test.unpersist(true);
      }
      baseTrain.unpersist(true);
      baseTest.unpersist(true);
      curves.put("binary, d = 2^x", points);
    }
    Double k2 = null;
    Double k100 = null;
    List<double[]> kPoints = new ArrayList<>();
    for (int k : ks) {
      TextLikeData data = new TextLikeData(1 << 16, k, 30, 1.0, 200, 0.3, 43);
      Dataset<Row> train = data.frame(spark, 0, rows, partitions).cache();
      Dataset<Row> test = data.frame(spark, rows, rows / 10, partitions).cache();
      train.count();
      test.count();
      DataShape shape = new DataShape("model-size K=" + k, rows, 1 << 16, 30L * rows, k, 43L,
          false);
      Measured m = measure(shape, train, test, epochs);
      if (k == 2) {
        k2 = m.epoch;
      }
      if (k == 100) {
        k100 = m.epoch;
      }
      row(t, "2^16", k, (k == 2 ? 1L : k) * ((1 << 16) + 1L), m, k2);
      kPoints.add(new double[] {Math.log(k) / Math.log(2), m.epoch});
      train.unpersist(true);
      test.unpersist(true);
    }
    if (!kPoints.isEmpty()) {
      curves.put("d = 2^16, K = 2^x classes", kPoints);
    }
    report.markdown("Reference of the `/ reference` column: d = 2^16 for the d sweep, K = 2 for"
        + " the K sweep.\n\n").markdown(t.toString());
    Report.Table targets = new Report.Table("target", "measured", "met");
    if (dReference != null && d24 != null) {
      double r = d24 / dReference;
      targets.row("epoch d=2^24 / d=2^16 ≤ 2", Report.f("%.2f", r), r <= 2 ? "yes" : "no");
      report.add("model-size", new DataShape("model-size", rows, 1 << 24, 30L * rows, 2, 41L,
          false), partitions, "Perceptron defaults", "epoch_ratio_d24_over_d16", r, "ratio");
    }
    if (k2 != null && k100 != null) {
      double r = k100 / k2;
      targets.row("epoch K=100 / K=2 (d=2^16) ≤ 2", Report.f("%.2f", r), r <= 2 ? "yes" : "no");
      report.add("model-size", new DataShape("model-size", rows, 1 << 16, 30L * rows, 100, 43L,
          false), partitions, "Perceptron defaults", "epoch_ratio_k100_over_k2", r, "ratio");
    }
    report.markdown(targets.toString())
        .markdown("After the section: " + SystemLoad.text() + "\n\n");
    if (!curves.isEmpty()) {
      Charts.lines(out.resolve("model-size.png"), "Median epoch against model size (same rows)",
          "log2 of d (d sweep) or of K (K sweep)", "seconds", curves, true);
      report.markdown("![model size](model-size.png)\n\n");
    }
    report.flush();
  }

  private void row(Report.Table t, String d, int k, long coordinates, Measured m,
      Double reference) {
    t.row(d, k, Report.f("%,d", coordinates), Report.f("%.3f", m.epoch),
        reference == null ? "" : Report.f("%.2f", m.epoch / reference), Report.f("%.2f", m.fit),
        Report.f("%,.0f", m.broadcastPerEpoch), Report.f("%,.0f", m.resultPerEpoch),
        Report.f("%.1f", m.longestTask * 1e3), Report.f("%.1f", (m.epoch - m.longestTask) * 1e3),
        Report.f("%.4f", m.accuracy));
    report.flush();
  }

  /**
   * The rows of a 2^{@link #BASE_LOG_D}-feature frame as d-feature vectors: feature j becomes
   * j·s + (h(j) mod s), s = d / 2^base, an increasing injection, so indices stay sorted and the
   * learner sees the same problem with its coordinates spread over the larger space.
   */
  static Dataset<Row> spread(Dataset<Row> base, int d, int numClasses) {
    int s = d >> BASE_LOG_D;
    JavaRDD<Row> rows = base.javaRDD().map(r -> {
      SparseVector v = (SparseVector) r.get(1);
      int[] idx = v.indices().clone();
      for (int k = 0; k < idx.length; k++) {
        long h = (idx[k] * 0x9E3779B97F4A7C15L) >>> 33;
        idx[k] = idx[k] * s + (int) (h % s);
      }
      return RowFactory.create(r.getDouble(0), Vectors.sparse(d, idx, v.values()));
    });
    StructField label = NominalAttribute.defaultAttr().withName("label")
        .withNumValues(numClasses).toStructField();
    StructField features = new AttributeGroup("features", d).toStructField();
    return base.sparkSession().createDataFrame(rows, new StructType(new StructField[] {
        new StructField("label", DataTypes.DoubleType, false, label.metadata()),
        new StructField("features", SQLDataTypes.VectorType(), false, features.metadata())}));
  }

  private Measured measure(DataShape shape, Dataset<Row> train, Dataset<Row> test, int epochs) {
    List<Double> epochTimes = new ArrayList<>();
    List<Double> longest = new ArrayList<>();
    double[] fits = new double[repeats];
    double[] broadcast = new double[repeats];
    double[] results = new double[repeats];
    PerceptronClassificationModel model = null;
    for (int r = 0; r < repeats; r++) {
      BenchmarkRunner.waitForListener();
      metrics.clear();
      long start = System.nanoTime();
      model = new PerceptronClassifier().setMaxIter(epochs).setTol(0).fit(train);
      fits[r] = (System.nanoTime() - start) / 1e9;
      BenchmarkRunner.waitForListener();
      double[] s = model.summary().epochSeconds();
      double[] task = metrics.longestTaskSeconds();
      for (int e = 1; e < s.length; e++) {
        epochTimes.add(s[e]);
      }
      // Several stages per epoch with mixing rounds: the epoch's longest tasks add up.
      int perEpoch = Math.max(1, task.length / Math.max(1, s.length));
      for (int e = 1; e * perEpoch < task.length; e++) {
        double sum = 0;
        for (int i = e * perEpoch; i < (e + 1) * perEpoch && i < task.length; i++) {
          sum += task[i];
        }
        longest.add(sum);
      }
      broadcast[r] = metrics.broadcastBytes() / (double) s.length;
      results[r] = metrics.resultBytes() / (double) s.length;
      System.err.printf(Locale.ROOT, "%s fit %d: %.2f s, epochs %s, broadcast %,.0f B/epoch,"
          + " results %,.0f B/epoch%n", shape.name, r + 1, fits[r],
          Arrays.toString(s), broadcast[r], results[r]);
    }
    Measured m = new Measured();
    m.epoch = median(epochTimes);
    m.epochsPooled = epochTimes.size();
    m.fit = PlainLoop.median(fits);
    m.broadcastPerEpoch = PlainLoop.median(broadcast);
    m.resultPerEpoch = PlainLoop.median(results);
    m.longestTask = longest.isEmpty() ? Double.NaN : median(longest);
    m.accuracy = accuracy(model.transform(test));
    String method = "Perceptron defaults, " + epochs + " epochs";
    report.add("model-size", shape, partitions, method, "epoch_seconds", m.epoch, "s");
    report.add("model-size", shape, partitions, method, "fit_seconds", m.fit, "s");
    report.add("model-size", shape, partitions, method, "broadcast_bytes_per_epoch",
        m.broadcastPerEpoch, "B");
    report.add("model-size", shape, partitions, method, "task_result_bytes_per_epoch",
        m.resultPerEpoch, "B");
    report.add("model-size", shape, partitions, method, "longest_task_seconds", m.longestTask,
        "s");
    report.add("model-size", shape, partitions, method, "test_accuracy", m.accuracy, "");
    return m;
  }

  // -------------------------------------------------------------------------------- many-class

  /** The many-class set's training and held-out rows (rows 0.., then the next ones). */
  static final long MANY_CLASS_TRAIN_ROWS = 6_400;
  static final long MANY_CLASS_TEST_ROWS = 1_600;

  /** The many-class set: 105 classes of text-like rows over 55,000 features (issue 10). */
  static TextLikeData manyClassData() {
    return new TextLikeData(55_000, 105, 160, 1.0, 300, 0.25, 45);
  }

  void manyClass(int epochs) {
    TextLikeData data = manyClassData();
    long trainRows = MANY_CLASS_TRAIN_ROWS;
    long testRows = MANY_CLASS_TEST_ROWS;
    report.markdown(Report.f("## Many classes: a text-like set of 105 classes (issue 10)\n\n"
        + "%s: %,d training rows, %,d held-out rows (rows %,d.. of the same distribution),"
        + " cached in %d partitions on `%s`. Ours: PerceptronClassifier defaults with"
        + " maxIter=%d, tol=0; MLlib: LogisticRegression defaults (multinomial for K > 2,"
        + " maxIter 100). Median fit over %d repetitions (one for MLlib when a fit takes over a"
        + " minute). %s\n\n", data.describe(), trainRows, testRows, trainRows, partitions,
        master, epochs, repeats, SystemLoad.text()));
    Dataset<Row> train = data.frame(spark, 0, trainRows, partitions).cache();
    Dataset<Row> test = data.frame(spark, trainRows, testRows, partitions).cache();
    train.count();
    test.count();
    DataShape shape = new DataShape("text-like-105", trainRows, data.numFeatures,
        160L * trainRows, 105, data.seed, false);
    Report.Table t = new Report.Table("method", "fit s", "fits", "median epoch s",
        "test accuracy");
    double[] fits = new double[repeats];
    PerceptronClassificationModel ours = null;
    List<Double> epochTimes = new ArrayList<>();
    for (int r = 0; r < repeats; r++) {
      long start = System.nanoTime();
      ours = new PerceptronClassifier().setMaxIter(epochs).setTol(0).fit(train);
      fits[r] = (System.nanoTime() - start) / 1e9;
      for (double s : ours.summary().epochSeconds()) {
        epochTimes.add(s);
      }
      System.err.printf(Locale.ROOT, "text-like ours fit %d: %.2f s%n", r + 1, fits[r]);
    }
    double ourFit = PlainLoop.median(fits);
    double ourAccuracy = accuracy(ours.transform(test));
    // maxIter, not epochs: a fit stops at the first epoch without an update.
    t.row("Perceptron defaults, maxIter " + epochs, Report.f("%.2f", ourFit), repeats,
        Report.f("%.3f", median(epochTimes)), Report.f("%.4f", ourAccuracy));
    List<Double> lrFits = new ArrayList<>();
    LogisticRegressionModel lr = null;
    double total = 0;
    for (int r = 0; r < repeats && (r == 0 || total < 60); r++) {
      long start = System.nanoTime();
      lr = new LogisticRegression().fit(train);
      double s = (System.nanoTime() - start) / 1e9;
      lrFits.add(s);
      total += s;
      System.err.printf(Locale.ROOT, "text-like LR fit %d: %.2f s, %d iterations%n", r + 1, s,
          lr.summary().totalIterations());
    }
    double lrFit = median(lrFits);
    double lrAccuracy = accuracy(lr.transform(test));
    t.row("LogisticRegression (defaults, " + lr.summary().totalIterations() + " iterations)",
        Report.f("%.2f", lrFit), lrFits.size(), "", Report.f("%.4f", lrAccuracy));
    report.add("many-class", shape, partitions, "Perceptron defaults", "fit_seconds", ourFit, "s");
    report.add("many-class", shape, partitions, "Perceptron defaults", "test_accuracy",
        ourAccuracy, "");
    report.add("many-class", shape, partitions, "LogisticRegression defaults", "fit_seconds",
        lrFit, "s");
    report.add("many-class", shape, partitions, "LogisticRegression defaults", "test_accuracy",
        lrAccuracy, "");
    report.add("many-class", shape, partitions, "Perceptron defaults", "fit_over_lr",
        ourFit / lrFit, "ratio");
    double ratio = ourFit / lrFit;
    report.markdown(t.toString()).markdown(Report.f("Target: ours ≤ 1/20 of LR's fit time at"
        + " equal or better accuracy. Measured: fit ratio %.3f (1/%.1f), accuracy %+.2f points:"
        + " %s. After the section: %s\n\n", ratio, 1 / ratio, 100 * (ourAccuracy - lrAccuracy),
        ratio <= 0.05 && ourAccuracy >= lrAccuracy ? "met" : "not met", SystemLoad.text()));
    train.unpersist();
    test.unpersist();
    report.flush();
  }

  /**
   * How many epochs the defaults and the 1-round mistakes fit take to converge on the
   * many-class set, seed by seed (issue 32: the defaults' fit costs 2.5-2.8 times the mistakes
   * fit there). Calibration off, so that each fit is one model; maxIter 20, tol 0 (the stop is
   * an epoch without an update). Prints every fit's mistakes per epoch and its time.
   */
  void manyClassSeeds(int seeds) {
    TextLikeData data = manyClassData();
    Dataset<Row> train = data.frame(spark, 0, MANY_CLASS_TRAIN_ROWS, partitions)
        .repartition(partitions).cache();
    train.count();
    report.markdown(Report.f("## Many classes: epochs to converge, seed by seed (issue 32)\n\n"
        + "%s: %,d training rows, repartitioned into %d partitions on `%s`. PerceptronClassifier"
        + " defaults (momentum) against `mixing=mistakes, mixingRounds=1`, both with"
        + " calibration=none, maxIter 20, tol 0, seeds 1..%d (one untimed fit of each first)."
        + " %s\n\n", data.describe(), MANY_CLASS_TRAIN_ROWS, partitions, master, seeds,
        SystemLoad.text()));
    Report.Table t = new Report.Table("seed", "defaults: mistakes per epoch", "fit s",
        "mistakes 1 round: mistakes per epoch", "fit s");
    int[] epochs = new int[2];
    double[][] fitSeconds = new double[2][seeds];
    fitWithSeed(train, 1, false);
    fitWithSeed(train, 1, true);
    for (int seed = 1; seed <= seeds; seed++) {
      Object[] cells = new Object[5];
      cells[0] = seed;
      for (int m = 0; m < 2; m++) {
        long start = System.nanoTime();
        PerceptronClassificationModel model = fitWithSeed(train, seed, m == 1);
        fitSeconds[m][seed - 1] = (System.nanoTime() - start) / 1e9;
        long[] mistakes = model.summary().mistakesHistory();
        epochs[m] += mistakes.length;
        cells[1 + 2 * m] = Arrays.toString(mistakes);
        cells[2 + 2 * m] = Report.f("%.2f", fitSeconds[m][seed - 1]);
      }
      t.row(cells);
    }
    report.markdown(t.toString()).markdown(Report.f("Mean epochs: defaults %.2f, mistakes"
        + " %.2f; median fit %.2f s against %.2f s. After the section: %s\n\n",
        (double) epochs[0] / seeds, (double) epochs[1] / seeds,
        PlainLoop.median(fitSeconds[0]), PlainLoop.median(fitSeconds[1]), SystemLoad.text()));
    train.unpersist();
    report.flush();
  }

  private static PerceptronClassificationModel fitWithSeed(Dataset<Row> train, long seed,
      boolean mistakes) {
    PerceptronClassifier estimator = new PerceptronClassifier().setCalibration("none")
        .setMaxIter(20).setTol(0).setSeed(seed);
    if (mistakes) {
      estimator.setMixing("mistakes").setMixingRounds(1);
    }
    return estimator.fit(train);
  }

  // ----------------------------------------------------------------------------------- helpers

  private static double accuracy(Dataset<Row> predictions) {
    return new MulticlassClassificationEvaluator().setMetricName("accuracy")
        .evaluate(predictions);
  }

  private static double median(List<Double> values) {
    return PlainLoop.median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }
}
