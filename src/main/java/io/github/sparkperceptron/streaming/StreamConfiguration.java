package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.List;

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
    // The order is the saved configurations': the settings, then the named values.
    sb.append(EngineBridge.settingsText(params, List.of(params.labelCol(), params.featuresCol(),
        params.weightCol(), params.stepSize(), params.fitIntercept(), params.aggressiveness(),
        params.shuffle(), params.seed(), params.aggregationDepth(), params.tol(),
        params.mixingRounds(), params.updateRule(), params.averaging(), params.mixing())));
    sb.append("epochsPerBatch=").append(epochsPerBatch).append('\n');
    sb.append("numClasses=").append(numClasses == 0 ? "from the data" : numClasses).append('\n');
    sb.append(EngineBridge.initialModelText(params));
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
