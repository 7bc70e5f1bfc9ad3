package io.github.sparkperceptron.internal.store;

import io.github.sparkperceptron.internal.kernel.LinearState;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The one container of every state file the library writes (a training's checkpoints, a stream
 * learner's state): plain numbers and arrays in named sections, framed and checksummed, so that
 * reading a file never creates an object of a class the file names, and a damaged, truncated,
 * foreign or newer file is refused with a one-line reason instead of being half read. Each kind
 * of file is a codec on it ({@code train.CheckpointFormat}, {@code streaming.LearnerStateStore})
 * that says which sections it writes and what they hold.
 *
 * <pre>
 * file     = magic version header section* END checksum
 * magic    = 8 bytes: 0x89 'S' 'P' kind '\n', kind being 4 ASCII letters naming the codec
 *            (0x89 is not text: a text file or a Java serialization stream never starts so)
 * version  = int32, the codec's format version
 * header   = DataOutput.writeUTF of whose file it is (a checkpoint: its training's fingerprint)
 * section  = tag int32 (&gt; 0), length int64, payload (length bytes); each tag at most once
 * END      = int32 0
 * checksum = int32, CRC32C of every byte before it (the file's last 4 bytes)
 * </pre>
 *
 * Numbers are big-endian ({@link DataOutputStream}); an array is its int32 length, then its
 * elements; a learner state ({@link LinearState}) is
 * {@code double[] w, boolean hasU, [double[] u], double clock}; doubles are their IEEE 754 bits,
 * so everything reads back bit for bit.
 *
 * <p>How a codec's format evolves: new state gets a new section tag; the version stays when a file
 * without the section still reads exactly under the new code (absent = the old behaviour). A
 * reader refuses a tag below {@value #OPTIONAL_TAGS} that it does not know ("written by a newer
 * spark-perceptron"); tags from {@value #OPTIONAL_TAGS} up hold what a reader may skip
 * (diagnostics). Changing the encoding or meaning of a section increments the version.
 *
 * <p>Streaming friendly: a writer never holds a section in memory (each is written twice, once
 * counted, once for real), a reader reads sequentially. Reading trusts nothing in the file: every
 * array length is checked against the bytes left in its section before anything is allocated (a
 * flipped length cannot make the reader allocate more than the file's size), every section must
 * be consumed exactly and the checksum must match. The checksum detects damage, not forgery.
 */
public final class StateFile {
  /** Section tags from here up may be skipped by a reader that does not know them. */
  public static final int OPTIONAL_TAGS = 1000;
  /** The tag that ends the sections. */
  public static final int END = 0;
  /** The first two bytes of every Java serialization stream. */
  private static final int JAVA_STREAM_MAGIC = 0xACED;
  private static final int CHUNK = 1 << 16;

  private StateFile() {
  }

  /** A kind of state file: its magic, its name in messages, and its sections' names by tag. */
  public static final class Kind {
    private final byte[] magic;
    private final String name;
    private final String header;
    private final String[] sections;
    private final String javaStreamNote;

    /**
     * @param code 4 ASCII letters, the magic's kind
     * @param name what the file is, in messages ("checkpoint")
     * @param header what its header holds, in messages ("fingerprint")
     * @param javaStreamNote said after the refusal of a Java serialization stream (why such
     *     files are not read), or ""
     * @param sections the sections' names by tag, from tag 1
     */
    public Kind(String code, String name, String header, String javaStreamNote,
        String... sections) {
      byte[] letters = code.getBytes(StandardCharsets.US_ASCII);
      if (letters.length != 4) {
        throw new IllegalArgumentException("a state file's kind has 4 letters, got '" + code + "'");
      }
      this.magic = new byte[] {(byte) 0x89, 'S', 'P', letters[0], letters[1], letters[2],
          letters[3], '\n'};
      this.name = name;
      this.header = header;
      this.javaStreamNote = javaStreamNote;
      this.sections = new String[sections.length + 1];
      this.sections[END] = "END";
      System.arraycopy(sections, 0, this.sections, 1, sections.length);
    }

    /** The file's first 8 bytes. */
    public byte[] magic() {
      return magic.clone();
    }

    String section(int tag) {
      return tag >= 0 && tag < sections.length ? sections[tag] : "with tag " + tag;
    }
  }

  /** Why a file is not a readable state file of the expected kind and owner. */
  public static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;
    /** True when the file is sound but belongs to another owner (another training). */
    public final boolean otherOwner;

    public Unreadable(String reason, boolean otherOwner) {
      super(reason);
      this.otherOwner = otherOwner;
    }
  }

  /** A section's content, written through {@link Out}. */
  @FunctionalInterface
  public interface Body {
    void write(Out out) throws IOException;
  }

  /** Reads a file's sections after its header; see {@link #read}. */
  @FunctionalInterface
  public interface Decoder<T> {
    T decode(In in) throws IOException, Unreadable;
  }

  /**
   * Reads a state file of {@code length} bytes: checks its magic, then lets {@code decoder} read
   * the version, the header and the sections.
   *
   * @throws Unreadable if it is not a sound file of this kind (the reason names the problem)
   * @throws IOException if the file system fails (not the file's content)
   */
  public static <T> T read(InputStream raw, long length, Kind kind, Decoder<T> decoder)
      throws IOException, Unreadable {
    In in = new In(raw, length, kind);
    try {
      in.readMagic();
      return decoder.decode(in);
    } catch (EOFException e) {
      throw new Unreadable("it is truncated: the file ends after " + length + " bytes, inside "
          + in.where(), false);
    }
  }

  // ---------------------------------------------------------------------------------- writing

  /**
   * The writing side: a stream that feeds the checksum, and a counting mode in which nothing is
   * written, used to learn a section's length before writing it.
   */
  public static final class Out {
    private final CRC32C crc = new CRC32C();
    private final DataOutputStream data;
    private final ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    private boolean counting;
    private long count;

    /** Starts a file of {@code kind} in format {@code version}, owned by {@code header}. */
    public Out(OutputStream raw, Kind kind, int version, String header) throws IOException {
      OutputStream checked = new FilterOutputStream(new BufferedOutputStream(raw, CHUNK)) {
        @Override
        public void write(int b) throws IOException {
          crc.update(b);
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          crc.update(b, off, len);
          out.write(b, off, len);
        }
      };
      this.data = new DataOutputStream(checked);
      data.write(kind.magic);
      data.writeInt(version);
      data.writeUTF(header);
    }

    /** Writes section {@code tag} (&gt; 0) with what {@code body} writes. */
    public void section(int tag, Body body) throws IOException {
      counting = true;
      count = 0;
      body.write(this);
      long length = count;
      counting = false;
      data.writeInt(tag);
      data.writeLong(length);
      count = 0;
      body.write(this);
      if (count != length) {
        throw new IllegalStateException("section " + tag + " wrote " + count + " bytes, counted "
            + length);
      }
    }

    /** Ends the file: the END tag and the checksum, flushed. */
    public void finish() throws IOException {
      data.writeInt(END);
      data.flush();
      data.writeInt((int) crc.getValue());
      data.flush();
    }

    public void writeInt(int v) throws IOException {
      count += 4;
      if (!counting) {
        data.writeInt(v);
      }
    }

    public void writeLong(long v) throws IOException {
      count += 8;
      if (!counting) {
        data.writeLong(v);
      }
    }

    public void writeDouble(double v) throws IOException {
      count += 8;
      if (!counting) {
        data.writeDouble(v);
      }
    }

    public void writeBoolean(boolean v) throws IOException {
      writeByte(v ? 1 : 0);
    }

    public void writeByte(int v) throws IOException {
      count += 1;
      if (!counting) {
        data.writeByte(v);
      }
    }

    public void writeUTF(String s) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      new DataOutputStream(b).writeUTF(s);
      count += b.size();
      if (!counting) {
        b.writeTo(data);
      }
    }

    /** The first {@code n} values of {@code a}, as an array of length {@code n}. */
    public void writeDoubles(double[] a, int n) throws IOException {
      writeInt(n);
      count += 8L * n;
      if (counting) {
        return;
      }
      for (int from = 0; from < n; from += CHUNK / 8) {
        int len = Math.min(CHUNK / 8, n - from);
        chunk.clear();
        chunk.asDoubleBuffer().put(a, from, len);
        data.write(chunk.array(), 0, len * 8);
      }
    }

    /** The values of {@code a} at {@code index}, in order, as an array of that length. */
    public void writeDoublesAt(double[] a, int[] index) throws IOException {
      writeInt(index.length);
      count += 8L * index.length;
      if (counting) {
        return;
      }
      int per = CHUNK / 8;
      for (int from = 0; from < index.length; from += per) {
        int len = Math.min(per, index.length - from);
        chunk.clear();
        DoubleBuffer doubles = chunk.asDoubleBuffer();
        for (int k = from; k < from + len; k++) {
          doubles.put(a[index[k]]);
        }
        data.write(chunk.array(), 0, len * 8);
      }
    }

    public void writeInts(int[] a) throws IOException {
      writeInt(a.length);
      for (int v : a) {
        writeInt(v);
      }
    }

    public void writeLongs(long[] a) throws IOException {
      writeInt(a.length);
      for (long v : a) {
        writeLong(v);
      }
    }

    /** {@code double[] w, boolean hasU, [double[] u], double clock}. */
    public void writeLinearState(LinearState s) throws IOException {
      writeDoubles(s.weights(), s.weights().length);
      double[] u = s.averageAccumulator();
      writeBoolean(u != null);
      if (u != null) {
        writeDoubles(u, u.length);
      }
      writeDouble(s.clock());
    }
  }

  // ---------------------------------------------------------------------------------- reading

  /**
   * The reading side: counts bytes and feeds the checksum, and bounds every read by the current
   * section, so that a damaged length is an error before it is an allocation.
   */
  public static final class In {
    private final CRC32C crc = new CRC32C();
    private final Kind kind;
    private final long length;
    private final DataInputStream data;
    private final boolean[] seen;
    private long position;
    private int section = -1;
    private long sectionEnd;
    private final byte[] chunk;

    In(InputStream raw, long length, Kind kind) {
      this.kind = kind;
      this.length = length;
      this.seen = new boolean[kind.sections.length];
      int buffer = (int) Math.max(64, Math.min(CHUNK, length));
      this.chunk = new byte[buffer - buffer % 8];
      InputStream counted = new FilterInputStream(new BufferedInputStream(raw, buffer)) {
        @Override
        public int read() throws IOException {
          int b = in.read();
          if (b >= 0 && position < In.this.length - 4) {
            crc.update(b);
          }
          if (b >= 0) {
            position++;
          }
          return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          int n = in.read(b, off, len);
          if (n > 0) {
            long checked = Math.max(0, Math.min(n, In.this.length - 4 - position));
            crc.update(b, off, (int) checked);
            position += n;
          }
          return n;
        }

        @Override
        public long skip(long n) throws IOException {
          // Skipped bytes must still feed the checksum: read them.
          long done = 0;
          while (done < n) {
            int r = read(chunk, 0, (int) Math.min(chunk.length, n - done));
            if (r < 0) {
              break;
            }
            done += r;
          }
          return done;
        }
      };
      this.data = new DataInputStream(counted);
    }

    private void readMagic() throws IOException, Unreadable {
      byte[] magic = new byte[kind.magic.length];
      int got = readUpTo(magic);
      if (got == magic.length && Arrays.equals(magic, kind.magic)) {
        return;
      }
      if (got >= 2 && ((magic[0] & 0xff) << 8 | (magic[1] & 0xff)) == JAVA_STREAM_MAGIC) {
        throw new Unreadable("it is a Java serialization stream, not a " + kind.name + " in this"
            + " version's format" + kind.javaStreamNote, false);
      }
      if (got < magic.length && got == length) {
        throw new Unreadable("it is truncated: the file holds only " + got + " bytes", false);
      }
      if (got == magic.length && magic[0] == kind.magic[0] && magic[1] == 'S'
          && magic[2] == 'P' && magic[7] == '\n') {
        throw new Unreadable("it is another kind of spark-perceptron state file ('"
            + new String(magic, 3, 4, StandardCharsets.ISO_8859_1) + "'), not a " + kind.name,
            false);
      }
      throw new Unreadable("it is not a spark-perceptron " + kind.name + " (its first bytes are"
          + " not the " + kind.name + " header)", false);
    }

    /**
     * The file's format version, refused (after the checksum of the rest is checked: a damaged
     * version is damage) unless it is {@code readable}.
     */
    public void requireVersion(int readable) throws IOException, Unreadable {
      requireVersion(readable, readable);
    }

    /**
     * The file's format version, refused (as {@link #requireVersion(int)}) unless it is between
     * {@code oldest} and {@code newest}.
     */
    public int requireVersion(int oldest, int newest) throws IOException, Unreadable {
      int version = data.readInt();
      if (version < oldest || version > newest) {
        requireChecksumOfRest();
        throw new Unreadable("it is in " + kind.name + " format " + version + (version > newest
            ? ", written by a newer spark-perceptron" : "") + "; this version reads only format "
            + (oldest == newest ? String.valueOf(newest) : oldest + " to " + newest), false);
      }
      return version;
    }

    /** The header: whose file it is; null when it is not text (damage). */
    public String header() throws IOException {
      try {
        return data.readUTF();
      } catch (UTFDataFormatException e) {
        return null;
      }
    }

    /**
     * Refuses a file whose header is not {@code expected} (after its checksum is checked, so that
     * a damaged header is reported as damage).
     *
     * @param owner what a sound file of another owner is ("a different training")
     */
    public void requireHeader(String header, String expected, String owner)
        throws IOException, Unreadable {
      if (header == null || !header.equals(expected)) {
        requireChecksumOfRest();
        throw header == null
            ? new Unreadable("it is damaged: its " + kind.header + " is not text", false)
            : new Unreadable("it belongs to " + owner, true);
      }
    }

    /**
     * Moves to the next section the reader knows and returns its tag, or {@link #END} after the
     * last one; optional sections it does not know are skipped.
     */
    public int nextSection() throws IOException, Unreadable {
      while (true) {
        section = -1;
        int tag = data.readInt();
        if (tag == END) {
          return END;
        }
        long sectionLength = data.readLong();
        if (tag < 0 || sectionLength < 0 || sectionLength > remainingInFile()) {
          throw new Unreadable(tag < 0 || sectionLength < 0
              ? "it is damaged: a section header holds tag " + tag + " and length "
                  + sectionLength
              : "it is truncated or damaged: section " + kind.section(tag) + " claims "
                  + sectionLength + " bytes, but only " + remainingInFile()
                  + " remain in the file", false);
        }
        section = tag;
        sectionEnd = position + sectionLength;
        if (tag >= OPTIONAL_TAGS) {
          long n = sectionEnd - position;
          if (data.skip(n) != n) {
            throw new EOFException();
          }
          continue;
        }
        if (tag >= kind.sections.length) {
          requireChecksumOfRest(); // a damaged tag is damage, not a newer version
          throw new Unreadable("it holds a section (tag " + tag + ") that this version does not"
              + " know: it was written by a newer spark-perceptron", false);
        }
        if (seen[tag]) {
          throw new Unreadable("it is damaged: section " + kind.section(tag) + " appears twice",
              false);
        }
        seen[tag] = true;
        return tag;
      }
    }

    /** Whether section {@code tag} was read. */
    public boolean seen(int tag) {
      return tag < seen.length && seen[tag];
    }

    /** Ends the current section, which must have been read exactly. */
    public void leave() throws Unreadable {
      if (position != sectionEnd) {
        throw damaged("it holds " + (sectionEnd - position) + " bytes more than its fields");
      }
    }

    /** After {@link #END}: the checksum must match and end the file. */
    public void finish() throws IOException, Unreadable {
      section = -1;
      long computed = crc.getValue();
      int storedCrc = data.readInt();
      if (position != length) {
        throw new Unreadable("it is damaged: " + (length - position) + " bytes follow its end",
            false);
      }
      if ((int) computed != storedCrc) {
        throw checksumMismatch(storedCrc, computed);
      }
    }

    /** A refusal for an inconsistent field of the current section. */
    public Unreadable damaged(String detail) {
      return new Unreadable("it is damaged: section " + kind.section(section) + " is"
          + " inconsistent (" + detail + ")", false);
    }

    /** The name of section {@code tag}, for messages. */
    public String sectionName(int tag) {
      return kind.section(tag);
    }

    private long remainingInFile() {
      // What follows the last section: the END tag and the checksum.
      return length - position - 8;
    }

    private String where() {
      return section >= 0 ? "section " + kind.section(section) : "its header or section framing";
    }

    private int readUpTo(byte[] b) throws IOException {
      int n = 0;
      while (n < b.length) {
        int r = data.read(b, n, b.length - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
      return n;
    }

    /** Reads to the end of the file, feeding the checksum, and compares it. */
    private void requireChecksumOfRest() throws IOException, Unreadable {
      long n = length - 4 - position;
      if (n < 0 || data.skip(n) != n) {
        throw new EOFException();
      }
      long computed = crc.getValue();
      int stored = data.readInt();
      if ((int) computed != stored) {
        throw checksumMismatch(stored, computed);
      }
    }

    private static Unreadable checksumMismatch(int stored, long computed) {
      return new Unreadable(String.format(Locale.ROOT, "it is damaged: its checksum does not"
          + " match its content (CRC32C %08x stored, %08x computed)", stored, computed), false);
    }

    private void need(long bytes) throws Unreadable {
      if (bytes > sectionEnd - position) {
        throw damaged("a field of " + bytes + " bytes runs past the section's end, "
            + (sectionEnd - position) + " bytes away");
      }
    }

    public int readInt() throws IOException, Unreadable {
      need(4);
      return data.readInt();
    }

    public long readLong() throws IOException, Unreadable {
      need(8);
      return data.readLong();
    }

    public double readDouble() throws IOException, Unreadable {
      need(8);
      return data.readDouble();
    }

    public byte readByte() throws IOException, Unreadable {
      need(1);
      return data.readByte();
    }

    public boolean readBoolean() throws IOException, Unreadable {
      byte b = readByte();
      if (b != 0 && b != 1) {
        throw damaged("a flag holds " + b);
      }
      return b == 1;
    }

    public String readUTF() throws IOException, Unreadable {
      need(2);
      int utfLength = data.readUnsignedShort();
      need(utfLength);
      byte[] bytes = new byte[utfLength];
      data.readFully(bytes);
      ByteArrayOutputStream b = new ByteArrayOutputStream(utfLength + 2);
      b.write(utfLength >>> 8);
      b.write(utfLength);
      b.write(bytes, 0, utfLength);
      try {
        return new DataInputStream(new ByteArrayInputStream(b.toByteArray())).readUTF();
      } catch (UTFDataFormatException e) {
        throw damaged("a text field is not valid modified UTF-8");
      }
    }

    /** A count of items that take at least {@code minBytes} each, checked against the section. */
    public int readCount(int minBytes) throws IOException, Unreadable {
      int n = readInt();
      if (n < 0 || (long) n * minBytes > sectionEnd - position) {
        throw damaged("it claims " + n + " items of at least " + minBytes + " bytes in "
            + (sectionEnd - position) + " bytes");
      }
      return n;
    }

    public double[] readDoubles() throws IOException, Unreadable {
      int n = readCount(8);
      double[] a = new double[n];
      for (int from = 0; from < n; from += chunk.length / 8) {
        int len = Math.min(chunk.length / 8, n - from);
        data.readFully(chunk, 0, len * 8);
        ByteBuffer.wrap(chunk, 0, len * 8).asDoubleBuffer().get(a, from, len);
      }
      return a;
    }

    public int[] readInts() throws IOException, Unreadable {
      int n = readCount(4);
      int[] a = new int[n];
      for (int from = 0; from < n; from += chunk.length / 4) {
        int len = Math.min(chunk.length / 4, n - from);
        data.readFully(chunk, 0, len * 4);
        ByteBuffer.wrap(chunk, 0, len * 4).asIntBuffer().get(a, from, len);
      }
      return a;
    }

    public long[] readLongs() throws IOException, Unreadable {
      int n = readCount(8);
      long[] a = new long[n];
      for (int i = 0; i < n; i++) {
        a[i] = data.readLong();
      }
      return a;
    }

    /**
     * {@code double[] w, boolean hasU, [double[] u], double clock}, as
     * {@link Out#writeLinearState} writes it; its shape is the codec's to check.
     */
    public LinearState readLinearState() throws IOException, Unreadable {
      double[] w = readDoubles();
      boolean hasU = readBoolean();
      double[] u = hasU ? readDoubles() : null;
      if (u != null && u.length != w.length) {
        throw damaged("its averaging accumulator has " + u.length + " values, its weights "
            + w.length);
      }
      double clock = readDouble();
      return new LinearState(w, u, clock);
    }
  }
}
