package io.github.sparkperceptron.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.rand;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.calibration.CalibrationRows;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * The benchmarks of issue 33 (calibrated probabilities), section {@code calibration}: on every
 * shared data set and three generated ones, the test set's log-loss, Brier score, expected
 * calibration error ({@link ProbabilityMetrics}) and accuracy (of the prediction column) of
 *
 * <pre>
 * none            the perceptron's raw link (logistic of the margin, softmax of the scores),
 *                 trained on every row
 * default         calibration=sigmoid (isotonic likewise): a seeded 10% of the rows held out
 *                 of training and calibrated on; where those hold under 50 rows of a class,
 *                 trained on every row and cross-fitted on 3 folds (the table says which)
 * held out 10%    the same held-out rows whatever their number: calibration=none trained on
 *                 the others, calibrate(held-out rows) (what the default does above the floor)
 * training rows   the previous default: calibration=none on every row, its sigmoid fitted on
 *                 those same rows' scores (calibrate(training rows))
 * cross-fitted    calibrationFolds=3: trained on every row, the calibrator fitted on the
 *                 out-of-fold scores of 3 fold models (sigmoid, isotonic)
 * validation      validationIndicatorCol on a seeded 20% (early stopping and calibration on them)
 * MLlib LR        LogisticRegression with its defaults
 * </pre>
 *
 * on the same cached train and test frames, and the fit time of calibration=none against the
 * default (the target: at most 10% more), cross-fitting and LR (medians of the repetitions).
 * The generated sets' rows are written to {@code OUT/calibration-data/NAME/{train,test}.libsvm},
 * so that {@code src/bench/python/calibrated_perceptron.py} fits scikit-learn's
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
        repeats, SystemLoad.text()));
    Report.Table targets = new Report.Table("dataset", "default's rows",
        "log-loss: default", "previous default", "best of ours", "MLlib LR", "default / LR",
        "accuracy: default", "accuracy: none", "fit: none s", "fit: default s",
        "default / none");
    for (Data d : datasets(quick, only)) {
      measure(d, targets);
      d.train().unpersist();
      d.test().unpersist();
    }
    report.markdown("### Targets: log-loss within 5% of LR's (binary), fit time at most 10% above"
        + " calibration=none\n\n").markdown(targets.toString())
        .markdown("After the section: " + SystemLoad.text() + "\n\n");
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

  /** The metrics of a model on the test rows, with its accuracy. */
  private record Scored(ProbabilityMetrics metrics, double accuracy) {
  }

  private void measure(Data d, Report.Table targets) {
    Report.Table t = new Report.Table("method", "log-loss", "Brier", "ECE", "accuracy");
    Map<String, Scored> results = new LinkedHashMap<>();
    double[] noneFit = new double[1];
    double[] defaultFit = new double[1];
    PerceptronClassificationModel none = (PerceptronClassificationModel) timed(
        () -> perceptron("none").fit(d.train()), noneFit);
    results.put(NONE, scored(none, d.test()));
    PerceptronClassificationModel sigmoid = (PerceptronClassificationModel) timed(
        () -> perceptron("sigmoid").fit(d.train()), defaultFit);
    // The default trained on every row (the same weights as none's) where it fell back.
    boolean crossFitted = Arrays.equals(weights(none), weights(sigmoid));
    String rows = crossFitted ? "cross-fitted on 3 folds, too few held out"
        : "on the 10% held out";
    results.put(DEFAULT + rows + " (default)", scored(sigmoid, d.test()));
    results.put("perceptron, isotonic " + rows, scored(perceptron("isotonic").fit(d.train()),
        d.test()));

    CalibrationRows rule = CalibrationRows.heldOut(CalibrationRows.HELD_OUT_SHARE,
        new PerceptronClassifier().getSeed());
    UserDefinedFunction heldOut = functions.udf((UDF2<Double, Vector, Boolean>) (label, x) ->
        x instanceof SparseVector sv
            ? rule.holdsSparse(label.intValue(), sv.indices(), sv.values(), sv.indices().length)
            : rule.holdsDense(label.intValue(), x.toArray()), DataTypes.BooleanType);
    Dataset<Row> marked = d.train().withColumn("held", heldOut.apply(col("label"),
        col("features")));
    PerceptronClassificationModel onOthers = perceptron("none").fit(
        marked.filter(functions.not(col("held"))));
    results.put("perceptron on the other 90%, sigmoid on the 10% held out (whatever their"
        + " number)", scored(onOthers.calibrate(marked.filter(col("held")), "sigmoid"),
        d.test()));
    results.put(TRAINING_ROWS, scored(none.calibrate(d.train(), "sigmoid"), d.test()));

    double[] crossFit = new double[1];
    results.put("perceptron, sigmoid cross-fitted (calibrationFolds=3)", scored(timed(
        () -> perceptron("sigmoid").setCalibrationFolds(3).fit(d.train()), crossFit), d.test()));
    results.put("perceptron, isotonic cross-fitted (calibrationFolds=3)", scored(
        perceptron("isotonic").setCalibrationFolds(3).fit(d.train()), d.test()));

    Dataset<Row> validation = d.train().withColumn("isValidation", rand(SPLIT_SEED).lt(0.2));
    results.put("perceptron, validationIndicatorCol 20% (early stopping + sigmoid)",
        scored(perceptron("sigmoid").setValidationIndicatorCol("isValidation").fit(validation),
            d.test()));
    double[] lrFit = new double[1];
    Model<?> lr = timed(() -> new LogisticRegression().fit(d.train()), lrFit);
    results.put(LR, scored(lr, d.test()));

    double best = Double.POSITIVE_INFINITY;
    Scored ours = null;
    for (Map.Entry<String, Scored> e : results.entrySet()) {
      ProbabilityMetrics m = e.getValue().metrics();
      t.row(e.getKey(), Report.f("%.4f", m.logLoss()), Report.f("%.4f", m.brier()),
          Report.f("%.4f", m.expectedCalibrationError()),
          Report.f("%.4f", e.getValue().accuracy()));
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_log_loss",
          m.logLoss(), "");
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_brier", m.brier(), "");
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_ece",
          m.expectedCalibrationError(), "");
      report.add("calibration", d.shape(), partitions, e.getKey(), "test_accuracy",
          e.getValue().accuracy(), "");
      if (e.getKey().startsWith("perceptron") && !e.getKey().equals(NONE)) {
        best = Math.min(best, m.logLoss());
      }
      // The default's own row (other sigmoid rows share its prefix).
      if (e.getKey().startsWith(DEFAULT) && e.getKey().endsWith("(default)")) {
        ours = e.getValue();
      }
      System.err.printf(Locale.ROOT, "%s %s: log-loss %.4f, Brier %.4f, ECE %.4f, accuracy"
          + " %.4f%n", d.shape().name, e.getKey(), m.logLoss(), m.brier(),
          m.expectedCalibrationError(), e.getValue().accuracy());
    }
    report.add("calibration", d.shape(), partitions, "calibration=none", "fit_seconds",
        noneFit[0], "s");
    report.add("calibration", d.shape(), partitions, "calibration=sigmoid", "fit_seconds",
        defaultFit[0], "s");
    report.add("calibration", d.shape(), partitions, "LogisticRegression", "fit_seconds",
        lrFit[0], "s");
    report.add("calibration", d.shape(), partitions, "calibrationFolds=3", "fit_seconds",
        crossFit[0], "s");
    Scored old = results.get(TRAINING_ROWS);
    Scored theirs = results.get(LR);
    targets.row(d.shape().name + (d.shape().numClasses > 2 ? " (K=" + d.shape().numClasses + ")"
        : ""), crossFitted ? "3 folds" : "10% held out",
        Report.f("%.4f", ours.metrics().logLoss()), Report.f("%.4f", old.metrics().logLoss()),
        Report.f("%.4f", best), Report.f("%.4f", theirs.metrics().logLoss()),
        Report.f("%.3f", ours.metrics().logLoss() / theirs.metrics().logLoss()),
        Report.f("%.4f", ours.accuracy()), Report.f("%.4f", results.get(NONE).accuracy()),
        Report.f("%.2f", noneFit[0]), Report.f("%.2f", defaultFit[0]),
        Report.f("%.3f", defaultFit[0] / noneFit[0]));
    report.markdown("### " + d.shape().name + " (" + d.shape().describe() + ")\n\n")
        .markdown(Report.f("Fit time: calibration=none %.2f s, sigmoid (default) %.2f s,"
            + " sigmoid with calibrationFolds=3 %.2f s, LR %.2f s.\n\n", noneFit[0],
            defaultFit[0], crossFit[0], lrFit[0])).markdown(t.toString());
    report.flush();
  }

  /** The model's coefficients and intercepts, in one array. */
  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = m.numClasses() == 2 ? m.coefficients().toArray()
        : m.coefficientMatrix().toArray();
    double[] b = m.numClasses() == 2 ? new double[] {m.intercept()}
        : m.interceptVector().toArray();
    double[] out = Arrays.copyOf(w, w.length + b.length);
    System.arraycopy(b, 0, out, w.length, b.length);
    return out;
  }

  private static final String NONE = "perceptron, calibration=none (raw link)";
  private static final String DEFAULT = "perceptron, sigmoid ";
  private static final String TRAINING_ROWS = "perceptron, sigmoid on the training rows' own"
      + " scores (the previous default)";
  private static final String LR = "MLlib LogisticRegression (defaults)";

  private PerceptronClassifier perceptron(String calibration) {
    return new PerceptronClassifier().setCalibration(calibration);
  }

  /** Fits {@code repeats} times; the median fit time goes to {@code seconds[0]}. */
  private Model<?> timed(Supplier<Model<?>> fit, double[] seconds) {
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

  /** The probability metrics and the accuracy of the prediction column on {@code test}. */
  private static Scored scored(Model<?> model, Dataset<Row> test) {
    List<Row> rows = model.transform(test).select(col("label"), col("probability"),
        col("prediction")).collectAsList();
    int k = rows.isEmpty() ? 2 : rows.get(0).<Vector>getAs(1).size();
    ProbabilityMetrics m = new ProbabilityMetrics(k);
    long right = 0;
    for (Row r : rows) {
      m.add(r.<Vector>getAs(1).toArray(), (int) r.getDouble(0), 1.0);
      right += r.getDouble(2) == r.getDouble(0) ? 1 : 0;
    }
    return new Scored(m, rows.isEmpty() ? Double.NaN : (double) right / rows.size());
  }
}
