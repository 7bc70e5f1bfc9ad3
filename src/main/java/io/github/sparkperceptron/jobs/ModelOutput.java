package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.store.AtomicFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Writes a job's outputs (model directories, prediction directories, metrics files) so that a
 * reader never mistakes a half-written output for a complete one: everything is written beside
 * the target under a temporary name and renamed into place at the end, and an existing target is
 * only replaced with {@code --overwrite}.
 */
final class ModelOutput {
  private final Configuration conf;

  ModelOutput(Configuration conf) {
    this.conf = conf;
  }

  /** Fails (exit 2) if {@code target} exists and may not be replaced; call before any work. */
  void checkWritable(String target, boolean overwrite, String flag) {
    try {
      Path p = new Path(target);
      if (p.getFileSystem(conf).exists(p) && !overwrite) {
        throw new BadInputException("The output " + flag + " '" + target
            + "' already exists; pass --overwrite to replace it, or choose another path");
      }
    } catch (IOException e) {
      throw new BadInputException("Cannot access the output " + flag + " '" + target + "': "
          + e.getMessage(), e);
    }
  }

  /** The name of a training checkpoint in {@code dir}, or null when it holds none. */
  String firstCheckpoint(String dir) {
    try {
      Path p = new Path(dir);
      FileSystem fs = p.getFileSystem(conf);
      if (!fs.exists(p)) {
        return null;
      }
      for (FileStatus f : fs.listStatus(p)) {
        if (f.getPath().getName().endsWith(".ckpt")) {
          return f.getPath().getName();
        }
      }
      return null;
    } catch (IOException e) {
      throw new BadInputException("Cannot read --checkpoint-dir '" + dir + "': " + e.getMessage(),
          e);
    }
  }

  /** A fresh temporary sibling of {@code target}, removed again if the job fails. */
  String temporarySibling(String target) {
    return AtomicFiles.temporarySibling(new Path(target)).toString();
  }

  /** Moves the finished {@code temporary} output to {@code target}, replacing what was there. */
  void commit(String temporary, String target) {
    try {
      Path dst = new Path(target);
      AtomicFiles.replace(dst.getFileSystem(conf), new Path(temporary), dst);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not move the output into '" + target + "'", e);
    }
  }

  /** Best-effort removal of a temporary output after a failure. */
  void discard(String temporary) {
    Path tmp = new Path(temporary);
    try {
      AtomicFiles.discard(tmp.getFileSystem(conf), tmp);
    } catch (IOException | RuntimeException e) {
      // nothing more to do: the name marks it as temporary
    }
  }

  /** Writes a small text file atomically (temporary sibling, then rename). */
  void writeText(String target, String text) {
    writeBytes(target, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Writes a small file atomically (temporary sibling, then rename). A local file is written
   * through the raw local file system: Hadoop's default one adds a hidden checksum file
   * ({@code .NAME.crc}) beside every file it writes, which nothing here reads and users do not
   * expect beside their metrics and plots. (The rename removes a stale one left by older runs.)
   */
  void writeBytes(String target, byte[] bytes) {
    String tmp = temporarySibling(target);
    try {
      Path p = new Path(tmp);
      FileSystem fs = p.getFileSystem(conf);
      if (fs instanceof LocalFileSystem local) {
        fs = local.getRawFileSystem();
      }
      try (OutputStream out = fs.create(p, true)) {
        out.write(bytes);
      }
      commit(tmp, target);
    } catch (IOException e) {
      discard(tmp);
      throw new UncheckedIOException("Could not write '" + target + "'", e);
    }
  }
}
