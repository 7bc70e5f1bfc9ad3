package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import io.github.sparkperceptron.internal.store.AtomicFiles;
import io.github.sparkperceptron.internal.store.StateDirectory;
import io.github.sparkperceptron.internal.store.StateFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of a training in a directory on any Hadoop file system: every
 * {@code checkpointInterval} epochs the whole {@link TrainingProgress} is written as
 * {@code epoch-NNNNNN.ckpt}. A file is written under a temporary name and renamed when complete
 * ({@link AtomicFiles}, {@link StateDirectory}), and only complete names are ever read, so a
 * driver that dies while writing leaves the previous checkpoint intact. Older checkpoints are
 * deleted once a newer one is in place, and all of them when training completes.
 *
 * <p>The files are plain data in {@link CheckpointFormat} (never Java serialization: reading one
 * creates no object of a class the file names). Each starts with a fingerprint of the training
 * (params, data shape, workers, initial model) and ends with a checksum: a checkpoint is
 * resumed only by the training it belongs to, and any other, damaged or foreign file is refused
 * with a one-line message that names it and the fix, rather than silently mixed in.
 */
final class Checkpoints {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
  private final StateDirectory files;
  private final String fingerprint;
  private final CheckpointFormat.Shape shape;
  private final int interval;

  /**
   * @param shape what this training's state looks like; a checkpoint is checked against it
   *     before it is used
   * @param interval epochs between checkpoints (&ge; 1)
   */
  Checkpoints(Configuration conf, String dir, String fingerprint, CheckpointFormat.Shape shape,
      int interval) {
    this.files = new StateDirectory(conf, new Path(dir), "epoch-", 6, ".ckpt");
    this.fingerprint = fingerprint;
    this.shape = shape;
    this.interval = interval;
  }

  /** Whether a checkpoint is due after {@code epoch}. */
  boolean due(int epoch) {
    return epoch % interval == 0;
  }

  /**
   * The latest checkpoint of this training, or {@code null} when the directory holds none.
   *
   * @throws IllegalArgumentException if the latest checkpoint belongs to another training, or is
   *     not a sound checkpoint in this version's format (truncated, damaged, another program's);
   *     the one-line message names the file and the fix
   */
  TrainingProgress latest() {
    Path last;
    try {
      last = files.latest();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the checkpoints in '" + files.dir() + "'", e);
    }
    if (last == null) {
      return null;
    }
    try {
      FileSystem fs = files.fs();
      long length = fs.getFileStatus(last).getLen();
      TrainingProgress progress;
      try (InputStream raw = fs.open(last)) {
        progress = CheckpointFormat.read(raw, length, fingerprint, shape);
      }
      LOG.info("Resuming from checkpoint {} (epoch {})", last, progress.epochsDone);
      return progress;
    } catch (StateFile.Unreadable | ChecksumException e) {
      if (e instanceof StateFile.Unreadable && ((StateFile.Unreadable) e).otherOwner) {
        throw new IllegalArgumentException("checkpointDir '" + files.dir() + "' holds a"
            + " checkpoint (" + last.getName() + ") of a different training: its params, data"
            + " or workers differ from this one's. Use an empty directory, or delete that one");
      }
      // Hadoop's own checksums (HDFS blocks, the local file system's .crc files) catch damage
      // before the format's checksum does.
      String why = e instanceof ChecksumException ? "it is damaged: the file system's checksum"
          + " does not match its content (" + firstLine(e.getMessage()) + ")" : e.getMessage();
      throw new IllegalArgumentException("Cannot resume from the checkpoint '" + last + "': "
          + why + ". Delete it to start the training over (or restore it from a copy), or use"
          + " another checkpointDir");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the checkpoint '" + last + "'", e);
    }
  }

  private static String firstLine(String message) {
    String m = String.valueOf(message);
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /** Writes a checkpoint of {@code progress} atomically and drops the older ones. */
  void save(TrainingProgress progress) {
    Path target = files.file(progress.epochsDone);
    try {
      files.write(target, out -> CheckpointFormat.write(progress, fingerprint, out));
      files.deleteOlderThan(target);
      LOG.info("Checkpoint written: {}", target);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a checkpoint to '" + files.dir() + "'", e);
    }
  }

  /** Removes this training's checkpoints (after it completed). */
  void clear() {
    try {
      files.deleteAll();
    } catch (IOException e) {
      LOG.warn("Could not remove the checkpoints in {}: {}", files.dir(), e.getMessage());
    }
  }
}
