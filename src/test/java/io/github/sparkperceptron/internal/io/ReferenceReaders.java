package io.github.sparkperceptron.internal.io;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tiny reference readers for the fuzz test, written apart from the production code and in another
 * style (regular expressions over whole lines, not character-by-character state machines): what
 * a LIBSVM or CSV file should read as, or the line of the first error.
 */
final class ReferenceReaders {
  private ReferenceReaders() {
  }

  /** A file's reading: rows, or the 1-based line of the error, or "no examples". */
  static final class Outcome {
    final List<double[]> labels = new ArrayList<>();
    final List<int[]> indices = new ArrayList<>();
    final List<double[]> values = new ArrayList<>();
    /** The line of the error, 0 for "no examples", −1 when the file reads. */
    int errorLine = -1;
    int numFeatures;

    static Outcome error(int line) {
      Outcome o = new Outcome();
      o.errorLine = line;
      return o;
    }

    int rows() {
      return labels.size();
    }
  }

  private static final String SPACE = "[ \\t\\r\\f\\u000B]";
  private static final Pattern NUMBER =
      Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  private static final Pattern PAIR = Pattern.compile("([+-]?[0-9]+):(.*)");
  private static final Pattern SPACES = Pattern.compile(SPACE + "+");
  private static final Pattern BLANK = Pattern.compile(SPACE + "*");
  /** One CSV field at \G: quoted (group 1) or not (group 2), then its comma or the end. */
  private static final Pattern CSV_FIELD = Pattern.compile("\\G" + SPACE
      + "*+(?:\"((?:[^\"]|\"\")*)\"" + SPACE + "*|(?!\")([^,]*?)" + SPACE + "*)(,|\\z)");

  /**
   * Lines as Hadoop's reader splits them: at LF, CR or CR LF, with a UTF-8 byte order mark
   * dropped from the start of the first line.
   */
  static List<String> lines(byte[] bytes) {
    List<String> lines = new ArrayList<>();
    int from = 0;
    int i = 0;
    while (i < bytes.length) {
      if (bytes[i] == '\n' || bytes[i] == '\r') {
        lines.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
        i += bytes[i] == '\r' && i + 1 < bytes.length && bytes[i + 1] == '\n' ? 2 : 1;
        from = i;
      } else {
        i++;
      }
    }
    if (from < bytes.length) {
      lines.add(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8));
    }
    boolean bom = bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB
        && (bytes[2] & 0xFF) == 0xBF;
    if (bom) {
      lines.set(0, lines.get(0).substring(1));
    }
    return lines;
  }

  /** The value of a finite number in the readers' syntax, or null. */
  private static Double number(String s) {
    if (!NUMBER.matcher(s).matches()) {
      return null;
    }
    double v = Double.parseDouble(s);
    return Double.isInfinite(v) ? null : v;
  }

  /** Whether a label is a class index (below numClasses when that is positive). */
  private static boolean classIndex(double label, int numClasses) {
    return label >= 0 && label == Math.floor(label) && (numClasses <= 0 || label < numClasses);
  }

  /** Applies the −1/+1 rule and the class-index check to rows read so far. */
  private static Outcome finish(Outcome o, List<Integer> rowLines, int numClasses) {
    if (o.rows() == 0) {
      return Outcome.error(0);
    }
    boolean allPlusMinusOne = true;
    boolean anyMinusOne = false;
    for (double[] l : o.labels) {
      allPlusMinusOne &= l[0] == 1.0 || l[0] == -1.0;
      anyMinusOne |= l[0] == -1.0;
    }
    boolean map = allPlusMinusOne && anyMinusOne;
    for (int r = 0; r < o.rows(); r++) {
      double[] l = o.labels.get(r);
      if (map) {
        l[0] = l[0] > 0 ? 1.0 : 0.0;
      } else if (!classIndex(l[0], numClasses)) {
        return Outcome.error(rowLines.get(r));
      }
    }
    return o;
  }

  /**
   * LIBSVM: {@code label index:value ...} before any '#', indices 1-based and increasing.
   *
   * @param numFeatures the required width, or −1
   * @param numClasses the model's classes, or −1
   */
  static Outcome libsvm(byte[] bytes, int numFeatures, int numClasses) {
    Outcome o = new Outcome();
    List<Integer> rowLines = new ArrayList<>();
    int maxIndex = 0;
    List<String> lines = lines(bytes);
    for (int n = 0; n < lines.size(); n++) {
      String content = lines.get(n).split("#", 2)[0];
      List<String> tokens = new ArrayList<>(Arrays.asList(SPACES.split(content)));
      tokens.removeIf(String::isEmpty);
      if (tokens.isEmpty()) {
        continue;
      }
      Double label = number(tokens.get(0));
      if (label == null) {
        return Outcome.error(n + 1);
      }
      int[] idx = new int[tokens.size() - 1];
      double[] val = new double[tokens.size() - 1];
      long previous = 0;
      for (int k = 1; k < tokens.size(); k++) {
        Matcher m = PAIR.matcher(tokens.get(k));
        if (!m.matches() || number(m.group(2)) == null) {
          return Outcome.error(n + 1);
        }
        String digits = m.group(1).replaceFirst("^[+-]", "");
        long index = digits.length() > 12 ? Long.MAX_VALUE : Long.parseLong(m.group(1));
        if (index < 1 || index > Integer.MAX_VALUE || index <= previous
            || (numFeatures >= 0 && index > numFeatures)) {
          return Outcome.error(n + 1);
        }
        previous = index;
        idx[k - 1] = (int) index - 1;
        val[k - 1] = number(m.group(2));
      }
      maxIndex = (int) Math.max(maxIndex, previous);
      o.labels.add(new double[] {label + 0.0});
      o.indices.add(idx);
      o.values.add(val);
      rowLines.add(n + 1);
    }
    o.numFeatures = numFeatures >= 0 ? numFeatures : maxIndex;
    return finish(o, rowLines, numClasses);
  }

  /** The fields of a CSV line, or null when it is not valid CSV. */
  static List<String> csvFields(String line) {
    List<String> fields = new ArrayList<>();
    Matcher m = CSV_FIELD.matcher(line);
    int at = 0;
    while (m.find(at) && m.start() == at) {
      fields.add(m.group(1) != null ? m.group(1).replace("\"\"", "\"") : m.group(2));
      if (m.group(3).isEmpty()) {
        return fields;
      }
      at = m.end();
    }
    return null;
  }

  /**
   * CSV with a header row.
   *
   * @param featureCols the feature columns in vector order; empty for every column but the label
   */
  static Outcome csv(byte[] bytes, String labelCol, List<String> featureCols, int numFeatures,
      int numClasses) {
    List<String> lines = lines(bytes);
    if (lines.isEmpty()) {
      return Outcome.error(0);
    }
    List<String> header = BLANK.matcher(lines.get(0)).matches() ? null : csvFields(lines.get(0));
    if (header == null || header.contains("") || new HashSet<>(header).size() != header.size()
        || !header.contains(labelCol)) {
      return Outcome.error(1);
    }
    List<Integer> features = new ArrayList<>();
    for (String name : featureCols.isEmpty() ? header : featureCols) {
      if (featureCols.isEmpty() && name.equals(labelCol)) {
        continue;
      }
      if (!header.contains(name) || name.equals(labelCol)) {
        return Outcome.error(1);
      }
      features.add(header.indexOf(name));
    }
    Set<Integer> distinct = new HashSet<>(features);
    if (features.isEmpty() || distinct.size() != features.size()
        || (numFeatures >= 0 && features.size() != numFeatures)) {
      return Outcome.error(1);
    }
    int label = header.indexOf(labelCol);
    Outcome o = new Outcome();
    List<Integer> rowLines = new ArrayList<>();
    for (int n = 1; n < lines.size(); n++) {
      if (BLANK.matcher(lines.get(n)).matches()) {
        continue;
      }
      List<String> fields = csvFields(lines.get(n));
      if (fields == null || fields.size() != header.size() || number(fields.get(label)) == null) {
        return Outcome.error(n + 1);
      }
      double[] x = new double[features.size()];
      int[] idx = new int[features.size()];
      for (int k = 0; k < x.length; k++) {
        Double v = number(fields.get(features.get(k)));
        if (v == null) {
          return Outcome.error(n + 1);
        }
        x[k] = v;
        idx[k] = k;
      }
      o.labels.add(new double[] {number(fields.get(label)) + 0.0});
      o.indices.add(idx);
      o.values.add(x);
      rowLines.add(n + 1);
    }
    o.numFeatures = features.size();
    return finish(o, rowLines, numClasses);
  }
}
