package io.github.sparkperceptron.internal.store;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's local file system ({@code file:}) without a process per file operation: where
 * Hadoop's native library is absent (it is not shipped with Spark, so on nearly every laptop and
 * CI machine), {@link RawLocalFileSystem} runs {@code chmod} for every file it creates and every
 * directory it makes, and {@code readlink} for every status that {@code FileContext} asks for
 * (Structured Streaming's checkpoint); each start of such a process costs a large JVM about
 * 8 ms and as much again in system time (BENCHMARKS.md, issue 32's fourteenth stop): some 60 of
 * them per micro-batch of {@code submit/stream-train}, 60 per quick-start training.
 *
 * <p>This class is {@link LocalFileSystem} (checksums and all) over a raw file system that does
 * the two operations with {@code java.nio} instead, with the same result: the permission bits
 * that {@code chmod} would set, and, for a path that is not a symbolic link, the status that
 * {@code getFileStatus} gives, as Hadoop's own code returns then. Everything that is not the
 * plain case goes to Hadoop's code unchanged: a mode with the set-user-ID, set-group-ID or sticky
 * bit requested or present (GNU {@code chmod} keeps a directory's set-group-ID bit, which
 * {@code java.nio} cannot), symbolic links, a platform without POSIX permissions, and Hadoop's
 * native library where it is loaded. {@link NioLocalFs} is the same for {@code FileContext}.
 *
 * <p>The jobs' sessions use it on a local master, through the two Spark settings of
 * {@link #settings} (the jobs' {@code JobSupport.addedSettings}); the test JVMs through their
 * {@code core-site.xml}.
 */
public class NioLocalFileSystem extends LocalFileSystem {
  /** The Hadoop key of the {@code file:} scheme's {@code FileSystem}. */
  public static final String FILE_SYSTEM_KEY = "fs.file.impl";
  /** The Hadoop key of the {@code file:} scheme's {@code AbstractFileSystem} (FileContext). */
  public static final String ABSTRACT_FILE_SYSTEM_KEY = "fs.AbstractFileSystem.file.impl";

  public NioLocalFileSystem() {
    super(new NioRawLocalFileSystem());
  }

  /**
   * The Spark settings that make a session's {@code file:} paths use these classes
   * ({@code spark.hadoop.} and the two Hadoop keys).
   */
  public static Map<String, String> settings() {
    return Map.of(
        "spark.hadoop." + FILE_SYSTEM_KEY, NioLocalFileSystem.class.getName(),
        "spark.hadoop." + ABSTRACT_FILE_SYSTEM_KEY, NioLocalFs.class.getName());
  }

  /** {@link RawLocalFileSystem} with {@code chmod} and {@code readlink} done in this JVM. */
  static final class NioRawLocalFileSystem extends RawLocalFileSystem {
    /** The bits beyond owner, group and others' rwx: set-user-ID, set-group-ID, sticky. */
    private static final int SPECIAL_BITS = 07000;
    private static final boolean POSIX =
        FileSystems.getDefault().supportedFileAttributeViews().contains("unix");

    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      if (!POSIX || NativeIO.isAvailable() || (permission.toShort() & SPECIAL_BITS) != 0) {
        super.setPermission(p, permission);
        return;
      }
      java.nio.file.Path file = pathToFile(p).toPath();
      int mode = (Integer) Files.getAttribute(file, "unix:mode");
      if ((mode & SPECIAL_BITS) != 0) {
        super.setPermission(p, permission);
        return;
      }
      Files.setPosixFilePermissions(file, bits(permission.toShort()));
    }

    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
      // Hadoop reads the link by running readlink; a path that is no link gets getFileStatus.
      File file = pathToFile(f);
      if (!POSIX || Files.isSymbolicLink(file.toPath())) {
        return super.getFileLinkStatus(f);
      }
      return getFileStatus(f);
    }

    private static final PosixFilePermission[] BY_BIT = {
        PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE,
        PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_READ};

    /** The permissions of the low nine bits of a mode, as {@code chmod} reads them. */
    static Set<PosixFilePermission> bits(int mode) {
      Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
      for (int bit = 0; bit < BY_BIT.length; bit++) {
        if ((mode & (1 << bit)) != 0) {
          set.add(BY_BIT[bit]);
        }
      }
      return set;
    }
  }
}
