package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.kernel.Predictor;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * The columns {@link PerceptronClassificationModel#transform} adds (the raw prediction, the
 * probability, the prediction) and the scoring of one vector that the model's own
 * {@code predictRaw} and {@code predict} share with them: UDFs closed over the broadcast scorer
 * and calibrator and the column names, never over the model. Each reads the columns the
 * transform already computed (the raw prediction, the probability) instead of scoring a row
 * again, as Spark's {@code ProbabilisticClassificationModel.transform} does. The prediction is a
 * primitive double in Spark's Scala UDFs, hence a non-nullable column: asNonNullable keeps the
 * schema the same.
 */
final class TransformColumns {
  private final Broadcast<Predictor> scorer;
  private final Broadcast<Calibrator> calibrator;
  private final String featuresCol;
  private final String rawCol;

  /**
   * @param calibrator null when neither column is asked for
   * @param rawCol the raw prediction column, or "" when the transform does not add it
   */
  TransformColumns(Broadcast<Predictor> scorer, Broadcast<Calibrator> calibrator,
      String featuresCol, String rawCol) {
    this.scorer = scorer;
    this.calibrator = calibrator;
    this.featuresCol = featuresCol;
    this.rawCol = rawCol;
  }

  /** The raw prediction, from the features. */
  Column raw() {
    return rawUdf(scorer, featuresCol).apply(functions.col(featuresCol));
  }

  /** The prediction by the margin rule: from the raw prediction column when there is one. */
  Column prediction() {
    return rawCol.isEmpty()
        ? predictionUdf(scorer, featuresCol).apply(functions.col(featuresCol))
        : rawToPredictionUdf(scorer).apply(functions.col(rawCol));
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
        rawPrediction(s.value(), features, x).toArray());
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

  /** The raw prediction: binary [−m, m] (m the margin or vote total), multiclass the K scores. */
  static Vector rawPrediction(Predictor scorer, String featuresCol, Vector features) {
    checkSize(featuresCol, scorer.numFeatures(), features);
    double[] raw = features instanceof SparseVector
        ? scorer.rawScores(((SparseVector) features).indices(),
            ((SparseVector) features).values(), ((SparseVector) features).indices().length)
        : scorer.rawScoresDense(((DenseVector) features).values());
    return scorer.numClasses() == 2 ? Vectors.dense(-raw[0], raw[0]) : Vectors.dense(raw);
  }

  static double prediction(Predictor scorer, String featuresCol, Vector features) {
    checkSize(featuresCol, scorer.numFeatures(), features);
    if (features instanceof SparseVector) {
      SparseVector sv = (SparseVector) features;
      return scorer.predict(sv.indices(), sv.values(), sv.indices().length);
    }
    return scorer.predictDense(((DenseVector) features).values());
  }

  static double rawToPrediction(int numClasses, double threshold, Vector raw) {
    if (numClasses == 2) {
      return Predictor.binaryClass(raw.apply(1), threshold);
    }
    return Predictor.argmax(raw.toArray());
  }

  private static UserDefinedFunction rawUdf(Broadcast<Predictor> scorer, String featuresCol) {
    UDF1<Vector, Vector> f = features -> rawPrediction(scorer.value(), featuresCol, features);
    return functions.udf(f, SQLDataTypes.VectorType());
  }

  private static UserDefinedFunction predictionUdf(Broadcast<Predictor> scorer,
      String featuresCol) {
    UDF1<Vector, Double> f = features -> prediction(scorer.value(), featuresCol, features);
    return functions.udf(f, DataTypes.DoubleType).asNonNullable();
  }

  private static UserDefinedFunction rawToPredictionUdf(Broadcast<Predictor> scorer) {
    UDF1<Vector, Double> f = raw -> rawToPrediction(scorer.value().numClasses(),
        scorer.value().threshold(), raw);
    return functions.udf(f, DataTypes.DoubleType).asNonNullable();
  }

  private static void checkSize(String featuresCol, int numFeatures, Vector features) {
    if (features == null) {
      throw new IllegalArgumentException("Column '" + featuresCol + "' holds a null vector;"
          + " the model needs a vector of " + numFeatures + " features in every row");
    }
    if (features.size() != numFeatures) {
      throw new IllegalArgumentException("Column '" + featuresCol + "' holds a vector of size "
          + features.size() + ", but this model was trained on " + numFeatures + " features;"
          + " transform data built the same way as the training data");
    }
  }
}
