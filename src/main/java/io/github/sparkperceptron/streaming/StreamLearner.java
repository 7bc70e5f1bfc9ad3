package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.drift.DriftDetector;
import io.github.sparkperceptron.internal.drift.DriftDetectors;
import io.github.sparkperceptron.internal.engine.OnlineTraining.BatchOutcome;
import io.github.sparkperceptron.internal.engine.OnlineTraining;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import java.util.function.Supplier;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream's learner as {@link StreamingPerceptron} holds it between loading its saved state and
 * releasing it: the state store under {@code <checkpointLocation>/learner}, the configuration the
 * state must belong to, the online trainer ({@link OnlineTraining}) and the drift detector; it
 * learns one micro-batch and saves the state it leaves, before Spark commits the batch (the
 * exactly-once protocol of {@link StreamingPerceptron}'s class comment).
 *
 * <p>Not thread-safe: its owner's lock guards it (a batch, the latest model and the release
 * exclude each other there). A learner whose batch failed part-way is closed and dropped, and
 * the next batch loads a new one from the saved state.
 */
final class StreamLearner {
  /** The stream's logger: users configure the stream's log lines under its public class. */
  private static final Logger LOG = LoggerFactory.getLogger(StreamingPerceptron.class);

  final LearnerStateStore store;
  /** The state read when the learner was loaded; null for a stream's first batch. */
  final LearnerState saved;
  private final String configuration;
  private final boolean resetOnDrift;
  private final OnlineTraining engine;
  private final DriftDetector detector;

  /** What learning a batch did: the trainer's outcome, the state saved, whether drift fired. */
  record Learnt(BatchOutcome outcome, LearnerState state, boolean drift) {
  }

  private StreamLearner(LearnerStateStore store, LearnerState saved, String configuration,
      boolean resetOnDrift, OnlineTraining engine, DriftDetector detector) {
    this.store = store;
    this.saved = saved;
    this.configuration = configuration;
    this.resetOnDrift = resetOnDrift;
    this.engine = engine;
    this.detector = detector;
  }

  /**
   * Reads the learner state saved under {@code settings}' checkpoint location and checks that it
   * belongs to their configuration; an empty location starts a new stream.
   *
   * @throws IllegalArgumentException naming the difference when it holds another training's
   */
  static StreamLearner load(SparkSession session, StreamingPerceptron settings) {
    String checkpointLocation = settings.getCheckpointLocation();
    String configuration = settings.configuration();
    String learnerDir = new Path(checkpointLocation, StreamingPerceptron.LEARNER_DIR).toString();
    LearnerStateStore store = new LearnerStateStore(
        session.sparkContext().hadoopConfiguration(), learnerDir);
    LearnerState saved = store.latest();
    if (saved != null) {
      String difference = StreamConfiguration.difference(
          StreamConfiguration.upgraded(saved.configuration, configuration), configuration);
      if (difference != null) {
        throw new IllegalArgumentException("The checkpoint location '" + checkpointLocation
            + "' holds the learner state of another training: " + difference + ". Resume with"
            + " the same settings, or use a new checkpoint location to start another training");
      }
      LOG.info("Resuming the stream's learner from {} ({})", store.location(), saved.progress);
    }
    String driftDetector = settings.getDriftDetector();
    boolean resetOnDrift = !driftDetector.equals(DriftDetectors.NONE)
        && settings.getOnDrift().equals("reset");
    OnlineTraining engine = new OnlineTraining(
        JavaSparkContext.fromSparkContext(session.sparkContext()),
        EngineBridge.config(settings.getParams()), settings.getEpochsPerBatch(), resetOnDrift,
        settings.getNumClasses(), saved == null ? null
            : new OnlineTraining.Saved(saved.progress.numClasses(), saved.progress.numFeatures(),
                saved.state, saved.momentum));
    DriftDetector detector = saved != null && saved.drift != null
        ? DriftDetectors.decode(saved.drift) : DriftDetectors.create(driftDetector);
    return new StreamLearner(store, saved, configuration, resetOnDrift, engine, detector);
  }

  /**
   * Learns micro-batch {@code batchId} after the state {@code before} (null before the first)
   * and saves the state it leaves, written by query {@code queryId}; null when the batch holds
   * no rows (nothing saved). A failure may leave this learner part-way through the batch: close
   * it then.
   */
  Learnt learn(LearnerState before, long batchId, Supplier<BatchInput> batch, String queryId) {
    boolean[] drift = {false};
    BatchOutcome outcome = engine.trainBatch(batch.get(), batchId, (rows, correct) -> {
      drift[0] = detector != null && detector.addBatch(rows, rows - correct) > 0;
      return drift[0] && resetOnDrift;
    });
    if (outcome == null) {
      return null;
    }
    LearnerState after = new LearnerState(configuration, queryId == null ? "" : queryId,
        StreamingProgress.after(before == null ? null : before.progress, batchId, outcome,
            drift[0], engine.numClasses(), engine.numFeatures()),
        engine.state(), engine.momentum(), detector == null ? null : detector.encode());
    store.save(after, engine.writtenSinceSave());
    engine.markSaved();
    return new Learnt(outcome, after, drift[0]);
  }

  /** The trainer's executors' copies of the weights go. */
  void close() {
    engine.close();
  }
}
