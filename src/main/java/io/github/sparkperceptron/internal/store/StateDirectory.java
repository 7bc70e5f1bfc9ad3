package io.github.sparkperceptron.internal.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A directory of numbered state files on any Hadoop file system, the latest of which is the one
 * that counts ({@code epoch-000003.ckpt}, {@code state-0000000000000000012.bin}): each is written
 * complete under a temporary name and renamed into place ({@link AtomicFiles}), only complete
 * names are listed, and the older ones go once a newer one is in place. Numbers are written with
 * a fixed width, so that names sort as the numbers do.
 */
public final class StateDirectory {
  private final Configuration conf;
  private final Path dir;
  private final String prefix;
  private final String suffix;
  private final int digits;

  /**
   * @param prefix what every state file's name starts with ({@code "epoch-"})
   * @param digits the width of the number after it
   * @param suffix what it ends with ({@code ".ckpt"})
   */
  public StateDirectory(Configuration conf, Path dir, String prefix, int digits, String suffix) {
    this.conf = conf;
    this.dir = dir;
    this.prefix = prefix;
    this.digits = digits;
    this.suffix = suffix;
  }

  public Path dir() {
    return dir;
  }

  public FileSystem fs() throws IOException {
    return dir.getFileSystem(conf);
  }

  /** The state file of number {@code n}. */
  public Path file(long n) {
    return new Path(dir, prefix + String.format(Locale.ROOT, "%0" + digits + "d", n) + suffix);
  }

  /** The complete state files, oldest first; none when the directory does not exist. */
  public List<Path> complete() throws IOException {
    List<Path> out = new ArrayList<>();
    FileSystem fs = fs();
    if (!fs.exists(dir)) {
      return out;
    }
    for (FileStatus f : fs.listStatus(dir)) {
      String name = f.getPath().getName();
      if (name.startsWith(prefix) && name.endsWith(suffix)) {
        out.add(f.getPath());
      }
    }
    out.sort((a, b) -> a.getName().compareTo(b.getName()));
    return out;
  }

  /** The latest complete state file, or {@code null} when there is none. */
  public Path latest() throws IOException {
    List<Path> files = complete();
    return files.isEmpty() ? null : files.get(files.size() - 1);
  }

  /** Writes {@code target} atomically ({@link AtomicFiles#write}). */
  public void write(Path target, AtomicFiles.Content content) throws IOException {
    AtomicFiles.write(fs(), target, content);
  }

  /** Deletes the state files older than {@code newest}. */
  public void deleteOlderThan(Path newest) throws IOException {
    FileSystem fs = fs();
    for (Path older : complete()) {
      if (older.getName().compareTo(newest.getName()) < 0) {
        fs.delete(older, false);
      }
    }
  }

  /** Deletes every state file. */
  public void deleteAll() throws IOException {
    FileSystem fs = fs();
    for (Path p : complete()) {
      fs.delete(p, false);
    }
  }
}
