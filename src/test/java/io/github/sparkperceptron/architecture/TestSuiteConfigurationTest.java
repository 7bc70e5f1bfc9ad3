package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The test suite's own configuration: JUnit reads a default timeout (a hung Spark job fails its
 * test), every tag `mvn test` leaves out is one `mvn verify` runs (no test is dropped from CI),
 * and every tag a test carries is one of those or runs in the fast loop.
 */
class TestSuiteConfigurationTest {
  private static final AtomicReference<String> TIMEOUT = new AtomicReference<>();

  @RegisterExtension
  static final BeforeEachCallback READ_TIMEOUT = context -> TIMEOUT.set(
      context.getConfigurationParameter("junit.jupiter.execution.timeout.default").orElse(null));

  private static Set<String> pomList(String pom, String property) {
    Matcher m = Pattern.compile("<" + property + ">([^<]*)</" + property + ">").matcher(pom);
    assertTrue(m.find(), "pom.xml has no " + property);
    return new HashSet<>(Arrays.asList(m.group(1).split(",")));
  }

  @Test
  void junitFailsATestThatRunsPastTheDefaultTimeout() {
    assertEquals("5 m", TIMEOUT.get(), "junit-platform.properties is on the test class path");
  }

  @Test
  void everyTagThatTestLeavesOutVerifyRuns() throws IOException {
    String pom = Files.readString(TestData.projectRoot().resolve("pom.xml"));
    Set<String> leftOut = pomList(pom, "test.excludedGroups");
    assertEquals(leftOut, pomList(pom, "it.groups"));

    Set<String> used = new HashSet<>();
    Pattern tag = Pattern.compile("@Tag\\(\"([a-z]+)\"\\)");
    Path tests = TestData.projectRoot().resolve("src/test/java");
    try (Stream<Path> files = Files.walk(tests)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        Matcher m = tag.matcher(Files.readString(f));
        while (m.find()) {
          used.add(m.group(1));
        }
      }
    }
    assertTrue(leftOut.containsAll(used), "tags " + used + ", left out of `mvn test` and run by"
        + " `mvn verify`: " + leftOut);
    assertTrue(used.contains("slow"), "the slow tests are tagged");
  }
}
