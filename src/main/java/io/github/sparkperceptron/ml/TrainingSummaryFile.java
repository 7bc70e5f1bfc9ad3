package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.store.AtomicFiles;
import io.github.sparkperceptron.internal.store.StateFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A training summary as one small state file, for Spark Connect's model cache: the server moves
 * fitted models to its local disk and back ({@code HasTrainingSummary.saveSummary} /
 * {@code loadSummary}), and a {@link PerceptronTrainingSummary} records the epochs of a training,
 * which cannot be recomputed from the data afterwards. A codec on the project's one state-file
 * container ({@link StateFile}: magic, version, checksummed sections; only numbers are read back,
 * their lengths checked against the section before anything is allocated), written atomically
 * ({@link AtomicFiles}), so a reader sees it whole or not at all.
 *
 * <pre>
 * header   "training summary"
 * EPOCHS   updates, mistakes, examples (long[]); objective, perceptronLoss, hingeLoss,
 *          weightChange, epochSeconds (double[]), one entry per epoch each
 * WORKERS  numWorkers (int), then per epoch the updates of each worker (long[])
 * OUTCOME  validation accuracy (double[]), modelEpoch (int), stopReason (UTF),
 *          numInputPartitions (int)
 * </pre>
 */
final class TrainingSummaryFile {
  static final int VERSION = 1;
  private static final int EPOCHS = 1;
  private static final int WORKERS = 2;
  private static final int OUTCOME = 3;
  private static final String HEADER = "training summary";
  static final StateFile.Kind KIND = new StateFile.Kind("SUMM", "training summary", "header",
      "", "EPOCHS", "WORKERS", "OUTCOME");

  private TrainingSummaryFile() {
  }

  static void save(PerceptronTrainingSummary summary, java.nio.file.Path file) {
    PerceptronTrainingSummary.Numbers n = summary.numbers();
    try {
      AtomicFiles.write(localFileSystem(), new Path(file.toAbsolutePath().toUri()), raw -> {
        StateFile.Out out = new StateFile.Out(raw, KIND, VERSION, HEADER);
        out.section(EPOCHS, o -> {
          o.writeLongs(n.updates);
          o.writeLongs(n.mistakes);
          o.writeLongs(n.examples);
          for (double[] a : new double[][] {n.objective, n.perceptronLoss, n.hingeLoss,
              n.weightChange, n.epochSeconds}) {
            o.writeDoubles(a, a.length);
          }
        });
        out.section(WORKERS, o -> {
          o.writeInt(n.numWorkers);
          o.writeInt(n.workerUpdates.length);
          for (long[] row : n.workerUpdates) {
            o.writeLongs(row);
          }
        });
        out.section(OUTCOME, o -> {
          o.writeDoubles(n.validationAccuracy, n.validationAccuracy.length);
          o.writeInt(n.modelEpoch);
          o.writeUTF(n.stopReason.name());
          o.writeInt(n.numInputPartitions);
        });
        out.finish();
      });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the training summary to " + file, e);
    }
  }

  static PerceptronTrainingSummary load(java.nio.file.Path file) {
    try (InputStream raw = Files.newInputStream(file)) {
      return StateFile.read(raw, Files.size(file), KIND, TrainingSummaryFile::decode);
    } catch (StateFile.Unreadable e) {
      throw new IllegalArgumentException("Training summary " + file + " is unreadable ("
          + e.getMessage() + "); fit the model again to get its summary", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the training summary " + file, e);
    }
  }

  private static PerceptronTrainingSummary decode(StateFile.In in)
      throws IOException, StateFile.Unreadable {
    in.requireVersion(VERSION);
    in.requireHeader(in.header(), HEADER, "another kind of file");
    PerceptronTrainingSummary.Numbers n = new PerceptronTrainingSummary.Numbers();
    for (int tag = in.nextSection(); tag != StateFile.END; tag = in.nextSection()) {
      switch (tag) {
        case EPOCHS:
          n.updates = in.readLongs();
          n.mistakes = in.readLongs();
          n.examples = in.readLongs();
          n.objective = in.readDoubles();
          n.perceptronLoss = in.readDoubles();
          n.hingeLoss = in.readDoubles();
          n.weightChange = in.readDoubles();
          n.epochSeconds = in.readDoubles();
          break;
        case WORKERS:
          n.numWorkers = in.readInt();
          n.workerUpdates = new long[in.readCount(4)][];
          for (int e = 0; e < n.workerUpdates.length; e++) {
            n.workerUpdates[e] = in.readLongs();
          }
          break;
        case OUTCOME:
          n.validationAccuracy = in.readDoubles();
          n.modelEpoch = in.readInt();
          String reason = in.readUTF();
          try {
            n.stopReason = StopReason.valueOf(reason);
          } catch (IllegalArgumentException e) {
            throw in.damaged("stop reason '" + reason + "' is unknown");
          }
          n.numInputPartitions = in.readInt();
          break;
        default:
          throw in.damaged("section " + in.sectionName(tag) + " is unknown");
      }
      in.leave();
    }
    in.finish();
    requireShape(in, n);
    return new PerceptronTrainingSummary(n);
  }

  /** Every section present, and every history one entry per epoch (each row one per worker). */
  private static void requireShape(StateFile.In in, PerceptronTrainingSummary.Numbers n)
      throws StateFile.Unreadable {
    for (int tag : new int[] {EPOCHS, WORKERS, OUTCOME}) {
      if (!in.seen(tag)) {
        throw damaged("section " + in.sectionName(tag) + " is missing");
      }
    }
    int epochs = n.updates.length;
    for (int length : new int[] {n.mistakes.length, n.examples.length, n.objective.length,
        n.perceptronLoss.length, n.hingeLoss.length, n.weightChange.length,
        n.epochSeconds.length, n.workerUpdates.length}) {
      if (length != epochs) {
        throw damaged("a history has " + length + " entries for " + epochs + " epochs");
      }
    }
    for (long[] row : n.workerUpdates) {
      if (row.length != n.numWorkers) {
        throw damaged("an epoch has " + row.length + " workers' updates, not " + n.numWorkers);
      }
    }
  }

  private static StateFile.Unreadable damaged(String detail) {
    return new StateFile.Unreadable("it is damaged: " + detail, false);
  }

  private static FileSystem localFileSystem() throws IOException {
    return FileSystem.getLocal(new Configuration());
  }
}
