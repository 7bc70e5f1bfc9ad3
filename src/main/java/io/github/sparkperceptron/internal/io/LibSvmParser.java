package io.github.sparkperceptron.internal.io;

import java.util.Arrays;
import org.apache.hadoop.io.Text;

/**
 * Parses LIBSVM text lines, {@code label index:value index:value ...}, with 1-based strictly
 * increasing indices, separated by spaces or tabs; text after {@code #} is a comment and blank
 * lines hold no example. Numbers are plain ASCII decimals (see {@link NumberText}). One parser is
 * reused for every line of a partition: the parsed row lives in its buffers until the next call.
 *
 * <p>Spark's own LIBSVM source fails on a bad line with a stack trace that names neither the file
 * nor the line; this parser returns a one-line reason instead, and the caller adds the place.
 *
 * <p>{@link #parse(Text)} reads a line as Hadoop's reader holds it, in UTF-8 bytes, without
 * decoding it into a {@link String} or cutting it into token strings: numbers are read straight
 * from the bytes ({@link DecimalReader}). That fast path accepts only what the string
 * parser accepts, with the same values; any line it does not take in one go (a bad one, or one
 * with non-ASCII text before a comment) goes to {@link #parse(String)}, the definition of the
 * format and of every message.
 */
final class LibSvmParser {
  private int[] indices = new int[16];
  private double[] values = new double[16];
  private int size;
  private double label;
  private boolean blank;
  private final DecimalReader decimal = new DecimalReader();

  /**
   * Parses one line.
   *
   * @return {@code null} when the line parsed (check {@link #isBlank()}), else why it did not
   */
  public String parse(String line) {
    size = 0;
    blank = false;
    int end = line.indexOf('#');
    if (end < 0) {
      end = line.length();
    }
    int pos = skipSpace(line, 0, end);
    if (pos == end) {
      blank = true;
      return null;
    }
    int tokenEnd = tokenEnd(line, pos, end);
    String labelText = line.substring(pos, tokenEnd);
    if (!NumberText.isDecimal(labelText)) {
      return NumberText.isNonFiniteWord(labelText)
          ? "label " + labelText + " is not a finite number"
          : "label '" + NumberText.shown(labelText) + "' is not a number";
    }
    label = Double.parseDouble(labelText) + 0.0; // + 0.0 turns -0 into 0
    if (Double.isInfinite(label)) {
      return "label " + NumberText.shown(labelText) + " is not a finite number";
    }
    int previous = 0;
    pos = skipSpace(line, tokenEnd, end);
    while (pos < end) {
      tokenEnd = tokenEnd(line, pos, end);
      int colon = line.indexOf(':', pos);
      if (colon < 0 || colon >= tokenEnd) {
        return "'" + NumberText.shown(line.substring(pos, tokenEnd))
            + "' is not an index:value pair";
      }
      String indexText = line.substring(pos, colon);
      long wholeIndex = NumberText.wholeNumber(indexText);
      if (wholeIndex == Long.MIN_VALUE || wholeIndex > Integer.MAX_VALUE) {
        return "feature index '" + NumberText.shown(indexText)
            + "' is not a whole number between 1 and " + Integer.MAX_VALUE;
      }
      int index = (int) wholeIndex;
      if (index < 1) {
        return "feature index " + index + " is below 1 (LIBSVM indices start at 1)";
      }
      if (index <= previous) {
        return "feature index " + index + " follows " + previous
            + "; indices must increase strictly within a line";
      }
      String valueText = line.substring(colon + 1, tokenEnd);
      if (!NumberText.isDecimal(valueText)) {
        return NumberText.isNonFiniteWord(valueText)
            ? "value " + valueText + " of feature " + index + " is not a finite number"
            : "value '" + NumberText.shown(valueText) + "' of feature " + index
                + " is not a number";
      }
      double value = Double.parseDouble(valueText);
      if (Double.isInfinite(value)) {
        return "value " + NumberText.shown(valueText) + " of feature " + index
            + " is not a finite number";
      }
      if (size == indices.length) {
        indices = Arrays.copyOf(indices, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      indices[size] = index - 1;
      values[size] = value;
      size++;
      previous = index;
      pos = skipSpace(line, tokenEnd, end);
    }
    return null;
  }

  /**
   * Parses one line held in bytes: the same outcome as {@code parse(line.toString())}, without
   * allocating for a well-formed line.
   *
   * @return {@code null} when the line parsed (check {@link #isBlank()}), else why it did not
   */
  public String parse(Text line) {
    if (parseBytes(line.getBytes(), line.getLength())) {
      return null;
    }
    return parse(line.toString());
  }

  /**
   * The fast path of {@link #parse(Text)}: {@code parse(String)}'s steps on ASCII bytes, each byte
   * looked at once (an index's digits are accumulated as they are read, a value's syntax is
   * checked and its value computed as it is scanned: {@link DecimalReader}). Returns false,
   * leaving the buffers to be overwritten, wherever the string parser would report a problem or
   * the text before a comment is not ASCII (a byte of a multi-byte UTF-8 character is never part
   * of a valid token or a space, so it ends the fast path where it stands).
   */
  private boolean parseBytes(byte[] b, int length) {
    size = 0;
    blank = false;
    int pos = skipSpace(b, 0, length);
    if (pos == length || b[pos] == '#') {
      blank = true;
      return true;
    }
    int tokenEnd = decimal.read(b, pos, length);
    if (tokenEnd < 0 || tokenEnd < length && !isTokenEnd(b[tokenEnd])) {
      return false;
    }
    label = decimal.value() + 0.0; // + 0.0 turns -0 into 0
    if (Double.isInfinite(label)) {
      return false;
    }
    int previous = 0;
    pos = skipSpace(b, tokenEnd, length);
    while (pos < length && b[pos] != '#') {
      // index: [+]digits, clamped above the int range as NumberText.wholeNumber clamps it
      if (b[pos] == '+') {
        pos++;
      }
      int digitsFrom = pos;
      long index = 0;
      int digit;
      while (pos < length && (digit = b[pos] - '0') >= 0 && digit <= 9) {
        index = Math.min(index * 10 + digit, 1L << 31);
        pos++;
      }
      if (pos == digitsFrom || pos == length || b[pos] != ':' || index < 1
          || index > Integer.MAX_VALUE || index <= previous) {
        return false;
      }
      pos++;
      int valueEnd = decimal.read(b, pos, length);
      if (valueEnd < 0 || valueEnd < length && !isTokenEnd(b[valueEnd])) {
        return false;
      }
      double value = decimal.value();
      if (Double.isInfinite(value)) {
        return false;
      }
      if (size == indices.length) {
        indices = Arrays.copyOf(indices, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      indices[size] = (int) index - 1;
      values[size] = value;
      size++;
      previous = (int) index;
      pos = skipSpace(b, valueEnd, length);
    }
    return true;
  }

  /** Whether a byte ends a token: a space ({@link #isSpace}) or the start of a comment. */
  private static boolean isTokenEnd(byte c) {
    return c == '#' || isSpace((char) c);
  }

  private static int skipSpace(byte[] b, int from, int end) {
    int i = from;
    while (i < end && isSpace((char) b[i])) {
      i++;
    }
    return i;
  }

  /**
   * Whether the line holds no example (empty, blank or a comment), without parsing it: what a
   * reader that leaves the line to another worker needs to count rows.
   */
  static boolean isBlank(Text line) {
    byte[] b = line.getBytes();
    int n = line.getLength();
    for (int i = 0; i < n && b[i] != '#'; i++) {
      if (!isSpace((char) b[i])) {
        return false;
      }
    }
    return true;
  }

  private static int skipSpace(String s, int from, int end) {
    int i = from;
    while (i < end && isSpace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static int tokenEnd(String s, int from, int end) {
    int i = from;
    while (i < end && !isSpace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  /**
   * Space, tab, and the stray carriage return, form feed or vertical tab of a file that went
   * through an editor on another system; Unicode spaces are not separators.
   */
  static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\u000B';
  }

  /** Whether the last line held no example (empty, blank or a comment). */
  public boolean isBlank() {
    return blank;
  }

  public double label() {
    return label;
  }

  /** Number of index:value pairs of the last line. */
  public int size() {
    return size;
  }

  /** The 0-based feature indices of the last line (valid up to {@link #size()}). */
  public int[] indices() {
    return indices;
  }

  public double[] values() {
    return values;
  }

  /** The largest 0-based index of the last line, or −1 when it has none. */
  public int maxIndex() {
    return size == 0 ? -1 : indices[size - 1];
  }
}
