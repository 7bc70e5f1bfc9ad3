package io.github.sparkperceptron.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.Background;
import io.github.sparkperceptron.testing.ChildJvms;
import io.github.sparkperceptron.testing.ScriptRun;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The notebook examples, run as the README says (examples/run-jshell, examples/run-scala) through
 * the real jshell and Scala REPL: each must train, evaluate, save, reload and say OK with exit
 * status 0, and exit non-zero when something fails on the way, although both REPLs carry on
 * after a failing line and exit 0 at the end of their input by themselves.
 */
@Tag("notebook")
// Each test starts JVMs or builds (processes, not Spark jobs of this JVM): minutes under load,
// beyond junit-platform.properties' default of 5.
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class NotebookExamplesTest {
  /** A REPL start, a Spark session and a short training take 20-60 s on a loaded 2-core box. */
  private static final Duration LIMIT = Duration.ofMinutes(4);
  private static final Pattern OK_LINE =
      Pattern.compile("(?m)^(?:scala> )?OK accuracy=(0\\.\\d{4}) \\(saved, loaded back, same"
          + " predictions on 114 rows\\)$");
  /**
   * What the Scala REPL prints for a line that failed, and then carries on: a compile error
   * ("error: not found: value spark", a type mismatch) or an exception the line threw (the REPL
   * prints it with its stack cut to "... N elided").
   */
  private static final Pattern REPL_FAILURE =
      Pattern.compile("(?m)^\\s*error: .*$|^\\s*\\.\\.\\. \\d+ elided$");
  /** The REPLs' JVMs (jshell's two, the Scala REPL's one) compile with C1 alone: ChildJvms. */
  private static final Map<String, String> REPL = ChildJvms.c1Only();
  private static final Map<String, String> MISSING_DATA = Map.of(
      "SPARK_PERCEPTRON_EXAMPLE_DATA", "/nonexistent/breast_cancer",
      "JAVA_TOOL_OPTIONS", REPL.get("JAVA_TOOL_OPTIONS"));

  @Test
  void jshellAndScalaSessionsTrainSaveReloadAndAgree() throws Exception {
    // The two sessions at once: they share nothing but the input files (each saves under a
    // temporary directory of its own).
    Background<ScriptRun> scalaRun = ScriptRun.inBackground(LIMIT, REPL, "examples/run-scala",
        "examples/pipeline.scala");
    ScriptRun jshell = ScriptRun.of(LIMIT, REPL, "examples/run-jshell",
        "examples/pipeline.jsh");
    ScriptRun scala = scalaRun.get();

    String jshellAccuracy = okAccuracy(jshell);
    String scalaAccuracy = okAccuracy(scala);
    // The breast cancer sample gives 0.97 with the defaults of submit/train; a perceptron that
    // learnt nothing would sit near the majority share, 0.63.
    assertTrue(Double.parseDouble(jshellAccuracy) > 0.9, jshell.toString());
    // Same data, params, partitioning (one input file, one partition) and seed: the two
    // languages drive the same Java classes and must get the same model, hence accuracy.
    assertEquals(jshellAccuracy, scalaAccuracy, "jshell:\n" + jshell + "\nscala:\n" + scala);
    assertTrue(jshell.output.contains("epochs 10, mistakes per epoch ["), jshell.toString());
    assertTrue(scala.output.contains("epochs 10, mistakes per epoch ["), scala.toString());
  }

  @Test
  void aFailureOnTheWayGivesANonZeroExitStatus() throws Exception {
    Background<ScriptRun> scalaRun = ScriptRun.inBackground(LIMIT, MISSING_DATA,
        "examples/run-scala", "examples/pipeline.scala");
    ScriptRun jshell = ScriptRun.of(LIMIT, MISSING_DATA, "examples/run-jshell",
        "examples/pipeline.jsh");
    ScriptRun scala = scalaRun.get();
    for (ScriptRun run : new ScriptRun[] {jshell, scala}) {
      assertNotEquals(0, run.exitCode, run.toString());
      assertTrue(run.output.contains("Path does not exist: file:/nonexistent/breast_cancer/"),
          run.toString());
      assertFalse(OK_LINE.matcher(run.output).find(), run.toString());
    }
  }

  /**
   * The README's "Use it from Java", which examples/use-from-java.jsh holds line for line
   * (ReadmeFiguresTest), runs in examples/run-jshell to its last line: the 20 epochs' mistakes.
   */
  @Test
  void theReadmesJavaExampleRunsInJshell() {
    ScriptRun run = ScriptRun.of(LIMIT, REPL, "examples/run-jshell",
        "examples/use-from-java.jsh");
    assertEquals(0, run.exitCode, run.toString());
    Matcher mistakes = Pattern.compile("(?m)^\\[(\\d+(, \\d+)*)\\]$").matcher(run.output);
    assertTrue(mistakes.find(), run.toString());
    assertEquals(20, mistakes.group(1).split(", ").length, run.toString());
  }

  /**
   * The README's "Use it from Scala", read from the README as a user copies it, fed line by line
   * to examples/run-scala as if pasted (only its out/ paths moved to a temporary directory): the
   * REPL must reject no line and no line may throw, and the block must get to its last line,
   * which prints the parameters the cross-validation chose. The REPL reports a failing line and
   * carries on, and exits 0 at the end of its input whatever happened, so the test reads its
   * output for failures, and the two lines it appends turn "the block's last value exists" into
   * exit status 0, anything else into 3.
   */
  @Test
  void theReadmesScalaExampleRunsInTheScalaRepl(@TempDir Path tmp) throws IOException {
    String readme = Files.readString(TestData.projectRoot().resolve("README.md"));
    Matcher block = Pattern.compile("(?s)## Use it from Scala.*?```scala\n(.*?)```")
        .matcher(readme);
    assertTrue(block.find(), "the README has no Scala block under \"Use it from Scala\"");
    Path script = tmp.resolve("use-from-scala.scala");
    Files.writeString(script, block.group(1).replace("\"out/", "\"" + tmp + "/")
        + "{ println(s\"END OF THE README BLOCK: ${chosen.numFeatures} features\"); sys.exit(0) }\n"
        + "sys.exit(3)\n");

    // A cross-validation of 3 folds over 6 parameter maps: 18 fits, where the other examples
    // make one; minutes on a loaded 2-core machine.
    ScriptRun run = ScriptRun.of(Duration.ofMinutes(10), REPL, "examples/run-scala",
        script.toString());
    Matcher failure = REPL_FAILURE.matcher(run.output);
    boolean failed = failure.find();
    assertFalse(failed, () -> "a line of the README's Scala block failed in the REPL ("
        + failure.group().strip() + "):\n" + run);
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.output.contains("END OF THE README BLOCK: 4 features"), run.toString());
    assertTrue(Pattern.compile("(?m)^(?:scala> )?maxIter (5|10|20), updateRule (perceptron|pa1)$")
        .matcher(run.output).find(), "the block's last line (the chosen parameters):\n" + run);
  }

  private static String okAccuracy(ScriptRun run) {
    assertEquals(0, run.exitCode, run.toString());
    Matcher m = OK_LINE.matcher(run.output);
    assertTrue(m.find(), "no OK line:\n" + run);
    return m.group(1);
  }
}
