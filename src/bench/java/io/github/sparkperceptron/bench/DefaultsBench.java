package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Issue 32's first target: what the accurate default (block momentum, its rounds automatic)
 * costs against the plain 1-round {@code mixing=mistakes} fit, on every dataset the bench loads
 * and on the two kinds the issue names that those lack (26 dense classes; 105 classes of
 * text-like rows over 55,000 features), as a user fits them (the estimator's defaults otherwise:
 * tol, maxIter, automatic numWorkers).
 * The two fits alternate within each repetition so that a drift of the machine touches both
 * alike; the ratio is of the medians, and the epochs each ran are printed, since with the
 * default tol the two may stop at different epochs.
 */
final class DefaultsBench {
  private final Report report;
  private final int repeats;

  DefaultsBench(Report report, int repeats) {
    this.report = report;
    this.repeats = Math.max(1, repeats);
  }

  /** One dataset: its name and cached frames. */
  record Data(DataShape shape, Dataset<Row> train, Dataset<Row> test) {
  }

  void run(List<Data> sets, String load) {
    report.markdown(Report.f("## The defaults against 1-round mistakes mixing (issue 32)\n\n"
        + "Fits as a user runs them (numWorkers automatic), the defaults and"
        + " `setMixing(\"mistakes\").setMixingRounds(1)` alternating, %d repetitions after one"
        + " warm-up pair; medians. %s\n\n", repeats, load));
    Report.Table t = new Report.Table("dataset", "defaults s", "1-round mistakes s",
        "defaults / mistakes", "epochs (defaults / mistakes)",
        "test accuracy (defaults / mistakes)");
    for (Data s : sets) {
      PerceptronClassifier defaults = new PerceptronClassifier();
      PerceptronClassifier mistakes = new PerceptronClassifier().setMixing("mistakes")
          .setMixingRounds(1);
      defaults.fit(s.train());
      mistakes.fit(s.train());
      List<Double> a = new ArrayList<>();
      List<Double> b = new ArrayList<>();
      PerceptronClassificationModel ma = null;
      PerceptronClassificationModel mb = null;
      for (int r = 0; r < repeats; r++) {
        long start = System.nanoTime();
        ma = defaults.fit(s.train());
        a.add((System.nanoTime() - start) / 1e9);
        start = System.nanoTime();
        mb = mistakes.fit(s.train());
        b.add((System.nanoTime() - start) / 1e9);
      }
      double da = median(a);
      double db = median(b);
      MulticlassClassificationEvaluator accuracy = new MulticlassClassificationEvaluator()
          .setMetricName("accuracy");
      t.row(s.shape().name, Report.f("%.3f", da), Report.f("%.3f", db), Report.f("%.2f", da / db),
          Report.f("%d / %d", ma.summary().totalIterations(), mb.summary().totalIterations()),
          Report.f("%.4f / %.4f", accuracy.evaluate(ma.transform(s.test())),
              accuracy.evaluate(mb.transform(s.test()))));
      System.err.printf("defaults %s: %.3f s vs %.3f s (%.2f)%n", s.shape().name, da, db, da / db);
      report.add("defaults", s.shape(), 0, "defaults", "defaults_over_mistakes", da / db, "ratio");
    }
    report.markdown(t.toString());
    report.flush();
  }

  private static double median(List<Double> values) {
    return PlainLoop.median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }
}
