package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.store.StateDirectory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream learner's state in one directory on any Hadoop file system with atomic rename (local,
 * HDFS): a snapshot {@code state-<batch id>.bin} of the whole state, the changes of the batches
 * after it, {@code change-<batch id>.bin}, one per batch, and {@code published} (which batch the
 * published model holds). The formats: {@link LearnerStateFormat}.
 *
 * <p><b>Why changes.</b> A batch usually changes a fraction of the model (the coordinates its
 * updates touched, and Δ's under block momentum); saving only those costs O(changed) per batch
 * instead of rewriting the K'·(d+1) weights (twice with averaging) after every batch, which is
 * what a batch of one row would otherwise pay. Spark's own state store keeps its state the same
 * way (a delta file per batch, a snapshot now and then: {@code HDFSBackedStateStoreProvider}).
 *
 * <p><b>When a snapshot.</b> The first save, after the whole state changed (a fresh model), after
 * loading a state in an earlier format, and when the changes since the last snapshot would hold
 * more values than the state itself or number {@value #MAX_CHANGES}: a restart then reads one
 * snapshot and at most about one snapshot's worth of changes. Once a snapshot is in place, the
 * older snapshots and the changes it includes are deleted.
 *
 * <p><b>Exactly once.</b> Every file is written under a temporary name and renamed when complete
 * ({@code store.AtomicFiles}), so the batch id and its state become visible together, after the
 * batch and before Spark commits it: a batch Spark replays after a crash has an id at or below the
 * saved one and is skipped. A restart reads the latest complete snapshot and applies, in batch
 * order, every change after it; each change names the batch of the state it applies to, so a
 * missing one is noticed.
 *
 * <p><b>A damaged file is refused, never skipped.</b> A driver killed while writing leaves only a
 * temporary file, which is never read (and is cleaned up): that tail is ignored. A complete file
 * that does not read (a checksum that does not match, a missing change in the chain) stops the
 * stream with a message naming it: skipping it would lose the batch it records if Spark had
 * committed that batch, and nothing in the learner's directory can tell.
 */
final class LearnerStateStore {
  private static final Logger LOG = LoggerFactory.getLogger(LearnerStateStore.class);
  /** The most changes kept after a snapshot before the next is written. */
  static final int MAX_CHANGES = 64;
  private static final String PUBLISHED = "published";

  private final StateDirectory snapshots;
  private final StateDirectory changes;
  /** The last batch id saved or loaded, or −1. */
  private long lastSaved = -1;
  /** Whether the next save must be a snapshot (nothing saved yet in the current format). */
  private boolean snapshotDue = true;
  private int changesSinceSnapshot;
  private long valuesSinceSnapshot;

  LearnerStateStore(Configuration conf, String dir) {
    this.snapshots = new StateDirectory(conf, new Path(dir), "state-", 19, ".bin");
    this.changes = new StateDirectory(conf, new Path(dir), "change-", 19, ".bin");
  }

  String location() {
    return snapshots.dir().toString();
  }

  /**
   * The latest saved state (the latest snapshot with the changes after it applied), or
   * {@code null} when there is none.
   *
   * @throws IllegalArgumentException if a file is damaged, not a learner state, or a change is
   *     missing from the chain
   */
  LearnerState latest() {
    try {
      Path last = snapshots.latest();
      if (last == null) {
        if (!changes.complete().isEmpty()) {
          throw new IllegalArgumentException("The learner state in '" + location() + "' holds"
              + " changes (" + changes.complete().get(0).getName() + ", ...) but no snapshot"
              + " (state-*.bin) to apply them to: it cannot be used. Restore the snapshot, or"
              + " delete the whole checkpoint location to learn from scratch");
        }
        return null;
      }
      LearnerStateFormat.Snapshot snapshot = read(last);
      LearnerState state = snapshot.state();
      long snapshotId = state.progress.lastBatchId();
      changesSinceSnapshot = 0;
      valuesSinceSnapshot = 0;
      for (Path change : changes.complete()) {
        if (batchOf(change, "change-") <= snapshotId) {
          continue; // included in the snapshot; its deletion was interrupted
        }
        state = apply(state, change);
        changesSinceSnapshot++;
      }
      lastSaved = state.progress.lastBatchId();
      snapshotDue = snapshot.format() != LearnerStateFormat.FORMAT_VERSION;
      return state;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the learner state in '" + location() + "'", e);
    }
  }

  private LearnerStateFormat.Snapshot read(Path file) throws IOException {
    FileSystem fs = snapshots.fs();
    long length = fs.getFileStatus(file).getLen();
    try (InputStream in = fs.open(file)) {
      return LearnerStateFormat.readSnapshot(in, length);
    } catch (IllegalArgumentException | ChecksumException e) {
      throw new IllegalArgumentException("The learner state " + file + " cannot be used: "
          + damage(e), e);
    }
  }

  private LearnerState apply(LearnerState before, Path file) throws IOException {
    FileSystem fs = changes.fs();
    long length = fs.getFileStatus(file).getLen();
    try (InputStream in = fs.open(file)) {
      LearnerStateFormat.Applied applied = LearnerStateFormat.applyChange(before, in, length);
      valuesSinceSnapshot += applied.coordinates();
      return applied.state();
    } catch (IllegalArgumentException | ChecksumException e) {
      throw new IllegalArgumentException("The learner state's change " + file + " cannot be"
          + " used: " + damage(e) + ". It is refused rather than skipped: if Spark"
          + " committed its batch, skipping it would lose that batch for good. Restore the"
          + " file, or delete the whole checkpoint location to learn from scratch", e);
    }
  }

  /** The reason a file is refused: the codec's, or the file system's checksum (a local .crc). */
  private static String damage(Exception e) {
    return e instanceof ChecksumException ? "it is damaged: its checksum does not match its"
        + " content (" + e.getMessage() + ")" : e.getMessage();
  }

  private static long batchOf(Path file, String prefix) {
    String name = file.getName();
    return Long.parseLong(name.substring(prefix.length(), name.length() - ".bin".length()));
  }

  /**
   * Saves {@code state} atomically: as the change from the last saved state at the coordinates
   * {@code written} (increasing), or whole when {@code written} is null or a snapshot is due.
   *
   * @return whether a snapshot was written
   */
  boolean save(LearnerState state, int[] written) {
    int length = state.state.weights().length;
    boolean snapshot = written == null || snapshotDue || lastSaved < 0
        || changesSinceSnapshot >= MAX_CHANGES
        || valuesSinceSnapshot + written.length > length;
    try {
      if (snapshot) {
        Path target = snapshots.file(state.progress.lastBatchId());
        snapshots.write(target, out -> LearnerStateFormat.writeSnapshot(state, out));
        snapshotDue = false;
        changesSinceSnapshot = 0;
        valuesSinceSnapshot = 0;
      } else {
        long base = lastSaved;
        changes.write(changes.file(state.progress.lastBatchId()),
            out -> LearnerStateFormat.writeChange(state, base, written, out));
        changesSinceSnapshot++;
        valuesSinceSnapshot += written.length;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the learner state to '" + location() + "'",
          e);
    }
    lastSaved = state.progress.lastBatchId();
    if (snapshot) {
      try {
        snapshots.deleteOlderThan(snapshots.file(state.progress.lastBatchId()));
        changes.deleteOlderThan(changes.file(state.progress.lastBatchId() + 1));
      } catch (IOException e) {
        LOG.warn("Could not remove older learner states in {}: {}", location(), e.getMessage());
      }
    }
    return snapshot;
  }

  /** The complete files of the directory (snapshots and changes), for tests. */
  List<Path> files() throws IOException {
    List<Path> all = snapshots.complete();
    all.addAll(changes.complete());
    return all;
  }

  /** The batch id whose model was last published to {@code modelPath}, or −1. */
  long publishedBatch(String modelPath) {
    try {
      Path p = new Path(snapshots.dir(), PUBLISHED);
      FileSystem fs = snapshots.fs();
      if (!fs.exists(p)) {
        return -1;
      }
      String text;
      try (InputStream in = fs.open(p)) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      int tab = text.indexOf('\t');
      if (tab < 0 || !text.substring(tab + 1).strip().equals(modelPath)) {
        return -1;
      }
      return Long.parseLong(text.substring(0, tab));
    } catch (IOException | NumberFormatException e) {
      // Only an optimisation rests on it: without it the model is published once more.
      return -1;
    }
  }

  void markPublished(long batchId, String modelPath) {
    byte[] text = (batchId + "\t" + modelPath + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      snapshots.write(new Path(snapshots.dir(), PUBLISHED), out -> out.write(text));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the learner state to '" + location() + "'",
          e);
    }
  }

  /** {@code s} as a snapshot in the current format, in bytes. */
  static byte[] encode(LearnerState s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      LearnerStateFormat.writeSnapshot(s, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /** A snapshot in any format, from bytes. */
  static LearnerState decode(byte[] bytes) {
    try {
      return LearnerStateFormat.readSnapshot(new ByteArrayInputStream(bytes), bytes.length)
          .state();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
  }
}
