package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.ml.param.Param;
import org.junit.jupiter.api.Test;

/**
 * The estimator's one list of training params, from which the checkpoint fingerprint, the
 * training's log line and the jobs' flags are derived: it holds every param but the output
 * columns, once each, and the fingerprint still hashes the params checkpoints of format 1 hashed,
 * in their order, so that a training interrupted under the previous version resumes.
 */
class TrainingParamsTest {
  private static List<String> names(List<Param<?>> params) {
    List<String> names = new ArrayList<>();
    for (Param<?> p : params) {
      names.add(p.name());
    }
    return names;
  }

  @Test
  void everyParamButTheOutputColumnsConfiguresTraining() {
    PerceptronClassifier estimator = new PerceptronClassifier();
    List<String> training = names(estimator.trainingParams());
    assertEquals(training.size(), new HashSet<>(training).size(), "once each: " + training);
    Set<String> rest = new HashSet<>();
    for (Param<?> p : estimator.params()) {
      rest.add(p.name());
    }
    rest.removeAll(training);
    // The output columns, and Spark's thresholds: its probabilistic prediction rule, which (as
    // the output columns) the model also lets the user set, and which training never reads.
    assertEquals(Set.of("predictionCol", "rawPredictionCol", "probabilityCol", "thresholds"),
        rest);
    for (Param<?> p : estimator.trainingParams()) {
      assertTrue(estimator.hasParam(p.name()) && p.parent().equals(estimator.uid()),
          p.name() + " is the estimator's own param object");
    }
  }

  @Test
  void theFingerprintHashesTheParamsOfFormatOneInTheirOrder() {
    // The list main's fingerprint() spelt out by hand before it was derived (checkpoint format 1).
    assertEquals(List.of("maxIter", "tol", "stepSize", "fitIntercept", "updateRule",
        "aggressiveness", "averaging", "mixing", "mixingRounds", "shuffle", "shuffleScope", "seed",
        "threshold", "aggregationDepth", "validationPatience", "classWeight", "labelCol",
        "featuresCol", "weightCol", "validationIndicatorCol"),
        names(new PerceptronClassifier().fingerprintedParams()));
  }
}
