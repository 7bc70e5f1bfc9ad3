package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.drift.DriftDetectors;
import io.github.sparkperceptron.internal.engine.OnlineTraining;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.internal.plan.StreamRefusals;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Online learning from a Structured Streaming DataFrame: the perceptron keeps learning from every
 * micro-batch, exactly once, and its current model is always available, in memory
 * ({@link #latestModel()}) and published to a path that {@link PerceptronClassificationModel#load}
 * reads while the stream runs.
 *
 * <pre>
 * Rosenblatt (1958); Freund &amp; Schapire (1999); Collins (2002)   the (averaged) perceptron, an
 *                                                              online algorithm
 * Crammer et al. (2006)                                        passive-aggressive online updates
 * McDonald, Hall &amp; Mann (2010)                                 iterative parameter mixing
 * Dawid (1984); Gama, Sebastião &amp; Rodrigues (2013)             prequential evaluation
 * </pre>
 *
 * <p><b>Learning.</b> Configured by a {@link PerceptronClassifier} (update rule, averaging,
 * mixing, step size, shuffle, seed, columns, initial model, ...). Each micro-batch is trained on
 * with iterative parameter mixing over its workers for {@link #setEpochsPerBatch epochsPerBatch}
 * epochs (default 1: pure online learning), starting from the whole learner state the previous
 * batch left: the weights w, and for averaging the accumulator u and the clock c. The averaged
 * perceptron's average therefore runs over every example since the stream began, not over the
 * batch: on one worker with one epoch per batch, a file fed in k batches gives bit for bit
 * the model of one serial online pass over it (whose averaging sum is added to u at each batch's
 * end, as the trainer adds each mixing round's). {@code maxIter} is not used (a stream has no
 * number of epochs); {@code tol} stops a batch's epochs early when {@code epochsPerBatch} &gt; 1;
 * with {@code shuffle} each batch's rows are visited in an order seeded by (seed, batch id),
 * without it in arrival order. {@code numWorkers}, {@code mixingRounds} and
 * {@code mixing=momentum} work as in {@code fit}, resolved for each batch (automatic workers: the
 * task slots when the batch starts); block momentum's velocity and masses carry over from batch to
 * batch, as if the batches were one epoch's rounds (why: {@code OnlineTraining}). Refused,
 * because they need the whole dataset up front or grow without bound: {@code averaging=vote},
 * {@code mixing=oneshot}, {@code validationIndicatorCol}, {@code classWeight=balanced},
 * {@code checkpointDir}.
 *
 * <p><b>Shape.</b> The number of features d is the first batch's vector size; the number of
 * classes K is {@link #setNumClasses numClasses} when set, else the label column's ML metadata,
 * else the first batch's largest label + 1 (at least 2). Later batches must fit: a vector of
 * another size or a label ≥ K stops the query with a message naming both (a stream cannot grow
 * its model; set numClasses when early batches may lack some classes).
 *
 * <p><b>Exactly once.</b> After applying a batch, and before Spark commits it, the learner state
 * (w, u, c, block momentum's velocity, the drift detector, the model's shape, counts, the batch
 * id, the Spark query id and the configuration) is saved atomically in
 * {@code <checkpointLocation>/learner}, beside Spark's own query checkpoint in
 * {@code <checkpointLocation>/query}: as the batch's change (the coordinates it wrote) after a
 * snapshot of the whole state, a new snapshot now and then ({@code LearnerStateStore}). A
 * restarted query resumes from it; a batch that Spark replays after a crash (it re-runs the last
 * batch it had not committed) has an id at or below the saved one and is skipped; the state of
 * another configuration or of another query (the query checkpoint was deleted, so batch ids
 * start again) is refused with a message.
 *
 * <p><b>Prequential evaluation.</b> Each batch is scored by the model as it stood before the batch
 * (the model {@link #latestModel()} returned then, averaged when averaging), then learnt: per batch
 * and cumulative accuracy go to the log (one line per batch), to {@link BatchListener}s and to
 * {@link #progress()}.
 *
 * <p><b>Drift detection.</b> With {@link #setDriftDetector driftDetector} ({@code adwin} by
 * default, {@code page-hinkley}, or {@code none}), each batch's prequential errors are fed to a
 * change detector (package {@code io.github.sparkperceptron.internal.drift}) before the batch is learnt; a
 * detected increase of the error rate is reported in the batch's log line, its
 * {@link BatchReport#drift()} and {@link StreamingProgress#drifts()}. What happens then is
 * {@link #setOnDrift onDrift}: {@code report} (the default: nothing else) or {@code reset} (the
 * batch in which the drift was found is learnt by a fresh model: zero weights, average and clock).
 * The detector's state is part of the learner state, so a restart neither forgets nor repeats a
 * detection.
 *
 * <p><b>Publishing.</b> With {@link #setModelPath modelPath}, the model is published there every
 * {@link #setPublishEvery publishEvery} batches, at most once per
 * {@link #setPublishInterval publishInterval} (2 s), and when {@link #stop()} or
 * {@link #awaitTermination()} return after a clean end, in the background (the batch goes on;
 * the latest model wins), written complete under a temporary name and swapped in by renames, so
 * readers never load a half-written model.
 *
 * <p>Usage:
 * <pre>{@code
 * StreamingPerceptron trainer = new StreamingPerceptron(new PerceptronClassifier().setUpdateRule("pa1"))
 *     .setCheckpointLocation("/data/ckpt").setModelPath("/models/live").setPublishEvery(10);
 * StreamingQuery query = trainer.start(spark.readStream().schema(schema).parquet("/data/in"));
 * ...
 * trainer.stop();   // stops the query and publishes the final model
 * }</pre>
 * Cost per batch: the batch's rows are converted to blocks once, scored once and trained on
 * {@code epochsPerBatch} times; a batch of one epoch and one mixing round is converted, scored and
 * learnt in one Spark job (see {@code OnlineTraining} for when it takes more), then the values it
 * changed are written to the learner state; publishing runs in the background.
 */
public final class StreamingPerceptron {
  private static final Logger LOG = LoggerFactory.getLogger(StreamingPerceptron.class);

  /** Spark's local property holding the running streaming query's id (StreamExecution). */
  private static final String QUERY_ID_PROPERTY = "sql.streaming.queryId";
  static final String LEARNER_DIR = "learner";
  /** {@link #setPublishInterval}'s default, seconds. */
  public static final double DEFAULT_PUBLISH_INTERVAL = 2.0;
  static final String QUERY_DIR = "query";

  private final PerceptronClassifier params;
  private String checkpointLocation;
  private String modelPath;
  private int publishEvery = 1;
  private double publishInterval = DEFAULT_PUBLISH_INTERVAL;
  private int epochsPerBatch = 1;
  private int numClasses;
  private String queryName;
  private String driftDetector = "adwin";
  private String onDrift = "report";
  private final List<BatchListener> listeners = new CopyOnWriteArrayList<>();

  /** The loaded learner, or null until prepare (and after a failed batch or release). */
  private StreamLearner learner;
  private volatile LearnerState current;
  /** The stream's training: its learner and executors' copies, for the stream's life. */
  private ModelPublisher publisher;
  private SparkSession spark;
  private StreamingQuery query;

  /**
   * @param params the learner's configuration; copied, so later changes to it have no effect
   */
  public StreamingPerceptron(PerceptronClassifier params) {
    this.params = params.copy(ParamMap.empty());
  }

  /** A stream learner with {@link PerceptronClassifier}'s defaults. */
  public StreamingPerceptron() {
    this(new PerceptronClassifier());
  }

  /**
   * Where the learner state ({@code learner/}) and Spark's query checkpoint ({@code query/}) are
   * kept: any Hadoop path on a file system with atomic rename (local, HDFS). Required. Use one
   * location per stream; a location keeps resuming the stream it holds.
   */
  public StreamingPerceptron setCheckpointLocation(String path) {
    requireNotStarted();
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException("checkpointLocation must be a path, got '" + path + "'");
    }
    this.checkpointLocation = path;
    return this;
  }

  /** Where models are published (Spark ML layout); unset: none are, use {@link #latestModel()}. */
  public StreamingPerceptron setModelPath(String path) {
    requireNotStarted();
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException("modelPath must be a path, got '" + path + "'");
    }
    this.modelPath = path;
    return this;
  }

  /** Publish the model every this many applied batches (default 1), and at a clean end. */
  public StreamingPerceptron setPublishEvery(int batches) {
    requireNotStarted();
    if (batches < 1) {
      throw new IllegalArgumentException("publishEvery must be >= 1 (batches between"
          + " publications), got " + batches);
    }
    this.publishEvery = batches;
    return this;
  }

  /**
   * Epochs (passes) over each batch (default 1: every example is seen once, pure online
   * learning). More passes fit each batch harder; the average still runs over every pass.
   */
  public StreamingPerceptron setEpochsPerBatch(int epochs) {
    requireNotStarted();
    if (epochs < 1) {
      throw new IllegalArgumentException("epochsPerBatch must be >= 1, got " + epochs);
    }
    this.epochsPerBatch = epochs;
    return this;
  }

  /**
   * The number of classes K, fixed for the stream's life (0, the default: from the label
   * column's metadata, else from the first batch's largest label).
   */
  public StreamingPerceptron setNumClasses(int classes) {
    requireNotStarted();
    if (classes != 0 && classes < 2) {
      throw new IllegalArgumentException("numClasses must be >= 2, or 0 to take it from the first"
          + " batch, got " + classes);
    }
    this.numClasses = classes;
    return this;
  }

  /**
   * The change detector fed each batch's prequential errors: {@code adwin} (the default; ADWIN,
   * Bifet &amp; Gavaldà 2007, δ = 0.002), {@code page-hinkley} (Page 1954; δ = 0.005, λ = 100) or
   * {@code none}. The defaults were chosen by measurement (BENCHMARKS.md, drift detection):
   * ADWIN raised no false alarm on any measured stream without change and found an abrupt
   * change within a few hundred rows.
   */
  public StreamingPerceptron setDriftDetector(String name) {
    requireNotStarted();
    DriftDetectors.create(name); // validates, with the message naming the choices
    this.driftDetector = name.trim().toLowerCase(Locale.ROOT);
    return this;
  }

  /**
   * What a detected drift does: {@code report} (the default: it is reported, nothing else) or
   * {@code reset}: the batch in which the drift was found is learnt by a fresh model (zero
   * weights, average and clock, no momentum), since the model of the old data predicts the new
   * no better than chance (BENCHMARKS.md: +8.8 points over the five batches after an abrupt
   * change). With {@code reset} each batch is scored in a job of its own before it is learnt.
   */
  public StreamingPerceptron setOnDrift(String policy) {
    requireNotStarted();
    String p = policy == null ? "" : policy.trim().toLowerCase(Locale.ROOT);
    if (!p.equals("report") && !p.equals("reset")) {
      throw new IllegalArgumentException("onDrift must be report or reset, got '" + policy
          + "'");
    }
    this.onDrift = p;
    return this;
  }

  /** The streaming query's name (Spark's {@code queryName}), shown in Spark's UI and logs. */
  public StreamingPerceptron setQueryName(String name) {
    requireNotStarted();
    this.queryName = name;
    return this;
  }

  /** Adds a listener told about every applied batch. */
  public StreamingPerceptron addListener(BatchListener listener) {
    listeners.add(listener);
    return this;
  }

  /** The learner's configuration (a copy). */
  public PerceptronClassifier getParams() {
    return params.copy(ParamMap.empty());
  }

  public String getCheckpointLocation() {
    return checkpointLocation;
  }

  public String getModelPath() {
    return modelPath;
  }

  public int getPublishEvery() {
    return publishEvery;
  }

  /**
   * The least time between the starts of two publications, in seconds (default
   * {@value #DEFAULT_PUBLISH_INTERVAL}; 0: none). A model due sooner waits, replaced by any newer
   * one (the latest wins), and is published when the interval has passed; a clean end publishes
   * the last model at once. Each publication is a model save (a few Spark jobs) that competes with
   * the batches for the cluster; readers rarely need a newer model than every few seconds.
   */
  public StreamingPerceptron setPublishInterval(double seconds) {
    requireNotStarted();
    if (!(seconds >= 0.0) || Double.isInfinite(seconds)) {
      throw new IllegalArgumentException("publishInterval must be a finite number of seconds"
          + " >= 0, got " + seconds);
    }
    this.publishInterval = seconds;
    return this;
  }

  public double getPublishInterval() {
    return publishInterval;
  }

  public int getEpochsPerBatch() {
    return epochsPerBatch;
  }

  public int getNumClasses() {
    return numClasses;
  }

  public String getDriftDetector() {
    return driftDetector;
  }

  public String getOnDrift() {
    return onDrift;
  }

  /** Starts learning from {@code stream} as fast as batches come (Spark's default trigger). */
  public StreamingQuery start(Dataset<Row> stream) throws TimeoutException {
    return start(stream, null);
  }

  /**
   * Starts learning from {@code stream} ({@code foreachBatch} underneath) with {@code trigger}
   * (e.g. {@code Trigger.AvailableNow()} to learn what is there and stop, or
   * {@code Trigger.ProcessingTime("10 seconds")}); {@code null} for Spark's default.
   *
   * @throws IllegalArgumentException if the params cannot learn from a stream, the columns are
   *     missing, or the checkpoint location holds another training's state
   */
  public StreamingQuery start(Dataset<Row> stream, Trigger trigger) throws TimeoutException {
    requireStreaming(stream);
    requireStreamable();
    params.transformSchema(stream.schema());
    return startQuery(stream, trigger, this::processBatch);
  }

  /**
   * Starts learning from a stream whose rows become (label, features) rows batch by batch:
   * {@code toTrainingRows} turns each micro-batch into the rows to learn (e.g. reads the files a
   * batch names, as {@code submit/stream-train} does). It is called on the driver, only for batches
   * not applied yet, so a batch replayed after a restart is neither converted nor learnt again.
   */
  public StreamingQuery start(Dataset<Row> stream, Trigger trigger,
      Function<Dataset<Row>, Dataset<Row>> toTrainingRows) throws TimeoutException {
    return startBatchInputs(stream, trigger, batch -> BatchInput.of(toTrainingRows.apply(batch)));
  }

  /**
   * As {@link #start(Dataset, Trigger, Function)} with each micro-batch turned into a
   * {@link BatchInput}: e.g. its files read in one pass ({@link BatchInput#text}, as
   * {@code submit/stream-train} reads LIBSVM and CSV).
   */
  StreamingQuery startBatchInputs(Dataset<Row> stream, Trigger trigger,
      Function<Dataset<Row>, BatchInput> toBatchInput) throws TimeoutException {
    requireStreaming(stream);
    return startQuery(stream, trigger,
        (batch, batchId) -> processBatchInput(batchId, () -> toBatchInput.apply(batch)));
  }

  private StreamingQuery startQuery(Dataset<Row> stream, Trigger trigger,
      VoidFunction2<Dataset<Row>, Long> body) throws TimeoutException {
    requireNotStarted();
    prepare(stream.sparkSession());
    if (current != null && !exists(new Path(checkpointLocation, QUERY_DIR))) {
      throw new IllegalArgumentException("The checkpoint location '" + checkpointLocation
          + "' holds a learner state (" + LEARNER_DIR + "/, up to batch "
          + current.progress.lastBatchId() + ") but no query checkpoint (" + QUERY_DIR + "/): without it Spark would start the"
          + " stream again from its beginning and learn every row twice. Restore " + QUERY_DIR
          + "/, or delete the whole location to learn from scratch");
    }
    DataStreamWriter<Row> writer = stream.writeStream()
        .option("checkpointLocation", new Path(checkpointLocation, QUERY_DIR).toString())
        .foreachBatch(body);
    if (queryName != null) {
      writer = writer.queryName(queryName);
    }
    if (trigger != null) {
      writer = writer.trigger(trigger);
    }
    query = writer.start();
    return query;
  }

  private static void requireStreaming(Dataset<Row> stream) {
    if (!stream.isStreaming()) {
      throw new IllegalArgumentException("start() needs a streaming DataFrame"
          + " (spark.readStream()...); to train on a static DataFrame use"
          + " PerceptronClassifier.fit");
    }
  }

  /**
   * Reads the learner state (once) and checks that it belongs to this configuration. Called by
   * {@link #start}; call it yourself before {@link #processBatch} in your own
   * {@code foreachBatch} if you want the checks before the first batch.
   */
  public synchronized void prepare(SparkSession session) {
    if (checkpointLocation == null) {
      throw new IllegalStateException("Set a checkpoint location (setCheckpointLocation) before"
          + " starting: the learner state must survive the driver for exactly-once learning");
    }
    requireStreamable();
    this.spark = session;
    if (learner != null) {
      return;
    }
    StreamLearner loaded = StreamLearner.load(session, this);
    try {
      if (modelPath != null && publisher == null) {
        ModelPublisher.recover(session, modelPath);
        long published = loaded.store.publishedBatch(modelPath);
        if (published >= 0 && !exists(new Path(modelPath))) {
          published = -1;
        }
        publisher = new ModelPublisher(session, modelPath, loaded.store, published,
            publishInterval);
      }
    } catch (RuntimeException e) {
      // Not loaded: the next call reads the state again.
      loaded.close();
      throw e;
    }
    current = loaded.saved;
    learner = loaded;
  }

  /** Applies one micro-batch: what {@link #start}'s {@code foreachBatch} calls. */
  public void processBatch(Dataset<Row> batch, long batchId) {
    processBatch(batchId, () -> batch);
  }

  /**
   * Applies micro-batch {@code batchId} unless it was applied already (a replay), in which case
   * {@code batch} is not even called. For your own {@code foreachBatch} when a batch needs
   * preparing first (e.g. reading the files it names): call it with Spark's batch id, and the
   * exactly-once guarantee holds as with {@link #start}.
   */
  public void processBatch(long batchId, Supplier<Dataset<Row>> batch) {
    processBatchInput(batchId, () -> BatchInput.of(batch.get()));
  }

  /**
   * As {@link #processBatch(long, Supplier)} for a {@link BatchInput}, e.g. text files read in
   * one pass ({@link BatchInput#text}).
   */
  synchronized void processBatchInput(long batchId, Supplier<BatchInput> batch) {
    long started = System.nanoTime();
    SparkSession session = SparkSession.active();
    prepare(session);
    String queryId = session.sparkContext().getLocalProperty(QUERY_ID_PROPERTY);
    LearnerState before = current;
    if (before != null) {
      before.requireWrittenBy(queryId, learner.store.location());
      if (batchId <= before.progress.lastBatchId()) {
        LOG.info("Batch {} was applied already (the learner state is at batch {}): Spark replays"
            + " it after a restart; skipping it", batchId, before.progress.lastBatchId());
        return;
      }
    }
    StreamLearner.Learnt learnt;
    try {
      learnt = learner.learn(before, batchId, batch, queryId);
    } catch (RuntimeException e) {
      // The learner, its detector and its executors' copies may be part-way through the batch:
      // the next batch starts again from the saved state.
      discard();
      throw e;
    }
    if (learnt == null) {
      LOG.info("Batch {} holds no rows; nothing to learn", batchId);
      return;
    }
    LearnerState after = learnt.state();
    current = after;
    if (before == null) {
      LOG.info("The stream's model has {} classes and {} features", after.progress.numClasses(),
          after.progress.numFeatures());
    }
    boolean publish = publisher != null && after.progress.batches() % publishEvery == 0;
    if (publish) {
      publish(after);
    }
    BatchReport report = new BatchReport(batchId, learnt.outcome(),
        (System.nanoTime() - started) / 1e9, publish, learnt.drift(), after.progress);
    LOG.info("{}", report);
    for (BatchListener listener : listeners) {
      listener.onBatch(report);
    }
    pauseIfAsked(session, batchId);
  }

  /** Forgets the learner in memory: the next batch loads it from the saved state again. */
  private void discard() {
    if (learner != null) {
      learner.close();
      learner = null;
    }
  }

  /**
   * The current model (averaged weights when averaging), carrying the configuration's params;
   * while a batch is being learnt, it waits for the batch to end.
   *
   * @throws IllegalStateException before the first batch with rows was learnt
   */
  public synchronized PerceptronClassificationModel latestModel() {
    LearnerState s = current;
    if (s == null) {
      throw new IllegalStateException("No model yet: the stream has not learnt from any batch"
          + " (hasModel() tells)");
    }
    return EngineBridge.model(params, s.progress.numClasses(), s.progress.numFeatures(), s.state);
  }

  /** Whether a model exists: some batch with rows has been learnt (now or in an earlier run). */
  public boolean hasModel() {
    return current != null;
  }

  /** What the learner has done since the stream began, or {@code null} before any batch. */
  public StreamingProgress progress() {
    LearnerState s = current;
    return s == null ? null : s.progress;
  }

  /** The query {@link #start} started, or {@code null}. */
  public StreamingQuery query() {
    return query;
  }

  /**
   * Publishes the current model to the model path now, unless the model there already holds
   * the last applied batch, and waits until every model handed to the background publisher is
   * written.
   *
   * @return whether a model was written
   */
  public boolean publish() {
    if (modelPath == null) {
      throw new IllegalStateException("No model path: set one with setModelPath");
    }
    ModelPublisher p;
    boolean handed = false;
    synchronized (this) {
      p = publisher;
      LearnerState s = current;
      if (p == null) {
        return false;
      }
      if (s != null && s.progress.lastBatchId() != p.latestBatch()) {
        publish(s);
        handed = true;
      }
    }
    p.awaitIdle();
    return handed;
  }

  /** Hands the model of {@code s} (built now: the next batch changes the state) to the publisher. */
  private void publish(LearnerState s) {
    StreamingProgress p = s.progress;
    publisher.submit(p.lastBatchId(),
        EngineBridge.model(params, p.numClasses(), p.numFeatures(), s.state));
  }

  /**
   * Stops the query (if it runs) and publishes the final model (with a model path) unless the
   * query had failed: a failed batch was not applied, and the last publication stands.
   */
  public void stop() throws TimeoutException {
    if (query != null) {
      query.stop();
    }
    if (modelPath != null && (query == null || query.exception().isEmpty())) {
      publish();
    }
    release();
  }

  /** After the query: the publisher's thread and the executors' copies of the weights go. */
  private synchronized void release() {
    if (publisher != null) {
      publisher.close();
      publisher = null;
    }
    discard();
  }

  /**
   * Waits until the query ends (an {@code AvailableNow} trigger ends it when the data present
   * are learnt), then publishes the final model.
   *
   * @throws StreamingQueryException if the query failed (bad input, say); nothing is published
   */
  public void awaitTermination() throws StreamingQueryException {
    if (query == null) {
      throw new IllegalStateException("start() was not called");
    }
    try {
      query.awaitTermination();
      if (modelPath != null) {
        publish();
      }
    } finally {
      release();
    }
  }

  /** The settings that make this stream's training what it is ({@link StreamConfiguration}). */
  String configuration() {
    return StreamConfiguration.of(params, epochsPerBatch, numClasses, driftDetector, onDrift);
  }

  private boolean exists(Path p) {
    try {
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      return fs.exists(p);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot reach '" + p + "'", e);
    }
  }

  private void requireStreamable() {
    String problem = StreamRefusals.problem(params);
    if (problem != null) {
      throw new IllegalArgumentException("Cannot learn from a stream with these params: "
          + problem);
    }
  }

  private void requireNotStarted() {
    if (query != null) {
      throw new IllegalStateException("The stream was started; configure before start()");
    }
  }

  private static void pauseIfAsked(SparkSession session, long batchId) {
    String when = session.sparkContext().getConf().get(Settings.TEST_PAUSE_AFTER_BATCH, null);
    if (when == null || Long.parseLong(when) != batchId) {
      return;
    }
    LOG.warn("Test hook {}={}: batch {} is applied and its state saved; waiting to be killed"
        + " before Spark commits it", Settings.TEST_PAUSE_AFTER_BATCH, when, batchId);
    try {
      Thread.sleep(600_000L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
