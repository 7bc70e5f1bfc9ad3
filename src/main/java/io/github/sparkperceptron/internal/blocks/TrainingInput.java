package io.github.sparkperceptron.internal.blocks;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.monotonically_increasing_id;

import io.github.sparkperceptron.internal.io.SplitReport;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.plan.DataFacts;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.Dependency;
import org.apache.spark.ShuffleDependency;
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
import scala.jdk.javaapi.CollectionConverters;

/**
 * The training data of one {@code fit}: the input's partitions laid out over the workers
 * ({@link WorkerLayout}), every worker's rows converted once into a cached
 * {@link io.github.sparkperceptron.internal.kernel.TrainingBlock} (MEMORY_AND_DISK), its rows stored in the
 * layout of the {@link VisitOrder}, validated as a whole, and released by {@link #close()}.
 */
public final class TrainingInput implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingInput.class);

  /** The name of the cached training blocks (in Spark's UI, under Storage). */
  public static final String BLOCKS_NAME = "spark-perceptron training blocks";

  /** Without label metadata, at most this many classes are inferred from the largest label. */
  static final int MAX_INFERRED_CLASSES = 10_000;

  /** The cached blocks: one element per worker (training partition), in worker order. */
  public final JavaRDD<PreparedPartition> blocks;
  /** The number of workers: training partitions, one perceptron each. */
  public final int numWorkers;
  /** How the input's partitions were laid out over the workers. */
  public final WorkerLayout layout;
  public final int numFeatures;
  public final int numClasses;
  /** Training rows (validation rows excluded). */
  public final long numRows;
  final long validationRows;
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
  /** Each worker's facts (without its blocks), in worker order. */
  private final List<PreparedPartition> facts;
  /** How reading mapped the labels (e.g. "labels -1/+1 mapped to 0/1"), or "". */
  private String labelNote = "";
  /** The plan the training rows were laid out by; null for data only to be scored. */
  private final TrainingPlan plan;

  private TrainingInput(JavaRDD<PreparedPartition> blocks, WorkerLayout layout,
      List<PreparedPartition> facts, int numFeatures, int numClasses, TrainingPlan plan) {
    this.blocks = blocks;
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
    double[] weightSums = new double[numClasses];
    long[] perWorker = new long[facts.size()];
    double[] maxWeights = new double[numClasses];
    double maxNorm = 0.0;
    for (PreparedPartition f : facts) {
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
    }
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
  }

  /**
   * Lays {@code dataset} out over the workers of {@code plan}, each worker's training rows stored
   * in the layout of the configuration's {@link VisitOrder} ({@link VisitOrder#layout}), converts
   * and validates it; throws {@link IllegalArgumentException} naming the first problem (schema,
   * then rows in input order, then dataset-wide facts).
   */
  public static TrainingInput prepare(Dataset<?> dataset, TrainingPlan plan) {
    Conversion conversion = conversion(dataset, plan);
    conversion.logLayout();
    JavaRDD<PreparedPartition> prepared = conversion.convert(false)
        .setName(BLOCKS_NAME).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<PreparedPartition> facts = prepared.map(PreparedPartition::withoutBlock).collect();
      return conversion.validate(prepared, facts, false);
    } catch (RuntimeException e) {
      prepared.unpersist(false);
      throw e;
    }
  }

  /**
   * What {@link #prepare} (rows of a DataFrame) or {@link #fromText} (text files read in one pass)
   * does before any Spark job runs: the input checked as far as it can be without reading it, the
   * layout over the workers decided. A stream converts, scores and trains a micro-batch in one job
   * from it, and validates the facts its tasks return ({@link #validate}).
   */
  public abstract static class Conversion {
    public final WorkerLayout layout;
    /** The training's plan, or null for data only to be scored. */
    final TrainingPlan plan;

    private Conversion(WorkerLayout layout, TrainingPlan plan) {
      this.layout = layout;
      this.plan = plan;
    }

    /**
     * One {@link PreparedPartition} per worker, in worker order (lazy: no job runs). With
     * {@code withoutShuffle}, a split layout of a DataFrame is dealt without a shuffle: every
     * worker reads every input partition and keeps its rows ({@link PreparedPartition#dealtTo}),
     * the same rows in the same order as the shuffle's deal, each input partition read W times;
     * its partitions then know every worker's weight. A text input is never shuffled.
     */
    public abstract JavaRDD<PreparedPartition> convert(boolean withoutShuffle);

    /**
     * Logs how the input reaches the workers, before it is read; a text input says it once its
     * lines are judged (input that is refused gets its one error line and nothing else).
     */
    public void logLayout() {
      layout.log();
    }

    /**
     * Whether the partitions {@code convert(true)} returns know every worker's sample weight
     * ({@link PreparedPartition#workerWeights}), which an averaged one-job round needs.
     */
    public abstract boolean knowsWorkerWeights();

    /**
     * The training input of the blocks {@code prepared} (one per worker) whose facts (without
     * blocks, in worker order) are {@code facts}; throws {@link IllegalArgumentException} naming
     * the earliest bad row of the input, then dataset-wide problems. Its {@link #blocks} are
     * {@code prepared}, or (a text input some of whose workers saw narrower rows than the
     * input's width) a widened copy of them, cached: release it with {@link #close()}.
     */
    public abstract TrainingInput validate(JavaRDD<PreparedPartition> prepared,
        List<PreparedPartition> facts, boolean nothingToLearnIsFine);
  }

  /** The plan of a DataFrame's rows. */
  private static final class RowConversion extends Conversion {
    /** (label, features[, weight][, validation], row id) rows of the input partitions. */
    final JavaRDD<Row> rows;
    final PreparedPartition.Spec spec;
    final int declaredClasses;
    final String validationCol;

    private RowConversion(JavaRDD<Row> rows, WorkerLayout layout, PreparedPartition.Spec spec,
        int declaredClasses, String validationCol, TrainingPlan plan) {
      super(layout, plan);
      this.rows = rows;
      this.spec = spec;
      this.declaredClasses = declaredClasses;
      this.validationCol = validationCol;
    }

    @Override
    public JavaRDD<PreparedPartition> convert(boolean withoutShuffle) {
      if (withoutShuffle && layout.mode == WorkerLayout.Mode.SPLIT) {
        WorkerLayout dealt = layout;
        PreparedPartition.Spec conversion = spec;
        return rows.rdd().coalesce(layout.numWorkers, false,
            Option.apply(layout.everyWorkerReadsAll()), null).toJavaRDD()
            .mapPartitionsWithIndex((j, it) -> Collections.singletonList(
                PreparedPartition.dealtTo(j, it, conversion, dealt)).iterator(), true);
      }
      return TrainingInput.convert(rows, layout, spec);
    }

    @Override
    public boolean knowsWorkerWeights() {
      return layout.mode == WorkerLayout.Mode.SPLIT;
    }

    @Override
    public TrainingInput validate(JavaRDD<PreparedPartition> prepared, List<PreparedPartition> facts,
        boolean nothingToLearnIsFine) {
      return TrainingInput.validate(prepared, layout, facts, declaredClasses, validationCol,
          nothingToLearnIsFine, plan);
    }
  }

  /**
   * The plan of a text input that its workers read in one pass ({@link TextInput}): each worker
   * parses its lines straight into its block, no DataFrame, no shuffle.
   */
  private static final class TextConversion extends Conversion {
    final JavaSparkContext jsc;
    final TextInput text;
    final PreparedPartition.Spec spec;
    /** Whether the plan's workers train (fit's log says how the input reaches them). */
    final boolean logWorkers;

    private TextConversion(JavaSparkContext jsc, TextInput text, WorkerLayout layout,
        PreparedPartition.Spec spec, boolean logWorkers, TrainingPlan plan) {
      super(layout, plan);
      this.jsc = jsc;
      this.text = text;
      this.spec = spec;
      this.logWorkers = logWorkers;
    }

    @Override
    public JavaRDD<PreparedPartition> convert(boolean withoutShuffle) {
      TextInput input = text;
      PreparedPartition.Spec conversion = spec;
      return text.workers(jsc).map(j -> PreparedPartition.fromText(j, input, conversion));
    }

    @Override
    public boolean knowsWorkerWeights() {
      return false;
    }

    @Override
    public void logLayout() {
    }

    @Override
    public TrainingInput validate(JavaRDD<PreparedPartition> prepared, List<PreparedPartition> facts,
        boolean nothingToLearnIsFine) {
      List<SplitReport> reports = new ArrayList<>();
      for (PreparedPartition f : facts) {
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
      List<PreparedPartition> wide = new ArrayList<>();
      for (PreparedPartition f : facts) {
        narrow |= f.rows + f.validationRows > 0 && f.numFeatures != d;
        wide.add(f.rows + f.validationRows > 0 ? f.widened(d) : f);
      }
      JavaRDD<PreparedPartition> blocks = prepared;
      if (narrow) {
        // Some worker's rows stop short of the input's largest index: its blocks are rebuilt
        // at the input's width (a sparse block keeps its arrays), in one pass over the cache.
        blocks = prepared.map(p -> p.rows + p.validationRows > 0 ? p.widened(d) : p)
            .setName(prepared.name()).persist(StorageLevel.MEMORY_AND_DISK());
        blocks.count();
      }
      try {
        TrainingInput input = TrainingInput.validate(blocks, layout, wide, -1,
            spec.validationCol, nothingToLearnIsFine, plan);
        input.labelNote = verdict.labelNote();
        return input;
      } catch (RuntimeException e) {
        if (blocks != prepared) {
          blocks.unpersist(false);
        }
        throw e;
      }
    }
  }

  /** The {@link Conversion} of training on {@code dataset} by {@code plan}; see {@link #prepare}. */
  static Conversion conversion(Dataset<?> dataset, TrainingPlan plan) {
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
    PreparedPartition.Spec spec = new PreparedPartition.Spec(config, declaredFeatures,
        declaredClasses, true);

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
            && chainProblem(rows.rdd(), layout.numWorkers) != null);
    return narrowChainRefused && plan.gathersForBarrier() ? layout.gathered() : layout;
  }

  /**
   * The first RDD in {@code rdd}'s stage (its ancestors through non-shuffle dependencies, as
   * Spark's DAGScheduler walks them) with another number of partitions than {@code tasks},
   * described, or null: Spark runs a barrier stage only over a chain without one.
   */
  static String chainProblem(RDD<?> rdd, int tasks) {
    Deque<RDD<?>> todo = new ArrayDeque<>();
    Set<Integer> seen = new HashSet<>();
    todo.push(rdd);
    while (!todo.isEmpty()) {
      RDD<?> r = todo.pop();
      if (!seen.add(r.id())) {
        continue;
      }
      if (r.getNumPartitions() != tasks) {
        return String.format(Locale.ROOT, "%s has %d partitions, not %d", r, r.getNumPartitions(),
            tasks);
      }
      for (Dependency<?> d : CollectionConverters.asJava(r.dependencies())) {
        if (!(d instanceof ShuffleDependency)) {
          todo.push(d.rdd());
        }
      }
    }
    return null;
  }

  /**
   * Why Spark would refuse a barrier stage over the cached blocks (their RDD chain), or null.
   */
  public String barrierChainProblem() {
    return chainProblem(blocks.rdd(), numWorkers);
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
    return read(textConversion(jsc, text, plan.config(), plan), BLOCKS_NAME);
  }

  /**
   * The blocks of a text input read in one pass only to be scored, in input order, by the workers
   * {@code text} was planned for; {@code config} names the columns.
   */
  public static TrainingInput forScoring(JavaSparkContext jsc, TextInput text,
      TrainingConfig config) {
    return read(textConversion(jsc, text, config, null), EVALUATION_BLOCKS_NAME);
  }

  private static TrainingInput read(Conversion conversion, String name) {
    JavaRDD<PreparedPartition> prepared = conversion.convert(true).setName(name)
        .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<PreparedPartition> facts = prepared.map(PreparedPartition::withoutBlock).collect();
      TrainingInput input = conversion.validate(prepared, facts, false);
      if (input.blocks != prepared) {
        prepared.unpersist(false);
      }
      return input;
    } catch (RuntimeException e) {
      prepared.unpersist(false);
      throw e;
    }
  }

  /**
   * The {@link Conversion} of reading {@code text} in one pass (see {@link #fromText}): for the
   * training of {@code plan}, whose workers {@code text} must be planned for, or (plan null) only
   * to be scored.
   */
  static Conversion textConversion(JavaSparkContext jsc, TextInput text, TrainingConfig config,
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
    PreparedPartition.Spec spec = new PreparedPartition.Spec(config, text.numFeatures(), -1,
        forTraining);
    return new TextConversion(jsc, text, layout, spec, forTraining, plan);
  }

  /** The name of cached blocks of data that are only scored (in Spark's UI, under Storage). */
  public static final String EVALUATION_BLOCKS_NAME = "spark-perceptron evaluation blocks";

  /** One {@link PreparedPartition} per worker, in worker order. */
  private static JavaRDD<PreparedPartition> convert(JavaRDD<Row> rows, WorkerLayout layout,
      PreparedPartition.Spec spec) {
    switch (layout.mode) {
      case COALESCE:
        return rows.rdd().coalesce(layout.numWorkers, false, Option.apply(layout.coalescer()),
            null).toJavaRDD().mapPartitionsWithIndex((j, it) -> Collections.singletonList(
                PreparedPartition.prepare(j, it, spec)).iterator(), true);
      case SPLIT:
        int numWorkers = layout.numWorkers;
        return joinPieces(rows.mapPartitionsWithIndex((p, it) -> {
          PreparedPartition[] pieces = PreparedPartition.deal(it, spec, layout.firstWorkerOf(p),
              numWorkers);
          List<Tuple2<Integer, Tuple2<Integer, PreparedPartition>>> byWorker =
              new ArrayList<>(numWorkers);
          for (int j = 0; j < numWorkers; j++) {
            byWorker.add(new Tuple2<>(j, new Tuple2<>(p, pieces[j])));
          }
          return byWorker.iterator();
        }, false), layout, spec);
      case GATHER:
        // Each input partition whole, as one piece for the worker whose group holds it.
        return joinPieces(rows.mapPartitionsWithIndex((p, it) -> Collections.singletonList(
            new Tuple2<>(layout.workerOf(p), new Tuple2<>(p,
                PreparedPartition.deal(it, spec, 0, 1)[0]))).iterator(), false), layout, spec);
      default:
        return rows.mapPartitionsWithIndex((p, it) -> Collections.singletonList(
            PreparedPartition.prepare(p, it, spec)).iterator(), true);
    }
  }

  /**
   * The pieces keyed (worker, (input partition, piece)) moved to their workers by one shuffle;
   * each worker joins its pieces in input-partition order ({@link PreparedPartition#merge}).
   */
  private static JavaRDD<PreparedPartition> joinPieces(
      JavaRDD<Tuple2<Integer, Tuple2<Integer, PreparedPartition>>> keyed, WorkerLayout layout,
      PreparedPartition.Spec spec) {
    return JavaPairRDD.fromJavaRDD(keyed).partitionBy(layout.partitioner()).values()
        .mapPartitionsWithIndex((j, it) -> {
          // The shuffle delivers the pieces in the order its fetches complete; input order is
          // restored before they are joined.
          List<Tuple2<Integer, PreparedPartition>> pieces = new ArrayList<>();
          it.forEachRemaining(pieces::add);
          pieces.sort(Comparator.comparing(Tuple2::_1));
          List<PreparedPartition> ordered = new ArrayList<>(pieces.size());
          for (Tuple2<Integer, PreparedPartition> piece : pieces) {
            ordered.add(piece._2());
          }
          return Collections.singletonList(PreparedPartition.merge(j, ordered, spec.order))
              .iterator();
        }, true);
  }

  private static TrainingInput validate(JavaRDD<PreparedPartition> prepared, WorkerLayout layout,
      List<PreparedPartition> facts, int declaredClasses, String validationCol,
      boolean nothingToLearnIsFine, TrainingPlan plan) {
    int numFeatures = -1;
    long featuresFrom = -1;
    int maxLabel = -1;
    long rows = 0;
    long heldOut = 0;
    double weight = 0.0;
    PreparedPartition earliest = null;
    for (PreparedPartition f : facts) {
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
    for (PreparedPartition f : facts) {
      heldOut += f.validationRows;
      if (f.rows + f.validationRows > 0) {
        if (numFeatures >= 0 && f.numFeatures != numFeatures) {
          throw new IllegalArgumentException(PreparedPartition.sizeMismatch(featuresFrom,
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
      return new TrainingInput(prepared, layout, facts, numFeatures, Math.max(2, numClasses),
          plan);
    }
    if (rows + heldOut == 0) {
      throw new IllegalArgumentException("The training dataset is empty (0 rows); check the"
          + " input path and any filter applied before fit()");
    }
    if (rows == 0) {
      throw new IllegalArgumentException("Column '" + validationCol + "' (validationIndicatorCol)"
          + " marks all " + heldOut + " rows as validation rows, which leaves none to train on");
    }
    if (!validationCol.isEmpty() && heldOut == 0) {
      throw new IllegalArgumentException("Column '" + validationCol + "' (validationIndicatorCol)"
          + " marks no row as a validation row (true); mark some, or unset the param");
    }
    if (!(weight > 0)) {
      throw new IllegalArgumentException("Every sample weight is 0, so there is nothing to learn;"
          + " check the weight column");
    }
    int numClasses = declaredClasses > 0 ? declaredClasses : Math.max(2, maxLabel + 1);
    TrainingInput input = new TrainingInput(prepared, layout, facts, numFeatures,
        Math.max(2, numClasses), plan);
    LOG.info("Training data: {} rows (+ {} validation rows), {} features, {} classes, {} stored"
        + " values on {} workers (from {} input partitions)", input.numRows,
        input.validationRows, input.numFeatures, input.numClasses, input.storedValues,
        input.numWorkers, layout.inputPartitions);
    return input;
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

  /** Σ_i T_i with the class weights applied, summed in worker order. */
  public double trainingWeight(double[] classWeights) {
    double t = 0.0;
    for (PreparedPartition f : facts) {
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
    return new DataFacts(numWorkers, numRows, storedValues, workerFeatures, numClasses,
        maxWeightByClass, maxSquaredNorm);
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

  @Override
  public void close() {
    blocks.unpersist(false);
  }
}
