package io.github.sparkperceptron.ml;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A training summary as one small file of numbers, for Spark Connect's model cache: the server
 * moves fitted models to its local disk and back ({@code HasTrainingSummary.saveSummary} /
 * {@code loadSummary}), and a {@link PerceptronTrainingSummary} records the epochs of a training
 * that cannot be recomputed from the data afterwards. Only numbers are read back (lengths checked
 * before anything is allocated), never objects; the file is written under a temporary name and
 * renamed, so a reader sees it whole or not at all.
 *
 * <pre>
 * "SPSUMMARY" version(int = 1) epochs(int) workers(int)
 * updates, mistakes, examples            epochs longs each
 * objective, perceptronLoss, hingeLoss,
 * weightChange, epochSeconds             epochs doubles each
 * partitionUpdates                       epochs × workers longs
 * validation: count(int), doubles
 * modelEpoch(int) numPartitions(int) stopReason(UTF)
 * </pre>
 */
final class TrainingSummaryFile {
  private static final String MAGIC = "SPSUMMARY";
  private static final int VERSION = 1;
  /** More epochs or workers than any training runs: a corrupt length, not a summary. */
  private static final int MAX_LENGTH = 1 << 24;

  private TrainingSummaryFile() {
  }

  static void save(PerceptronTrainingSummary s, Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Path tmp = Files.createTempFile(parent, ".summary", ".tmp");
      long[][] partitions = s.partitionUpdatesHistory();
      try (DataOutputStream out = new DataOutputStream(
          new BufferedOutputStream(Files.newOutputStream(tmp)))) {
        out.writeUTF(MAGIC);
        out.writeInt(VERSION);
        out.writeInt(s.totalIterations());
        out.writeInt(s.numWorkers());
        writeLongs(out, s.updatesHistory());
        writeLongs(out, s.mistakesHistory());
        writeLongs(out, s.examplesHistory());
        writeDoubles(out, s.objectiveHistory());
        writeDoubles(out, s.perceptronLossHistory());
        writeDoubles(out, s.hingeLossHistory());
        writeDoubles(out, s.weightChangeHistory());
        writeDoubles(out, s.epochSeconds());
        for (long[] row : partitions) {
          out.writeInt(row.length);
          writeLongs(out, row);
        }
        double[] validation = s.validationHistory();
        out.writeInt(validation.length);
        writeDoubles(out, validation);
        out.writeInt(s.modelEpoch());
        out.writeInt(s.numPartitions());
        out.writeUTF(s.stopReason().name());
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the training summary to " + file, e);
    }
  }

  static PerceptronTrainingSummary load(Path file) {
    try (DataInputStream in = new DataInputStream(
        new BufferedInputStream(Files.newInputStream(file)))) {
      if (!MAGIC.equals(in.readUTF()) || in.readInt() != VERSION) {
        throw unreadable(file, "not a training summary of this version");
      }
      int epochs = length(in, file);
      int workers = length(in, file);
      long[] updates = readLongs(in, epochs);
      long[] mistakes = readLongs(in, epochs);
      long[] examples = readLongs(in, epochs);
      double[] objective = readDoubles(in, epochs);
      double[] perceptronLoss = readDoubles(in, epochs);
      double[] hingeLoss = readDoubles(in, epochs);
      double[] weightChange = readDoubles(in, epochs);
      double[] seconds = readDoubles(in, epochs);
      long[][] partitions = new long[epochs][];
      for (int e = 0; e < epochs; e++) {
        int n = length(in, file);
        if (n != workers) {
          throw unreadable(file, "epoch " + e + " has " + n + " workers, not " + workers);
        }
        partitions[e] = readLongs(in, n);
      }
      double[] validation = readDoubles(in, length(in, file));
      int modelEpoch = in.readInt();
      int numPartitions = in.readInt();
      PerceptronTrainingSummary.StopReason stop;
      try {
        stop = PerceptronTrainingSummary.StopReason.valueOf(in.readUTF());
      } catch (IllegalArgumentException e) {
        throw unreadable(file, "unknown stop reason");
      }
      return new PerceptronTrainingSummary(updates, mistakes, examples, objective,
          perceptronLoss, hingeLoss, weightChange, seconds, partitions, validation, modelEpoch,
          stop, numPartitions, workers);
    } catch (EOFException e) {
      throw unreadable(file, "it is truncated");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the training summary " + file, e);
    }
  }

  private static int length(DataInputStream in, Path file) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > MAX_LENGTH) {
      throw unreadable(file, "a length of " + n);
    }
    return n;
  }

  private static IllegalArgumentException unreadable(Path file, String why) {
    return new IllegalArgumentException("Training summary " + file + " is unreadable (" + why
        + "); fit the model again to get its summary");
  }

  private static void writeLongs(DataOutputStream out, long[] values) throws IOException {
    for (long v : values) {
      out.writeLong(v);
    }
  }

  private static void writeDoubles(DataOutputStream out, double[] values) throws IOException {
    for (double v : values) {
      out.writeDouble(v);
    }
  }

  private static long[] readLongs(DataInputStream in, int n) throws IOException {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = in.readLong();
    }
    return out;
  }

  private static double[] readDoubles(DataInputStream in, int n) throws IOException {
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = in.readDouble();
    }
    return out;
  }
}
