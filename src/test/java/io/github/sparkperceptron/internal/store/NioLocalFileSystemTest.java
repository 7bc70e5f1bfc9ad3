package io.github.sparkperceptron.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.local.LocalFs;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NioLocalFileSystem} against Hadoop's own local file system: the same permission bits and
 * the same statuses, on twin paths, with Hadoop running its {@code chmod} and {@code readlink}
 * processes and this class running none (counted by JFR's process-start events).
 */
class NioLocalFileSystemTest {
  @TempDir
  Path tmp;

  private Configuration conf;

  @BeforeEach
  void posixWithoutHadoopsNativeLibrary() {
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("unix"));
    assumeFalse(NativeIO.isAvailable(), "with the native library Hadoop starts no process");
    conf = new Configuration();
    NioLocalFileSystem.settings().forEach((key, value) ->
        conf.set(key.substring("spark.hadoop.".length()), value));
  }

  private RawLocalFileSystem hadoops() throws IOException {
    RawLocalFileSystem fs = new RawLocalFileSystem();
    fs.initialize(URI.create("file:///"), conf);
    return fs;
  }

  private RawLocalFileSystem ours() throws IOException {
    RawLocalFileSystem fs = new NioLocalFileSystem.NioRawLocalFileSystem();
    fs.initialize(URI.create("file:///"), conf);
    return fs;
  }

  private static org.apache.hadoop.fs.Path hadoop(Path p) {
    return new org.apache.hadoop.fs.Path(p.toUri());
  }

  private static int mode(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:mode") & 07777;
  }

  @Test
  void theTestJvmsHadoopConfigurationNamesThisFileSystem() throws IOException {
    Configuration plain = new Configuration();
    assertEquals(NioLocalFileSystem.class, FileSystem.getLocal(plain).getClass());
    assertEquals(NioLocalFs.class,
        FileContext.getLocalFSFileContext(plain).getDefaultFileSystem().getClass());
  }

  @Test
  void everyModeOfAFileIsTheBitsChmodSets() throws IOException {
    RawLocalFileSystem ours = ours();
    Path file = Files.createFile(tmp.resolve("file"));
    for (int bits = 0; bits <= 0777; bits++) {
      ours.setPermission(hadoop(file), new FsPermission((short) bits));
      assertEquals(Integer.toOctalString(bits), Integer.toOctalString(mode(file)));
    }
  }

  @Test
  void filesAndDirectoriesGetWhatHadoopsChmodGivesThemSpecialBitsIncluded() throws IOException {
    RawLocalFileSystem hadoops = hadoops();
    RawLocalFileSystem ours = ours();
    // Plain modes, and the cases that go to Hadoop's code: a special bit requested, or present
    // on a directory (GNU chmod keeps a directory's set-group-ID bit under a 4-digit mode).
    int[][] cases = {{0644, 0}, {0755, 0}, {0600, 0}, {0700, 0}, {0777, 0}, {0000, 0},
        {01777, 0}, {01700, 0}, {0755, 02755}, {0700, 03777}, {0644, 04755}, {0750, 01777}};
    for (int[] c : cases) {
      for (boolean directory : new boolean[] {false, true}) {
        Path a = tmp.resolve("hadoop-" + Integer.toOctalString(c[0]) + "-" + c[1] + directory);
        Path b = tmp.resolve("ours-" + Integer.toOctalString(c[0]) + "-" + c[1] + directory);
        for (Path p : List.of(a, b)) {
          if (directory) {
            Files.createDirectory(p);
          } else {
            Files.createFile(p);
          }
          if (c[1] != 0) {
            // Hadoop's FsPermission holds no set-user-ID or set-group-ID bit: chmod sets them.
            chmod(c[1], p);
          }
        }
        hadoops.setPermission(hadoop(a), new FsPermission((short) c[0]));
        ours.setPermission(hadoop(b), new FsPermission((short) c[0]));
        assertEquals(Integer.toOctalString(mode(a)), Integer.toOctalString(mode(b)),
            Integer.toOctalString(c[0]) + " over " + Integer.toOctalString(c[1])
                + (directory ? " on a directory" : " on a file"));
      }
    }
    assertThrows(IOException.class,
        () -> ours.setPermission(hadoop(tmp.resolve("missing")), new FsPermission((short) 0644)));
  }

  private static void chmod(int bits, Path p) throws IOException {
    try {
      Process chmod = new ProcessBuilder("chmod", Integer.toOctalString(bits), p.toString())
          .inheritIO().start();
      assertEquals(0, chmod.waitFor());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    assertEquals(bits, mode(p));
  }

  @Test
  void linkStatusesAreHadoopsForFilesDirectoriesLinksAndMissingPaths() throws IOException {
    RawLocalFileSystem hadoops = hadoops();
    RawLocalFileSystem ours = ours();
    Path file = Files.writeString(tmp.resolve("file"), "three");
    Path dir = Files.createDirectory(tmp.resolve("dir"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), file);
    Path dangling = Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("gone"));
    for (Path p : List.of(file, dir, link, dangling)) {
      // Qualified (as FileContext passes them) and bare paths: Hadoop reads a qualified link
      // as no link at all, and so must this class.
      for (org.apache.hadoop.fs.Path path : List.of(hadoop(p),
          new org.apache.hadoop.fs.Path(p.toString()))) {
        FileStatus expected = statusOrNull(hadoops, path);
        FileStatus actual = statusOrNull(ours, path);
        assertEquals(describe(expected), describe(actual), path.toString());
      }
    }
    assertThrows(FileNotFoundException.class,
        () -> ours.getFileLinkStatus(hadoop(tmp.resolve("missing"))));
  }

  private static FileStatus statusOrNull(RawLocalFileSystem fs, org.apache.hadoop.fs.Path path)
      throws IOException {
    try {
      return fs.getFileLinkStatus(path);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  private static String describe(FileStatus s) throws IOException {
    if (s == null) {
      return "not found";
    }
    return s.getPath() + " dir=" + s.isDirectory() + " link=" + s.isSymlink()
        + (s.isSymlink() ? " -> " + s.getSymlink() : "") + " len=" + s.getLen()
        + " perm=" + s.getPermission() + " owner=" + s.getOwner() + " group=" + s.getGroup()
        + " mtime=" + s.getModificationTime();
  }

  @Test
  void writingThroughFileSystemAndFileContextStartsNoProcessWhereHadoopsStartsThem()
      throws Exception {
    // Hadoop's own classes, named: the tests' core-site.xml names this library's.
    Configuration hadoopsConf = new Configuration();
    hadoopsConf.set(NioLocalFileSystem.FILE_SYSTEM_KEY, LocalFileSystem.class.getName());
    hadoopsConf.set(NioLocalFileSystem.ABSTRACT_FILE_SYSTEM_KEY, LocalFs.class.getName());
    Map<String, Long> hadoopsStarts = processesStartedBy(() -> {
      FileSystem fs = FileSystem.newInstance(URI.create("file:///"), hadoopsConf);
      assertEquals(LocalFileSystem.class, fs.getClass());
      FileContext context = FileContext.getFileContext(URI.create("file:///"), hadoopsConf);
      assertEquals(LocalFs.class, context.getDefaultFileSystem().getClass());
      writeAsSparkDoes(fs, context, "hadoop");
      fs.close();
    });
    Map<String, Long> ourStarts = processesStartedBy(() -> {
      FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf);
      assertInstanceOf(NioLocalFileSystem.class, fs);
      FileContext context = FileContext.getFileContext(URI.create("file:///"), conf);
      assertInstanceOf(NioLocalFs.class, context.getDefaultFileSystem());
      writeAsSparkDoes(fs, context, "ours");
      fs.close();
    });
    assertTrue(hadoopsStarts.getOrDefault("chmod", 0L) > 0
        && hadoopsStarts.getOrDefault("readlink", 0L) > 0, "Hadoop's: " + hadoopsStarts);
    assertEquals(Map.of(), ourStarts);
    // The same files, with the same bits.
    for (String name : List.of("out/part-0", "out/.part-0.crc", "ckpt/offsets/0",
        "ckpt/offsets/.0.crc")) {
      Path a = tmp.resolve("hadoop/" + name);
      Path b = tmp.resolve("ours/" + name);
      assertEquals(Files.readString(a, StandardCharsets.ISO_8859_1),
          Files.readString(b, StandardCharsets.ISO_8859_1), name);
      assertEquals(mode(a), mode(b), name);
    }
  }

  /** A data file and a checkpoint entry, the way Spark's writers and checkpoints make them. */
  private void writeAsSparkDoes(FileSystem fs, FileContext context, String root)
      throws IOException {
    org.apache.hadoop.fs.Path out = hadoop(tmp.resolve(root + "/out"));
    fs.mkdirs(out);
    try (OutputStream o = fs.create(new org.apache.hadoop.fs.Path(out, "part-0"), true)) {
      o.write("1 1:0.5\n".getBytes(StandardCharsets.UTF_8));
    }
    org.apache.hadoop.fs.Path offsets = hadoop(tmp.resolve(root + "/ckpt/offsets"));
    context.mkdir(offsets, FsPermission.getDirDefault(), true);
    org.apache.hadoop.fs.Path temporary = new org.apache.hadoop.fs.Path(offsets, ".0.tmp");
    try (OutputStream o = context.create(temporary,
        EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE))) {
      o.write("v1\n{}\n".getBytes(StandardCharsets.UTF_8));
    }
    context.rename(temporary, new org.apache.hadoop.fs.Path(offsets, "0"),
        Options.Rename.OVERWRITE);
  }

  @FunctionalInterface
  private interface Work {
    void run() throws Exception;
  }

  /** The processes {@code work} started in this JVM, by command name. */
  private Map<String, Long> processesStartedBy(Work work) throws Exception {
    Path dump = tmp.resolve("processes-" + System.nanoTime() + ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ProcessStart");
      recording.start();
      work.run();
      recording.stop();
      recording.dump(dump);
    }
    Map<String, Long> byCommand = new java.util.TreeMap<>();
    for (RecordedEvent event : RecordingFile.readAllEvents(dump)) {
      String command = event.getString("command").split(" ")[0];
      byCommand.merge(command, 1L, Long::sum);
    }
    return byCommand;
  }
}
