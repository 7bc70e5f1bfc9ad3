package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.Background;
import io.github.sparkperceptron.testing.ChildJvms;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills the driver of a real {@code submit/train} run (SIGKILL, nothing flushed) once it has
 * written a checkpoint, restarts it with the same arguments and {@code --resume}, and checks the
 * result equals an uninterrupted training.
 */
@Tag("script")
// Each test starts JVMs or builds (processes, not Spark jobs of this JVM): minutes under load,
// beyond junit-platform.properties' default of 5.
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class DriverKillResumeTest {
  @TempDir
  Path tmp;

  /** Enough rows that 30 epochs take several seconds, so the kill lands mid-training. */
  private Path dataFile() throws IOException {
    Path file = tmp.resolve("train.libsvm");
    Random rnd = new Random(8);
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      for (int i = 0; i < 60_000; i++) {
        StringBuilder line = new StringBuilder();
        double s = 0;
        StringBuilder features = new StringBuilder();
        for (int j = 1; j <= 30; j++) {
          double v = Math.round(rnd.nextGaussian() * 1000) / 1000.0;
          s += (j % 3 - 1) * v;
          features.append(' ').append(j).append(':').append(v);
        }
        line.append(s + rnd.nextGaussian() > 0 ? 1 : 0).append(features);
        out.write(line.toString());
        out.newLine();
      }
    }
    return file;
  }

  private List<String> trainArgs(Path data, Path model, Path checkpoints) {
    return new ArrayList<>(List.of("--train", data.toString(), "--model", model.toString(),
        "--partitions", "2", "--max-iter", "30", "--tol", "0", "--seed", "5",
        "--checkpoint-dir", checkpoints.toString(), "--checkpoint-interval", "1"));
  }

  private Process start(List<String> jobArgs, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(TestData.projectRoot().resolve("submit/train").toString());
    command.addAll(jobArgs);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().remove("SPARK_HOME");
    pb.environment().putAll(ChildJvms.c1Only());
    return pb.start();
  }

  private static boolean hasCheckpoint(Path dir, int minEpoch) throws IOException {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("epoch-") && n.endsWith(".ckpt"))
          .anyMatch(n -> Integer.parseInt(n.substring(6, 12)) >= minEpoch);
    }
  }

  @Test
  void aKilledDriverResumesFromItsCheckpointToTheSameModel() throws Exception {
    Path data = dataFile();
    Path checkpoints = tmp.resolve("ckpt");
    Path model = tmp.resolve("model");
    Path firstLog = tmp.resolve("first.log");

    Process first = start(trainArgs(data, model, checkpoints), firstLog);
    // The same training without interruption, in this JVM (same data, partitioning and seed),
    // while the driver processes below start, train, die and resume.
    Path reference = tmp.resolve("reference");
    List<String> plain = trainArgs(data, reference, tmp.resolve("unused"));
    plain.subList(plain.indexOf("--checkpoint-dir"), plain.size()).clear();
    Background<JobRun> referenceRun = Background.start("reference training", () -> {
      SparkTestSupport.spark();
      return JobRun.of(new TrainJob(), plain.toArray(new String[0]));
    });
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
    while (!hasCheckpoint(checkpoints, 3) && first.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(first.isAlive(), "the first run ended before it could be killed:\n"
        + Files.readString(firstLog));
    first.destroyForcibly().waitFor();
    assertTrue(hasCheckpoint(checkpoints, 3), Files.readString(firstLog));
    assertTrue(!Files.exists(model), "a killed run must not leave a model behind");

    // Without --resume the job refuses the checkpoint it finds. That is the job's own check,
    // made before Spark starts: run in this JVM, it spares a driver JVM's start-up (the script's
    // exit status 2 is SubmitScriptTest's matter).
    List<String> again = trainArgs(data, model, checkpoints);
    JobRun refused = JobRun.of(new TrainJob(), again.toArray(new String[0]));
    assertEquals(2, refused.exitCode, refused.toString());
    assertTrue(refused.toString().contains("pass --resume"), refused.toString());

    again.add("--resume");
    Path resumeLog = tmp.resolve("resume.log");
    Process resumed = start(again, resumeLog);
    assertTrue(resumed.waitFor(4, TimeUnit.MINUTES), "resumed run hung");
    assertEquals(0, resumed.exitValue(), Files.readString(resumeLog));
    assertTrue(Files.readString(resumeLog).toLowerCase(Locale.ROOT).contains("resuming from"),
        Files.readString(resumeLog));

    JobRun run = referenceRun.get();
    assertEquals(0, run.exitCode, run.toString());

    PerceptronClassificationModel a = PerceptronClassificationModel.load(model.toString());
    PerceptronClassificationModel b = PerceptronClassificationModel.load(reference.toString());
    assertArrayEquals(b.coefficients().toArray(), a.coefficients().toArray(), 0.0);
    assertEquals(b.intercept(), a.intercept(), 0.0);
    try (Stream<Path> left = Files.list(checkpoints)) {
      assertTrue(left.noneMatch(p -> p.toString().endsWith(".ckpt")),
          "checkpoints are removed once training completes");
    }
    assertTrue(new File(model.toFile(), "metadata").isDirectory());
  }
}
