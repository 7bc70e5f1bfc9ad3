package io.github.sparkperceptron.internal.blocks;


import io.github.sparkperceptron.internal.calibration.CalibrationRows;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.plan.DataFacts;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training data of one {@code fit}: the input's partitions laid out over the workers
 * ({@link WorkerLayout}), every worker's rows converted once into chunks of at most a few MiB,
 * each a Spark block of its own at the training's storage level (default MEMORY_AND_DISK: what
 * does not fit in memory is spilled chunk by chunk), its training rows stored in the layout of
 * the {@link VisitOrder}, validated as a whole, and released by {@link #close()}. Spark caches
 * one small element per worker ({@link WorkerBlocks}: the facts and where the chunks are); the
 * tasks read the chunks window by window ({@link WorkerEpoch}).
 */
public final class TrainingInput implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingInput.class);

  /** The name of the cached training blocks (in Spark's UI, under Storage). */
  public static final String BLOCKS_NAME = "spark-perceptron training blocks";

  /**
   * The converted size (chunk bytes, at the largest worker's size times the workers) up to which
   * the input's rows are kept in memory while they are converted again for a cross-fitted
   * calibrator ({@link #read}): a few times this in row objects is nothing beside an executor.
   */
  static final long SOURCE_CACHE_BYTES = 8L << 20;

  /** Without label metadata, at most this many classes are inferred from the largest label. */
  static final int MAX_INFERRED_CLASSES = 10_000;

  /**
   * The workers' blocks, one element per worker (training partition) in worker order, as the
   * training's tasks read them: each able to rebuild its chunks in the task
   * ({@link WorkerBlocksRdd#handed}).
   */
  public final JavaRDD<WorkerBlocks> blocks;
  /** The cached elements the blocks are read from. */
  private final WorkerBlocksRdd<?> cached;
  /** Where the chunks are (removed by {@link #close()}). */
  private final ConversionSpec spec;
  /** The number of workers: training partitions, one perceptron each. */
  public final int numWorkers;
  /** How the input's partitions were laid out over the workers. */
  public final WorkerLayout layout;
  public final int numFeatures;
  public final int numClasses;
  /** Training rows (validation rows excluded). */
  public final long numRows;
  /** Validation rows, or the calibration rows held out of training (then no validation rows). */
  final long validationRows;
  /** Validation (or held-out) rows of positive weight per class index. */
  private final long[] validationClassCounts;
  public final long storedValues;
  /** The largest worker's distinct features m: what its working copies hold (WorkerRound). */
  public final int workerFeatures;
  public final double totalWeight;
  /** Training rows per class, length {@link #numClasses}. */
  public final long[] classCounts;
  /** Σ of the training rows' sample weights per class, length {@link #numClasses}. */
  final double[] classWeightSums;
  /** The largest sample weight of a training row, per class (length {@link #numClasses}). */
  public final double[] maxWeightByClass;
  /** The largest ‖x‖² of a training row. */
  public final double maxSquaredNorm;
  /** Training rows per worker, in worker order. */
  final long[] workerRows;
  /** The largest worker's training rows' bytes in chunks. */
  public final long workerBytes;
  /** Each worker's facts, in worker order. */
  private final List<PartitionFacts> facts;
  /** How reading mapped the labels (e.g. "labels -1/+1 mapped to 0/1"), or "". */
  String labelNote = "";
  /** The plan the training rows were laid out by; null for data only to be scored. */
  private final TrainingPlan plan;
  /** What was converted, to convert it again ({@link #withCalibrationRows}); set by read. */
  private Source source;
  /**
   * Why the training holds no calibration rows out although it was asked to (too few of some
   * class: {@link CalibrationRows#shortfall}), or null.
   */
  private String calibrationFallback;
  /**
   * Whether closing this input removes its source's cached rows ({@link Conversion#cacheSource}),
   * which the inputs converted again from it (the fold models') read meanwhile.
   */
  private boolean releasesSource;

  private TrainingInput(Cached cache, WorkerLayout layout, List<PartitionFacts> facts,
      int numFeatures, int numClasses, TrainingPlan plan) {
    this.cached = cache.rdd;
    this.spec = cache.spec;
    this.blocks = JavaRDD.fromRDD(cache.rdd.handed(cache.view), WorkerBlocksRdd.TAG);
    this.plan = plan;
    this.layout = layout;
    this.numWorkers = facts.size();
    this.numFeatures = numFeatures;
    this.numClasses = numClasses;
    long rows = 0;
    long heldOut = 0;
    long stored = 0;
    int features = 0;
    double weight = 0.0;
    long[] counts = new long[numClasses];
    long[] heldCounts = new long[0];
    double[] weightSums = new double[numClasses];
    long[] perWorker = new long[facts.size()];
    double[] maxWeights = new double[numClasses];
    double maxNorm = 0.0;
    long bytes = 0;
    for (PartitionFacts f : facts) {
      bytes = Math.max(bytes, f.trainingBytes);
      maxNorm = Math.max(maxNorm, f.maxSquaredNorm);
      for (int k = 0; k < f.maxWeightByClass.length; k++) {
        maxWeights[k] = Math.max(maxWeights[k], f.maxWeightByClass[k]);
      }
      rows += f.rows;
      heldOut += f.validationRows;
      stored += f.storedValues;
      features = Math.max(features, f.workerFeatures);
      weight += f.totalWeight;
      perWorker[f.worker] = f.rows;
      for (int k = 0; k < f.classCounts.length; k++) {
        counts[k] += f.classCounts[k];
        weightSums[k] += f.classWeightSums[k];
      }
      if (f.validationClassCounts.length > heldCounts.length) {
        heldCounts = Arrays.copyOf(heldCounts, f.validationClassCounts.length);
      }
      for (int k = 0; k < f.validationClassCounts.length; k++) {
        heldCounts[k] += f.validationClassCounts[k];
      }
    }
    this.validationClassCounts = heldCounts;
    this.facts = facts;
    this.numRows = rows;
    this.validationRows = heldOut;
    this.classWeightSums = weightSums;
    this.storedValues = stored;
    this.workerFeatures = features;
    this.totalWeight = weight;
    this.classCounts = counts;
    this.workerRows = perWorker;
    this.maxWeightByClass = maxWeights;
    this.maxSquaredNorm = maxNorm;
    this.workerBytes = bytes;
  }

  /** The cached elements of a conversion, how the tasks see them, and where the chunks are. */
  static final class Cached {
    final WorkerBlocksRdd<?> rdd;
    final WorkerBlocksRdd.View view;
    final ConversionSpec spec;

    Cached(WorkerBlocksRdd<?> rdd, WorkerBlocksRdd.View view, ConversionSpec spec) {
      this.rdd = rdd;
      this.view = view;
      this.spec = spec;
    }
  }

  /**
   * Lays {@code dataset} out over the workers of {@code plan}, each worker's training rows stored
   * in the layout of the configuration's {@link VisitOrder} ({@link VisitOrder#layout}), converts
   * and validates it; throws {@link IllegalArgumentException} naming the first problem (schema,
   * then rows in input order, then dataset-wide facts).
   */
  public static TrainingInput prepare(Dataset<?> dataset, TrainingPlan plan) {
    Conversion conversion = Conversion.ofRows(dataset, plan);
    conversion.logLayout();
    return read(conversion, false, BLOCKS_NAME);
  }

  /** What a conversion read, to read it again. */
  private static final class Source {
    final Conversion conversion;
    final boolean withoutShuffle;
    final String name;

    Source(Conversion conversion, boolean withoutShuffle, String name) {
      this.conversion = conversion;
      this.withoutShuffle = withoutShuffle;
      this.name = name;
    }
  }

  /**
   * Converts every worker's rows into cached chunks (one job) and validates the facts; on a
   * problem the chunks are released and the problem raised. When the training holds a share of
   * the rows out to calibrate on and those hold too few rows of some class
   * ({@link CalibrationRows#shortfall}), the rows are converted again with none held out (small
   * data: a small job), and the input says why ({@link #calibrationFallback()}).
   */
  private static TrainingInput read(Conversion conversion, boolean withoutShuffle,
      String name) {
    TrainingInput input = readOnce(new Source(conversion, withoutShuffle, name));
    CalibrationRows held = input.spec.calibrationRows;
    if (!held.isHeldOutShare()) {
      return input;
    }
    String shortfall = CalibrationRows.shortfall(input.classCounts, input.validationClassCounts);
    if (shortfall == null && !(input.totalWeight > 0)) {
      shortfall = "every training row's weight is 0";
    }
    if (shortfall == null) {
      return input;
    }
    LOG.info("{}: converting the rows again, every one a training row (the calibrator is"
        + " cross-fitted after training)", shortfall);
    // The rows are read four times more (here, then for each of the fold models): small ones
    // are kept in memory meanwhile rather than read and parsed from the source each time.
    boolean cachedSource = input.workerBytes * input.numWorkers <= SOURCE_CACHE_BYTES
        && conversion.cacheSource();
    input.close();
    TrainingInput all;
    try {
      all = input.withEveryRow();
    } catch (RuntimeException e) {
      if (cachedSource) {
        conversion.releaseSource();
      }
      throw e;
    }
    all.calibrationFallback = shortfall;
    all.releasesSource = cachedSource;
    return all;
  }

  private static TrainingInput readOnce(Source source) {
    Conversion conversion = source.conversion;
    WorkerBlocksRdd<?> converted = conversion.convert(source.withoutShuffle);
    converted.setName(source.name);
    converted.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<WorkerBlocks> parts = PartitionJob.collect(converted,
          (worker, blocks) -> Collections.singletonList(blocks.next().factsOnly()).iterator());
      TrainingInput input = conversion.validate(converted, parts, false);
      input.source = source;
      return input;
    } catch (RuntimeException e) {
      converted.unpersist(false);
      conversion.release();
      throw e;
    }
  }

  /**
   * The same training data converted again (one job over the input) with every row a training
   * row: same workers, layout and plan. The caller closes it.
   */
  private TrainingInput withEveryRow() {
    return again(CalibrationRows.NONE, plan);
  }

  /**
   * The training data of fold model {@code fold} of a {@code folds}-fold cross-fitting: the
   * same rows converted again (one job over the input), the rows of that fold
   * ({@link CalibrationRows#fold}) stored apart as calibration rows, scored, never trained on,
   * the others the training rows; same workers and layout, a plan that writes no checkpoints.
   * The caller closes it.
   */
  public TrainingInput crossFitFold(int fold, int folds, long seed) {
    return again(CalibrationRows.fold(fold, folds, seed), plan.withoutCheckpoints());
  }

  private TrainingInput again(CalibrationRows rows, TrainingPlan forPlan) {
    if (source == null) {
      throw new IllegalStateException("these blocks cannot be converted again");
    }
    return readOnce(new Source(source.conversion.withCalibrationRows(rows, forPlan),
        source.withoutShuffle, source.name));
  }

  /**
   * Whether an evaluation of these data scores their held-out rows too: the rows held out of
   * training to calibrate on are rows of the data as read, which an evaluation of the same rows
   * as a DataFrame counts; validation rows (validationIndicatorCol) are the user's own split and
   * stay out, as they do from a DataFrame's training rows.
   */
  public boolean evaluatesHeldOutRows() {
    return spec.calibrationRows.isHeldOutShare();
  }

  /** The rows held out of training to calibrate on ({@link CalibrationRows#NONE}: none). */
  public CalibrationRows calibrationRows() {
    return spec.calibrationRows;
  }

  /**
   * Why the training holds no calibration rows out although the plan asked for a held-out share
   * (too few rows of some class), or null.
   */
  public String calibrationFallback() {
    return calibrationFallback;
  }

  /**
   * Validation rows (validationIndicatorCol), or the calibration rows held out of training
   * ({@link #calibrationRows()}).
   */
  public long validationRows() {
    return validationRows;
  }

  /** The validation or held-out calibration rows of positive weight, per class index. */
  public long[] validationClassCounts() {
    return validationClassCounts.clone();
  }

  /**
   * Why Spark would refuse a barrier stage over the cached blocks (their RDD chain), or null.
   */
  public String barrierChainProblem() {
    return BarrierChain.problem(blocks.rdd(), numWorkers);
  }

  /**
   * The training blocks of a text input read in one pass, planned for {@code plan}'s workers: each
   * worker parses its lines straight into its block (no DataFrame, no shuffle), its training rows
   * stored in the layout of the configuration's visit order as {@link #prepare} stores them, and
   * the driver raises the first problem of the reading ({@link TextInput#verdict}: file:line
   * messages) or of the rows, before anything is learned. For the same rows in the same workers
   * the blocks are those {@link #prepare} builds from a DataFrame, bit for bit.
   */
  public static TrainingInput fromText(JavaSparkContext jsc, TextInput text, TrainingPlan plan) {
    return read(Conversion.ofText(jsc, text, plan.config(), plan), true, BLOCKS_NAME);
  }

  /**
   * The blocks of a text input read in one pass only to be scored, in input order, by the workers
   * {@code text} was planned for; {@code config} names the columns.
   */
  public static TrainingInput forScoring(JavaSparkContext jsc, TextInput text,
      TrainingConfig config) {
    return read(Conversion.ofText(jsc, text, config, null), true, EVALUATION_BLOCKS_NAME);
  }

  /** The name of cached blocks of data that are only scored (in Spark's UI, under Storage). */
  public static final String EVALUATION_BLOCKS_NAME = "spark-perceptron evaluation blocks";

  static TrainingInput validate(Cached cache, WorkerLayout layout,
      List<PartitionFacts> facts, int declaredClasses, String validationCol,
      boolean nothingToLearnIsFine, TrainingPlan plan) {
    int numFeatures = -1;
    long featuresFrom = -1;
    int maxLabel = -1;
    long rows = 0;
    long heldOut = 0;
    double weight = 0.0;
    PartitionFacts earliest = null;
    for (PartitionFacts f : facts) {
      if (f.problem != null && (earliest == null
          || Long.compareUnsigned(f.problemRowId, earliest.problemRowId) < 0)) {
        earliest = f;
      }
    }
    if (earliest != null) {
      // Rows are checked where they are converted; the earliest bad row of the input is named,
      // whichever worker converted it.
      throw new IllegalArgumentException(earliest.problem);
    }
    for (PartitionFacts f : facts) {
      heldOut += f.validationRows;
      if (f.hasRows()) {
        if (numFeatures >= 0 && f.numFeatures != numFeatures) {
          throw new IllegalArgumentException(PartitionFacts.sizeMismatch(featuresFrom,
              numFeatures, f.firstRowId, f.numFeatures));
        }
        numFeatures = f.numFeatures;
        featuresFrom = f.firstRowId;
        maxLabel = Math.max(maxLabel, f.classCounts.length - 1);
      }
      rows += f.rows;
      weight += f.totalWeight;
    }
    if (nothingToLearnIsFine && (rows == 0 || !(weight > 0))) {
      int numClasses = declaredClasses > 0 ? declaredClasses : Math.max(2, maxLabel + 1);
      return new TrainingInput(cache, layout, facts, numFeatures, Math.max(2, numClasses),
          plan);
    }
    if (rows + heldOut == 0) {
      throw new IllegalArgumentException("The training dataset is empty (0 rows); check the"
          + " input path and any filter applied before fit()");
    }
    // Rows held out to calibrate on may leave too few to train on; the caller converts again.
    boolean heldOutCalibration = cache.spec.calibrationRows.isActive();
    if (rows == 0 && !heldOutCalibration) {
      throw new IllegalArgumentException("Column '" + validationCol + "' (validationIndicatorCol)"
          + " marks all " + heldOut + " rows as validation rows, which leaves none to train on");
    }
    if (!validationCol.isEmpty() && heldOut == 0) {
      throw new IllegalArgumentException("Column '" + validationCol + "' (validationIndicatorCol)"
          + " marks no row as a validation row (true); mark some, or unset the param");
    }
    if (!(weight > 0) && !heldOutCalibration) {
      throw new IllegalArgumentException("Every sample weight is 0, so there is nothing to learn;"
          + " check the weight column");
    }
    int numClasses = declaredClasses > 0 ? declaredClasses : Math.max(2, maxLabel + 1);
    TrainingInput input = new TrainingInput(cache, layout, facts, numFeatures,
        Math.max(2, numClasses), plan);
    LOG.info("Training data: {} rows (+ {} {}), {} features, {} classes, {} stored values on {}"
        + " workers (from {} input partitions)", input.numRows, input.validationRows,
        heldOutCalibration ? "held out to calibrate on: " + cache.spec.calibrationRows
            : "validation rows", input.numFeatures, input.numClasses, input.storedValues,
        input.numWorkers, layout.inputPartitions);
    return input;
  }

  /** Σ_i T_i with the class weights applied, summed in worker order. */
  public double trainingWeight(double[] classWeights) {
    double t = 0.0;
    for (PartitionFacts f : facts) {
      t += f.trainingWeight(classWeights);
    }
    return t;
  }

  /** Index of the only class present, or −1 when two or more are. */
  public int singleClass() {
    int found = -1;
    for (int k = 0; k < classCounts.length; k++) {
      if (classCounts[k] > 0) {
        if (found >= 0) {
          return -1;
        }
        found = k;
      }
    }
    return found;
  }

  public int numFeatures() {
    return numFeatures;
  }

  /** What the training's plan needs of these data ({@link TrainingPlan#withData}). */
  public DataFacts facts() {
    long all = 0;
    for (PartitionFacts f : facts) {
      all += f.trainingBytes + f.validationBytes;
    }
    return DataFacts.builder().rows(numWorkers, numRows, storedValues, workerFeatures)
        .classes(numClasses, maxWeightByClass, maxSquaredNorm).bytes(all, workerBytes).build();
  }

  /** The plan the training rows were laid out by; null for data only to be scored. */
  public TrainingPlan plan() {
    return plan;
  }

  /** How reading mapped the labels (e.g. "labels -1/+1 mapped to 0/1"), or "". */
  public String labelNote() {
    return labelNote;
  }

  /** The Spark context the blocks are cached in. */
  public JavaSparkContext sparkContext() {
    return JavaSparkContext.fromSparkContext(blocks.context());
  }

  public int numClasses() {
    return numClasses;
  }

  /** Training rows (validation rows excluded). */
  public long numRows() {
    return numRows;
  }

  /** Workers: training partitions, one perceptron each. */
  public int numWorkers() {
    return numWorkers;
  }

  /** Σ of the training rows' sample weights per class. */
  public double[] classWeightSums() {
    return classWeightSums.clone();
  }

  /**
   * The facts of the data and of its layout over the workers that identify a training, on one
   * line: a checkpoint resumes only a training with the same (and the same params).
   */
  public String identity() {
    // "partitionRows" (the rows per worker) keeps the fingerprints of checkpoints written before.
    return "rows=" + numRows + " validation=" + validationRows + " features=" + numFeatures
        + " classes=" + numClasses + " stored=" + storedValues + " weight="
        + Double.doubleToLongBits(totalWeight) + " workers=" + numWorkers + " partitionRows="
        + Arrays.toString(workerRows) + " classCounts=" + Arrays.toString(classCounts);
  }

  /**
   * Where the cached rows are, on one line: their bytes and chunks, the storage level, and how
   * much of them Spark spilled to local disk, which every epoch reads back.
   */
  public String describeCache() {
    long all = 0;
    long chunks = 0;
    for (PartitionFacts f : facts) {
      all += f.trainingBytes + f.validationBytes;
      chunks += f.chunks;
    }
    long spilled = spec.diskBytes(JavaSparkContext.fromSparkContext(cached.context()));
    return String.format(Locale.ROOT, "Cached training data: %,d MiB in %,d chunks of up to"
        + " %,d MiB (%s); %s", mib(all), chunks, mib(spec.chunkBytes),
        spec.levelName, spilled == 0 ? "all of it in memory"
            : String.format(Locale.ROOT, "%,d MiB of it spilled to local disk, which every epoch"
                + " reads back", mib(spilled)));
  }

  /**
   * Moves chunks of the training's rows from the executors' storage memory to their local disk
   * until each executor's storage memory holds at most {@code storageCap} bytes, or none of the
   * rows is left in memory (one Spark job over the workers); returns the bytes freed in all.
   * A spilled chunk stays on disk: the epochs read it back without caching it again.
   */
  public long spillToDisk(long storageCap) {
    return cached.toJavaRDD().map(b -> b.spillWhileAbove(storageCap)).reduce(Long::sum);
  }

  private static long mib(long bytes) {
    return (bytes + (1 << 20) - 1) >> 20;
  }

  /** Chunks of every worker's rows (training and validation). */
  public long chunks() {
    long n = 0;
    for (PartitionFacts f : facts) {
      n += f.chunks;
    }
    return n;
  }

  /** Bytes of the training rows' chunks, per worker in worker order. */
  public long[] workerBytes() {
    long[] out = new long[facts.size()];
    for (PartitionFacts f : facts) {
      out[f.worker] = f.trainingBytes;
    }
    return out;
  }

  /** Releases the cached elements and every chunk of every worker. */
  @Override
  public void close() {
    cached.unpersist(false);
    spec.removeChunks(JavaSparkContext.fromSparkContext(cached.context()));
    if (releasesSource) {
      source.conversion.releaseSource();
    }
  }
}
