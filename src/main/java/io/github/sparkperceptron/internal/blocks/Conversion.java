package io.github.sparkperceptron.internal.blocks;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.monotonically_increasing_id;

import io.github.sparkperceptron.internal.calibration.CalibrationRows;
import io.github.sparkperceptron.internal.io.SplitReport;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.attribute.Attribute;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.attribute.BinaryAttribute;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.Tuple2;

/**
 * What {@link #prepare} (rows of a DataFrame) or {@link #fromText} (text files read in one pass)
 * does before any Spark job runs: the input checked as far as it can be without reading it, the
 * layout over the workers decided. A stream converts, scores and trains a micro-batch in one job
 * from it, and validates the facts its tasks return ({@link #validate}).
 */
public abstract class Conversion {
  private static final Logger LOG = LoggerFactory.getLogger(Conversion.class);

  public final WorkerLayout layout;
  /** The training's plan, or null for data only to be scored. */
  final TrainingPlan plan;
  /** What converting needs, and where the chunks go. */
  final ConversionSpec spec;
  private final JavaSparkContext jsc;

  Conversion(JavaSparkContext jsc, WorkerLayout layout, TrainingPlan plan,
      ConversionSpec spec) {
    this.jsc = jsc;
    this.layout = layout;
    this.plan = plan;
    this.spec = spec;
  }

  /**
   * One {@link WorkerBlocks} per worker, in worker order, its chunks stored when it is computed
   * (lazy: no job runs). With {@code withoutShuffle}, a split layout of a DataFrame is dealt
   * without a shuffle: every worker reads every input partition and keeps its rows
   * ({@link RowConverter#dealtTo}), the same rows in the same order as the shuffle's deal, each
   * input partition read W times; its elements then know every worker's weight. A text input
   * is never shuffled.
   */
  public abstract WorkerBlocksRdd<?> convert(boolean withoutShuffle);

  /**
   * This conversion again with {@code rows} as the calibration rows: the same input and layout,
   * for {@code plan} (this one's, or it without checkpoints), into chunks of its own (a
   * training's rows only; see {@link TrainingInput#withCalibrationRows}).
   */
  abstract Conversion withCalibrationRows(CalibrationRows rows, TrainingPlan plan);

  /** The spec of {@link #withCalibrationRows}. */
  final ConversionSpec specWith(CalibrationRows rows) {
    return spec.withCalibrationRows(jsc, rows, plan.config().storageLevel());
  }

  /**
   * Caches the input's rows as this conversion reads them, where that is possible and they are
   * not cached yet, so that the conversions of the same input that follow read them from memory
   * instead of reading and parsing the source again; whether it did (then
   * {@link #releaseSource()} removes them). The rows are the same and in the same order either
   * way, so the blocks are too. A text input read in one pass keeps no rows: false.
   */
  boolean cacheSource() {
    return false;
  }

  /** Removes the rows {@link #cacheSource()} cached. */
  void releaseSource() {
  }

  /** Removes the chunks this conversion stored (a batch that ran without caching them). */
  public void release() {
    spec.removeChunks(jsc);
  }

  /**
   * Logs how the input reaches the workers, before it is read; a text input says it once its
   * lines are judged (input that is refused gets its one error line and nothing else).
   */
  public void logLayout() {
    layout.log();
  }

  /**
   * Whether the elements {@code convert(true)} returns know every worker's sample weight
   * ({@link PartitionFacts#workerWeights}), which an averaged one-job round needs.
   */
  public abstract boolean knowsWorkerWeights();

  /**
   * The training input of the elements {@code converted} (one per worker; the caller caches
   * them, or not: a stream's one-job batch) whose values, in worker order, are {@code parts};
   * throws {@link IllegalArgumentException} naming the earliest bad row of the input, then
   * dataset-wide problems. Release it with {@link #close()}.
   */
  public abstract TrainingInput validate(WorkerBlocksRdd<?> converted, List<WorkerBlocks> parts,
      boolean nothingToLearnIsFine);


  /** The plan of a DataFrame's rows. */
  private static final class RowConversion extends Conversion {
    /** (label, features[, weight][, validation], row id) rows of the input partitions. */
    final JavaRDD<Row> rows;
    final int declaredClasses;
    final String validationCol;

    private RowConversion(JavaRDD<Row> rows, WorkerLayout layout, ConversionSpec spec,
        int declaredClasses, String validationCol, TrainingPlan plan) {
      super(JavaSparkContext.fromSparkContext(rows.context()), layout, plan, spec);
      this.rows = rows;
      this.declaredClasses = declaredClasses;
      this.validationCol = validationCol;
    }

    @Override
    public WorkerBlocksRdd<?> convert(boolean withoutShuffle) {
      ConversionSpec conversion = spec;
      if (withoutShuffle && layout.mode == WorkerLayout.Mode.SPLIT) {
        WorkerLayout dealt = layout;
        return new WorkerBlocksRdd<>(rows.rdd().coalesce(layout.numWorkers, false,
            Option.apply(layout.everyWorkerReadsAll()), null),
            (j, it) -> RowConverter.dealtTo(j, it, conversion, dealt));
      }
      return Conversion.convert(rows, layout, conversion);
    }

    @Override
    public boolean knowsWorkerWeights() {
      return layout.mode == WorkerLayout.Mode.SPLIT;
    }

    @Override
    boolean cacheSource() {
      if (rows.getStorageLevel().useMemory() || rows.getStorageLevel().useDisk()) {
        return false;
      }
      rows.persist(StorageLevel.MEMORY_AND_DISK());
      return true;
    }

    @Override
    void releaseSource() {
      rows.unpersist(false);
    }

    @Override
    Conversion withCalibrationRows(CalibrationRows calibration, TrainingPlan again) {
      return new RowConversion(rows, layout, specWith(calibration), declaredClasses,
          validationCol, again);
    }

    @Override
    public TrainingInput validate(WorkerBlocksRdd<?> converted, List<WorkerBlocks> parts,
        boolean nothingToLearnIsFine) {
      return TrainingInput.validate(new TrainingInput.Cached(converted, WorkerBlocksRdd.AS_CACHED, spec),
          layout, factsOf(parts), declaredClasses, validationCol, nothingToLearnIsFine, plan);
    }
  }

  private static List<PartitionFacts> factsOf(List<WorkerBlocks> parts) {
    List<PartitionFacts> facts = new ArrayList<>(parts.size());
    for (WorkerBlocks p : parts) {
      facts.add(p.facts());
    }
    return facts;
  }

  /**
   * The plan of a text input that its workers read in one pass ({@link TextInput}): each worker
   * parses its lines straight into its block, no DataFrame, no shuffle.
   */
  private static final class TextConversion extends Conversion {
    final JavaSparkContext jsc;
    final TextInput text;
    /** Whether the plan's workers train (fit's log says how the input reaches them). */
    final boolean logWorkers;

    private TextConversion(JavaSparkContext jsc, TextInput text, WorkerLayout layout,
        ConversionSpec spec, boolean logWorkers, TrainingPlan plan) {
      super(jsc, layout, plan, spec);
      this.jsc = jsc;
      this.text = text;
      this.logWorkers = logWorkers;
    }

    @Override
    public WorkerBlocksRdd<?> convert(boolean withoutShuffle) {
      TextInput input = text;
      ConversionSpec conversion = spec;
      return new WorkerBlocksRdd<>(text.workers(jsc).rdd(),
          (j, it) -> RowConverter.fromText(j, input, conversion));
    }

    @Override
    public boolean knowsWorkerWeights() {
      return false;
    }

    @Override
    Conversion withCalibrationRows(CalibrationRows calibration, TrainingPlan again) {
      return new TextConversion(jsc, text, layout, specWith(calibration), false, again);
    }

    @Override
    public void logLayout() {
    }

    @Override
    public TrainingInput validate(WorkerBlocksRdd<?> converted, List<WorkerBlocks> parts,
        boolean nothingToLearnIsFine) {
      List<PartitionFacts> facts = factsOf(parts);
      List<SplitReport> reports = new ArrayList<>();
      for (PartitionFacts f : facts) {
        reports.add(f.textReport);
      }
      TextInput.Verdict verdict = text.verdict(reports);
      if (logWorkers) {
        // After the verdict: input that is refused gets its one error line and nothing else.
        LOG.info("{}; {}", layout.describeWorkers(), text.describe());
        String warning = layout.oversubscription();
        if (warning != null) {
          LOG.warn(warning);
        }
      }
      int d = verdict.numFeatures();
      boolean narrow = false;
      List<PartitionFacts> wide = new ArrayList<>();
      for (PartitionFacts f : facts) {
        narrow |= f.hasRows() && f.numFeatures != d;
        wide.add(f.hasRows() ? f.widened(d) : f);
      }
      // Some worker's rows may stop short of the input's largest index: the tasks read them at
      // the input's width (a view: a sparse chunk keeps its arrays, see ChunkRows#widened).
      WorkerBlocksRdd.View view = narrow ? new WorkerBlocksRdd.Widened(d)
          : WorkerBlocksRdd.AS_CACHED;
      TrainingInput input = TrainingInput.validate(new TrainingInput.Cached(converted, view, spec), layout,
          wide, -1, spec.validationCol, nothingToLearnIsFine, plan);
      input.labelNote = verdict.labelNote();
      return input;
    }
  }

  /** The {@link Conversion} of training on {@code dataset} by {@code plan}; see {@link #prepare}. */
  static Conversion ofRows(Dataset<?> dataset, TrainingPlan plan) {
    TrainingConfig config = plan.config();
    String labelCol = config.labelCol;
    String featuresCol = config.featuresCol;
    String weightCol = config.weightCol;
    String validationCol = config.validationCol;
    InputChecks.requireNumericColumn(dataset.schema(), labelCol, "labelCol");
    InputChecks.requireVectorColumn(dataset.schema(), featuresCol, "featuresCol");
    if (!weightCol.isEmpty()) {
      InputChecks.requireNumericColumn(dataset.schema(), weightCol, "weightCol");
    }
    if (!validationCol.isEmpty()) {
      InputChecks.requireBooleanColumn(dataset.schema(), validationCol, "validationIndicatorCol");
    }
    int declaredClasses = declaredClasses(dataset.schema().apply(labelCol));
    int declaredFeatures = AttributeGroup.fromStructField(dataset.schema().apply(featuresCol))
        .size();
    ConversionSpec spec = new ConversionSpec(JavaSparkContext.fromSparkContext(
        dataset.sparkSession().sparkContext()), config, declaredFeatures, declaredClasses, true);

    List<Column> columns = new ArrayList<>();
    columns.add(col(labelCol).cast("double"));
    columns.add(col(featuresCol));
    if (!weightCol.isEmpty()) {
      columns.add(col(weightCol).cast("double"));
    }
    if (!validationCol.isEmpty()) {
      columns.add(col(validationCol));
    }
    // (input partition, row index), a function of the input alone: names bad rows wherever
    // they end up, whatever worker reads them.
    columns.add(monotonically_increasing_id());
    JavaRDD<Row> rows = dataset.select(columns.toArray(new Column[0])).toJavaRDD();
    WorkerLayout layout = layout(rows, plan);
    return new RowConversion(rows, layout, spec, declaredClasses, validationCol, plan);
  }

  /**
   * How {@code rows}' partitions feed the workers ({@link WorkerLayout}). When the plan's rounds
   * may run in barrier stages ({@link TrainingPlan#gathersForBarrier}), which Spark refuses over
   * a coalesce or over an input whose chain changes the number of partitions (a union), the
   * workers are gathered through a shuffle instead: the same rows in the same order.
   */
  private static WorkerLayout layout(JavaRDD<Row> rows, TrainingPlan plan) {
    WorkerLayout layout = WorkerLayout.of(plan.config().numWorkers, plan.slots(),
        rows.getNumPartitions());
    boolean narrowChainRefused = layout.mode == WorkerLayout.Mode.COALESCE
        || (layout.mode == WorkerLayout.Mode.AS_IS
            && BarrierChain.problem(rows.rdd(), layout.numWorkers) != null);
    return narrowChainRefused && plan.gathersForBarrier() ? layout.gathered() : layout;
  }

  /**
   * The {@link Conversion} of reading {@code text} in one pass (see {@link #fromText}): for the
   * training of {@code plan}, whose workers {@code text} must be planned for, or (plan null) only
   * to be scored.
   */
  static Conversion ofText(JavaSparkContext jsc, TextInput text, TrainingConfig config,
      TrainingPlan plan) {
    boolean forTraining = plan != null;
    // Data only to be scored may be read by any number of workers.
    WorkerLayout layout = forTraining
        ? WorkerLayout.of(config.numWorkers, plan.slots(), text.inputSplits())
        : WorkerLayout.of(text.numWorkers(), jsc.sc().defaultParallelism(), text.inputSplits());
    if (layout.numWorkers != text.numWorkers()) {
      throw new IllegalArgumentException("the text input was planned for " + text.numWorkers()
          + " workers, the training has " + layout.numWorkers);
    }
    ConversionSpec spec = new ConversionSpec(jsc, config, text.numFeatures(), -1, forTraining);
    return new TextConversion(jsc, text, layout, spec, forTraining, plan);
  }

  /** One {@link WorkerBlocks} per worker, in worker order, converted as {@code layout} says. */
  private static WorkerBlocksRdd<?> convert(JavaRDD<Row> rows, WorkerLayout layout,
      ConversionSpec spec) {
    switch (layout.mode) {
      case COALESCE:
        return new WorkerBlocksRdd<>(rows.rdd().coalesce(layout.numWorkers, false,
            Option.apply(layout.coalescer()), null),
            (j, it) -> RowConverter.prepare(j, it, spec));
      case SPLIT: {
        int[] all = new int[layout.numWorkers];
        for (int j = 0; j < all.length; j++) {
          all[j] = j;
        }
        long pieceBytes = pieceBytes(spec, all.length);
        return joinPieces(new PartitionMapRdd<>(rows.rdd(), (p, it) -> Pieces.deal(p, it, spec,
            all, layout.firstWorkerOf(p), pieceBytes), Pieces.KEYED), layout, spec);
      }
      case GATHER: {
        // Each input partition whole, as pieces for the worker whose group holds it.
        long pieceBytes = pieceBytes(spec, 1);
        return joinPieces(new PartitionMapRdd<>(rows.rdd(), (p, it) -> Pieces.deal(p, it, spec,
            new int[] {layout.workerOf(p)}, 0, pieceBytes), Pieces.KEYED), layout, spec);
      }
      default:
        return new WorkerBlocksRdd<>(rows.rdd(), (j, it) -> RowConverter.prepare(j, it, spec));
    }
  }

  /**
   * Bytes per piece of an input partition dealt over {@code targets} workers: a task holds one
   * piece in progress per target, so W pieces together stay within about a chunk (and no piece
   * under 1 MiB, where a shuffle record would cost more than it carries).
   */
  private static long pieceBytes(ConversionSpec spec, int targets) {
    return Math.max(Math.min(spec.chunkBytes, 1L << 20), spec.chunkBytes / targets);
  }

  /**
   * The pieces keyed (worker, input partition, piece) moved to their workers and sorted by one
   * shuffle (which spills); each worker appends its pieces in that order ({@link Pieces#merge}).
   */
  private static WorkerBlocksRdd<?> joinPieces(RDD<Tuple2<Pieces.Key, Pieces.Piece>> keyed,
      WorkerLayout layout, ConversionSpec spec) {
    JavaPairRDD<Pieces.Key, Pieces.Piece> sorted = JavaPairRDD.fromRDD(keyed, Pieces.KEY,
        Pieces.PIECE).repartitionAndSortWithinPartitions(new Pieces.ByWorker(layout.numWorkers),
            Pieces.ORDER);
    // The pieces without their keys, in the task (no values() closure to clean).
    return new WorkerBlocksRdd<>(sorted.rdd(), (j, it) -> Pieces.merge(j, Pieces.values(it),
        spec));
  }

  /** The number of classes the label column's ML metadata declares, or −1. */
  private static int declaredClasses(StructField labelField) {
    Attribute attribute = Attribute.fromStructField(labelField);
    if (attribute instanceof BinaryAttribute) {
      return 2;
    }
    if (attribute instanceof NominalAttribute) {
      NominalAttribute nominal = (NominalAttribute) attribute;
      if (nominal.getNumValues().isDefined()) {
        return (Integer) nominal.getNumValues().get();
      }
    }
    return -1;
  }

}
