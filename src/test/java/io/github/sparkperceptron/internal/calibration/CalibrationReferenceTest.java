package io.github.sparkperceptron.internal.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.regression.IsotonicRegression;
import org.apache.spark.ml.regression.IsotonicRegressionModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Platt's sigmoid and isotonic regression against two independent implementations on the same
 * scores: scikit-learn 1.2.1's {@code _sigmoid_calibration} and {@code IsotonicRegression} (what
 * its {@code CalibratedClassifierCV} fits), whose numbers
 * {@code src/test/resources/reference/calibration_reference.py} wrote beside the scores it drew
 * ({@code calibration_scores.csv}, {@code calibration_sklearn.csv}; the script's header has how
 * to rerun it), and Spark's own {@code IsotonicRegression}, fitted here.
 */
class CalibrationReferenceTest {
  private static final Path DIR = TestData.projectRoot().resolve("src/test/resources/reference");

  /**
   * Isotonic regression is exact arithmetic on the same pools (weighted means of 0/1 targets
   * and linear interpolation): the implementations differ only in the order of their sums,
   * a few ulps of numbers below 1.
   */
  private static final double ISOTONIC = 1e-12;

  /** One set's scores, classes and weights. */
  private record Scores(double[] s, int[] y, double[] w) {
  }

  private static Map<String, Scores> scores() throws IOException {
    Map<String, List<String[]>> rows = new LinkedHashMap<>();
    List<String> lines = Files.readAllLines(DIR.resolve("calibration_scores.csv"));
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      rows.computeIfAbsent(f[0], k -> new ArrayList<>()).add(f);
    }
    Map<String, Scores> out = new LinkedHashMap<>();
    rows.forEach((name, list) -> {
      Scores s = new Scores(new double[list.size()], new int[list.size()],
          new double[list.size()]);
      for (int i = 0; i < list.size(); i++) {
        s.s[i] = Double.parseDouble(list.get(i)[1]);
        s.y[i] = Integer.parseInt(list.get(i)[2]);
        s.w[i] = Double.parseDouble(list.get(i)[3]);
      }
      out.put(name, s);
    });
    return out;
  }

  private static Map<String, double[]> reference(String set) throws IOException {
    Map<String, double[]> out = new LinkedHashMap<>();
    for (String line : Files.readAllLines(DIR.resolve("calibration_sklearn.csv"))) {
      String[] f = line.split(",");
      if (f[0].equals(set)) {
        double[] v = new double[f.length - 2];
        for (int i = 2; i < f.length; i++) {
          v[i - 2] = Double.parseDouble(f[i]);
        }
        out.put(f[1], v);
      }
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"margins", "ties", "weighted", "separable"})
  void plattsFitIsTheMinimumScikitLearnApproaches(String set) throws IOException {
    Scores s = scores().get(set);
    Map<String, double[]> ref = reference(set);
    double[] ab = PlattScaling.fit(s.s, s.y, s.w, s.s.length);
    // scikit-learn stops BFGS at a gradient norm of 1e-5; the script bounds how far from the
    // minimum that leaves A and B (sigmoid_bound: 10·1e-5/λ_min of the Hessian). Newton's
    // minimum lies within that bound of scikit-learn's numbers ...
    double bound = ref.get("sigmoid_bound")[0];
    assertEquals(ref.get("sigmoid_ab")[0], ab[0], bound, set + " A");
    assertEquals(ref.get("sigmoid_ab")[1], ab[1], bound, set + " B");
    // ... and is a minimum at least as low as theirs (up to rounding of a sum of ~400 terms).
    double ours = objective(ab, s);
    double theirs = ref.get("sigmoid_objective")[0];
    assertTrue(ours <= theirs + 1e-9 * theirs, set + ": " + ours + " > " + theirs);
    double[] probes = ref.get("probes");
    double[] p = ref.get("sigmoid_predict");
    for (int i = 0; i < probes.length; i++) {
      // dp/dA = −p(1−p)·s: at |s| ≤ 35 and |ΔA|, |ΔB| ≤ bound, p moves by less than 10·bound.
      assertEquals(p[i], PlattScaling.probability(ab[0], ab[1], probes[i]), 10 * bound,
          set + " probe " + probes[i]);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"margins", "ties", "weighted", "separable"})
  void isotonicEqualsScikitLearns(String set) throws IOException {
    Scores s = scores().get(set);
    Map<String, double[]> ref = reference(set);
    IsotonicSteps steps = IsotonicSteps.fit(s.s, s.y, s.w, s.s.length);
    assertArrayWithin(ref.get("isotonic_x"), steps.boundaries(), 0.0, set + " thresholds");
    assertArrayWithin(ref.get("isotonic_y"), steps.values(), ISOTONIC, set + " values");
    double[] probes = ref.get("probes");
    double[] want = ref.get("isotonic_predict");
    for (int i = 0; i < probes.length; i++) {
      assertEquals(want[i], steps.value(probes[i]), ISOTONIC, set + " probe " + probes[i]);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"margins", "ties", "weighted", "separable"})
  void isotonicPredictsAsSparksIsotonicRegression(String set) throws IOException {
    SparkSession spark = SparkTestSupport.spark();
    Scores s = scores().get(set);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < s.s.length; i++) {
      rows.add(RowFactory.create((double) s.y[i], s.s[i], s.w[i]));
    }
    StructType schema = new StructType().add("label", DataTypes.DoubleType)
        .add("feature", DataTypes.DoubleType).add("weight", DataTypes.DoubleType);
    Dataset<Row> frame = spark.createDataFrame(rows, schema).repartition(1);
    IsotonicRegressionModel spark1 = new IsotonicRegression().setFeaturesCol("feature")
        .setWeightCol("weight").fit(frame);
    IsotonicSteps steps = IsotonicSteps.fit(s.s, s.y, s.w, s.s.length);
    double[] probes = reference(set).get("probes");
    for (double probe : probes) {
      assertEquals(spark1.predict(probe), steps.value(probe), ISOTONIC, set + " probe " + probe);
    }
    for (double score : s.s) {
      assertEquals(spark1.predict(score), steps.value(score), ISOTONIC, set + " score " + score);
    }
  }

  private static double objective(double[] ab, Scores s) {
    double prior1 = 0;
    double prior0 = 0;
    for (int i = 0; i < s.y.length; i++) {
      prior1 += s.y[i] == 1 ? s.w[i] : 0;
      prior0 += s.y[i] == 0 ? s.w[i] : 0;
    }
    double f = 0;
    for (int i = 0; i < s.y.length; i++) {
      double t = s.y[i] == 1 ? (prior1 + 1) / (prior1 + 2) : 1 / (prior0 + 2);
      double p = PlattScaling.probability(ab[0], ab[1], s.s[i]);
      f -= s.w[i] * (xlogy(t, p) + xlogy(1 - t, 1 - p));
    }
    return f;
  }

  private static double xlogy(double x, double y) {
    return x == 0 ? 0 : x * Math.log(y);
  }

  private static void assertArrayWithin(double[] want, double[] got, double tolerance,
      String what) {
    assertEquals(want.length, got.length, what + " length");
    for (int i = 0; i < want.length; i++) {
      assertEquals(want[i], got[i], tolerance, what + " [" + i + "]");
    }
  }
}
