package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.io.SplitReport;
import java.io.Serializable;
import java.util.Arrays;

/**
 * What the driver needs to know of one worker's rows to validate the whole dataset and plan the
 * training: sizes, labels, weights, the largest norm, the first bad row. Gathered while the rows
 * are converted ({@link RowConverter}) and shipped to the driver without the rows: bad rows are
 * reported as data rather than thrown, so that Spark neither retries a deterministic failure nor
 * wraps it in its own stack trace, and the driver raises the earliest problem of the input.
 */
final class PartitionFacts implements Serializable {
  private static final long serialVersionUID = 3L;
  private static final long ROW_INDEX_MASK = (1L << 33) - 1;

  /** The worker (training partition) index. */
  final int worker;
  /** Training rows. */
  final long rows;
  final long validationRows;
  /** Vector size seen in this partition, −1 if it has no rows. */
  final int numFeatures;
  /** The row id ({@link #describeRow}) of the partition's first row, −1 if it has none. */
  final long firstRowId;
  /** Stored values of the training rows (the chunks' own count). */
  final long storedValues;
  /** m: the distinct features of the training rows (the size of the worker's copies). */
  final int workerFeatures;
  /** Σ of the training rows' sample weights. */
  final double totalWeight;
  /** Training rows per class index (length: largest label + 1). */
  final long[] classCounts;
  /**
   * Validation (or held-out calibration) rows of positive weight per class index (length: their
   * largest label + 1): what a calibrator can be fitted on.
   */
  final long[] validationClassCounts;
  /** Σ of the training rows' sample weights per class index (same length). */
  final double[] classWeightSums;
  /** The largest sample weight among the training rows of each class index (same length). */
  final double[] maxWeightByClass;
  /** The largest ‖x‖² of a training row (0 without rows). */
  final double maxSquaredNorm;
  /** Bytes of the training rows' chunks. */
  final long trainingBytes;
  /** Bytes of the validation rows' chunks. */
  final long validationBytes;
  /** Chunks of the training and validation rows. */
  final int chunks;
  /** The first bad row, or {@code null}. */
  final String problem;
  /** The row id of the row {@link #problem} names, or −1. */
  final long problemRowId;
  /**
   * Every worker's total sample weight T_j (in worker order), when this worker read every row of
   * the input ({@code RowConverter#dealtTo}); else {@code null}.
   */
  final double[] workerWeights;
  /** What a one-pass text read found in this worker's lines; null for a DataFrame's rows. */
  final SplitReport textReport;

  /**
   * The counts {@code c} of a conversion whose rows are {@code numFeatures} wide, stored in the
   * chunks {@code training} and {@code validation} (each may be null) holding
   * {@code storedValues} training values; see the fields.
   */
  PartitionFacts(Counts c, int numFeatures, ChunkRows training, ChunkRows validation,
      long storedValues, SplitReport textReport, double[] workerWeights) {
    this.chunks = (training == null ? 0 : training.chunks())
        + (validation == null ? 0 : validation.chunks());
    this.worker = c.worker;
    this.rows = c.rows;
    this.validationRows = c.validationRows;
    this.numFeatures = c.rows + c.validationRows == 0 ? -1 : numFeatures;
    this.firstRowId = c.firstRowId;
    this.storedValues = storedValues;
    this.workerFeatures = training == null ? 0 : training.features() == null
        ? training.width() : training.features().size();
    this.totalWeight = c.totalWeight;
    this.classCounts = c.classCounts;
    this.validationClassCounts = c.validationClassCounts;
    this.classWeightSums = c.classWeightSums;
    this.maxWeightByClass = c.maxWeightByClass;
    this.maxSquaredNorm = c.maxSquaredNorm;
    this.trainingBytes = training == null ? 0 : training.sizeInBytes();
    this.validationBytes = validation == null ? 0 : validation.sizeInBytes();
    this.problem = null;
    this.problemRowId = -1;
    this.textReport = textReport;
    this.workerWeights = workerWeights;
  }

  /** A worker whose rows have {@code problem} (found at row {@code rowId}): no facts. */
  private PartitionFacts(int worker, String problem, long rowId, SplitReport textReport) {
    this.worker = worker;
    this.rows = 0;
    this.validationRows = 0;
    this.numFeatures = -1;
    this.firstRowId = -1;
    this.storedValues = 0;
    this.workerFeatures = 0;
    this.totalWeight = 0.0;
    this.classCounts = new long[0];
    this.validationClassCounts = new long[0];
    this.classWeightSums = new double[0];
    this.maxWeightByClass = new double[0];
    this.maxSquaredNorm = 0.0;
    this.trainingBytes = 0;
    this.validationBytes = 0;
    this.chunks = 0;
    this.problem = problem;
    this.problemRowId = rowId;
    this.textReport = textReport;
    this.workerWeights = null;
  }

  /** These facts at {@code width} features (a text read's rows, once the input's is known). */
  private PartitionFacts(PartitionFacts other, int width) {
    this.worker = other.worker;
    this.rows = other.rows;
    this.validationRows = other.validationRows;
    this.numFeatures = width;
    this.firstRowId = other.firstRowId;
    this.storedValues = other.storedValues;
    this.workerFeatures = other.workerFeatures;
    this.totalWeight = other.totalWeight;
    this.classCounts = other.classCounts;
    this.validationClassCounts = other.validationClassCounts;
    this.classWeightSums = other.classWeightSums;
    this.maxWeightByClass = other.maxWeightByClass;
    this.maxSquaredNorm = other.maxSquaredNorm;
    this.trainingBytes = other.trainingBytes;
    this.validationBytes = other.validationBytes;
    this.chunks = other.chunks;
    this.problem = other.problem;
    this.problemRowId = other.problemRowId;
    this.textReport = other.textReport;
    this.workerWeights = other.workerWeights;
  }

  static PartitionFacts failed(int worker, String problem, long rowId) {
    return new PartitionFacts(worker, problem, rowId, null);
  }

  /** A text read's worker whose lines the reader refused (its report says why). */
  static PartitionFacts refused(int worker, SplitReport report) {
    return new PartitionFacts(worker, null, -1, report);
  }

  PartitionFacts widened(int width) {
    return new PartitionFacts(this, width);
  }

  /** Whether the worker holds rows (training or validation). */
  boolean hasRows() {
    return rows + validationRows > 0;
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

  /**
   * "row r of input partition p" for a row id from {@code monotonically_increasing_id()}, whose
   * upper 31 bits are the input partition and lower 33 bits the row's index in it.
   */
  static String describeRow(long rowId) {
    return "row " + (rowId & ROW_INDEX_MASK) + " of input partition " + (rowId >>> 33);
  }

  /** The message for vectors of two sizes, each named by the first row that has it. */
  static String sizeMismatch(long rowA, int sizeA, long rowB, int sizeB) {
    return "Feature vectors differ in size: " + describeRow(rowA) + " has a vector of size "
        + sizeA + ", " + describeRow(rowB) + " of size " + sizeB
        + "; all feature vectors must have the same size";
  }

  /** The running counts of a conversion. */
  static final class Counts {
    final int worker;
    long rows;
    long validationRows;
    long firstRowId = -1;
    double totalWeight;
    long[] classCounts = new long[0];
    long[] validationClassCounts = new long[0];
    double[] classWeightSums = new double[0];
    double[] maxWeightByClass = new double[0];
    double maxSquaredNorm;

    Counts(int worker) {
      this.worker = worker;
    }

    /**
     * Counts one row (first noting its id); training rows into the class tallies, validation
     * rows into theirs.
     */
    void count(int classIndex, double weight, boolean isValidation, long rowId) {
      if (firstRowId < 0) {
        firstRowId = rowId;
      }
      if (isValidation) {
        validationRows++;
        if (weight > 0) {
          if (classIndex >= validationClassCounts.length) {
            validationClassCounts = java.util.Arrays.copyOf(validationClassCounts,
                classIndex + 1);
          }
          validationClassCounts[classIndex]++;
        }
        return;
      }
      if (classIndex >= classCounts.length) {
        classCounts = Arrays.copyOf(classCounts, classIndex + 1);
        classWeightSums = Arrays.copyOf(classWeightSums, classIndex + 1);
        maxWeightByClass = Arrays.copyOf(maxWeightByClass, classIndex + 1);
      }
      classCounts[classIndex]++;
      classWeightSums[classIndex] += weight;
      maxWeightByClass[classIndex] = Math.max(maxWeightByClass[classIndex], weight);
      totalWeight += weight;
      rows++;
    }
  }
}
