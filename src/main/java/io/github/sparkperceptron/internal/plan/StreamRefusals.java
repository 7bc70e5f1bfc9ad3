package io.github.sparkperceptron.internal.plan;

import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * What a stream does not learn with, and why: the one list of a stream's refusals. The library
 * reads it when a {@code StreamingPerceptron} starts (a param at a value no stream can learn
 * with is refused with its reason), and {@code submit/stream-train}'s flag table reads it to
 * refuse the flags of {@code submit/train} whose params a stream has no use for, with the same
 * reason in the jobs' terms.
 *
 * <p>Two kinds: a param a stream cannot learn with at some value (the whole dataset up front,
 * or a model that grows without bound), refused by the library; and a param a stream has no use
 * for whatever its value (a finite training's epochs, validation, checkpoints and calibration),
 * which the library leaves unused, so that one estimator can configure a fit and a stream, and
 * which the stream job refuses as a flag.
 */
public final class StreamRefusals {

  /**
   * One refusal.
   *
   * @param param the estimator param's name
   * @param value the value refused, lower case; {@link #SET} for any non-empty value; null for a
   *     param a stream has no use for at any value
   * @param whole whether stream-train refuses the param's flag as a whole (its other values
   *     leave the default in force, so the flag would offer nothing)
   * @param reason why, and what to do instead, naming params (the jobs name their flags)
   */
  public record Refusal(String param, String value, boolean whole, String reason) {

    /** Whether a stream cannot learn with this param at {@code current}. */
    boolean refuses(Object current) {
      if (value == null) {
        return false;
      }
      String text = current.toString();
      return value.equals(SET) ? !text.isEmpty() : value.equals(text.toLowerCase(Locale.ROOT));
    }
  }

  /** {@link Refusal#value}: any non-empty value of a string param. */
  public static final String SET = "";

  /** The list, in the order the library checks it. */
  public static final List<Refusal> ALL = List.of(
      new Refusal("averaging", "vote", false, "averaging=vote keeps every intermediate weight"
          + " vector, which grows without bound on a stream (and is saved with every published"
          + " model); use averaging=average, the voted perceptron's O(features) approximation"
          + " (Freund & Schapire 1999)"),
      new Refusal("mixing", "oneshot", false, "mixing=oneshot trains every worker apart over"
          + " all the data and averages once at the end, which a stream never reaches; use"
          + " mixing=mistakes, uniform or momentum"),
      new Refusal("validationIndicatorCol", SET, true, "validationIndicatorCol chooses the best"
          + " epoch of a finite training; a stream is evaluated prequentially instead (each batch"
          + " is scored before it is learnt), so unset it"),
      new Refusal("classWeight", "balanced", true, "classWeight=balanced needs every class's"
          + " size before training starts, which a stream does not know; use a weight column"
          + " (weightCol) instead"),
      new Refusal("checkpointDir", SET, true, "checkpointDir checkpoints the epochs of a finite"
          + " training; a stream keeps its learner state in its own checkpoint location, so"
          + " unset checkpointDir"),
      new Refusal("maxIter", null, true, "a stream has no number of epochs; every batch is"
          + " learnt epochsPerBatch times"),
      new Refusal("validationPatience", null, true, "a stream has no validation data: every"
          + " batch is scored before it is learnt (prequential accuracy)"),
      new Refusal("calibration", null, true, "a stream publishes uncalibrated models (the"
          + " logistic or softmax link of the scores), whose scores grow as it learns; calibrate"
          + " a published model on held-out rows instead"),
      new Refusal("calibrationFolds", null, true, "a stream publishes uncalibrated models"),
      new Refusal("checkpointInterval", null, true, "a stream saves its learner state in its"
          + " checkpoint location after every batch"));

  private StreamRefusals() {
  }

  /**
   * Why a stream cannot learn with {@code params} (an estimator's), or null when it can: the
   * first refusal that applies.
   */
  public static String problem(Params params) {
    for (Refusal r : ALL) {
      Param<Object> p = params.getParam(r.param());
      if (params.isDefined(p) && r.refuses(params.getOrDefault(p))) {
        return r.reason();
      }
    }
    return null;
  }

  /** Why stream-train refuses the flag of {@code param} as a whole, or null when it takes it. */
  public static String flagRefused(String param) {
    for (Refusal r : ALL) {
      if (r.param().equals(param) && r.whole()) {
        return r.reason();
      }
    }
    return null;
  }
}
