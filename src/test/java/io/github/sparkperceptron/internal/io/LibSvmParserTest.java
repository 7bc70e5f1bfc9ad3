package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.io.Text;
import org.junit.jupiter.api.Test;

class LibSvmParserTest {
  private final LibSvmParser parser = new LibSvmParser();

  @Test
  void parsesLabelsIndicesAndValues() {
    assertNull(parser.parse("1 3:0.5 7:-2e3\t10:4 # a comment\r"));
    assertFalse(parser.isBlank());
    assertEquals(1.0, parser.label(), 0.0);
    assertEquals(3, parser.size());
    assertArrayEquals(new int[] {2, 6, 9}, Arrays.copyOf(parser.indices(), 3));
    assertArrayEquals(new double[] {0.5, -2000, 4}, Arrays.copyOf(parser.values(), 3), 0.0);
    assertEquals(9, parser.maxIndex());

    assertNull(parser.parse("+1"));
    assertEquals(1.0, parser.label(), 0.0);
    assertEquals(0, parser.size());
    assertEquals(-1, parser.maxIndex());
  }

  @Test
  void growsBeyondItsInitialBuffers() {
    StringBuilder line = new StringBuilder("0");
    for (int i = 1; i <= 1000; i++) {
      line.append(' ').append(i).append(':').append(i);
    }
    assertNull(parser.parse(line.toString()));
    assertEquals(1000, parser.size());
    assertEquals(999, parser.maxIndex());
  }

  @Test
  void blankAndCommentLinesHoldNoExample() {
    for (String blank : new String[] {"", "   ", "# header", "\t# x 1:2"}) {
      assertNull(parser.parse(blank));
      assertTrue(parser.isBlank(), blank);
    }
  }

  @Test
  void badLinesGetAReason() {
    String[][] cases = {
        {"abc 1:2", "label 'abc' is not a number"},
        {"nan 1:2", "label 'nan' is not a number"},
        {"NaN 1:2", "label NaN is not a finite number"},
        {"1 1:2 3", "'3' is not an index:value pair"},
        {"1 x:2", "feature index 'x' is not a whole number"},
        {"1 0:2", "feature index 0 is below 1"},
        {"1 3:2 2:1", "feature index 2 follows 3"},
        {"1 3:2 3:1", "feature index 3 follows 3"},
        {"1 3:abc", "value 'abc' of feature 3 is not a number"},
        {"1 3:NaN", "value NaN of feature 3 is not a finite number"},
        {"1 3:Infinity", "value Infinity of feature 3 is not a finite number"},
        {"1 99999999999:1", "is not a whole number between 1 and 2147483647"},
        {"1 qid:3 1:2", "feature index 'qid' is not a whole number"},
    };
    for (String[] c : cases) {
      String error = parser.parse(c[0]);
      assertNotNull(error, c[0]);
      assertTrue(error.contains(c[1]), c[0] + " -> " + error);
    }
  }

  /**
   * The byte path ({@code parse(Text)}, one look per byte) gives what the string path, the
   * format's definition, gives: the same verdict and message, the same label, indices and value
   * bits; on tokens at the edges of the syntax, of exact double arithmetic and of the value range.
   */
  @Test
  void theBytePathAgreesWithTheStringPathOnEveryLine() {
    String[] values = {"0", "-0", "+0.0", "1.", ".5", "-.5", "00012", "0.1", "0.25047222817856873",
        "-0.10993973940681531", "123456789012345", "1234567890123456", "12345678901234567890",
        "0.000000000000001", "9007199254740993",
        // 16 significant digits, past 2^53: a naive w / 10^f would round twice
        "912407116.2475815", "9726633602567.143", "97.31705689072231", "1e5", "1E-5", "-2e+3", "1e309", "1e-400",
        "4.9e-324", "1.7976931348623157e308", "1e", "e5", ".", "+", "1.2.3", "1e5.5", "0x1p3", "1d",
        "NaN", "Infinity", "-Infinity", "١", "3:4", "0.1#c", "7\r"};
    String[] indices = {"1", "+2", "02", "0", "-1", "2147483647", "2147483648", "99999999999",
        "", "x", "3 ", "1.0"};
    Random random = new Random(11);
    List<String> lines = new ArrayList<>();
    for (String v : values) {
      for (String i : indices) {
        lines.add("1 " + i + ":" + v.replace("\\r", "\r"));
        lines.add("-1\t" + i + ":" + v + " 9:1 # note");
      }
      lines.add(v + " 1:1");
    }
    for (int n = 0; n < 500; n++) {
      StringBuilder line = new StringBuilder(values[random.nextInt(values.length)]);
      int index = 0;
      for (int k = random.nextInt(6); k > 0; k--) {
        index += random.nextInt(3);
        line.append(random.nextBoolean() ? " " : "\t").append(index).append(':')
            .append(values[random.nextInt(values.length)]);
      }
      lines.add(line.toString());
    }
    lines.addAll(List.of("", "  ", "\t# comment 1:x", "1 2:3 é", "é 1:1", "1 2:3 # é", "1  2:3\r"));
    LibSvmParser bytes = new LibSvmParser();
    int accepted = 0;
    for (String line : lines) {
      String expected = parser.parse(line);
      String actual = bytes.parse(new Text(line));
      assertEquals(expected, actual, line);
      if (expected != null) {
        continue;
      }
      accepted++;
      assertEquals(parser.isBlank(), bytes.isBlank(), line);
      assertEquals(Double.doubleToRawLongBits(parser.label()),
          Double.doubleToRawLongBits(bytes.label()), line);
      assertEquals(parser.size(), bytes.size(), line);
      for (int k = 0; k < parser.size(); k++) {
        assertEquals(parser.indices()[k], bytes.indices()[k], line);
        assertEquals(Double.doubleToRawLongBits(parser.values()[k]),
            Double.doubleToRawLongBits(bytes.values()[k]), line + " value " + k);
      }
    }
    assertTrue(accepted > 100 && accepted < lines.size() - 100,
        "both good and bad lines: " + accepted + " of " + lines.size() + " accepted");
  }
}
