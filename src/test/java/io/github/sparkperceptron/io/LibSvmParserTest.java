package io.github.sparkperceptron.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
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
}
