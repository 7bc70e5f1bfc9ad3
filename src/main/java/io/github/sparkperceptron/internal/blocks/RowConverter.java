package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.io.RowSink;
import io.github.sparkperceptron.internal.io.SplitReport;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.util.Iterator;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;

/**
 * Converts one worker's rows, as they arrive, into its chunks ({@link ChunkWriter}: training
 * rows and validation rows apart; the calibration rows a training holds out go with the
 * validation rows, {@link ConversionSpec#calibrationRows}) and its facts ({@link PartitionFacts}),
 * checking every row on the way: label, weight, validation mark, vector size and values. Stops at
 * the first bad row,
 * which the facts then name. A DataFrame's rows come as Spark {@code Row}s (label, features[,
 * weight][, validation], row id); a text read's examples through {@link RowSink}, already
 * parsed.
 */
final class RowConverter {
  private final ConversionSpec spec;
  private final int worker;
  private final Writers writers;
  final PartitionFacts.Counts counts;
  private ChunkWriter training;
  private ChunkWriter validation;
  /** The vector size every row must have, −1 until the first row (a text read: at the end). */
  private int numFeatures;

  /**
   * @param numFeatures the vector size every row must have, or −1 for the first row's (a Row's
   *     vector size; a text read's rows: the largest index + 1, taken when it finishes)
   */
  RowConverter(ConversionSpec spec, int worker, int numFeatures) {
    this(spec, worker, numFeatures, new Writers() {
      @Override
      public ChunkWriter training(int width) {
        return spec.trainingWriter(worker, width);
      }

      @Override
      public ChunkWriter validation(int width) {
        return spec.validationWriter(worker, width);
      }
    });
  }

  RowConverter(ConversionSpec spec, int worker, int numFeatures, Writers writers) {
    this.spec = spec;
    this.worker = worker;
    this.counts = new PartitionFacts.Counts(worker);
    this.numFeatures = numFeatures;
    this.writers = writers;
  }

  /** Where the rows go: the worker's chunks, or pieces for a shuffle ({@link Pieces}). */
  interface Writers {
    ChunkWriter training(int width);

    ChunkWriter validation(int width);
  }

  /** The vector size of the rows so far, or −1. */
  int numFeatures() {
    return numFeatures;
  }

  /**
   * Converts the rows of one worker (a training partition); stops at the first bad row.
   */
  static WorkerBlocks prepare(int worker, Iterator<Row> rows, ConversionSpec spec) {
    RowConverter converter = new RowConverter(spec, worker, spec.expectedFeatures);
    while (rows.hasNext()) {
      Row row = rows.next();
      long rowId = row.getLong(spec.rowIdIndex);
      String problem = converter.add(row, rowId);
      if (problem != null) {
        return converter.failed(problem, rowId);
      }
    }
    return converter.finish(null, null);
  }

  /**
   * Split layout without a shuffle: reads every row of the input (all input partitions, in
   * order) and converts the rows {@code layout} deals to {@code worker}
   * ({@link WorkerLayout#workerOfRow}), exactly the rows, in the order, that a dealt and merged
   * conversion gives it; the other workers' rows are only counted: their sample weights are
   * summed row by row in the same order as their own conversion sums them, so that
   * {@link PartitionFacts#workerWeights} holds every T_j bit for bit. Stops at the first bad row
   * of its own.
   */
  static WorkerBlocks dealtTo(int worker, Iterator<Row> rows, ConversionSpec spec,
      WorkerLayout layout) {
    RowConverter converter = new RowConverter(spec, worker, spec.expectedFeatures);
    double[] weights = new double[layout.numWorkers];
    boolean weighted = !spec.weightCol.isEmpty();
    while (rows.hasNext()) {
      Row row = rows.next();
      long rowId = row.getLong(spec.rowIdIndex);
      int owner = layout.workerOfRow(rowId);
      if (owner == worker) {
        String problem = converter.add(row, rowId);
        if (problem != null) {
          return converter.failed(problem, rowId);
        }
      } else if (!isValidationRow(row, spec, weighted) && !isHeldOut(row, spec)) {
        // A bad weight is its owner's to report; it can only make a batch that fails anyway.
        weights[owner] += weighted && !row.isNullAt(2) ? row.getDouble(2) : 1.0;
      }
    }
    weights[worker] = converter.counts.totalWeight;
    return converter.finish(null, weights);
  }

  private static boolean isValidationRow(Row row, ConversionSpec spec, boolean weighted) {
    int index = weighted ? 3 : 2;
    return !spec.validationCol.isEmpty() && !row.isNullAt(index) && row.getBoolean(index);
  }

  /**
   * Whether another worker's row is a held-out calibration row (a bad row is its owner's to
   * report: it is taken as a training row here, which only matters to a batch that fails).
   */
  private static boolean isHeldOut(Row row, ConversionSpec spec) {
    if (!spec.calibrationRows.isActive() || row.isNullAt(0) || row.isNullAt(1)) {
      return false;
    }
    return holds(spec, (int) row.getDouble(0), (Vector) row.get(1));
  }

  /** Whether {@code spec} holds the row of class {@code classIndex} out as a calibration row. */
  private static boolean holds(ConversionSpec spec, int classIndex, Vector features) {
    if (features instanceof SparseVector) {
      SparseVector sv = (SparseVector) features;
      return spec.calibrationRows.holdsSparse(classIndex, sv.indices(), sv.values(),
          sv.indices().length);
    }
    return spec.calibrationRows.holdsDense(classIndex, ((DenseVector) features).values());
  }

  /**
   * Reads worker {@code worker}'s lines of a text input in one pass, each example parsed once and
   * appended to the worker's chunks as it is read, with what the driver's verdict needs (the
   * read's report). After a problem (which the report names) the chunks are dropped. For a LIBSVM
   * input whose width is not given, the rows are as wide as this worker's largest index + 1,
   * which the driver brings to the input's ({@link WorkerBlocks#widened}).
   */
  static WorkerBlocks fromText(int worker, TextInput text, ConversionSpec spec) {
    RowConverter converter = new RowConverter(spec, worker, text.numFeatures());
    TextRows rows = converter.new TextRows();
    SplitReport report = text.read(worker, rows);
    if (rows.refused || report.isIncomplete()) {
      return WorkerBlocks.refused(worker, report);
    }
    return converter.finish(report, null);
  }

  /** The examples of a text read, checked as the engine checks a DataFrame's rows. */
  private final class TextRows implements RowSink {
    /** Whether an example was refused (the chunks are then dropped). */
    boolean refused;

    @Override
    public String sparse(int classIndex, double weight, int[] indices, double[] values, int nnz) {
      String problem = check(classIndex, weight);
      if (problem == null) {
        boolean held = spec.calibrationRows.holdsSparse(classIndex, indices, values, nnz);
        counts.count(classIndex, weight, held, nextRowId());
        if (held) {
          validation().addSparse(classIndex, weight, indices, values, nnz);
        } else {
          counts.maxSquaredNorm = Math.max(counts.maxSquaredNorm, squaredNorm(values, nnz));
          training().addSparse(classIndex, weight, indices, values, nnz);
        }
      }
      return problem;
    }

    @Override
    public String dense(int classIndex, double weight, double[] values) {
      String problem = check(classIndex, weight);
      if (problem == null) {
        boolean held = spec.calibrationRows.holdsDense(classIndex, values);
        counts.count(classIndex, weight, held, nextRowId());
        if (held) {
          validation().addDense(classIndex, weight, values);
        } else {
          counts.maxSquaredNorm = Math.max(counts.maxSquaredNorm,
              squaredNorm(values, values.length));
          training().addDense(classIndex, weight, values);
        }
      }
      return problem;
    }

    /** Why the engine cannot take the example (said after the reader's file:line), or null. */
    private String check(int classIndex, double weight) {
      if (classIndex > spec.maxLabel) {
        refused = true;
        return "label " + classIndex + ": more than " + (spec.maxLabel + 1L) + " classes cannot"
            + " be inferred from label values; labels must be class indices 0, 1, ..., K-1";
      }
      if (!(weight >= 0) || Double.isInfinite(weight)) {
        refused = true;
        return "Column '" + spec.weightCol + "' (weightCol) has " + weight
            + "; sample weights must be finite and >= 0";
      }
      return null;
    }
  }

  /** (worker, index in the worker), in the bit layout of {@link PartitionFacts#describeRow}. */
  private long nextRowId() {
    return ((long) worker << 33) | (counts.rows + counts.validationRows);
  }

  private ChunkWriter training() {
    if (training == null) {
      training = writers.training(numFeatures);
    }
    return training;
  }

  private ChunkWriter validation() {
    if (validation == null) {
      validation = writers.validation(numFeatures);
    }
    return validation;
  }

  /** Checks and adds one input row; returns the problem with it, or {@code null}. */
  String add(Row row, long rowId) {
    if (row.isNullAt(0)) {
      return "Column '" + spec.labelCol + "' (labelCol) is null in "
          + PartitionFacts.describeRow(rowId) + "; drop or fill unlabelled rows first, e.g."
          + " dataset.na().drop(new String[] {\"" + spec.labelCol + "\"})";
    }
    double label = row.getDouble(0);
    String labelProblem = checkLabel(label);
    if (labelProblem != null) {
      return "Column '" + spec.labelCol + "' (labelCol) has " + label + " in "
          + PartitionFacts.describeRow(rowId) + ": " + labelProblem;
    }

    boolean weighted = !spec.weightCol.isEmpty();
    double weight = 1.0;
    if (weighted) {
      if (row.isNullAt(2)) {
        return "Column '" + spec.weightCol + "' (weightCol) is null in "
            + PartitionFacts.describeRow(rowId) + "; every row needs a finite weight >= 0 (fill"
            + " nulls, e.g. with 1.0)";
      }
      weight = row.getDouble(2);
      if (!(weight >= 0) || Double.isInfinite(weight)) {
        return "Column '" + spec.weightCol + "' (weightCol) has " + weight + " in "
            + PartitionFacts.describeRow(rowId) + "; sample weights must be finite and >= 0";
      }
    }

    boolean isValidation = false;
    if (!spec.validationCol.isEmpty()) {
      int validationIndex = weighted ? 3 : 2;
      if (row.isNullAt(validationIndex)) {
        return "Column '" + spec.validationCol + "' (validationIndicatorCol) is null in "
            + PartitionFacts.describeRow(rowId) + "; mark every row true (validation) or false"
            + " (training)";
      }
      isValidation = row.getBoolean(validationIndex);
    }

    if (row.isNullAt(1)) {
      return "Column '" + spec.featuresCol + "' (featuresCol) is null in "
          + PartitionFacts.describeRow(rowId) + "; every row needs a feature vector (drop such"
          + " rows or impute them)";
    }
    Vector features = (Vector) row.get(1);
    if (numFeatures < 0) {
      numFeatures = features.size();
    }
    if (features.size() != numFeatures) {
      return "Column '" + spec.featuresCol + "' (featuresCol) holds a vector of size "
          + features.size() + " in " + PartitionFacts.describeRow(rowId) + ", but "
          + (spec.expectedFeatures >= 0 ? "its metadata declares " : "earlier rows have ")
          + numFeatures + " features; all feature vectors must have the same size";
    }
    String valueProblem = checkValues(features);
    if (valueProblem != null) {
      return "Column '" + spec.featuresCol + "' (featuresCol) has " + valueProblem + " in "
          + PartitionFacts.describeRow(rowId) + "; replace missing or infinite values first"
          + " (e.g. with org.apache.spark.ml.feature.Imputer) or drop those rows";
    }

    int classIndex = (int) label;
    // Without validation rows, a training may hold rows out to calibrate on (never trained on).
    isValidation = isValidation || holds(spec, classIndex, features);
    counts.count(classIndex, weight, isValidation, rowId);
    ChunkWriter target = isValidation ? validation() : training();
    if (!isValidation) {
      counts.maxSquaredNorm = Math.max(counts.maxSquaredNorm, squaredNorm(features));
    }
    if (features instanceof SparseVector) {
      SparseVector sv = (SparseVector) features;
      target.addSparse(classIndex, weight, sv.indices(), sv.values(), sv.indices().length);
    } else {
      target.addDense(classIndex, weight, ((DenseVector) features).values());
    }
    return null;
  }

  /**
   * Appends the rows of a piece of this worker's partition (rows another task converted from
   * one input partition, {@link Pieces}), counted exactly as converting them here would count
   * them; the piece's largest ‖x‖² is taken from the piece, which computed it from the input
   * vectors (a row read back from a block may have lost its explicit zeros).
   */
  void append(Pieces.Piece piece, int[] indices, double[] values) {
    if (numFeatures < 0 && piece.numFeatures >= 0) {
      numFeatures = piece.numFeatures;
    }
    appendAll(piece.rows, piece.validation, piece.firstRowId, indices, values);
    counts.maxSquaredNorm = Math.max(counts.maxSquaredNorm, piece.maxSquaredNorm);
  }

  /** Closes the writers of a piece converter: their last chunks go to the sinks. */
  void flush() {
    if (training != null) {
      training.finish(numFeatures);
    }
    if (validation != null) {
      validation.finish(numFeatures);
    }
  }

  private void appendAll(TrainingBlock block,
      boolean isValidation, long firstRowId, int[] indices, double[] values) {
    if (block == null) {
      return;
    }
    ChunkWriter target = isValidation ? validation() : training();
    for (int r = 0; r < block.numRows(); r++) {
      int classIndex = block.label(r);
      double weight = block.weight(r);
      int length = block.features().copyRow(r, indices, values);
      counts.count(classIndex, weight, isValidation, firstRowId);
      target.addSparse(classIndex, weight, indices, values, length);
    }
  }

  /** The worker's blocks with a problem: its chunks are of no use. */
  WorkerBlocks failed(String problem, long rowId) {
    return WorkerBlocks.failed(worker, problem, rowId);
  }

  /**
   * The worker's blocks: its training rows stored in the visit order's layout and numbered by
   * its own features (see {@link ChunkWriter}); validation rows keep the input order and the
   * model's feature numbers (the driver's model scores them); with a text read's report and
   * every worker's weight (a deal without a shuffle), each or both null.
   */
  WorkerBlocks finish(SplitReport report, double[] workerWeights) {
    if (numFeatures < 0) {
      // A text read's rows: as wide as this worker's largest index + 1 (widened later).
      numFeatures = 1 + Math.max(training == null ? -1 : training.maxIndex(),
          validation == null ? -1 : validation.maxIndex());
    }
    ChunkRows train = training == null ? null : training.finish(numFeatures);
    ChunkRows held = validation == null ? null : validation.finish(numFeatures);
    long stored = training == null ? 0 : training.storedValues();
    PartitionFacts facts = new PartitionFacts(counts, numFeatures, train, held, stored, report,
        workerWeights);
    return new WorkerBlocks(facts, train, held);
  }

  /** Σ x² over the values of a vector, in order (explicit zeros included, as it holds them). */
  private static double squaredNorm(Vector features) {
    double[] v = features instanceof SparseVector ? ((SparseVector) features).values()
        : ((DenseVector) features).values();
    return squaredNorm(v, v.length);
  }

  /** Σ x² over the first n values, in order. */
  private static double squaredNorm(double[] v, int n) {
    double sum = 0.0;
    for (int k = 0; k < n; k++) {
      sum += v[k] * v[k];
    }
    return sum;
  }

  private String checkLabel(double label) {
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
