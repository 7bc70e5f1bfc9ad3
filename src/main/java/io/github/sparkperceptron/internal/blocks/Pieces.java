package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.Partitioner;
import org.apache.spark.sql.Row;
import scala.Tuple2;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * A worker's rows on their way through a shuffle ({@link WorkerLayout}'s split and gathered
 * layouts): each input partition converted where it lies into pieces of bounded size, one stream
 * of pieces per worker it feeds, and each worker's pieces sorted by (input partition, piece) by
 * Spark's shuffle, which spills, and appended in that order to the worker's chunks: the rows in
 * the order, counted and summed row by row, that converting the concatenated rows directly
 * gives, bit for bit; and never more than a piece in memory on either side.
 */
final class Pieces {
  private Pieces() {
  }

  /** Where a piece goes and in which order: (worker, input partition, piece). */
  static final class Key implements Serializable {
    private static final long serialVersionUID = 1L;
    final int worker;
    final int partition;
    final int seq;

    Key(int worker, int partition, int seq) {
      this.worker = worker;
      this.partition = partition;
      this.seq = seq;
    }
  }

  /** Orders a worker's pieces: by input partition, then as they were cut. */
  static final Comparator<Key> ORDER = (Comparator<Key> & Serializable) (a, b) ->
      a.worker != b.worker ? Integer.compare(a.worker, b.worker)
          : a.partition != b.partition ? Integer.compare(a.partition, b.partition)
          : Integer.compare(a.seq, b.seq);

  /** The element types of the keyed pieces' RDDs. */
  static final ClassTag<Key> KEY = ClassTag$.MODULE$.apply(Key.class);
  static final ClassTag<Piece> PIECE = ClassTag$.MODULE$.apply(Piece.class);
  @SuppressWarnings({"unchecked", "rawtypes"})
  static final ClassTag<Tuple2<Key, Piece>> KEYED = (ClassTag) ClassTag$.MODULE$.apply(
      Tuple2.class);

  /** The pieces of {@code keyed}, in its order. */
  static Iterator<Piece> values(Iterator<Tuple2<Key, Piece>> keyed) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return keyed.hasNext();
      }

      @Override
      public Piece next() {
        return keyed.next()._2();
      }
    };
  }

  /** Sends each piece to its worker's partition. */
  static final class ByWorker extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int numWorkers;

    ByWorker(int numWorkers) {
      this.numWorkers = numWorkers;
    }

    @Override
    public int numPartitions() {
      return numWorkers;
    }

    @Override
    public int getPartition(Object key) {
      return ((Key) key).worker;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ByWorker && ((ByWorker) other).numWorkers == numWorkers;
    }

    @Override
    public int hashCode() {
      return numWorkers;
    }
  }

  /**
   * Rows of one input partition for one worker: training or validation rows in input order (the
   * model's feature numbers), with what the worker needs to check and count them: the rows'
   * width and the id of the first row of the input partition for that worker (for a message
   * naming two sizes), the largest ‖x‖² of its training rows so far, or the first bad row.
   */
  static final class Piece implements Serializable {
    private static final long serialVersionUID = 1L;
    final TrainingBlock rows;
    final boolean validation;
    final int numFeatures;
    final long firstRowId;
    final double maxSquaredNorm;
    final String problem;
    final long problemRowId;

    Piece(TrainingBlock rows, boolean validation, RowConverter from) {
      this.rows = rows;
      this.validation = validation;
      this.numFeatures = from.numFeatures();
      this.firstRowId = from.counts.firstRowId;
      this.maxSquaredNorm = from.counts.maxSquaredNorm;
      this.problem = null;
      this.problemRowId = -1;
    }

    Piece(String problem, long problemRowId) {
      this.rows = null;
      this.validation = false;
      this.numFeatures = -1;
      this.firstRowId = -1;
      this.maxSquaredNorm = 0.0;
      this.problem = problem;
      this.problemRowId = problemRowId;
    }
  }

  /**
   * The rows of input partition {@code partition} as pieces for {@code targets}: row r goes to
   * {@code targets[(first + r) mod targets.length]} (a split layout deals rows round-robin over
   * every worker; a gathered one sends them all to one), each piece at most {@code pieceBytes}.
   * On a bad row every target gets the problem and the rest is not read.
   */
  static Iterator<Tuple2<Key, Piece>> deal(int partition, Iterator<Row> rows,
      ConversionSpec spec, int[] targets, int first, long pieceBytes) {
    return new Dealt(partition, rows, spec, targets, first, pieceBytes);
  }

  private static final class Dealt implements Iterator<Tuple2<Key, Piece>> {
    private final int partition;
    private final Iterator<Row> rows;
    private final ConversionSpec spec;
    private final int[] targets;
    private final RowConverter[] converters;
    private final int[] seq;
    private final ArrayDeque<Tuple2<Key, Piece>> ready = new ArrayDeque<>();
    private int next;
    private boolean done;

    Dealt(int partition, Iterator<Row> rows, ConversionSpec spec, int[] targets, int first,
        long pieceBytes) {
      this.partition = partition;
      this.rows = rows;
      this.spec = spec;
      this.targets = targets;
      this.converters = new RowConverter[targets.length];
      this.seq = new int[targets.length];
      this.next = first % targets.length;
      for (int i = 0; i < targets.length; i++) {
        int target = i;
        RowConverter[] self = converters;
        converters[i] = new RowConverter(spec, targets[i], spec.expectedFeatures,
            new RowConverter.Writers() {
              @Override
              public ChunkWriter training(int width) {
                return ChunkWriter.toSink(chunk -> emit(target, chunk, false, self[target]),
                    width, pieceBytes);
              }

              @Override
              public ChunkWriter validation(int width) {
                return ChunkWriter.toSink(chunk -> emit(target, chunk, true, self[target]),
                    width, pieceBytes);
              }
            });
      }
    }

    private void emit(int target, TrainingBlock chunk, boolean validation, RowConverter from) {
      ready.add(new Tuple2<>(new Key(targets[target], partition, seq[target]++),
          new Piece(chunk, validation, from)));
    }

    @Override
    public boolean hasNext() {
      while (ready.isEmpty() && !done) {
        if (rows.hasNext()) {
          Row row = rows.next();
          long rowId = row.getLong(spec.rowIdIndex);
          String problem = converters[next].add(row, rowId);
          next = next + 1 == converters.length ? 0 : next + 1;
          if (problem != null) {
            ready.clear();
            for (int i = 0; i < targets.length; i++) {
              ready.add(new Tuple2<>(new Key(targets[i], partition, seq[i]++),
                  new Piece(problem, rowId)));
            }
            done = true;
          }
        } else {
          for (RowConverter c : converters) {
            c.flush();
          }
          done = true;
        }
      }
      return !ready.isEmpty();
    }

    @Override
    public Tuple2<Key, Piece> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return ready.poll();
    }
  }

  /**
   * Worker {@code worker}'s partition from its pieces, given in (input partition, piece) order:
   * their rows one after the other, counted and summed row by row exactly as converting them
   * directly would, so the chunks and facts equal those of a direct conversion of the
   * concatenated rows.
   */
  static WorkerBlocks merge(int worker, Iterator<Piece> pieces, ConversionSpec spec) {
    RowConverter merged = new RowConverter(spec, worker, -1);
    int numFeatures = -1;
    long featuresFrom = -1;
    int[] indices = new int[16];
    double[] values = new double[16];
    while (pieces.hasNext()) {
      Piece piece = pieces.next();
      if (piece.problem != null) {
        return WorkerBlocks.failed(worker, piece.problem, piece.problemRowId);
      }
      if (numFeatures >= 0 && piece.numFeatures != numFeatures) {
        return WorkerBlocks.failed(worker, PartitionFacts.sizeMismatch(featuresFrom,
            numFeatures, piece.firstRowId, piece.numFeatures), piece.firstRowId);
      }
      if (numFeatures < 0) {
        featuresFrom = piece.firstRowId;
        numFeatures = piece.numFeatures;
      }
      int longest = piece.rows.features().maxStoredPerRow();
      if (longest > indices.length) {
        indices = new int[longest];
        values = new double[longest];
      }
      merged.append(piece, indices, values);
    }
    return merged.finish(null, null);
  }
}
