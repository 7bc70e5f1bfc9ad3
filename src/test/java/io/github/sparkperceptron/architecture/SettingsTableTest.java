package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One table of settings: every {@code spark.perceptron.*} key the library reads is a constant of
 * {@link Settings} and nowhere else in the main sources, the product's keys (not the
 * {@code test.} seams) are exactly the rows of the README's "Settings" table, and no key's name
 * is a prefix of another's (so a name says one thing).
 */
class SettingsTableTest {
  private static final Path ROOT = TestData.projectRoot();
  private static final Pattern KEY = Pattern.compile("\"(spark\\.perceptron\\.[A-Za-z.]+)\"");
  private static final Pattern ROW = Pattern.compile("^\\| `(spark\\.perceptron\\.[A-Za-z.]+)` \\|");

  @Test
  void everyKeyIsDeclaredOnceInSettings() throws IOException {
    Path settings = ROOT.resolve(
        "src/main/java/io/github/sparkperceptron/internal/plan/Settings.java");
    TreeMap<String, List<Path>> elsewhere = new TreeMap<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve("src/main/java"))) {
      for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
        if (file.equals(settings)) {
          continue;
        }
        Matcher m = KEY.matcher(Files.readString(file));
        while (m.find()) {
          elsewhere.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(ROOT.relativize(file));
        }
      }
    }
    assertEquals(new TreeMap<>(), elsewhere,
        "keys spelled outside internal/plan/Settings: declare them there");

    Set<String> declared = declaredKeys();
    Set<String> inSource = new TreeSet<>();
    Matcher m = KEY.matcher(Files.readString(settings));
    while (m.find()) {
      inSource.add(m.group(1));
    }
    assertEquals(inSource, declared, "every key of Settings.java is a public constant");
    for (String a : declared) {
      for (String b : declared) {
        assertTrue(a.equals(b) || !b.startsWith(a + "."), a + " is a prefix of " + b);
      }
    }
  }

  @Test
  void theReadmeTableListsTheProductKeys() throws IOException {
    List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
    int start = lines.indexOf("## Settings");
    assertTrue(start >= 0, "README.md has no \"## Settings\" section");
    Set<String> rows = new TreeSet<>();
    for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      Matcher m = ROW.matcher(lines.get(i));
      if (m.find()) {
        rows.add(m.group(1));
      }
    }
    Set<String> product = new TreeSet<>();
    for (String key : declaredKeys()) {
      if (!key.startsWith("spark.perceptron.test.")) {
        product.add(key);
      }
    }
    assertEquals(product, rows, "the README's Settings table and internal/plan/Settings");
  }

  private static Set<String> declaredKeys() {
    Set<String> keys = new TreeSet<>();
    for (Field f : Settings.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        try {
          keys.add((String) f.get(null));
        } catch (IllegalAccessException e) {
          throw new AssertionError(f + " is not public", e);
        }
      }
    }
    return keys;
  }
}
