package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.kernel.TrainingBlock;
import io.github.sparkperceptron.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.kernel.VisitOrder;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;

/**
 * One partition's training rows converted once into a {@link TrainingBlock}, with the facts the
 * driver needs to validate the whole dataset (sizes, labels, weights) and the first bad row, if
 * any. Bad rows are reported as data rather than thrown, so that Spark neither retries a
 * deterministic failure nor wraps it in its own stack trace; the driver raises the first problem.
 */
final class PreparedPartition implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The training rows; {@code null} when there are none or the partition has a problem. */
  final TrainingBlock block;
  /** The validation rows ({@code validationIndicatorCol} true), or {@code null}. */
  final TrainingBlock validation;
  final int partition;
  /** Training rows. */
  final int rows;
  final int validationRows;
  /** Vector size seen in this partition, −1 if it has no rows. */
  final int numFeatures;
  final long storedValues;
  /** Σ of the training rows' sample weights. */
  final double totalWeight;
  /** Training rows per class index (length: largest label + 1). */
  final long[] classCounts;
  /** Σ of the training rows' sample weights per class index (same length). */
  final double[] classWeightSums;
  /** The largest sample weight among the training rows of each class index (same length). */
  final double[] maxWeightByClass;
  /** The largest ‖x‖² of a training row (0 without rows). */
  final double maxSquaredNorm;
  /** The first bad row, or {@code null}. */
  final String problem;

  private PreparedPartition(TrainingBlock block, TrainingBlock validation, int partition,
      int rows, int validationRows, int numFeatures, long storedValues, double totalWeight,
      long[] classCounts, double[] classWeightSums, double[] maxWeightByClass,
      double maxSquaredNorm, String problem) {
    this.block = block;
    this.validation = validation;
    this.partition = partition;
    this.rows = rows;
    this.validationRows = validationRows;
    this.numFeatures = numFeatures;
    this.storedValues = storedValues;
    this.totalWeight = totalWeight;
    this.classCounts = classCounts;
    this.classWeightSums = classWeightSums;
    this.maxWeightByClass = maxWeightByClass;
    this.maxSquaredNorm = maxSquaredNorm;
    this.problem = problem;
  }

  /**
   * The partition's total training weight T_i with the class weights applied (the plain total
   * when {@code classWeights} is null). The driver and the tasks compute it with this one method,
   * so their sums agree bit for bit.
   */
  double trainingWeight(double[] classWeights) {
    if (classWeights == null) {
      return totalWeight;
    }
    double t = 0.0;
    for (int k = 0; k < classWeightSums.length; k++) {
      t += classWeights[k] * classWeightSums[k];
    }
    return t;
  }

  /** What the conversion needs to know about the input columns. */
  static final class Spec implements Serializable {
    private static final long serialVersionUID = 1L;
    final String labelCol;
    final String featuresCol;
    /** Empty when the rows carry no weight column (else it is column 2). */
    final String weightCol;
    /** Empty when there is no validation indicator (else it is the last column). */
    final String validationCol;
    /** The vector size every row must have, or −1 to take it from the first row. */
    final int expectedFeatures;
    /** Largest class index allowed (from label metadata, or the inference limit). */
    final int maxLabel;
    /** Whether {@link #maxLabel} comes from the label column's metadata. */
    final boolean labelsFromMetadata;
    /** Lays out the training rows (validation rows keep the input order). */
    final VisitOrder order;

    Spec(String labelCol, String featuresCol, String weightCol, String validationCol,
        int expectedFeatures, int maxLabel, boolean labelsFromMetadata, VisitOrder order) {
      this.labelCol = labelCol;
      this.featuresCol = featuresCol;
      this.weightCol = weightCol;
      this.validationCol = validationCol;
      this.expectedFeatures = expectedFeatures;
      this.maxLabel = maxLabel;
      this.labelsFromMetadata = labelsFromMetadata;
      this.order = order;
    }
  }

  /**
   * Converts the rows (label: double, features: Vector[, weight: double][, validation: boolean])
   * of one partition. Stops at the first bad row.
   */
  static PreparedPartition prepare(int partition, Iterator<Row> rows, Spec spec) {
    TrainingBlockBuilder train = null;
    TrainingBlockBuilder held = null;
    int numFeatures = spec.expectedFeatures;
    long[] classCounts = new long[0];
    double[] classWeightSums = new double[0];
    double[] maxWeightByClass = new double[0];
    double maxSquaredNorm = 0.0;
    double totalWeight = 0.0;
    int count = 0;
    int validationCount = 0;
    boolean weighted = !spec.weightCol.isEmpty();
    int validationIndex = spec.validationCol.isEmpty() ? -1 : (weighted ? 3 : 2);
    while (rows.hasNext()) {
      Row row = rows.next();
      String where = "row " + (count + validationCount) + " of input partition " + partition;

      if (row.isNullAt(0)) {
        return failed(partition, "Column '" + spec.labelCol + "' (labelCol) is null in " + where
            + "; drop or fill unlabelled rows first, e.g. dataset.na().drop(new String[] {\""
            + spec.labelCol + "\"})");
      }
      double label = row.getDouble(0);
      String labelProblem = checkLabel(label, spec);
      if (labelProblem != null) {
        return failed(partition, "Column '" + spec.labelCol + "' (labelCol) has " + label + " in "
            + where + ": " + labelProblem);
      }

      double weight = 1.0;
      if (weighted) {
        if (row.isNullAt(2)) {
          return failed(partition, "Column '" + spec.weightCol + "' (weightCol) is null in "
              + where + "; every row needs a finite weight >= 0 (fill nulls, e.g. with 1.0)");
        }
        weight = row.getDouble(2);
        if (!(weight >= 0) || Double.isInfinite(weight)) {
          return failed(partition, "Column '" + spec.weightCol + "' (weightCol) has " + weight
              + " in " + where + "; sample weights must be finite and >= 0");
        }
      }

      boolean isValidation = false;
      if (validationIndex >= 0) {
        if (row.isNullAt(validationIndex)) {
          return failed(partition, "Column '" + spec.validationCol + "' (validationIndicatorCol)"
              + " is null in " + where + "; mark every row true (validation) or false (training)");
        }
        isValidation = row.getBoolean(validationIndex);
      }

      if (row.isNullAt(1)) {
        return failed(partition, "Column '" + spec.featuresCol + "' (featuresCol) is null in "
            + where + "; every row needs a feature vector (drop such rows or impute them)");
      }
      Vector features = (Vector) row.get(1);
      if (numFeatures < 0) {
        numFeatures = features.size();
      }
      if (features.size() != numFeatures) {
        return failed(partition, "Column '" + spec.featuresCol + "' (featuresCol) holds a vector"
            + " of size " + features.size() + " in " + where + ", but "
            + (spec.expectedFeatures >= 0 ? "its metadata declares " : "earlier rows have ")
            + numFeatures + " features; all feature vectors must have the same size");
      }
      String valueProblem = checkValues(features);
      if (valueProblem != null) {
        return failed(partition, "Column '" + spec.featuresCol + "' (featuresCol) has "
            + valueProblem + " in " + where + "; replace missing or infinite values first"
            + " (e.g. with org.apache.spark.ml.feature.Imputer) or drop those rows");
      }

      int classIndex = (int) label;
      TrainingBlockBuilder target;
      if (isValidation) {
        if (held == null) {
          held = new TrainingBlockBuilder(numFeatures);
        }
        target = held;
        validationCount++;
      } else {
        if (train == null) {
          train = new TrainingBlockBuilder(numFeatures);
        }
        target = train;
        if (classIndex >= classCounts.length) {
          classCounts = Arrays.copyOf(classCounts, classIndex + 1);
          classWeightSums = Arrays.copyOf(classWeightSums, classIndex + 1);
          maxWeightByClass = Arrays.copyOf(maxWeightByClass, classIndex + 1);
        }
        classCounts[classIndex]++;
        classWeightSums[classIndex] += weight;
        maxWeightByClass[classIndex] = Math.max(maxWeightByClass[classIndex], weight);
        maxSquaredNorm = Math.max(maxSquaredNorm, squaredNorm(features));
        totalWeight += weight;
        count++;
      }
      if (features instanceof SparseVector) {
        SparseVector sv = (SparseVector) features;
        target.addSparse(classIndex, weight, sv.indices(), sv.values(), sv.indices().length);
      } else {
        target.addDense(classIndex, weight, ((DenseVector) features).values());
      }
    }
    TrainingBlock block = train == null ? null
        : train.build(spec.order.layout(partition, train.numRows()));
    TrainingBlock validation = held == null ? null : held.build();
    return new PreparedPartition(block, validation, partition, count, validationCount,
        count + validationCount == 0 ? -1 : numFeatures,
        block == null ? 0 : block.features().storedValues(), totalWeight, classCounts,
        classWeightSums, maxWeightByClass, maxSquaredNorm, null);
  }

  private static double squaredNorm(Vector features) {
    double[] v = features instanceof SparseVector ? ((SparseVector) features).values()
        : ((DenseVector) features).values();
    double sum = 0.0;
    for (double x : v) {
      sum += x * x;
    }
    return sum;
  }

  /** The facts alone, for shipping to the driver. */
  PreparedPartition withoutBlock() {
    return new PreparedPartition(null, null, partition, rows, validationRows, numFeatures,
        storedValues, totalWeight, classCounts, classWeightSums, maxWeightByClass,
        maxSquaredNorm, problem);
  }

  private static PreparedPartition failed(int partition, String problem) {
    return new PreparedPartition(null, null, partition, 0, 0, -1, 0, 0.0, new long[0],
        new double[0], new double[0], 0.0, problem);
  }

  private static String checkLabel(double label, Spec spec) {
    if (Double.isNaN(label) || Double.isInfinite(label)) {
      return "labels must be class indices 0, 1, ..., K-1; drop or fix rows with missing labels";
    }
    if (label == -1.0) {
      return "labels must be class indices 0, 1, ..., K-1, and -1 suggests a -1/+1 label set;"
          + " map it to 0/1 first, e.g. dataset.withColumn(\"" + spec.labelCol
          + "\", functions.when(functions.col(\"" + spec.labelCol + "\").equalTo(-1), 0.0)"
          + ".otherwise(1.0))";
    }
    if (label < 0 || label != Math.rint(label)) {
      return "labels must be class indices 0, 1, ..., K-1 (whole numbers >= 0); index other label"
          + " values with org.apache.spark.ml.feature.StringIndexer";
    }
    if (label > spec.maxLabel) {
      return spec.labelsFromMetadata
          ? "the column's metadata declares " + (spec.maxLabel + 1L) + " classes, so labels must"
              + " be 0.." + spec.maxLabel + "; fix the label or its metadata"
          : "more than " + (spec.maxLabel + 1L) + " classes cannot be inferred from label values;"
              + " declare the number of classes in the label column's metadata (StringIndexer"
              + " does) or check the labels";
    }
    return null;
  }

  /** Describes the first NaN or infinite value, or returns {@code null}. */
  private static String checkValues(Vector features) {
    if (features instanceof SparseVector) {
      SparseVector sv = (SparseVector) features;
      double[] v = sv.values();
      for (int k = 0; k < v.length; k++) {
        if (Double.isNaN(v[k]) || Double.isInfinite(v[k])) {
          return v[k] + " at feature index " + sv.indices()[k];
        }
      }
    } else {
      double[] v = ((DenseVector) features).values();
      for (int j = 0; j < v.length; j++) {
        if (Double.isNaN(v[j]) || Double.isInfinite(v[j])) {
          return v[j] + " at feature index " + j;
        }
      }
    }
    return null;
  }
}
