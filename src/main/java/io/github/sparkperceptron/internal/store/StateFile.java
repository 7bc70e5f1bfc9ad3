package io.github.sparkperceptron.internal.store;

import io.github.sparkperceptron.internal.kernel.LinearState;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.charset.StandardCharsets;
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
  static final int JAVA_STREAM_MAGIC = 0xACED;
  static final int CHUNK = 1 << 16;

  private StateFile() {
  }

  /** A kind of state file: its magic, its name in messages, and its sections' names by tag. */
  public static final class Kind {
    final byte[] magic;
    final String name;
    final String header;
    final String[] sections;
    final String javaStreamNote;

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
    T decode(StateReader in) throws IOException, Unreadable;
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
    StateReader in = new StateReader(raw, length, kind);
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
}
