package io.github.sparkperceptron.internal.store;

import io.github.sparkperceptron.internal.kernel.LinearState;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The reading side of a {@link StateFile}, the state files' attack surface: counts bytes and
 * feeds the checksum, and bounds every read by the current section, so that a damaged length is
 * an error before it is an allocation. The container's format and the rules a reader enforces
 * are {@link StateFile}'s documentation; {@link StateFile#read} hands a reader to a codec.
 */
public final class StateReader {
  private final CRC32C crc = new CRC32C();
  private final StateFile.Kind kind;
  private final long length;
  private final DataInputStream data;
  private final boolean[] seen;
  private long position;
  private int section = -1;
  private long sectionEnd;
  private final byte[] chunk;

  StateReader(InputStream raw, long length, StateFile.Kind kind) {
    this.kind = kind;
    this.length = length;
    this.seen = new boolean[kind.sections.length];
    int buffer = (int) Math.max(64, Math.min(StateFile.CHUNK, length));
    this.chunk = new byte[buffer - buffer % 8];
    InputStream counted = new FilterInputStream(new BufferedInputStream(raw, buffer)) {
      @Override
      public int read() throws IOException {
        int b = in.read();
        if (b >= 0 && position < StateReader.this.length - 4) {
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
          long checked = Math.max(0, Math.min(n, StateReader.this.length - 4 - position));
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

  void readMagic() throws IOException, StateFile.Unreadable {
    byte[] magic = new byte[kind.magic.length];
    int got = readUpTo(magic);
    if (got == magic.length && Arrays.equals(magic, kind.magic)) {
      return;
    }
    if (got >= 2 && ((magic[0] & 0xff) << 8 | (magic[1] & 0xff)) == StateFile.JAVA_STREAM_MAGIC) {
      throw new StateFile.Unreadable("it is a Java serialization stream, not a " + kind.name + " in this"
          + " version's format" + kind.javaStreamNote, false);
    }
    if (got < magic.length && got == length) {
      throw new StateFile.Unreadable("it is truncated: the file holds only " + got + " bytes", false);
    }
    if (got == magic.length && magic[0] == kind.magic[0] && magic[1] == 'S'
        && magic[2] == 'P' && magic[7] == '\n') {
      throw new StateFile.Unreadable("it is another kind of spark-perceptron state file ('"
          + new String(magic, 3, 4, StandardCharsets.ISO_8859_1) + "'), not a " + kind.name,
          false);
    }
    throw new StateFile.Unreadable("it is not a spark-perceptron " + kind.name + " (its first bytes are"
        + " not the " + kind.name + " header)", false);
  }

  /**
   * The file's format version, refused (after the checksum of the rest is checked: a damaged
   * version is damage) unless it is {@code readable}.
   */
  public void requireVersion(int readable) throws IOException, StateFile.Unreadable {
    requireVersion(readable, readable);
  }

  /**
   * The file's format version, refused (as {@link #requireVersion(int)}) unless it is between
   * {@code oldest} and {@code newest}.
   */
  public int requireVersion(int oldest, int newest) throws IOException, StateFile.Unreadable {
    int version = data.readInt();
    if (version < oldest || version > newest) {
      requireChecksumOfRest();
      throw new StateFile.Unreadable("it is in " + kind.name + " format " + version + (version > newest
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
      throws IOException, StateFile.Unreadable {
    if (header == null || !header.equals(expected)) {
      requireChecksumOfRest();
      throw header == null
          ? new StateFile.Unreadable("it is damaged: its " + kind.header + " is not text", false)
          : new StateFile.Unreadable("it belongs to " + owner, true);
    }
  }

  /**
   * Moves to the next section the reader knows and returns its tag, or {@link #StateFile.END} after the
   * last one; optional sections it does not know are skipped.
   */
  public int nextSection() throws IOException, StateFile.Unreadable {
    while (true) {
      section = -1;
      int tag = data.readInt();
      if (tag == StateFile.END) {
        return StateFile.END;
      }
      long sectionLength = data.readLong();
      if (tag < 0 || sectionLength < 0 || sectionLength > remainingInFile()) {
        throw new StateFile.Unreadable(tag < 0 || sectionLength < 0
            ? "it is damaged: a section header holds tag " + tag + " and length "
                + sectionLength
            : "it is truncated or damaged: section " + kind.section(tag) + " claims "
                + sectionLength + " bytes, but only " + remainingInFile()
                + " remain in the file", false);
      }
      section = tag;
      sectionEnd = position + sectionLength;
      if (tag >= StateFile.OPTIONAL_TAGS) {
        long n = sectionEnd - position;
        if (data.skip(n) != n) {
          throw new EOFException();
        }
        continue;
      }
      if (tag >= kind.sections.length) {
        requireChecksumOfRest(); // a damaged tag is damage, not a newer version
        throw new StateFile.Unreadable("it holds a section (tag " + tag + ") that this version does not"
            + " know: it was written by a newer spark-perceptron", false);
      }
      if (seen[tag]) {
        throw new StateFile.Unreadable("it is damaged: section " + kind.section(tag) + " appears twice",
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
  public void leave() throws StateFile.Unreadable {
    if (position != sectionEnd) {
      throw damaged("it holds " + (sectionEnd - position) + " bytes more than its fields");
    }
  }

  /** After {@link #StateFile.END}: the checksum must match and end the file. */
  public void finish() throws IOException, StateFile.Unreadable {
    section = -1;
    long computed = crc.getValue();
    int storedCrc = data.readInt();
    if (position != length) {
      throw new StateFile.Unreadable("it is damaged: " + (length - position) + " bytes follow its end",
          false);
    }
    if ((int) computed != storedCrc) {
      throw checksumMismatch(storedCrc, computed);
    }
  }

  /** A refusal for an inconsistent field of the current section. */
  public StateFile.Unreadable damaged(String detail) {
    return new StateFile.Unreadable("it is damaged: section " + kind.section(section) + " is"
        + " inconsistent (" + detail + ")", false);
  }

  /** The name of section {@code tag}, for messages. */
  public String sectionName(int tag) {
    return kind.section(tag);
  }

  private long remainingInFile() {
    // What follows the last section: the StateFile.END tag and the checksum.
    return length - position - 8;
  }

  String where() {
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
  private void requireChecksumOfRest() throws IOException, StateFile.Unreadable {
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

  private static StateFile.Unreadable checksumMismatch(int stored, long computed) {
    return new StateFile.Unreadable(String.format(Locale.ROOT, "it is damaged: its checksum does not"
        + " match its content (CRC32C %08x stored, %08x computed)", stored, computed), false);
  }

  private void need(long bytes) throws StateFile.Unreadable {
    if (bytes > sectionEnd - position) {
      throw damaged("a field of " + bytes + " bytes runs past the section's end, "
          + (sectionEnd - position) + " bytes away");
    }
  }

  public int readInt() throws IOException, StateFile.Unreadable {
    need(4);
    return data.readInt();
  }

  public long readLong() throws IOException, StateFile.Unreadable {
    need(8);
    return data.readLong();
  }

  public double readDouble() throws IOException, StateFile.Unreadable {
    need(8);
    return data.readDouble();
  }

  public byte readByte() throws IOException, StateFile.Unreadable {
    need(1);
    return data.readByte();
  }

  public boolean readBoolean() throws IOException, StateFile.Unreadable {
    byte b = readByte();
    if (b != 0 && b != 1) {
      throw damaged("a flag holds " + b);
    }
    return b == 1;
  }

  public String readUTF() throws IOException, StateFile.Unreadable {
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
  public int readCount(int minBytes) throws IOException, StateFile.Unreadable {
    int n = readInt();
    if (n < 0 || (long) n * minBytes > sectionEnd - position) {
      throw damaged("it claims " + n + " items of at least " + minBytes + " bytes in "
          + (sectionEnd - position) + " bytes");
    }
    return n;
  }

  public double[] readDoubles() throws IOException, StateFile.Unreadable {
    int n = readCount(8);
    double[] a = new double[n];
    for (int from = 0; from < n; from += chunk.length / 8) {
      int len = Math.min(chunk.length / 8, n - from);
      data.readFully(chunk, 0, len * 8);
      ByteBuffer.wrap(chunk, 0, len * 8).asDoubleBuffer().get(a, from, len);
    }
    return a;
  }

  public int[] readInts() throws IOException, StateFile.Unreadable {
    int n = readCount(4);
    int[] a = new int[n];
    for (int from = 0; from < n; from += chunk.length / 4) {
      int len = Math.min(chunk.length / 4, n - from);
      data.readFully(chunk, 0, len * 4);
      ByteBuffer.wrap(chunk, 0, len * 4).asIntBuffer().get(a, from, len);
    }
    return a;
  }

  public long[] readLongs() throws IOException, StateFile.Unreadable {
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
  public LinearState readLinearState() throws IOException, StateFile.Unreadable {
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
