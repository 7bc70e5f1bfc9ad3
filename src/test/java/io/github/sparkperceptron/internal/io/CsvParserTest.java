package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsvParserTest {
  private final CsvParser parser = new CsvParser();

  private List<String> fields(String line) {
    String error = parser.split(line);
    assertNull(error, line + " -> " + error);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < parser.size(); i++) {
      out.add(parser.field(i));
    }
    return out;
  }

  @Test
  void splitsPlainQuotedAndEmptyFields() {
    assertEquals(List.of("1", "2.5", "x"), fields("1,2.5,x"));
    assertEquals(List.of("1", "2.5", "x"), fields(" 1 ,\t2.5 , x\r"));
    assertEquals(List.of("a,b", "say \"hi\"", ""), fields("\"a,b\", \"say \"\"hi\"\"\" ,"));
    assertEquals(List.of("", "", ""), fields(",,"));
    assertEquals(List.of("5\" screen"), fields("5\" screen"));
    assertEquals(List.of(" padded "), fields("\" padded \""));
  }

  @Test
  void blankLinesHoldNoRow() {
    for (String blank : new String[] {"", "  ", "\t\r"}) {
      assertNull(parser.split(blank));
      assertTrue(parser.isBlank(), "'" + blank + "'");
    }
  }

  @Test
  void unclosedQuotesAndTextAfterAQuoteAreErrors() {
    assertTrue(parser.split("1,\"abc").startsWith("the quoted field 2 is not closed"));
    assertTrue(parser.split("\"ab\"c,1").startsWith("text follows the closing quote of field 1"));
  }

  @Test
  void numbersAreStrictAsciiDecimals() {
    assertNull(CsvParser.numberProblem("x", "-1.5e3"));
    assertNull(CsvParser.numberProblem("x", ".5"));
    assertNull(CsvParser.numberProblem("x", "+7."));
    assertEquals("column 'x' is empty", CsvParser.numberProblem("x", ""));
    assertEquals("column 'x' has 'abc', not a number", CsvParser.numberProblem("x", "abc"));
    assertEquals("column 'x' has '1d', not a number", CsvParser.numberProblem("x", "1d"));
    assertEquals("column 'x' has '0x10', not a number", CsvParser.numberProblem("x", "0x10"));
    assertEquals("column 'x' has '\u0663', not a number", CsvParser.numberProblem("x", "\u0663"));
    assertEquals("column 'x' has 'NaN', not a finite number", CsvParser.numberProblem("x", "NaN"));
    assertEquals("column 'x' has '-Infinity', not a finite number",
        CsvParser.numberProblem("x", "-Infinity"));
    assertEquals("column 'x' has '1e999', not a finite number",
        CsvParser.numberProblem("x", "1e999"));
    assertEquals("column 'x' has 'a\\u0000b', not a number",
        CsvParser.numberProblem("x", "a\u0000b"), "control characters are shown escaped");
  }
}
