package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.kernel.Predictor;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * The probability column of {@link PerceptronClassificationModel#transform}, and its prediction
 * column when {@code thresholds} is set: UDFs closed over the broadcast scorer and calibrator
 * and the column names, never over the model (as the model's own UDFs). Each reads the columns
 * the transform already computed (the raw prediction, the probability) instead of scoring a row
 * again, as Spark's {@code ProbabilisticClassificationModel.transform} does.
 */
final class ProbabilityColumns {
  private final Broadcast<Predictor> scorer;
  private final Broadcast<Calibrator> calibrator;
  private final String featuresCol;
  private final String rawCol;

  /**
   * @param calibrator null when neither column is asked for
   * @param rawCol the raw prediction column, or "" when the transform does not add it
   */
  ProbabilityColumns(Broadcast<Predictor> scorer, Broadcast<Calibrator> calibrator,
      String featuresCol, String rawCol) {
    this.scorer = scorer;
    this.calibrator = calibrator;
    this.featuresCol = featuresCol;
    this.rawCol = rawCol;
  }

  /** The class probabilities: from the raw prediction column when there is one. */
  Column probability() {
    Broadcast<Calibrator> c = calibrator;
    if (!rawCol.isEmpty()) {
      // A copy: Spark's DenseVector.toArray is the vector's own array.
      UDF1<Vector, Vector> fromRaw = raw -> probabilities(c.value(), raw.toArray().clone());
      return functions.udf(fromRaw, SQLDataTypes.VectorType()).apply(functions.col(rawCol));
    }
    Broadcast<Predictor> s = scorer;
    String features = featuresCol;
    UDF1<Vector, Vector> fromFeatures = x -> probabilities(c.value(),
        PerceptronClassificationModel.rawPrediction(s.value(), features, x).toArray());
    return functions.udf(fromFeatures, SQLDataTypes.VectorType())
        .apply(functions.col(featuresCol));
  }

  /**
   * With {@code thresholds}: the prediction by Spark's probabilistic rule ({@link #thresholded}),
   * from the probability column when there is one, else from the probabilities of the raw
   * prediction or of the features.
   */
  Column thresholdedPrediction(String probabilityCol, double[] thresholds) {
    double[] t = thresholds.clone();
    if (!probabilityCol.isEmpty()) {
      UDF1<Vector, Double> fromProbability = p -> thresholded(p.toArray(), t);
      return functions.udf(fromProbability, DataTypes.DoubleType).asNonNullable()
          .apply(functions.col(probabilityCol));
    }
    Column probability = probability();
    UDF1<Vector, Double> rule = p -> thresholded(p.toArray(), t);
    return functions.udf(rule, DataTypes.DoubleType).asNonNullable().apply(probability);
  }

  /** The model's {@code thresholds}, one per class, or an error that says so. */
  static double[] thresholds(PerceptronClassificationModel model) {
    double[] t = model.getThresholds();
    if (t.length != model.numClasses()) {
      throw new IllegalArgumentException("thresholds has " + t.length + " values, but this model"
          + " has " + model.numClasses() + " classes; give one threshold per class (or clear"
          + " thresholds to predict by the margin and threshold)");
    }
    return t;
  }

  private static DenseVector probabilities(Calibrator calibrator, double[] raw) {
    calibrator.probabilities(raw, raw);
    return (DenseVector) Vectors.dense(raw);
  }

  /**
   * Spark's {@code probability2prediction} with thresholds: the class of the largest p_k / t_k
   * (a threshold of 0 makes its class win, as +∞), the first among equals.
   */
  static double thresholded(double[] probability, double[] thresholds) {
    int best = 0;
    double bestScaled = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < probability.length; k++) {
      double scaled = thresholds[k] == 0.0 ? Double.POSITIVE_INFINITY
          : probability[k] / thresholds[k];
      if (k == 0 || scaled > bestScaled) {
        best = k;
        bestScaled = scaled;
      }
    }
    return best;
  }
}
