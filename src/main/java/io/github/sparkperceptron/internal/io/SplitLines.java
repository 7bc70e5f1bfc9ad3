package io.github.sparkperceptron.internal.io;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;

/**
 * The lines of one split of a text file, each with the byte offset where it starts: exactly the
 * records of Hadoop's {@link TextInputFormat} (the two-pass readers' partitions), so that rows,
 * their order and every error's file:line stay what they were.
 *
 * <p>An uncompressed file with the default line ends, read whole or by splits, is read here
 * with {@link ByteScan}: reads of up to 1 MiB (into one buffer per worker) from the file
 * system's own stream (so a checksummed file system still verifies its checksums), line ends
 * found eight bytes at a time. Hadoop's
 * reader tests the bytes one at a time, through reads of {@code io.file.buffer.size} (4 KiB by
 * default); at the stream's pace (a 50k-row file per batch) it cost the reading tasks about as
 * much CPU as parsing the same bytes (BENCHMARKS.md, issue 32). The rules it keeps (Hadoop 3's
 * {@code LineRecordReader} and {@code UncompressedSplitLineReader} with no record delimiter set):
 * <ul>
 *   <li>a line ends at LF, CR or CR LF; the end is not part of the line, a last line may lack
 *       one, and an empty line is a line;
 *   <li>a split [s, e) with s &gt; 0 skips the bytes up to and including its first line end
 *       (the previous split read that line), then yields every line that starts at or before
 *       e: the line starting at e belongs to this split and the next one skips it;
 *   <li>the file's first line loses a leading UTF-8 byte order mark, keeping offset 0; a file
 *       holding only the mark has no line.
 * </ul>
 * Anything else (a compression codec, {@code textinputformat.record.delimiter}, a maximum line
 * length) is read by Hadoop's own reader behind the same interface ({@link Opener#open}).
 */
abstract class SplitLines implements Closeable {
  /** The bytes one read asks for, and the buffer's size until a longer line needs more. */
  static final int CHUNK_BYTES = 1 << 20;
  /** Java's largest array: no line can be longer. */
  private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 16;

  /** The line {@link #next} found, valid until the next call. */
  final Text line = new Text();
  /** The byte offset in its file of the first byte of {@link #line} (of the mark, if any). */
  long offset;

  /** Moves to the next line of the split; false at its end. */
  abstract boolean next() throws IOException;

  /**
   * Opens splits with one task context, one after the other (each closed before the next is
   * opened): what decides between the two readers is looked up once (a codec factory
   * instantiates every codec class, which costs more than reading a small file).
   */
  static final class Opener {
    private final TaskAttemptContext context;
    private final Configuration conf;
    private final boolean defaultLines;
    private final CompressionCodecFactory codecs;
    /**
     * The longest line read (its end included) before the file is called unreadable: a file
     * without line ends (a binary file given by mistake) would otherwise grow one buffer until
     * the executor runs out of memory.
     */
    private final int maxLineBytes;
    /** The buffer of the split being read: one at a time per opener. */
    private byte[] buffer = new byte[0];
    /** Whether an open {@link ByteScan} holds {@link #buffer}. */
    private boolean lent;

    /** An opener whose lines may take an eighth of this JVM's heap. */
    Opener(TaskAttemptContext context) {
      this(context, Runtime.getRuntime().maxMemory() / 8);
    }

    Opener(TaskAttemptContext context, long maxLineBytes) {
      this.maxLineBytes = (int) Math.max(4096, Math.min(MAX_ARRAY_BYTES, maxLineBytes));
      this.context = context;
      this.conf = context.getConfiguration();
      this.defaultLines = conf.get("textinputformat.record.delimiter") == null
          && conf.getInt(LineRecordReader.MAX_LINE_LENGTH, Integer.MAX_VALUE) == Integer.MAX_VALUE;
      this.codecs = new CompressionCodecFactory(conf);
    }

    /**
     * The lines of {@code split}.
     *
     * @throws IllegalStateException if a split this opener read with its buffer is still open
     */
    SplitLines open(FileSplit split) throws IOException {
      Path file = split.getPath();
      if (!defaultLines || codecs.getCodec(file) != null) {
        return new HadoopLines(split, context);
      }
      if (lent) {
        throw new IllegalStateException("the split read before " + split + " is still open: an"
            + " opener's splits share one buffer and are read one after the other");
      }
      // A small split needs no megabyte (a directory of a thousand small files); the splits a
      // worker reads one after the other share one buffer.
      int size = (int) Math.max(4096, Math.min(Math.min(CHUNK_BYTES, maxLineBytes),
          split.getLength() + 1));
      if (buffer.length < size) {
        buffer = new byte[size];
      }
      // The stream's own buffer (io.file.buffer.size) stays small: reads of a buffer's size or
      // more go past it.
      FSDataInputStream in = file.getFileSystem(conf).open(file);
      lent = true;
      try {
        return new ByteScan(this, in, split.getStart(), split.getStart() + split.getLength());
      } catch (IOException | RuntimeException e) {
        lent = false;
        in.close();
        throw e;
      }
    }
  }

  /** Hadoop's record reader, for what {@link ByteScan} does not read. */
  private static final class HadoopLines extends SplitLines {
    private final RecordReader<LongWritable, Text> reader;
    private final Path path;

    HadoopLines(FileSplit split, TaskAttemptContext context) throws IOException {
      path = split.getPath();
      reader = new TextInputFormat().createRecordReader(split, context);
      try {
        reader.initialize(split, context);
      } catch (InterruptedException e) {
        reader.close();
        throw interrupted(split.getPath(), e);
      } catch (IOException | RuntimeException e) {
        reader.close();
        throw e;
      }
    }

    @Override
    boolean next() throws IOException {
      try {
        if (!reader.nextKeyValue()) {
          return false;
        }
        offset = reader.getCurrentKey().get();
        Text value = reader.getCurrentValue();
        line.set(value.getBytes(), 0, value.getLength());
        return true;
      } catch (InterruptedException e) {
        throw interrupted(path, e);
      }
    }

    @Override
    public void close() throws IOException {
      reader.close();
    }

    /**
     * An interrupted read is a cancelled task, not an unreadable file: unchecked, so that the
     * reader's report of bad input does not take it for one.
     */
    private static IllegalStateException interrupted(Path file, InterruptedException e) {
      Thread.currentThread().interrupt();
      return new IllegalStateException("interrupted while reading " + file, e);
    }
  }

  /** An uncompressed split with the default line ends (see the class's rules). */
  static final class ByteScan extends SplitLines {
    private static final VarHandle LONGS =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long LFS = ONES * '\n';
    private static final long CRS = ONES * '\r';

    private final Opener opener;
    private final FSDataInputStream in;
    /** The split's end: lines starting after it belong to the next split. */
    private final long end;
    private byte[] buffer;
    /** The unread bytes are buffer[from, limit). */
    private int from;
    private int limit;
    private boolean endOfFile;
    /** The file offset of buffer[from]: where the next line starts. */
    private long position;

    ByteScan(Opener opener, FSDataInputStream in, long start, long end) throws IOException {
      this.opener = opener;
      this.in = in;
      this.end = end;
      this.buffer = opener.buffer;
      in.seek(start);
      position = start;
      if (start != 0) {
        // The previous split reads the line that crosses (or starts at) our start.
        int lineEnd = lineEnd();
        if (lineEnd >= 0) {
          consume(lineEnd);
        } else {
          position += limit - from;
          from = limit;
        }
      }
    }

    @Override
    boolean next() throws IOException {
      if (position > end) {
        return false;
      }
      int lineEnd = lineEnd();
      int length = (lineEnd >= 0 ? lineEnd : limit) - from;
      if (lineEnd < 0 && length == 0) {
        return false;
      }
      offset = position;
      int skip = position == 0 && startsWithMark(length) ? 3 : 0;
      line.set(buffer, from + skip, length - skip);
      if (lineEnd >= 0) {
        consume(lineEnd);
      } else {
        position += length;
        from = limit;
        if (skip == 3 && length == 3) {
          return false; // Hadoop's reader: a file holding only the mark has no line
        }
      }
      return true;
    }

    private boolean startsWithMark(int length) {
      return length >= 3 && buffer[from] == (byte) 0xEF && buffer[from + 1] == (byte) 0xBB
          && buffer[from + 2] == (byte) 0xBF;
    }

    /**
     * The index in the buffer of the line end after {@code from}, reading as needed, with the
     * CR of a CR LF resolved (the LF read too); −1 at the end of the file with no line end.
     */
    private int lineEnd() throws IOException {
      int scanned = from;
      while (true) {
        int at = find(buffer, scanned, limit);
        if (at >= 0) {
          if (buffer[at] == '\r' && at + 1 == limit && !endOfFile) {
            int shift = from;
            fill();
            at -= shift;
          }
          return at;
        }
        scanned = limit;
        int shift = from;
        if (!fill()) {
          return -1;
        }
        scanned -= shift;
      }
    }

    /** Consumes the line ending at {@code lineEnd}, with its end (CR LF counts two). */
    private void consume(int lineEnd) {
      int next = lineEnd + 1;
      if (buffer[lineEnd] == '\r' && next < limit && buffer[next] == '\n') {
        next++;
      }
      position += next - from;
      from = next;
    }

    /**
     * Moves the unread bytes to the buffer's start (growing it if they fill it) and reads once
     * more; false at the end of the file. {@code from} becomes 0.
     */
    private boolean fill() throws IOException {
      if (endOfFile) {
        return false;
      }
      int unread = limit - from;
      if (from > 0) {
        System.arraycopy(buffer, from, buffer, 0, unread);
      } else if (unread == buffer.length) {
        int max = opener.maxLineBytes;
        if (buffer.length >= max) {
          throw new IOException("the line at byte " + position + " is longer than " + max
              + " bytes (an eighth of this JVM's heap) without a line end: the file is not text"
              + " with a row per line, or its rows need a larger executor memory");
        }
        byte[] longer = new byte[(int) Math.min(max, 2L * buffer.length)];
        System.arraycopy(buffer, 0, longer, 0, unread);
        buffer = longer;
      }
      from = 0;
      limit = unread;
      int read = in.read(buffer, limit, Math.min(CHUNK_BYTES, buffer.length - limit));
      if (read < 0) {
        endOfFile = true;
        return false;
      }
      limit += read;
      return true;
    }

    /** The first index in [at, limit) holding LF or CR, or −1: eight bytes a step. */
    static int find(byte[] bytes, int at, int limit) {
      int i = at;
      for (; i + Long.BYTES <= limit; i += Long.BYTES) {
        long word = (long) LONGS.get(bytes, i);
        long lf = word ^ LFS;
        long cr = word ^ CRS;
        // A byte of lf or cr is zero where word holds LF or CR; the lowest flagged byte is
        // exact (a borrow only flags bytes above a zero byte).
        long flags = ((lf - ONES) & ~lf | (cr - ONES) & ~cr) & HIGHS;
        if (flags != 0) {
          return i + (Long.numberOfTrailingZeros(flags) >>> 3);
        }
      }
      for (; i < limit; i++) {
        byte b = bytes[i];
        if (b == '\n' || b == '\r') {
          return i;
        }
      }
      return -1;
    }

    @Override
    public void close() throws IOException {
      // A buffer grown for a long line serves the worker's next splits.
      opener.buffer = buffer;
      opener.lent = false;
      in.close();
    }
  }
}
