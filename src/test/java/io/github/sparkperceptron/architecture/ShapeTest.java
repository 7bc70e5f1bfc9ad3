package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Limits that keep the main code readable (issue 19): no file over {@value #MAX_LINES} lines, and
 * no method or constructor outside {@code kernel/} with more than {@value #MAX_PARAMETERS}
 * parameters (group them in a value object). The kernel's inner loops take their arrays and
 * ranges as parameters on purpose: no object per row.
 */
class ShapeTest {
  static final int MAX_LINES = 700;
  static final int MAX_PARAMETERS = 7;
  private static final Path MAIN = TestData.projectRoot().resolve("src/main/java");

  /** A method or constructor declaration: name, then its parameter list, then its body. */
  private static final Pattern DECLARATION = Pattern.compile(
      "(\\w+)\\s*\\(([^()]*)\\)\\s*(?:throws\\s+[\\w.,\\s]+)?\\{");

  private static List<Path> mainSources() throws IOException {
    try (Stream<Path> files = Files.walk(MAIN)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted()
          .collect(Collectors.toList());
    }
  }

  /** Parameters of a declaration's list: commas outside type arguments, plus one. */
  static int parameters(String list) {
    if (list.isBlank()) {
      return 0;
    }
    int depth = 0;
    int count = 1;
    for (char c : list.toCharArray()) {
      if (c == '<') {
        depth++;
      } else if (c == '>') {
        depth--;
      } else if (c == ',' && depth == 0) {
        count++;
      }
    }
    return count;
  }

  /** The declarations of {@code code} (comments and strings removed) with more parameters. */
  static List<String> longParameterLists(String code) {
    List<String> found = new ArrayList<>();
    Matcher m = DECLARATION.matcher(code);
    while (m.find()) {
      String name = m.group(1);
      boolean statement = List.of("if", "for", "while", "switch", "catch", "synchronized", "try")
          .contains(name);
      int n = parameters(m.group(2));
      if (!statement && n > MAX_PARAMETERS) {
        found.add(name + " (" + n + " parameters)");
      }
    }
    return found;
  }

  @Test
  void noMainFileIsLongerThanTheLimit() throws IOException {
    List<String> tooLong = new ArrayList<>();
    for (Path f : mainSources()) {
      long lines = Files.readAllLines(f).size();
      if (lines > MAX_LINES) {
        tooLong.add(MAIN.relativize(f) + ": " + lines + " lines");
      }
    }
    assertTrue(tooLong.isEmpty(), String.join("\n", tooLong));
  }

  @Test
  void noMethodOutsideTheKernelTakesMoreParametersThanTheLimit() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path f : mainSources()) {
      if (f.getParent().getFileName().toString().equals("kernel")) {
        continue;
      }
      for (String d : longParameterLists(LayeringTest.code(Files.readString(f)))) {
        found.add(MAIN.relativize(f) + ": " + d);
      }
    }
    assertTrue(found.isEmpty(), String.join("\n", found));
  }

  /** The scanner finds declarations, generic parameter types included, and not calls. */
  @Test
  void theScannerCountsDeclaredParameters() {
    String code = "class A {\n"
        + "  A(int a, int b, int c, int d, int e, int f, int g, Map<String, Integer> h) {\n"
        + "    call(1, 2, 3, 4, 5, 6, 7, 8);\n"
        + "  }\n"
        + "  static <T> void ok(List<T> a, int b, int c, int d, int e, int f, int g) throws"
        + " java.io.IOException {\n"
        + "  }\n"
        + "}\n";
    assertEquals(List.of("A (8 parameters)"), longParameterLists(code));
  }
}
