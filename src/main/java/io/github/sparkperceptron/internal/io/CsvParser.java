package io.github.sparkperceptron.internal.io;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.hadoop.io.Text;

/**
 * Splits CSV lines into fields: comma-separated, a field may be quoted with {@code "} (a doubled
 * {@code ""} inside stands for one quote, and commas inside are text), spaces and tabs around a
 * field are dropped. A quoted field may not span lines, so that every line can be checked on its
 * own in whichever split it falls. One parser is reused for every line of a partition: the
 * fields live in its buffer until the next call.
 *
 * <p>{@link #splitBytes(Text)} is the fast path for a line as Hadoop's reader holds it: it finds
 * the fields' byte ranges without decoding the line or making a string per field, and
 * {@link #decimalAt(int)} reads a field's number from the bytes. It declines a line with a quote
 * (which {@link #split(String)}, the definition of the format and its messages, then splits).
 */
final class CsvParser {
  private String[] fields = new String[16];
  private int size;
  private boolean blank;
  /** The last line of {@link #splitBytes}, and its fields' byte ranges [start, end). */
  private byte[] bytes;
  private int[] starts = new int[16];
  private int[] ends = new int[16];
  private final DecimalReader decimal = new DecimalReader();

  /**
   * Splits one line.
   *
   * @return {@code null} when the line split (check {@link #isBlank()}), else why it did not
   */
  public String split(String line) {
    size = 0;
    int end = line.length();
    int pos = skipSpace(line, 0, end);
    blank = pos == end;
    if (blank) {
      return null;
    }
    pos = 0;
    while (true) {
      pos = skipSpace(line, pos, end);
      if (pos < end && line.charAt(pos) == '"') {
        StringBuilder text = new StringBuilder();
        pos++;
        while (true) {
          if (pos >= end) {
            return "the quoted field " + (size + 1) + " is not closed (a quoted field may not"
                + " span lines)";
          }
          char c = line.charAt(pos);
          if (c == '"') {
            if (pos + 1 < end && line.charAt(pos + 1) == '"') {
              text.append('"');
              pos += 2;
              continue;
            }
            pos++;
            break;
          }
          text.append(c);
          pos++;
        }
        pos = skipSpace(line, pos, end);
        if (pos < end && line.charAt(pos) != ',') {
          return "text follows the closing quote of field " + (size + 1) + "; double a quote"
              + " inside a quoted field (\"\")";
        }
        add(text.toString());
      } else {
        int comma = line.indexOf(',', pos);
        int fieldEnd = comma < 0 ? end : comma;
        int trimmed = fieldEnd;
        while (trimmed > pos && LibSvmParser.isSpace(line.charAt(trimmed - 1))) {
          trimmed--;
        }
        add(line.substring(pos, trimmed));
        pos = fieldEnd;
      }
      if (pos >= end) {
        return null;
      }
      pos++; // the comma; a line ending in one has an empty last field
    }
  }

  /**
   * Splits a line held in bytes into byte ranges, as {@link #split(String)} splits its text, for
   * {@link #decimalAt} and {@link #fieldText}; the line's bytes must stay unchanged meanwhile.
   *
   * @return false when the line holds a quote, which only {@link #split(String)} handles
   */
  boolean splitBytes(Text line) {
    byte[] b = line.getBytes();
    int end = line.getLength();
    bytes = b;
    size = 0;
    int pos = skipSpace(b, 0, end);
    blank = pos == end;
    if (blank) {
      return true;
    }
    pos = 0;
    while (true) {
      pos = skipSpace(b, pos, end);
      int fieldEnd = pos;
      while (fieldEnd < end && b[fieldEnd] != ',') {
        if (b[fieldEnd] == '"') {
          return false;
        }
        fieldEnd++;
      }
      int trimmed = fieldEnd;
      while (trimmed > pos && LibSvmParser.isSpace((char) b[trimmed - 1])) {
        trimmed--;
      }
      if (size == starts.length) {
        starts = Arrays.copyOf(starts, size * 2);
        ends = Arrays.copyOf(ends, size * 2);
      }
      starts[size] = pos;
      ends[size] = trimmed;
      size++;
      if (fieldEnd >= end) {
        return true;
      }
      pos = fieldEnd + 1;
    }
  }

  /**
   * The number in field {@code i} of the last {@link #splitBytes} line (±Infinity when it
   * overflows), or NaN when the field is not a decimal number (which no decimal parses to).
   */
  double decimalAt(int i) {
    return decimal.read(bytes, starts[i], ends[i]) == ends[i] ? decimal.value() : Double.NaN;
  }

  /** The text of field {@code i} of the last {@link #splitBytes} line, for a message. */
  String fieldText(int i) {
    return new String(bytes, starts[i], ends[i] - starts[i], StandardCharsets.UTF_8);
  }

  private static int skipSpace(byte[] b, int from, int end) {
    int i = from;
    while (i < end && LibSvmParser.isSpace((char) b[i])) {
      i++;
    }
    return i;
  }

  private void add(String field) {
    if (size == fields.length) {
      fields = Arrays.copyOf(fields, size * 2);
    }
    fields[size++] = field;
  }

  private static int skipSpace(String s, int from, int end) {
    int i = from;
    while (i < end && LibSvmParser.isSpace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  /** Whether the line holds only spaces and tabs, without splitting it. */
  static boolean isBlank(Text line) {
    byte[] b = line.getBytes();
    int n = line.getLength();
    return skipSpace(b, 0, n) == n;
  }

  /** Whether the last line was empty or held only spaces and tabs. */
  public boolean isBlank() {
    return blank;
  }

  /** Number of fields of the last line. */
  public int size() {
    return size;
  }

  /** Field {@code i} (0-based) of the last line, unquoted. */
  public String field(int i) {
    return fields[i];
  }

  /**
   * Why {@code cell} of {@code column} is not a usable number, or {@code null}: the phrase that
   * follows "file:line: ".
   */
  public static String numberProblem(String column, String cell) {
    if (cell.isEmpty()) {
      return "column '" + NumberText.shown(column) + "' is empty";
    }
    if (!NumberText.isDecimal(cell)) {
      return "column '" + NumberText.shown(column) + "' has '" + NumberText.shown(cell) + "', "
          + (NumberText.isNonFiniteWord(cell) ? "not a finite number" : "not a number");
    }
    if (Double.isInfinite(Double.parseDouble(cell))) {
      return "column '" + NumberText.shown(column) + "' has '" + NumberText.shown(cell)
          + "', not a finite number";
    }
    return null;
  }
}
