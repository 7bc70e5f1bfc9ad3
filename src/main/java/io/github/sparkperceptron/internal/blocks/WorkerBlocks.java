package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.io.SplitReport;
import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.io.Serializable;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One worker's cached rows, the element the training's cached RDD holds per worker: the facts of
 * its rows and where its chunks are (its training rows and its validation rows, each a
 * {@link ChunkRows}). Small: the rows themselves are Spark blocks of their own, which the tasks
 * read chunk by chunk ({@link #trainingChunk}, {@link WorkerEpoch}).
 *
 * <p>A chunk that no executor keeps any more (lost with its executor, or dropped from memory at a
 * level without disk) is rebuilt from the input by the task that misses it, through the cached
 * RDD it came from ({@link WorkerBlocksRdd}): the same rows in the same chunks, bit for bit.
 */
public final class WorkerBlocks implements Serializable {
  private static final long serialVersionUID = 2L;

  final PartitionFacts facts;
  /** The training rows; null when the worker has none or a problem. */
  final ChunkRows training;
  /**
   * The validation rows ({@code validationIndicatorCol} true), or the calibration rows held out
   * of training ({@link ConversionSpec#calibrationRows}); null when none.
   */
  final ChunkRows validation;
  /** Rebuilds this worker's chunks in the running task (set by the RDD that hands it out). */
  private transient Supplier<WorkerBlocks> rebuild;

  WorkerBlocks(PartitionFacts facts, ChunkRows training, ChunkRows validation) {
    this.facts = facts;
    this.training = training;
    this.validation = validation;
  }

  static WorkerBlocks failed(int worker, String problem, long rowId) {
    return new WorkerBlocks(PartitionFacts.failed(worker, problem, rowId), null, null);
  }

  static WorkerBlocks refused(int worker, SplitReport report) {
    return new WorkerBlocks(PartitionFacts.refused(worker, report), null, null);
  }

  /** This worker's blocks, able to rebuild its chunks with {@code rebuild} in this task. */
  WorkerBlocks rebuiltBy(Supplier<WorkerBlocks> rebuild) {
    WorkerBlocks handed = new WorkerBlocks(facts, training, validation);
    handed.rebuild = rebuild;
    return handed;
  }

  /**
   * This worker's rows read at {@code width} features, the input's (a text read's rows are as
   * wide as the worker's own largest index): no chunk is touched.
   */
  WorkerBlocks widened(int width) {
    if (!facts.hasRows()) {
      return this;
    }
    return new WorkerBlocks(facts.widened(width),
        training == null ? null : training.widened(width),
        validation == null ? null : validation.widened(width));
  }

  /**
   * This worker's facts alone, to send to the driver, which checks the facts and never reads a
   * chunk: without the chunks' descriptions, whose feature map holds one number per feature the
   * worker's rows use (400 KB a worker for a 50,000-row batch of 100,000 features, some 11 MB for
   * 100,000 rows of hashed features over 2^24).
   */
  public WorkerBlocks factsOnly() {
    return new WorkerBlocks(facts, null, null);
  }

  /** The worker (training partition) index. */
  public int worker() {
    return facts.worker;
  }

  /** Training rows. */
  public long rows() {
    return facts.rows;
  }

  /** Whether the worker has training rows to learn from. */
  public boolean hasTrainingRows() {
    return training != null && training.chunks() > 0;
  }

  /**
   * The worker's total training weight T_i with the class weights applied (see
   * {@link PartitionFacts#trainingWeight}).
   */
  public double trainingWeight(double[] classWeights) {
    return facts.trainingWeight(classWeights);
  }

  /**
   * How the worker's training rows number their features (its own, or the model's: the
   * identity over d); {@code LocalFeatures.none(d)} without training rows.
   */
  public LocalFeatures features(int numFeatures) {
    return training == null || training.features() == null ? LocalFeatures.none(numFeatures)
        : training.features();
  }

  /** Chunk {@code c} of the training rows, rebuilt in this task when it was lost. */
  TrainingBlock trainingChunk(int c) {
    return chunk(training, c, true);
  }

  private TrainingBlock chunk(ChunkRows rows, int c, boolean trainingRows) {
    TrainingBlock chunk = rows.chunk(c);
    if (chunk != null) {
      return chunk;
    }
    if (rebuild == null) {
      throw new IllegalStateException("chunk " + c + " of worker " + worker() + "'s cached rows"
          + " was lost and cannot be rebuilt here");
    }
    WorkerBlocks again = rebuild.get();
    ChunkRows same = trainingRows ? again.training : again.validation;
    chunk = same == null ? null : same.chunk(c);
    if (chunk == null) {
      throw new IllegalStateException("chunk " + c + " of worker " + worker() + " is missing"
          + " after its rows were converted again");
    }
    return chunk;
  }

  /** Calls {@code each} with every chunk of the training rows, in storage order. */
  public void forEachTrainingChunk(Consumer<TrainingBlock> each) {
    if (training != null) {
      for (int c = 0; c < training.chunks(); c++) {
        each.accept(chunk(training, c, true));
      }
    }
  }

  /** The chunks of the training rows, read one by one as they are iterated. */
  public Iterable<TrainingBlock> trainingChunks() {
    return chunks(training, true);
  }

  /** The chunks of the validation rows, read one by one as they are iterated. */
  public Iterable<TrainingBlock> validationChunks() {
    return chunks(validation, false);
  }

  /**
   * The chunks of the rows an evaluation of these data scores, read one by one: the training
   * rows', then, with {@code heldOutToo}, the held-out rows'.
   */
  public Iterable<TrainingBlock> evaluatedChunks(boolean heldOutToo) {
    if (!heldOutToo) {
      return trainingChunks();
    }
    Iterable<TrainingBlock> first = trainingChunks();
    Iterable<TrainingBlock> then = validationChunks();
    return () -> new Iterator<TrainingBlock>() {
      private final Iterator<TrainingBlock> a = first.iterator();
      private final Iterator<TrainingBlock> b = then.iterator();

      @Override
      public boolean hasNext() {
        return a.hasNext() || b.hasNext();
      }

      @Override
      public TrainingBlock next() {
        return a.hasNext() ? a.next() : b.next();
      }
    };
  }

  private Iterable<TrainingBlock> chunks(ChunkRows rows, boolean trainingRows) {
    int n = rows == null ? 0 : rows.chunks();
    return () -> new Iterator<TrainingBlock>() {
      private int c;

      @Override
      public boolean hasNext() {
        return c < n;
      }

      @Override
      public TrainingBlock next() {
        if (c >= n) {
          throw new NoSuchElementException();
        }
        return chunk(rows, c++, trainingRows);
      }
    };
  }

  /** Calls {@code each} with every chunk of the validation rows, in storage order. */
  public void forEachValidationChunk(Consumer<TrainingBlock> each) {
    if (validation != null) {
      for (int c = 0; c < validation.chunks(); c++) {
        each.accept(chunk(validation, c, false));
      }
    }
  }

  /**
   * Whether the worker's rows are sound and fit a model of {@code numFeatures} features and
   * {@code numClasses} classes (a stream's batch, scored and learnt in the job that converts it).
   */
  public boolean fits(int numFeatures, int numClasses) {
    return facts.problem == null && (facts.rows == 0 || (facts.numFeatures == numFeatures
        && facts.classCounts.length <= numClasses));
  }

  /**
   * T = Σ_j T_j in worker order, as the driver sums the facts: from every worker's weight when
   * this worker counted them (a split dealt without a shuffle); else its own.
   */
  public double totalWeightOfAll() {
    if (facts.workerWeights == null) {
      return facts.trainingWeight(null);
    }
    double t = 0.0;
    for (double w : facts.workerWeights) {
      t += w;
    }
    return t;
  }

  /**
   * Moves this worker's chunks from this executor's storage memory to its disk, the validation
   * rows' first (read once an epoch, the training rows' once or more), while the storage memory
   * holds more than {@code cap} bytes; returns the bytes freed.
   */
  long spillWhileAbove(long cap) {
    long freed = validation == null ? 0 : validation.spillWhileAbove(cap);
    return freed + (training == null ? 0 : training.spillWhileAbove(cap));
  }

  /** The facts alone, for the driver. */
  PartitionFacts facts() {
    return facts;
  }
}
