package io.github.sparkperceptron.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.rand;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The benchmarks of issue 33 (calibrated probabilities), section {@code calibration}: on every
 * shared data set and three generated ones, the test set's log-loss, Brier score and expected
 * calibration error ({@link ProbabilityMetrics}) of
 *
 * <pre>
 * none          the perceptron's raw link (logistic of the margin, softmax of the scores)
 * sigmoid       calibration=sigmoid, fitted on the training rows' own scores (the default)
 * isotonic      calibration=isotonic, the same rows
 * held out      the perceptron trained on 80% of the training rows (a seeded split), its
 *               calibrator (sigmoid, isotonic) fitted on the other 20% (model.calibrate)
 * cross-fitted  calibrationFolds=3: the perceptron trained on all rows, its calibrator fitted
 *               on the out-of-fold scores of 3 fold models (sigmoid, isotonic)
 * validation    validationIndicatorCol on a seeded 20% (early stopping and calibration on them)
 * MLlib LR      LogisticRegression with its defaults
 * </pre>
 *
 * on the same cached train and test frames, and the fit time of calibration=none against the
 * default (the target: at most 10% more), cross-fitting and LR (medians of the repetitions). The generated
 * sets' rows are written to {@code OUT/calibration-data/NAME/{train,test}.libsvm}, so that
 * {@code src/bench/python/calibrated_perceptron.py} fits scikit-learn's
 * {@code CalibratedClassifierCV(Perceptron)} on exactly the same splits.
 */
final class CalibrationBench {
  private static final long SPLIT_SEED = 33;

  private final SparkSession spark;
  private final Report report;
  private final int partitions;
  private final int repeats;
  private final Path dataDir;
  private final Path out;

  CalibrationBench(SparkSession spark, Report report, int partitions, int repeats, Path dataDir,
      Path out) {
    this.spark = spark;
    this.report = report;
    this.partitions = partitions;
    this.repeats = repeats;
    this.dataDir = dataDir;
    this.out = out;
  }

  /** One data set: cached train and test frames. */
  private record Data(DataShape shape, Dataset<Row> train, Dataset<Row> test) {
  }

  void run(boolean quick, List<String> only) throws IOException {
    report.markdown(Report.f("## Calibrated probabilities (issue 33)\n\n%d partition(s); metrics"
        + " on each set's test rows; fit times are medians of %d fit(s). %s\n\n", partitions,
        repeats, ExchangeBench.load()));
    Report.Table targets = new Report.Table("dataset", "log-loss: ours (default)",
        "best of ours", "MLlib LR", "default / LR", "fit: none s", "fit: default s",
        "default / none");
    for (Data d : datasets(quick, only)) {
      measure(d, targets);
      d.train().unpersist();
      d.test().unpersist();
    }
    report.markdown("### Targets: log-loss within 5% of LR's (binary), fit time at most 10% above"
        + " calibration=none\n\n").markdown(targets.toString())
        .markdown("After the section: " + ExchangeBench.load() + "\n\n");
    report.flush();
  }

  private List<Data> datasets(boolean quick, List<String> only) throws IOException {
    List<Data> out = new ArrayList<>();
    for (String name : List.of("breast_cancer", "skin_nonskin", "spark_sample_libsvm", "iris",
        "pendigits")) {
      if (only != null && !only.contains(name)) {
        continue;
      }
      LabeledData tr = LibSvmSource.read(spark, file(name, "train.libsvm").toString(), -1,
          "train");
      LabeledData te = LibSvmSource.read(spark, file(name, "test.libsvm").toString(),
          tr.numFeatures(), "test");
      out.add(cache(name, tr.frame(), te.frame(), tr.numFeatures(), null));
    }
    long rows = quick ? 10_000 : 50_000;
    Map<String, SyntheticData> generated = new LinkedHashMap<>();
    generated.put("gen-dense-binary", SyntheticData.builder().numFeatures(50).dense()
        .margin(0.05).labelNoise(0.05).seed(12).build());
    generated.put("gen-sparse-binary", SyntheticData.builder().numFeatures(10_000)
        .nonZerosPerRow(20).margin(0.05).labelNoise(0.05).seed(11).build());
    generated.put("gen-dense-10-class", SyntheticData.builder().numFeatures(20).dense()
        .numClasses(10).margin(0.02).labelNoise(0.1).seed(17).build());
    for (Map.Entry<String, SyntheticData> g : generated.entrySet()) {
      if (only != null && !only.contains(g.getKey())) {
        continue;
      }
      SyntheticData s = g.getValue();
      Data d = cache(g.getKey(), s.frame(spark, 0, rows, partitions),
          s.frame(spark, rows, rows / 5, partitions), s.numFeatures(), s.seed());
      writeLibSvm(d.train(), this.out.resolve("calibration-data").resolve(g.getKey())
          .resolve("train.libsvm"));
      writeLibSvm(d.test(), this.out.resolve("calibration-data").resolve(g.getKey())
          .resolve("test.libsvm"));
      out.add(d);
    }
    return out;
  }

  private Path file(String name, String file) {
    Path plain = dataDir.resolve(name).resolve(file);
    Path gzipped = plain.resolveSibling(file + ".gz");
    return !Files.exists(plain) && Files.exists(gzipped) ? gzipped : plain;
  }

  private Data cache(String name, Dataset<Row> train, Dataset<Row> test, int d, Long seed) {
    Dataset<Row> tr = train.repartition(partitions).cache();
    Dataset<Row> te = test.repartition(partitions).cache();
    long rows = tr.count();
    te.count();
    int classes = (int) tr.javaRDD().map(r -> r.getDouble(0)).reduce(Math::max).doubleValue()
        + 1;
    long stored = tr.javaRDD().map(r -> (long) ((Vector) r.get(1)).numNonzeros())
        .reduce(Long::sum);
    return new Data(new DataShape(name, rows, d, stored, Math.max(2, classes), seed, false), tr,
        te);
  }

  /** The rows in LIBSVM (1-based indices, labels as class indices), one file, for Python. */
  private static void writeLibSvm(Dataset<Row> frame, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (Row r : frame.collectAsList()) {
        StringBuilder line = new StringBuilder(Integer.toString((int) r.getDouble(0)));
        Vector v = r.getAs(1);
        SparseVector sv = v.toSparse();
        for (int t = 0; t < sv.indices().length; t++) {
          line.append(' ').append(sv.indices()[t] + 1).append(':').append(sv.values()[t]);
        }
        w.write(line.append('\n').toString());
      }
    }
  }

  private void measure(Data d, Report.Table targets) {
    Report.Table t = new Report.Table("method", "log-loss", "Brier", "ECE", "accuracy");
    Map<String, ProbabilityMetrics> results = new LinkedHashMap<>();
    double[] noneFit = new double[1];
    double[] defaultFit = new double[1];
    PerceptronClassificationModel none = (PerceptronClassificationModel) timed(
        () -> perceptron("none").fit(d.train()), noneFit);
    results.put("perceptron, calibration=none (raw link)", metrics(none, d.test()));
    PerceptronClassificationModel sigmoid = (PerceptronClassificationModel) timed(
        () -> perceptron("sigmoid").fit(d.train()), defaultFit);
    results.put("perceptron, sigmoid on the training rows (default)", metrics(sigmoid,
        d.test()));
    results.put("perceptron, isotonic on the training rows",
        metrics(perceptron("isotonic").fit(d.train()), d.test()));

    Dataset<Row>[] split = d.train().randomSplit(new double[] {0.8, 0.2}, SPLIT_SEED);
    PerceptronClassificationModel on80 = perceptron("none").fit(split[0]);
    results.put("perceptron on 80%, sigmoid on 20% held out",
        metrics(on80.calibrate(split[1], "sigmoid"), d.test()));
    results.put("perceptron on 80%, isotonic on 20% held out",
        metrics(on80.calibrate(split[1], "isotonic"), d.test()));
    double[] crossFit = new double[1];
    results.put("perceptron, sigmoid cross-fitted (calibrationFolds=3)", metrics(timed(
        () -> perceptron("sigmoid").setCalibrationFolds(3).fit(d.train()), crossFit), d.test()));
    results.put("perceptron, isotonic cross-fitted (calibrationFolds=3)", metrics(
        perceptron("isotonic").setCalibrationFolds(3).fit(d.train()), d.test()));

    Dataset<Row> marked = d.train().withColumn("isValidation", rand(SPLIT_SEED).lt(0.2));
    results.put("perceptron, validationIndicatorCol 20% (early stopping + sigmoid)",
        metrics(perceptron("sigmoid").setValidationIndicatorCol("isValidation").fit(marked),
            d.test()));
    double[] lrFit = new double[1];
    Model<?> lr = timed(() -> new LogisticRegression().fit(d.train()), lrFit);
    results.put("MLlib LogisticRegression (defaults)", metrics(lr, d.test()));

    double best = Double.POSITIVE_INFINITY;
    for (Map.Entry<String, ProbabilityMetrics> e : results.entrySet()) {
      ProbabilityMetrics m = e.getValue();
      t.row(e.getKey(), Report.f("%.4f", m.logLoss()), Report.f("%.4f", m.brier()),
          Report.f("%.4f", m.expectedCalibrationError()), Report.f("%.4f", accuracy(m)));
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_log_loss",
          m.logLoss(), "");
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_brier", m.brier(), "");
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_ece",
          m.expectedCalibrationError(), "");
      if (e.getKey().startsWith("perceptron") && !e.getKey().contains("none")) {
        best = Math.min(best, m.logLoss());
      }
      System.err.printf(Locale.ROOT, "%s %s: log-loss %.4f, Brier %.4f, ECE %.4f%n",
          d.shape().name, e.getKey(), m.logLoss(), m.brier(), m.expectedCalibrationError());
    }
    report.add("calibration", d.shape(), partitions, "calibration=none", "fit_seconds",
        noneFit[0], "s");
    report.add("calibration", d.shape(), partitions, "calibration=sigmoid", "fit_seconds",
        defaultFit[0], "s");
    report.add("calibration", d.shape(), partitions, "LogisticRegression", "fit_seconds",
        lrFit[0], "s");
    report.add("calibration", d.shape(), partitions, "calibrationFolds=3", "fit_seconds",
        crossFit[0], "s");
    double ours = results.get("perceptron, sigmoid on the training rows (default)").logLoss();
    double theirs = results.get("MLlib LogisticRegression (defaults)").logLoss();
    targets.row(d.shape().name + (d.shape().numClasses > 2 ? " (K=" + d.shape().numClasses + ")"
        : ""), Report.f("%.4f", ours), Report.f("%.4f", best), Report.f("%.4f", theirs),
        Report.f("%.3f", ours / theirs), Report.f("%.2f", noneFit[0]),
        Report.f("%.2f", defaultFit[0]), Report.f("%.3f", defaultFit[0] / noneFit[0]));
    report.markdown("### " + d.shape().name + " (" + d.shape().describe() + ")\n\n")
        .markdown(Report.f("Fit time: calibration=none %.2f s, sigmoid (default) %.2f s,"
            + " sigmoid with calibrationFolds=3 %.2f s, LR %.2f s.\n\n", noneFit[0],
            defaultFit[0], crossFit[0], lrFit[0])).markdown(t.toString());
    report.flush();
  }

  private PerceptronClassifier perceptron(String calibration) {
    return new PerceptronClassifier().setCalibration(calibration);
  }

  /** Fits {@code repeats} times; the median fit time goes to {@code seconds[0]}. */
  private Model<?> timed(java.util.function.Supplier<Model<?>> fit, double[] seconds) {
    List<Double> times = new ArrayList<>();
    Model<?> model = null;
    for (int r = 0; r < repeats; r++) {
      long start = System.nanoTime();
      model = fit.get();
      times.add((System.nanoTime() - start) / 1e9);
    }
    seconds[0] = PlainLoop.median(times.stream().mapToDouble(Double::doubleValue).toArray());
    return model;
  }

  private static ProbabilityMetrics metrics(Model<?> model, Dataset<Row> test) {
    List<Row> rows = model.transform(test).select(col("label"), col("probability"))
        .collectAsList();
    int k = rows.isEmpty() ? 2 : rows.get(0).<Vector>getAs(1).size();
    ProbabilityMetrics m = new ProbabilityMetrics(k);
    for (Row r : rows) {
      m.add(r.<Vector>getAs(1).toArray(), (int) r.getDouble(0), 1.0);
    }
    return m;
  }

  /** The accuracy of the arg-max of the probabilities: Σ_b acc_b·W_b / W. */
  private static double accuracy(ProbabilityMetrics m) {
    double[] w = m.binWeights();
    double[] acc = m.binAccuracies();
    double right = 0;
    double total = 0;
    for (int b = 0; b < w.length; b++) {
      if (w[b] > 0) {
        right += acc[b] * w[b];
        total += w[b];
      }
    }
    return right / total;
  }
}
