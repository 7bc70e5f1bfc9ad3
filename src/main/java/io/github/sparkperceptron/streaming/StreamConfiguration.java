package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.Arrays;
import java.util.Locale;
import org.apache.spark.ml.param.Param;

/**
 * The settings that make a stream's training what it is, one {@code key=value} per line, saved
 * with the learner state: a saved state is resumed only under the same ones, and the first that
 * differs is named. The threshold, model path and publishing cadence only shape predictions and
 * outputs, so they may change between runs.
 */
final class StreamConfiguration {
  private static final String DRIFT_KEY = "\ndriftDetector=";

  private StreamConfiguration() {
  }

  /** The configuration of a stream learning with {@code params} and these stream settings. */
  static String of(PerceptronClassifier params, int epochsPerBatch, int numClasses,
      String driftDetector, String onDrift) {
    StringBuilder sb = new StringBuilder("spark-perceptron stream 1\n");
    for (Param<?> p : new Param<?>[] {params.labelCol(), params.featuresCol(),
        params.weightCol(), params.stepSize(), params.fitIntercept(), params.aggressiveness(),
        params.shuffle(), params.seed(), params.aggregationDepth(), params.tol(),
        params.mixingRounds()}) {
      sb.append(p.name()).append('=')
          .append(params.isDefined(p) ? String.valueOf(params.getOrDefault(p)) : "")
          .append('\n');
    }
    // The enum params by the value they select, so that "PA1" and "pa1" are one configuration:
    // a value the param's validator accepted is its constant's name in some case (ParamValue).
    sb.append("updateRule=").append(params.getUpdateRule().toLowerCase(Locale.ROOT)).append('\n');
    sb.append("averaging=").append(params.getAveraging().toLowerCase(Locale.ROOT)).append('\n');
    sb.append("mixing=").append(params.getMixing().toLowerCase(Locale.ROOT)).append('\n');
    sb.append("epochsPerBatch=").append(epochsPerBatch).append('\n');
    sb.append("numClasses=").append(numClasses == 0 ? "from the data" : numClasses).append('\n');
    PerceptronClassificationModel initial = params.getInitialModel();
    if (initial != null) {
      double[] w = initial.numClasses() == 2 ? initial.coefficients().toArray()
          : initial.coefficientMatrix().toArray();
      sb.append("initialModel=").append(Arrays.hashCode(w)).append('/')
          .append(Arrays.hashCode(initial.interceptVector().toArray())).append('\n');
    }
    // Last, so that a configuration saved before drift detection reads as a prefix (upgraded).
    return sb.append(DRIFT_KEY.substring(1)).append(driftDetector).append("\nonDrift=")
        .append(onDrift).append('\n').toString();
  }

  /**
   * {@code saved} as today's code writes it: a configuration saved before drift detection (no
   * {@code driftDetector} line) gets {@code now}'s detector and policy, so such a state resumes
   * under any of them, its detector starting afresh.
   */
  static String upgraded(String saved, String now) {
    if (saved.contains(DRIFT_KEY) || !now.contains(DRIFT_KEY)) {
      return saved;
    }
    return saved + now.substring(now.indexOf(DRIFT_KEY) + 1);
  }

  /** The first setting that differs, as "stepSize was 1.0 there, 0.5 now", or null. */
  static String difference(String saved, String now) {
    if (saved.equals(now)) {
      return null;
    }
    String[] a = saved.split("\n");
    String[] b = now.split("\n");
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      String x = i < a.length ? a[i] : "";
      String y = i < b.length ? b[i] : "";
      if (!x.equals(y)) {
        int eq = y.indexOf('=');
        if (eq > 0 && x.startsWith(y.substring(0, eq + 1))) {
          return y.substring(0, eq) + " was " + value(x) + " there, " + value(y) + " now";
        }
        return "its settings differ ('" + x + "' there, '" + y + "' now)";
      }
    }
    return "its settings differ";
  }

  private static String value(String line) {
    String v = line.substring(line.indexOf('=') + 1);
    return v.isEmpty() ? "unset" : v;
  }
}
