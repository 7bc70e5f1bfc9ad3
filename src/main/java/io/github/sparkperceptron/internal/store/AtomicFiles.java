package io.github.sparkperceptron.internal.store;

import java.io.IOException;
import java.io.OutputStream;
import java.util.UUID;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes files and directories on any Hadoop file system with atomic rename (local, HDFS) so that
 * a reader never takes a half-written one for a complete one, and a writer killed midway leaves
 * the previous version in place: everything is written beside the target under a temporary name
 * ({@code .NAME.tmp-UUID}, never read as a target) and renamed into place when complete.
 *
 * <p>Two ways to put it in place: {@link #replace} deletes the old target, then renames (for
 * files only the writer reads, and outputs), and {@link #swapIn} moves the old version aside
 * first and deletes it after, so that a reader loading the target while it changes finds either
 * version, and {@link #recoverSwap} restores the old one after a writer died between the renames.
 */
public final class AtomicFiles {
  private static final Logger LOG = LoggerFactory.getLogger(AtomicFiles.class);
  private static final String TEMPORARY = ".tmp-";
  private static final String OLD = ".old-";

  private AtomicFiles() {
  }

  /** What a file's content is written by. */
  @FunctionalInterface
  public interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  /** A fresh temporary sibling of {@code target}: {@code .NAME.tmp-UUID}. */
  public static Path temporarySibling(Path target) {
    return sibling(target, TEMPORARY);
  }

  private static Path sibling(Path target, String marker) {
    Path parent = target.getParent() == null ? new Path(".") : target.getParent();
    return new Path(parent, "." + target.getName() + marker + UUID.randomUUID());
  }

  /**
   * Writes the file {@code target} on {@code fs} with {@code content}: to a temporary sibling,
   * then {@link #replace}d into place. On failure the temporary file is removed and the target
   * is as it was.
   */
  public static void write(FileSystem fs, Path target, Content content) throws IOException {
    Path temporary = temporarySibling(target);
    try {
      if (target.getParent() != null) {
        fs.mkdirs(target.getParent());
      }
      try (OutputStream out = fs.create(temporary, true)) {
        content.writeTo(out);
      }
      replace(fs, temporary, target);
    } catch (IOException | RuntimeException e) {
      discard(fs, temporary);
      throw e;
    }
  }

  /** Moves the complete {@code temporary} file or directory to {@code target}, replacing it. */
  public static void replace(FileSystem fs, Path temporary, Path target) throws IOException {
    if (fs.exists(target)) {
      fs.delete(target, true);
    }
    if (target.getParent() != null) {
      fs.mkdirs(target.getParent());
    }
    if (!fs.rename(temporary, target)) {
      throw new IOException("rename of " + temporary + " to " + target + " failed");
    }
  }

  /**
   * Moves the complete {@code temporary} file or directory to {@code target} while readers may
   * be loading it: the old version aside, the new one into place, the old one deleted. Only a
   * read that overlaps the two renames themselves can fail, and succeeds when retried.
   */
  public static void swapIn(FileSystem fs, Path temporary, Path target) throws IOException {
    Path old = sibling(target, OLD);
    boolean had = fs.exists(target);
    if (had && !fs.rename(target, old)) {
      throw new IOException("rename of " + target + " to " + old + " failed");
    }
    if (!fs.rename(temporary, target)) {
      if (had) {
        fs.rename(old, target);
      }
      throw new IOException("rename of " + temporary + " to " + target + " failed");
    }
    if (had) {
      fs.delete(old, true);
    }
  }

  /**
   * Cleans up after a writer that died while swapping {@code target} in: restores the old
   * version if the new one never arrived, and removes leftover temporary and old versions.
   *
   * @return whether the old version was restored
   */
  public static boolean recoverSwap(FileSystem fs, Path target) throws IOException {
    Path parent = target.getParent() == null ? new Path(".") : target.getParent();
    if (!fs.exists(parent)) {
      return false;
    }
    boolean restored = false;
    String prefix = "." + target.getName();
    for (FileStatus f : fs.listStatus(parent)) {
      String name = f.getPath().getName();
      if (name.startsWith(prefix + OLD)) {
        if (!fs.exists(target) && fs.rename(f.getPath(), target)) {
          restored = true;
        } else {
          fs.delete(f.getPath(), true);
        }
      } else if (name.startsWith(prefix + TEMPORARY)) {
        fs.delete(f.getPath(), true);
      }
    }
    return restored;
  }

  /** Best-effort removal of a temporary file or directory (its name marks it as temporary). */
  public static void discard(FileSystem fs, Path temporary) {
    try {
      fs.delete(temporary, true);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not remove the temporary {}: {}", temporary, e.getMessage());
    }
  }
}
