package io.github.sparkperceptron.io;

import java.util.Arrays;

/**
 * Splits CSV lines into fields: comma-separated, a field may be quoted with {@code "} (a doubled
 * {@code ""} inside stands for one quote, and commas inside are text), spaces and tabs around a
 * field are dropped. A quoted field may not span lines, so that every line can be checked on its
 * own in whichever split it falls. One parser is reused for every line of a partition: the
 * fields live in its buffer until the next call.
 */
final class CsvParser {
  private String[] fields = new String[16];
  private int size;
  private boolean blank;

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
