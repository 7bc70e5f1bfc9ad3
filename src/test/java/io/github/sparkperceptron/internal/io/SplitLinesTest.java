package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SplitLines} against the reference it must equal: Hadoop's {@link LineRecordReader}, the
 * reader of Spark's text input and of the two-pass readers, record for record (offset and bytes)
 * on every split of files made of the characters that decide a line's bounds.
 */
class SplitLinesTest {
  private static final Configuration CONF = new Configuration();

  @TempDir
  Path dir;

  /** One record: where the line starts and its bytes, as text for a readable failure. */
  private record Line(long offset, String bytes) {
  }

  private static List<Line> hadoop(FileSplit split, Configuration conf) throws IOException {
    List<Line> lines = new ArrayList<>();
    try (LineRecordReader reader = new LineRecordReader()) {
      reader.initialize(split, new TaskAttemptContextImpl(conf, new TaskAttemptID()));
      while (reader.nextKeyValue()) {
        lines.add(new Line(reader.getCurrentKey().get(), shown(reader.getCurrentValue())));
      }
    }
    return lines;
  }

  private static List<Line> ours(FileSplit split, Configuration conf) throws IOException {
    return ours(split, opener(conf));
  }

  private static SplitLines.Opener opener(Configuration conf) {
    return new SplitLines.Opener(new TaskAttemptContextImpl(conf, new TaskAttemptID()));
  }

  /** The lines of {@code split} from an opener that may have read other splits before. */
  private static List<Line> ours(FileSplit split, SplitLines.Opener opener) throws IOException {
    List<Line> lines = new ArrayList<>();
    try (SplitLines reader = opener.open(split)) {
      while (reader.next()) {
        lines.add(new Line(reader.offset, shown(reader.line)));
      }
    }
    return lines;
  }

  private static String shown(Text text) {
    return HexFormat.of().formatHex(text.getBytes(), 0, text.getLength());
  }

  private FileSplit split(Path file, long start, long length) {
    return new FileSplit(new org.apache.hadoop.fs.Path(file.toUri()), start, length, null);
  }

  /** Bytes drawn from what decides lines (LF, CR, the mark's bytes) and a few others. */
  private static byte[] randomBytes(Random random, int length) {
    byte[] pool = {'\n', '\r', (byte) 0xEF, (byte) 0xBB, (byte) 0xBF, 'a', '1', ' ', ':'};
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = pool[random.nextInt(pool.length)];
    }
    if (length >= 3 && random.nextBoolean()) {
      bytes[0] = (byte) 0xEF;
      bytes[1] = (byte) 0xBB;
      bytes[2] = (byte) 0xBF;
    }
    return bytes;
  }

  @Test
  void everySplitOfRandomFilesGivesHadoopsRecords() throws IOException {
    Random random = new Random(20261129L);
    for (int trial = 0; trial < 80; trial++) {
      int length = trial < 10 ? trial : 1 + random.nextInt(120);
      byte[] bytes = randomBytes(random, length);
      Path file = dir.resolve("f" + trial + ".txt");
      Files.write(file, bytes);
      assertEquals(hadoop(split(file, 0, length), CONF), ours(split(file, 0, length), CONF),
          "trial " + trial + ", the whole file");
      // Splits of every size starting near line ends are where the rules differ.
      for (int cut = 0; cut < 6; cut++) {
        int start = random.nextInt(length + 1);
        int size = random.nextInt(length - start + 1);
        FileSplit split = split(file, start, random.nextBoolean() ? size : Math.min(size, 3));
        assertEquals(hadoop(split, CONF), ours(split, CONF), "trial " + trial + ", " + split);
      }
    }
  }

  @Test
  void linesLongerThanTheBufferAndCrLfAcrossReads() throws IOException {
    Random random = new Random(7);
    StringBuilder text = new StringBuilder();
    // A line end at every position around the first read's 1 MiB, and lines several reads long.
    int chunk = SplitLines.CHUNK_BYTES;
    while (text.length() < 3 * chunk) {
      int lineLength = random.nextInt(5) == 0 ? chunk + random.nextInt(chunk) : random.nextInt(
          300);
      text.append("x".repeat(lineLength));
      text.append(random.nextBoolean() ? "\r\n" : random.nextBoolean() ? "\r" : "\n");
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
    for (int at = chunk - 3; at <= chunk + 1; at++) {
      bytes[at - 2] = 'y';
      bytes[at - 1] = '\r';
      bytes[at] = '\n';
      Path file = dir.resolve("long" + at + ".txt");
      Files.write(file, bytes);
      for (long start : new long[] {0, at - 1, at, at + 1, chunk / 2, 2L * chunk}) {
        FileSplit split = split(file, start, Math.min(chunk, bytes.length - start));
        assertEquals(hadoop(split, CONF), ours(split, CONF), "split " + split);
      }
      FileSplit whole = split(file, 0, bytes.length);
      SplitLines.Opener shared = opener(CONF);
      List<Line> lines = ours(whole, shared);
      assertEquals(hadoop(whole, CONF), lines);
      assertTrue(lines.size() > 2, "the file has its lines");
      // The buffer the long lines grew serves the worker's next, shorter split.
      FileSplit tail = split(file, bytes.length - 1000, 1000);
      assertEquals(hadoop(tail, CONF), ours(tail, shared));
    }
  }

  @Test
  void splitsTogetherReadEveryLineOnce() throws IOException {
    Random random = new Random(11);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      text.append(i).append(' ').append("1:").append(random.nextInt(1000))
          .append(random.nextInt(10) == 0 ? "\r\n" : "\n");
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
    Path file = dir.resolve("rows.txt");
    Files.write(file, bytes);
    List<Line> whole = ours(split(file, 0, bytes.length), CONF);
    assertEquals(20_000, whole.size());
    for (int splits : new int[] {2, 3, 7, 64}) {
      List<Line> joined = new ArrayList<>();
      long step = bytes.length / splits + 1;
      SplitLines.Opener worker = opener(CONF); // one worker reading the splits in turn
      for (long start = 0; start < bytes.length; start += step) {
        joined.addAll(ours(split(file, start, Math.min(step, bytes.length - start)), worker));
      }
      assertEquals(whole, joined, splits + " splits");
    }
  }

  /** An opener's splits share its buffer: a second opened before the first closes is refused. */
  @Test
  void anOpenersSplitsAreReadOneAfterTheOther() throws IOException {
    byte[] bytes = "1 1:1\n0 2:2\n1 3:3\n".getBytes(StandardCharsets.US_ASCII);
    Path file = dir.resolve("turns.txt");
    Files.write(file, bytes);
    SplitLines.Opener worker = opener(CONF);
    try (SplitLines first = worker.open(split(file, 0, 6))) {
      assertTrue(first.next());
      assertThrows(IllegalStateException.class, () -> worker.open(split(file, 6, 12)));
    }
    assertEquals(hadoop(split(file, 6, 12), CONF), ours(split(file, 6, 12), worker));
  }

  @Test
  void aLineLongerThanTheBoundIsAnUnreadableFileNotAnEndlessBuffer() throws IOException {
    byte[] bytes = ("1 1:1\n" + "x".repeat(20_000) + "\n0 2:2\n")
        .getBytes(StandardCharsets.US_ASCII);
    Path file = dir.resolve("long-line.txt");
    Files.write(file, bytes);
    FileSplit split = split(file, 0, bytes.length);
    assertEquals(3, ours(split, new SplitLines.Opener(
        new TaskAttemptContextImpl(CONF, new TaskAttemptID()), 20_001)).size());
    IOException e = assertThrows(IOException.class, () -> ours(split,
        new SplitLines.Opener(new TaskAttemptContextImpl(CONF, new TaskAttemptID()), 8192)));
    assertTrue(e.getMessage().contains("the line at byte 6 is longer than 8192 bytes"),
        e.getMessage());
  }

  @Test
  void compressedFilesAndOtherSettingsAreHadoopsOwn() throws IOException {
    byte[] bytes = "\uFEFF1 1:2\r\n\n0 3:4\r-1 5:6".getBytes(StandardCharsets.UTF_8);
    Path gz = dir.resolve("rows.txt.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(bytes);
    }
    FileSplit compressed = split(gz, 0, Files.size(gz));
    assertEquals(hadoop(compressed, CONF), ours(compressed, CONF));
    assertEquals(4, ours(compressed, CONF).size());

    Path plain = dir.resolve("rows.txt");
    Files.write(plain, bytes);
    FileSplit split = split(plain, 0, bytes.length);
    Configuration limited = new Configuration(CONF);
    limited.setInt(LineRecordReader.MAX_LINE_LENGTH, 6);
    assertEquals(hadoop(split, limited), ours(split, limited));
    assertEquals(1, ours(split, limited).size(), "Hadoop skips the lines over the limit");
  }

  @Test
  void aChecksummedFileStillHasItsChecksumsVerified() throws IOException {
    FileSystem local = FileSystem.getLocal(CONF);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(
        dir.resolve("summed.txt").toUri());
    byte[] bytes = "1 1:2\n0 3:4\n".repeat(1000).getBytes(StandardCharsets.US_ASCII);
    try (FSDataOutputStream out = local.create(file)) {
      out.write(bytes);
    }
    assertTrue(Files.exists(dir.resolve(".summed.txt.crc")), "the local file system wrote sums");
    FileSplit split = new FileSplit(file, 0, bytes.length, null);
    assertEquals(2000, ours(split, CONF).size());

    bytes[5000] = '7'; // behind the file system's back: the sums no longer match
    Files.write(dir.resolve("summed.txt"), bytes);
    assertThrows(ChecksumException.class, () -> ours(split, CONF));
  }
}
