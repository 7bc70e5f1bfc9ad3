package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.engine.EpochHistory;
import io.github.sparkperceptron.internal.store.AtomicFiles;
import io.github.sparkperceptron.internal.store.StateFile;
import io.github.sparkperceptron.internal.store.StateReader;
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
 * OUTCOME  numWorkers (int), passiveAggressive (boolean), modelEpoch (int), stopReason (UTF),
 *          numInputPartitions (int)
 * HISTORY  the epochs' {@link EpochHistory}, in its layout (a checkpoint's too)
 * </pre>
 *
 * Version 1 held the summary's arrays instead of the history they are drawn from; such a file
 * (on a server's disk only) is refused with the fix: fit again.
 */
final class TrainingSummaryFile {
  static final int VERSION = 2;
  private static final int OUTCOME = 1;
  private static final int HISTORY = 2;
  private static final String HEADER = "training summary";
  static final StateFile.Kind KIND = new StateFile.Kind("SUMM", "training summary", "header",
      "", "OUTCOME", "HISTORY");

  private TrainingSummaryFile() {
  }

  static void save(PerceptronTrainingSummary summary, java.nio.file.Path file) {
    try {
      AtomicFiles.write(localFileSystem(), new Path(file.toAbsolutePath().toUri()), raw -> {
        StateFile.Out out = new StateFile.Out(raw, KIND, VERSION, HEADER);
        out.section(OUTCOME, o -> {
          o.writeInt(summary.numWorkers());
          o.writeBoolean(summary.passiveAggressive());
          o.writeInt(summary.modelEpoch());
          o.writeUTF(summary.stopReason().name());
          o.writeInt(summary.numInputPartitions());
        });
        out.section(HISTORY, o -> summary.history().write(o));
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

  private static PerceptronTrainingSummary decode(StateReader in)
      throws IOException, StateFile.Unreadable {
    in.requireVersion(VERSION);
    in.requireHeader(in.header(), HEADER, "another kind of file");
    // OUTCOME comes first: the history's rows are checked against its number of workers.
    if (in.nextSection() != OUTCOME) {
      throw damaged("section OUTCOME is missing");
    }
    int numWorkers = in.readInt();
    boolean passiveAggressive = in.readBoolean();
    int modelEpoch = in.readInt();
    String reason = in.readUTF();
    StopReason stopReason;
    try {
      stopReason = StopReason.valueOf(reason);
    } catch (IllegalArgumentException e) {
      throw in.damaged("stop reason '" + reason + "' is unknown");
    }
    int numInputPartitions = in.readInt();
    in.leave();
    if (in.nextSection() != HISTORY) {
      throw damaged("section HISTORY is missing");
    }
    EpochHistory history = EpochHistory.read(in, numWorkers);
    in.leave();
    if (in.nextSection() != StateFile.END) {
      throw damaged("a section follows HISTORY");
    }
    in.finish();
    return new PerceptronTrainingSummary(history, passiveAggressive, modelEpoch, stopReason,
        numInputPartitions, numWorkers);
  }

  private static StateFile.Unreadable damaged(String detail) {
    return new StateFile.Unreadable("it is damaged: " + detail, false);
  }

  private static FileSystem localFileSystem() throws IOException {
    return FileSystem.getLocal(new Configuration());
  }
}
