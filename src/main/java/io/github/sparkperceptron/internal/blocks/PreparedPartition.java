package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.io.RowSink;
import io.github.sparkperceptron.internal.io.SplitReport;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;

/**
 * One training partition's rows (one worker's, see {@link WorkerLayout}) converted once into a
 * {@link TrainingBlock} numbered by the worker's own features
 * ({@link TrainingBlockBuilder#buildLocal}: the worker trains on a copy of the weights of that
 * size, see {@link WorkerRound}), with the facts the driver needs to validate the whole dataset
 * (sizes, labels, weights) and the first bad row, if any. Bad rows are reported as data rather
 * than thrown, so that Spark neither retries a deterministic failure nor wraps it in its own
 * stack trace; the driver raises the first problem.
 */
public final class PreparedPartition implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The training rows, numbered by the worker's own features ({@link TrainingBlock#localFeatures});
   * {@code null} when there are none or the partition has a problem.
   */
  public final TrainingBlock block;
  /** The validation rows ({@code validationIndicatorCol} true), or {@code null}. */
  public final TrainingBlock validation;
  /** The worker (training partition) index. */
  final int worker;
  /** Training rows. */
  public final int rows;
  final int validationRows;
  /** Vector size seen in this partition, −1 if it has no rows. */
  public final int numFeatures;
  /** The row id ({@link #describeRow}) of the partition's first row, −1 if it has none. */
  final long firstRowId;
  final long storedValues;
  /** m: the distinct features of the training rows (the size of the worker's copies). */
  final int workerFeatures;
  /** Σ of the training rows' sample weights. */
  final double totalWeight;
  /** Training rows per class index (length: largest label + 1). */
  public final long[] classCounts;
  /** Σ of the training rows' sample weights per class index (same length). */
  final double[] classWeightSums;
  /** The largest sample weight among the training rows of each class index (same length). */
  final double[] maxWeightByClass;
  /** The largest ‖x‖² of a training row (0 without rows). */
  final double maxSquaredNorm;
  /** The first bad row, or {@code null}. */
  public final String problem;
  /**
   * The row id ({@link #describeRow}) of the row {@link #problem} names, or −1: the driver
   * reports the earliest problem of the input, whichever worker found it.
   */
  final long problemRowId;
  /**
   * Every worker's total sample weight T_j (in worker order), when this worker read every row of
   * the input ({@link #dealtTo}); else {@code null}.
   */
  public final double[] workerWeights;
  /**
   * What a one-pass text read ({@link TextInput}) found in this worker's lines, for the driver's
   * verdict; {@code null} for a DataFrame's rows.
   */
  final SplitReport textReport;

  /**
   * A worker's blocks, with the facts {@code facts} gathered while converting its rows, a text
   * read's report and every worker's weight ({@link #dealtTo}), each or both null.
   */
  private PreparedPartition(Converter facts, TrainingBlock block, TrainingBlock validation,
      SplitReport textReport, double[] workerWeights) {
    this.textReport = textReport;
    this.block = block;
    this.validation = validation;
    this.worker = facts.worker;
    this.rows = facts.count;
    this.validationRows = facts.validationCount;
    this.numFeatures = facts.count + facts.validationCount == 0 ? -1 : facts.numFeatures;
    this.firstRowId = facts.firstRowId;
    this.storedValues = block == null ? 0 : block.features().storedValues();
    this.workerFeatures = block == null ? 0 : block.features().numFeatures();
    this.totalWeight = facts.totalWeight;
    this.classCounts = facts.classCounts;
    this.classWeightSums = facts.classWeightSums;
    this.maxWeightByClass = facts.maxWeightByClass;
    this.maxSquaredNorm = facts.maxSquaredNorm;
    this.problem = null;
    this.problemRowId = -1;
    this.workerWeights = workerWeights;
  }

  /** {@code other}'s facts without its blocks. */
  private PreparedPartition(PreparedPartition other) {
    this(other, null, null, other.numFeatures);
  }

  /** {@code other}'s facts with these blocks, of rows {@code numFeatures} wide. */
  private PreparedPartition(PreparedPartition other, TrainingBlock block,
      TrainingBlock validation, int numFeatures) {
    this.textReport = other.textReport;
    this.block = block;
    this.validation = validation;
    this.worker = other.worker;
    this.rows = other.rows;
    this.validationRows = other.validationRows;
    this.numFeatures = numFeatures;
    this.firstRowId = other.firstRowId;
    this.storedValues = block == null ? other.storedValues : block.features().storedValues();
    this.workerFeatures = block == null ? other.workerFeatures : block.features().numFeatures();
    this.totalWeight = other.totalWeight;
    this.classCounts = other.classCounts;
    this.classWeightSums = other.classWeightSums;
    this.maxWeightByClass = other.maxWeightByClass;
    this.maxSquaredNorm = other.maxSquaredNorm;
    this.problem = other.problem;
    this.problemRowId = other.problemRowId;
    this.workerWeights = other.workerWeights;
  }

  /** A worker whose rows have {@code problem} (found at row {@code rowId}): no blocks, no facts. */
  private PreparedPartition(int worker, String problem, long rowId) {
    this.textReport = null;
    this.block = null;
    this.validation = null;
    this.worker = worker;
    this.rows = 0;
    this.validationRows = 0;
    this.numFeatures = -1;
    this.firstRowId = -1;
    this.storedValues = 0;
    this.workerFeatures = 0;
    this.totalWeight = 0.0;
    this.classCounts = new long[0];
    this.classWeightSums = new double[0];
    this.maxWeightByClass = new double[0];
    this.maxSquaredNorm = 0.0;
    this.problem = problem;
    this.problemRowId = rowId;
    this.workerWeights = null;
  }

  /**
   * The partition's total training weight T_i with the class weights applied (the plain total
   * when {@code classWeights} is null). The driver and the tasks compute it with this one method,
   * so their sums agree bit for bit.
   */
  public double trainingWeight(double[] classWeights) {
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
    /** The column of the row ids ({@link #describeRow}): the last one. */
    final int rowIdIndex;

    /**
     * @param expectedFeatures the vector size the features column's metadata declares, or −1
     * @param declaredClasses the classes the label column's metadata declares, or −1
     * @param forTraining whether the training rows are stored in the visit order's layout (else
     *     in input order: data only to be scored)
     */
    Spec(TrainingConfig config, int expectedFeatures, int declaredClasses, boolean forTraining) {
      this.labelCol = config.labelCol;
      this.featuresCol = config.featuresCol;
      this.weightCol = config.weightCol;
      this.validationCol = config.validationCol;
      this.expectedFeatures = expectedFeatures;
      this.maxLabel = (declaredClasses > 0 ? declaredClasses
          : TrainingInput.MAX_INFERRED_CLASSES) - 1;
      this.labelsFromMetadata = declaredClasses > 0;
      this.order = forTraining ? config.visitOrder() : null;
      this.rowIdIndex = 2 + (weightCol.isEmpty() ? 0 : 1) + (validationCol.isEmpty() ? 0 : 1);
    }
  }

  /**
   * Converts the rows (label: double, features: Vector[, weight: double][, validation: boolean],
   * row id: long) of one training partition. Stops at the first bad row.
   */
  static PreparedPartition prepare(int worker, Iterator<Row> rows, Spec spec) {
    Converter converter = new Converter(worker, spec.expectedFeatures);
    while (rows.hasNext()) {
      Row row = rows.next();
      long rowId = row.getLong(spec.rowIdIndex);
      String problem = converter.add(row, rowId, spec);
      if (problem != null) {
        return failed(worker, problem, rowId);
      }
    }
    return converter.finish(spec.order, null, null);
  }

  /**
   * Split layout without a shuffle: reads every row of the input (all input partitions, in
   * order) and converts the rows {@code layout} deals to {@code worker}
   * ({@link WorkerLayout#workerOfRow}), exactly the rows, in the order, that {@link #deal} and
   * {@link #merge} give it; the other workers' rows are only counted: their sample weights are
   * summed row by row in the same order as their own conversion sums them, so that
   * {@link #workerWeights} holds every T_j bit for bit. Stops at the first bad row of its own.
   */
  static PreparedPartition dealtTo(int worker, Iterator<Row> rows, Spec spec,
      WorkerLayout layout) {
    Converter converter = new Converter(worker, spec.expectedFeatures);
    double[] weights = new double[layout.numWorkers];
    boolean weighted = !spec.weightCol.isEmpty();
    while (rows.hasNext()) {
      Row row = rows.next();
      long rowId = row.getLong(spec.rowIdIndex);
      int owner = layout.workerOfRow(rowId);
      if (owner == worker) {
        String problem = converter.add(row, rowId, spec);
        if (problem != null) {
          return failed(worker, problem, rowId);
        }
      } else if (!isValidationRow(row, spec, weighted)) {
        // A bad weight is its owner's to report; it can only make a batch that fails anyway.
        weights[owner] += weighted && !row.isNullAt(2) ? row.getDouble(2) : 1.0;
      }
    }
    PreparedPartition part = converter.finish(spec.order, null, weights);
    weights[worker] = part.totalWeight;
    return part;
  }

  private static boolean isValidationRow(Row row, Spec spec, boolean weighted) {
    int index = weighted ? 3 : 2;
    return !spec.validationCol.isEmpty() && !row.isNullAt(index) && row.getBoolean(index);
  }

  /**
   * Reads worker {@code worker}'s lines of a text input in one pass, each example parsed once and
   * appended to the worker's blocks as it is read, with what the driver's verdict needs
   * ({@link #textReport}). After a problem (which the report names) the blocks are dropped. For
   * a LIBSVM input whose width is not given, the rows are {@link #numFeatures} wide: this
   * worker's largest index + 1, which {@link #widened} brings to the input's.
   */
  static PreparedPartition fromText(int worker, TextInput text, Spec spec) {
    Converter converter = new Converter(worker, text.numFeatures());
    TextRows rows = new TextRows(converter, spec);
    SplitReport report = text.read(worker, rows);
    if (rows.refused || report.isIncomplete()) {
      return new PreparedPartition(new Converter(worker, text.numFeatures()), null, null, report,
          null);
    }
    return converter.finish(spec.order, report, null);
  }

  /**
   * This worker's blocks with rows {@code width} features wide, as converting its rows at that
   * width would have built them ({@link TrainingBlock#widened}).
   */
  PreparedPartition widened(int width) {
    return new PreparedPartition(this, block == null ? null : block.widened(width),
        validation == null ? null : validation.widened(width), width);
  }

  /** The examples of a text read, checked as the engine checks a DataFrame's rows. */
  private static final class TextRows implements RowSink {
    private final Converter converter;
    private final Spec spec;
    /** Whether an example was refused (the blocks are then dropped). */
    boolean refused;

    TextRows(Converter converter, Spec spec) {
      this.converter = converter;
      this.spec = spec;
    }

    @Override
    public String sparse(int classIndex, double weight, int[] indices, double[] values, int nnz) {
      String problem = check(classIndex, weight);
      if (problem == null) {
        converter.appendSparse(classIndex, weight, indices, values, nnz);
      }
      return problem;
    }

    @Override
    public String dense(int classIndex, double weight, double[] values) {
      String problem = check(classIndex, weight);
      if (problem == null) {
        converter.appendDense(classIndex, weight, values);
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

  /**
   * Converts the rows of one input partition into one piece for each of {@code numWorkers}
   * workers: row r goes to worker {@code (firstWorker + r) mod numWorkers}, so each piece keeps
   * its rows in input order. Returns the pieces by worker, empty ones included (every worker
   * must receive a piece from every input partition); on a bad row every piece carries the
   * problem. {@link #merge} joins a worker's pieces.
   */
  static PreparedPartition[] deal(Iterator<Row> rows, Spec spec, int firstWorker,
      int numWorkers) {
    Converter[] pieces = new Converter[numWorkers];
    for (int j = 0; j < numWorkers; j++) {
      pieces[j] = new Converter(j, spec.expectedFeatures);
    }
    String problem = null;
    int next = firstWorker % numWorkers;
    long problemRow = -1;
    while (problem == null && rows.hasNext()) {
      Row row = rows.next();
      problemRow = row.getLong(spec.rowIdIndex);
      problem = pieces[next].add(row, problemRow, spec);
      next = next + 1 == numWorkers ? 0 : next + 1;
    }
    PreparedPartition[] out = new PreparedPartition[numWorkers];
    for (int j = 0; j < numWorkers; j++) {
      out[j] = problem == null ? pieces[j].finishPiece() : failed(j, problem, problemRow);
    }
    return out;
  }

  /**
   * One worker's training partition from its pieces, given in input-partition order: their rows
   * one after the other, counted and summed row by row exactly as {@link #prepare} would, so the
   * result equals converting the concatenated rows directly, bit for bit (the training rows then
   * stored in {@code order}'s layout for the worker, as {@link #prepare} stores them).
   */
  static PreparedPartition merge(int worker, List<PreparedPartition> pieces, VisitOrder order) {
    int numFeatures = -1;
    long featuresFrom = -1;
    for (PreparedPartition piece : pieces) {
      if (piece.problem != null) {
        return failed(worker, piece.problem, piece.problemRowId);
      }
      if (piece.rows + piece.validationRows > 0) {
        if (numFeatures >= 0 && piece.numFeatures != numFeatures) {
          return failed(worker, sizeMismatch(featuresFrom, numFeatures, piece.firstRowId,
              piece.numFeatures), piece.firstRowId);
        }
        if (numFeatures < 0) {
          featuresFrom = piece.firstRowId;
        }
        numFeatures = piece.numFeatures;
      }
    }
    Converter merged = new Converter(worker, numFeatures);
    // Sized by the longest stored row, not by d: a LIBSVM file may name feature 300,000,000 in a
    // row of one entry, and d-long buffers would exhaust memory before the memory check runs.
    int longest = 0;
    for (PreparedPartition piece : pieces) {
      for (TrainingBlock block : new TrainingBlock[] {piece.block, piece.validation}) {
        if (block != null) {
          longest = Math.max(longest, block.features().maxStoredPerRow());
        }
      }
    }
    int[] indices = new int[longest];
    double[] values = new double[longest];
    for (PreparedPartition piece : pieces) {
      merged.appendAll(piece.block, false, piece.firstRowId, indices, values);
      merged.appendAll(piece.validation, true, piece.firstRowId, indices, values);
      // Taken from the pieces, which computed it from the input vectors: a row read back from
      // a block may have lost its explicit zeros, and ‖x‖² summed in another order could differ
      // in the last bit from the one a direct conversion records.
      merged.maxSquaredNorm = Math.max(merged.maxSquaredNorm, piece.maxSquaredNorm);
    }
    return merged.finish(order, null, null);
  }

  /** The message for vectors of two sizes, each named by the first row that has it. */
  static String sizeMismatch(long rowA, int sizeA, long rowB, int sizeB) {
    return "Feature vectors differ in size: " + describeRow(rowA) + " has a vector of size "
        + sizeA + ", " + describeRow(rowB) + " of size " + sizeB
        + "; all feature vectors must have the same size";
  }

  /**
   * "row r of input partition p" for a row id from {@code monotonically_increasing_id()}, whose
   * upper 31 bits are the input partition and lower 33 bits the row's index in it.
   */
  static String describeRow(long rowId) {
    return "row " + (rowId & ROW_INDEX_MASK) + " of input partition " + (rowId >>> 33);
  }

  private static final long ROW_INDEX_MASK = (1L << 33) - 1;

  /** One training partition's blocks and facts, built row by row. */
  private static final class Converter {
    private final int worker;
    private TrainingBlockBuilder train;
    private TrainingBlockBuilder held;
    private int numFeatures;
    private long[] classCounts = new long[0];
    private double[] classWeightSums = new double[0];
    private double[] maxWeightByClass = new double[0];
    private double maxSquaredNorm;
    private double totalWeight;
    private int count;
    private int validationCount;
    private long firstRowId = -1;

    /**
     * {@code numFeatures}: the vector size every row must have, or −1 for the first row's (a
     * Row's vector size; a text read's rows: the largest index + 1, taken when it finishes).
     */
    Converter(int worker, int numFeatures) {
      this.worker = worker;
      this.numFeatures = numFeatures;
    }

    /**
     * Adds a text read's sparse example, already checked (its width included); its row id is
     * its position in this worker.
     */
    void appendSparse(int classIndex, double weight, int[] indices, double[] values, int nnz) {
      TrainingBlockBuilder target = target(classIndex, weight, false, nextRowId());
      maxSquaredNorm = Math.max(maxSquaredNorm, squaredNorm(values, nnz));
      target.addSparse(classIndex, weight, indices, values, nnz);
    }

    /** Adds a text read's dense example of {@link #numFeatures} values, already checked. */
    void appendDense(int classIndex, double weight, double[] values) {
      TrainingBlockBuilder target = target(classIndex, weight, false, nextRowId());
      maxSquaredNorm = Math.max(maxSquaredNorm, squaredNorm(values, values.length));
      target.addDense(classIndex, weight, values);
    }

    /** (worker, index in the worker), in the bit layout of {@link #describeRow}. */
    private long nextRowId() {
      return ((long) worker << 33) | (count + validationCount);
    }

    /** Checks and adds one input row; returns the problem with it, or {@code null}. */
    String add(Row row, long rowId, Spec spec) {
      if (row.isNullAt(0)) {
        return "Column '" + spec.labelCol + "' (labelCol) is null in " + describeRow(rowId)
            + "; drop or fill unlabelled rows first, e.g. dataset.na().drop(new String[] {\""
            + spec.labelCol + "\"})";
      }
      double label = row.getDouble(0);
      String labelProblem = checkLabel(label, spec);
      if (labelProblem != null) {
        return "Column '" + spec.labelCol + "' (labelCol) has " + label + " in "
            + describeRow(rowId) + ": " + labelProblem;
      }

      boolean weighted = !spec.weightCol.isEmpty();
      double weight = 1.0;
      if (weighted) {
        if (row.isNullAt(2)) {
          return "Column '" + spec.weightCol + "' (weightCol) is null in " + describeRow(rowId)
              + "; every row needs a finite weight >= 0 (fill nulls, e.g. with 1.0)";
        }
        weight = row.getDouble(2);
        if (!(weight >= 0) || Double.isInfinite(weight)) {
          return "Column '" + spec.weightCol + "' (weightCol) has " + weight + " in "
              + describeRow(rowId) + "; sample weights must be finite and >= 0";
        }
      }

      boolean isValidation = false;
      if (!spec.validationCol.isEmpty()) {
        int validationIndex = weighted ? 3 : 2;
        if (row.isNullAt(validationIndex)) {
          return "Column '" + spec.validationCol + "' (validationIndicatorCol) is null in "
              + describeRow(rowId) + "; mark every row true (validation) or false (training)";
        }
        isValidation = row.getBoolean(validationIndex);
      }

      if (row.isNullAt(1)) {
        return "Column '" + spec.featuresCol + "' (featuresCol) is null in " + describeRow(rowId)
            + "; every row needs a feature vector (drop such rows or impute them)";
      }
      Vector features = (Vector) row.get(1);
      if (numFeatures < 0) {
        numFeatures = features.size();
      }
      if (features.size() != numFeatures) {
        return "Column '" + spec.featuresCol + "' (featuresCol) holds a vector of size "
            + features.size() + " in " + describeRow(rowId) + ", but "
            + (spec.expectedFeatures >= 0 ? "its metadata declares " : "earlier rows have ")
            + numFeatures + " features; all feature vectors must have the same size";
      }
      String valueProblem = checkValues(features);
      if (valueProblem != null) {
        return "Column '" + spec.featuresCol + "' (featuresCol) has " + valueProblem + " in "
            + describeRow(rowId) + "; replace missing or infinite values first (e.g. with"
            + " org.apache.spark.ml.feature.Imputer) or drop those rows";
      }

      int classIndex = (int) label;
      TrainingBlockBuilder target = target(classIndex, weight, isValidation, rowId);
      if (!isValidation) {
        maxSquaredNorm = Math.max(maxSquaredNorm, squaredNorm(features));
      }
      if (features instanceof SparseVector) {
        SparseVector sv = (SparseVector) features;
        target.addSparse(classIndex, weight, sv.indices(), sv.values(), sv.indices().length);
      } else {
        target.addDense(classIndex, weight, ((DenseVector) features).values());
      }
      return null;
    }

    /** Appends every row of {@code block} (may be null), read back from its stored entries. */
    void appendAll(TrainingBlock block, boolean isValidation, long blockFirstRowId,
        int[] indices, double[] values) {
      if (block == null) {
        return;
      }
      for (int r = 0; r < block.numRows(); r++) {
        int classIndex = block.label(r);
        double weight = block.weight(r);
        int length = block.features().copyRow(r, indices, values);
        target(classIndex, weight, isValidation, blockFirstRowId)
            .addSparse(classIndex, weight, indices, values, length);
      }
    }

    /** Counts the row and returns the builder it goes to. */
    private TrainingBlockBuilder target(int classIndex, double weight, boolean isValidation,
        long rowId) {
      if (firstRowId < 0) {
        firstRowId = rowId;
      }
      if (isValidation) {
        if (held == null) {
          held = new TrainingBlockBuilder(Math.max(numFeatures, 0));
        }
        validationCount++;
        return held;
      }
      if (train == null) {
        train = new TrainingBlockBuilder(Math.max(numFeatures, 0));
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
      count++;
      return train;
    }

    /**
     * A piece of a worker's partition ({@link #deal}): its rows in the input order and the
     * model's feature numbers, as {@link #merge} reads them back.
     */
    PreparedPartition finishPiece() {
      TrainingBlock block = train == null ? null : train.build();
      TrainingBlock validation = held == null ? null : held.build();
      return new PreparedPartition(this, block, validation, null, null);
    }

    /**
     * The worker's partition: its training rows stored in {@code order}'s layout for the worker
     * and numbered by its own features; validation rows keep the input order and the model's
     * feature numbers (the driver's model scores them); with a text read's report and every
     * worker's weight ({@link #dealtTo}), each or both null.
     */
    PreparedPartition finish(VisitOrder order, SplitReport report, double[] workerWeights) {
      if (numFeatures < 0) {
        // A text read's rows: as wide as this worker's largest index + 1 (widened later).
        numFeatures = 1 + Math.max(train == null ? -1 : train.maxIndex(),
            held == null ? -1 : held.maxIndex());
        for (TrainingBlockBuilder b : new TrainingBlockBuilder[] {train, held}) {
          if (b != null) {
            b.setNumFeatures(numFeatures);
          }
        }
      }
      TrainingBlock block = train == null ? null
          // Rows only to be scored (no visit order) keep the input order and the model's numbers.
          : order == null ? train.build()
          : train.buildLocal(order.layout(worker, train.numRows()));
      TrainingBlock validation = held == null ? null : held.build();
      return new PreparedPartition(this, block, validation, report, workerWeights);
    }
  }

  /** The facts alone, for shipping to the driver. */
  public PreparedPartition withoutBlock() {
    return new PreparedPartition(this);
  }

  private static PreparedPartition failed(int worker, String problem, long rowId) {
    return new PreparedPartition(worker, problem, rowId);
  }

  private static double squaredNorm(Vector features) {
    double[] v = features instanceof SparseVector ? ((SparseVector) features).values()
        : ((DenseVector) features).values();
    return squaredNorm(v, v.length);
  }

  /** Σ x² over the first n values, in order (explicit zeros included, as a vector holds them). */
  private static double squaredNorm(double[] v, int n) {
    double sum = 0.0;
    for (int k = 0; k < n; k++) {
      sum += v[k] * v[k];
    }
    return sum;
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
