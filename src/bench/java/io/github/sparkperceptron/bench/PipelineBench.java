package io.github.sparkperceptron.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.sparkperceptron.jobs.TrainJob;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * Issue 20's table, section {@code pipeline}: reading, streaming and evaluating against the loop
 * a user would write ({@link PlainTextLoop}), on LIBSVM files written by {@code submit/generate}
 * (rows × d × non-zeros in F files, margin 0.05, label noise 0.05, seed 7; generated once under
 * {@code OUT/pipeline-data/} and reused while its {@code spec.json} matches).
 *
 * <p>The jobs run as a user runs them: the {@code submit/} scripts in a child process each (a
 * fresh JVM, spark-submit on the embedded Spark, {@code conf/}'s defaults), with {@code --master}
 * the runner's. Their own {@code --metrics} JSON gives the seconds: {@code seconds.read},
 * {@code seconds.train} and {@code seconds.evaluate} of {@code submit/train --max-iter 1} (no
 * {@code --test}: the evaluation is of the training data), the batches' {@code seconds} and the
 * query's {@code run.seconds} of {@code submit/stream-train --trigger available-now
 * --max-files-per-trigger 1}; the wall clock around the child process is the command's whole
 * time. A batch's fixed cost, Spark's offset and commit logs included: two streams of 1-row files,
 * one of 1 file and one of 1 + N, (run.seconds difference) / N; beside it the median of the
 * batches' own seconds (the learner's work in a batch, without Spark's logs). Beside the child
 * processes, the train job's own class runs in this JVM and Spark session after one untimed run
 * (issue 32, target 3): what reading and training cost warm, as the plain loop is timed warm; the
 * difference to the child's seconds is a fresh JVM's class loading and JIT compilation.
 *
 * <p>Every timing is the median of the repetitions, run in turn (plain loop, stream, train, the
 * two 1-row streams), so that a drift of the machine's speed touches them alike. The plain loop
 * runs in this JVM, after the data were read once (the page cache holds them for every row).
 */
final class PipelineBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The targets. */
  private static final double STREAM_MIN_SPEEDUP = 2.0;
  private static final double TRAIN_MAX_TIME_RATIO = 0.5;
  private static final double BATCH_MAX_SECONDS = 0.5;

  private final Report report;
  private final String master;
  private final Path out;
  private final int repeats;
  private final Path root = Path.of("").toAbsolutePath();

  PipelineBench(Report report, String master, Path out, int repeats) {
    this.report = report;
    this.master = master;
    this.out = out.toAbsolutePath();
    this.repeats = repeats;
  }

  void run(long rows, int files, int features, int nnz, int tinyBatches) throws Exception {
    Path data = generate(rows, files, features, nnz);
    Path train = data.resolve("train");
    List<Path> parts = parts(train);
    long bytes = 0;
    for (Path p : parts) {
      bytes += Files.size(p);
    }
    Path tiny = tinyInputs(parts.get(0), tinyBatches);
    DataShape shape = new DataShape(Report.f("pipeline-%d", rows), rows, features, nnz * rows, 2,
        7L, false);
    // Built (if the sources changed) and warmed once, untimed: the first call may run Maven.
    job("warm-up", "submit/train", "--version");

    Path runs = out.resolve("pipeline-runs");
    List<Double> plain = new ArrayList<>();
    PlainTextLoop.Result plainResult = null;
    List<Double> streamWall = new ArrayList<>();
    List<Double> streamQuery = new ArrayList<>();
    List<Double> streamBatches = new ArrayList<>();
    List<Double> streamMedianBatch = new ArrayList<>();
    long streamRows = 0;
    double streamAccuracy = Double.NaN;
    int streamBatchCount = 0;
    List<Double> oneBatch = new ArrayList<>();
    List<Double> trainWall = new ArrayList<>();
    Map<String, List<Double>> trainStages = new LinkedHashMap<>();
    List<Double> warmReadTrain = new ArrayList<>();
    List<Double> warmRead = new ArrayList<>();
    List<Double> tinyMarginal = new ArrayList<>();
    List<Double> tinyMedianBatch = new ArrayList<>();
    PlainTextLoop.run(parts.subList(0, 1), features); // reads a file: JIT and page cache warm
    for (int r = 0; r < repeats; r++) {
      plainResult = PlainTextLoop.run(parts, features);
      plain.add(plainResult.seconds());
      System.err.printf(Locale.ROOT, "pipeline plain loop: %.2f s, %,d rows, prequential %.4f%n",
          plainResult.seconds(), plainResult.rows(), plainResult.prequentialAccuracy());

      Path s = fresh(runs.resolve("stream"));
      double wall = job("stream", "submit/stream-train", "--master", master, "--input",
          train.toString(), "--format", "libsvm", "--num-features", Integer.toString(features),
          "--num-classes", "2", "--model", s.resolve("model").toString(), "--checkpoint-dir",
          s.resolve("checkpoint").toString(), "--trigger", "available-now",
          "--max-files-per-trigger", "1", "--metrics", s.resolve("stream.json").toString());
      JsonNode m = JSON.readTree(s.resolve("stream.json").toFile());
      streamWall.add(wall);
      streamQuery.add(m.path("run").path("seconds").asDouble());
      streamBatches.add(m.path("run").path("batchSeconds").asDouble());
      streamMedianBatch.add(medianBatch(m));
      streamRows = m.path("run").path("rows").asLong();
      streamAccuracy = m.path("run").path("prequentialAccuracy").asDouble();
      streamBatchCount = m.path("run").path("batches").asInt();

      // The same stream with every file in one batch: what a batch's own work costs per row
      // once no per-batch cost is shared by only 50,000 rows.
      Path b = fresh(runs.resolve("stream-one-batch"));
      job("stream-one-batch", "submit/stream-train", "--master", master, "--input",
          train.toString(), "--format", "libsvm", "--num-features", Integer.toString(features),
          "--num-classes", "2", "--model", b.resolve("model").toString(), "--checkpoint-dir",
          b.resolve("checkpoint").toString(), "--trigger", "available-now",
          "--max-files-per-trigger", Integer.toString(parts.size()), "--metrics",
          b.resolve("stream.json").toString());
      oneBatch.add(JSON.readTree(b.resolve("stream.json").toFile()).path("run")
          .path("batchSeconds").asDouble());

      Path t = fresh(runs.resolve("train"));
      trainWall.add(job("train", "submit/train", "--master", master, "--train", train.toString(),
          "--model", t.resolve("model").toString(), "--metrics", t.resolve("train.json").toString(),
          "--max-iter", "1"));
      JsonNode seconds = JSON.readTree(t.resolve("train.json").toFile()).path("seconds");
      for (Iterator<Map.Entry<String, JsonNode>> it = seconds.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        trainStages.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue().asDouble());
      }

      // The same job's code in this JVM, after one untimed run: reading and training once the
      // JIT has compiled them and the classes are loaded, as the plain loop is timed warm.
      Path w = fresh(runs.resolve("train-warm"));
      if (r == 0) {
        trainInThisJvm(train, w.resolve("warm-up.json"));
      }
      JsonNode warm = trainInThisJvm(train, w.resolve("train.json"));
      warmReadTrain.add(warm.path("read").asDouble() + warm.path("train").asDouble());
      warmRead.add(warm.path("read").asDouble());

      JsonNode one = tinyStream(runs.resolve("tiny-1"), tiny.resolve("1"), features);
      JsonNode many = tinyStream(runs.resolve("tiny-n"), tiny.resolve("n"), features);
      tinyMarginal.add((many.path("run").path("seconds").asDouble()
          - one.path("run").path("seconds").asDouble()) / tinyBatches);
      tinyMedianBatch.add(medianBatch(many));
    }

    double p = PlainLoop.median(array(plain));
    double plainRate = rows / p;
    double batches = PlainLoop.median(array(streamBatches));
    double sWall = PlainLoop.median(array(streamWall));
    double read = PlainLoop.median(array(trainStages.getOrDefault("read", List.of())));
    double training = PlainLoop.median(array(trainStages.getOrDefault("train", List.of())));
    double evaluation = PlainLoop.median(array(trainStages.getOrDefault("evaluate", List.of())));
    double tWall = PlainLoop.median(array(trainWall));
    double marginal = PlainLoop.median(array(tinyMarginal));

    report.markdown(Report.f("## Reading, streaming and evaluating against a plain loop (issue"
        + " 20)\n\n%,d rows × %,d features × %d non-zeros in %d LIBSVM files (%,d bytes), written"
        + " by `submit/generate --rows %d --features %d --nnz %d --margin 0.05 --label-noise 0.05"
        + " --seed 7 --format libsvm --partitions %d` (`%s`). The jobs run as their `submit/`"
        + " scripts in a child process each with `--master %s` (what a user sees: a fresh JVM,"
        + " spark-submit on the embedded Spark, `conf/`'s defaults%s); their seconds come from"
        + " their own `--metrics` JSON, \"wall\" is the child process's. The plain loop"
        + " (`PlainTextLoop`: read each file, `String.split`, `Integer.parseInt` and"
        + " `Double.parseDouble`, score with the averaged model, update; no Spark) runs in the"
        + " benchmark's JVM. Medians of %d repetition(s) run in turn. %s\n\n", rows, features,
        nnz, parts.size(), bytes, rows, features, nnz, files, data, master,
        System.getenv("SP_CDS") == null ? "" : ", SP_CDS=" + System.getenv("SP_CDS"), repeats,
        SystemLoad.text()));
    Report.Table table = new Report.Table("what", "time s", "rows/s", "rows/s ÷ plain",
        "time ÷ plain", "target", "met");
    table.row("plain single-threaded Java loop", Report.f("%.2f", p), Report.f("%,.0f", plainRate),
        "1.00", "1.00", "", "");
    double streamRate = streamRows / batches;
    table.row(Report.f("`submit/stream-train --max-files-per-trigger 1 --trigger available-now`:"
        + " its %d batches' seconds", streamBatchCount), Report.f("%.2f", batches),
        Report.f("%,.0f", streamRate), Report.f("%.2f×", streamRate / plainRate),
        Report.f("%.2f×", batches / p), Report.f("rows/s ≥ %.1f× plain", STREAM_MIN_SPEEDUP),
        met(streamRate / plainRate >= STREAM_MIN_SPEEDUP));
    table.row("the same command, wall (JVM, Spark start-up, query)", Report.f("%.2f", sWall),
        Report.f("%,.0f", streamRows / sWall), Report.f("%.2f×", streamRows / sWall / plainRate),
        Report.f("%.2f×", sWall / p), "", "");
    table.row(Report.f("a %,d-row batch, median", streamBatchCount == 0 ? 0
        : streamRows / streamBatchCount), Report.f("%.2f", PlainLoop.median(
        array(streamMedianBatch))), "", "", "", "", "");
    double whole = PlainLoop.median(array(oneBatch));
    table.row(Report.f("the same stream, `--max-files-per-trigger %d`: its one batch's seconds",
        parts.size()), Report.f("%.2f", whole), Report.f("%,.0f", rows / whole),
        Report.f("%.2f×", rows / whole / plainRate), Report.f("%.2f×", whole / p), "", "");
    double readTrain = read + training;
    table.row("`submit/train --max-iter 1`: reading + training", Report.f("%.2f (%.2f + %.2f)",
        readTrain, read, training), Report.f("%,.0f", rows / readTrain),
        Report.f("%.2f×", rows / readTrain / plainRate), Report.f("%.2f×", readTrain / p),
        Report.f("time ≤ %.1f× plain", TRAIN_MAX_TIME_RATIO),
        met(readTrain / p <= TRAIN_MAX_TIME_RATIO));
    table.row("the same command, wall", Report.f("%.2f", tWall), "", "",
        Report.f("%.2f×", tWall / p), "", "");
    double warmTotal = PlainLoop.median(array(warmReadTrain));
    double warmReading = PlainLoop.median(array(warmRead));
    table.row("the same job (`TrainJob`) in the benchmark's JVM and Spark session, after one"
        + " untimed run: reading + training", Report.f("%.2f (%.2f + %.2f)", warmTotal,
        warmReading, warmTotal - warmReading), Report.f("%,.0f", rows / warmTotal),
        Report.f("%.2f×", rows / warmTotal / plainRate), Report.f("%.2f×", warmTotal / p), "",
        "");
    table.row("its evaluation of the training data", Report.f("%.2f", evaluation),
        Report.f("%,.0f", rows / evaluation), "", Report.f("%.2f×", evaluation / p),
        Report.f("≤ its training (%.2f s)", training), met(evaluation <= training));
    table.row(Report.f("a batch's fixed cost: 1-row files, (query seconds of 1 + %d files − of"
        + " 1 file) / %d, Spark's offset and commit logs included", tinyBatches, tinyBatches),
        Report.f("%.3f", marginal), "", "", "", Report.f("≤ %.1f s", BATCH_MAX_SECONDS),
        met(marginal <= BATCH_MAX_SECONDS));
    table.row("a 1-row batch's own seconds (the job's, without Spark's logs), median",
        Report.f("%.3f", PlainLoop.median(array(tinyMedianBatch))), "", "", "", "", "");
    report.markdown(table.toString());

    Report.Table where = new Report.Table("`submit/train --max-iter 1` stage", "seconds (median)");
    for (Map.Entry<String, List<Double>> e : trainStages.entrySet()) {
      where.row(e.getKey(), Report.f("%.2f", PlainLoop.median(array(e.getValue()))));
    }
    where.row("wall (the child process)", Report.f("%.2f", tWall));
    report.markdown("Where the train job's seconds go (its metrics' `seconds`; jvm: from the JVM's"
        + " start to the job's main):\n\n").markdown(where.toString());
    double query = PlainLoop.median(array(streamQuery));
    Report.Table streamWhere = new Report.Table("`submit/stream-train` part", "seconds (median)");
    streamWhere.row("wall (the child process)", Report.f("%.2f", sWall));
    streamWhere.row("JVM, Spark start-up, checks, the last publish (wall − query)",
        Report.f("%.2f", sWall - query));
    streamWhere.row("the query (`run.seconds`)", Report.f("%.2f", query));
    streamWhere.row("in its batches (`run.batchSeconds`)", Report.f("%.2f", batches));
    streamWhere.row("between batches: Spark's listing, offset and commit logs (query − batches)",
        Report.f("%.2f", query - batches));
    report.markdown("Where the stream's seconds go:\n\n").markdown(streamWhere.toString());
    report.markdown(Report.f("Prequential accuracy (each row scored before it is learnt): plain"
        + " loop %.4f over %,d rows (%,d updates), the stream %.4f over %,d rows.\n\n",
        plainResult.prequentialAccuracy(), plainResult.rows(), plainResult.updates(),
        streamAccuracy, streamRows));

    String method = "issue 20";
    report.add("pipeline", shape, files, "plain loop", "seconds", p, "s");
    report.add("pipeline", shape, files, "stream-train", "batch_seconds", batches, "s");
    report.add("pipeline", shape, files, "stream-train", "wall_seconds", sWall, "s");
    report.add("pipeline", shape, files, "stream-train one batch", "batch_seconds", whole, "s");
    report.add("pipeline", shape, files, "stream-train", "rows_per_second_over_plain",
        streamRate / plainRate, "ratio");
    report.add("pipeline", shape, files, "train --max-iter 1", "read_seconds", read, "s");
    report.add("pipeline", shape, files, "train --max-iter 1", "train_seconds", training, "s");
    report.add("pipeline", shape, files, "train --max-iter 1", "evaluate_seconds", evaluation,
        "s");
    report.add("pipeline", shape, files, "train --max-iter 1", "wall_seconds", tWall, "s");
    report.add("pipeline", shape, files, "train --max-iter 1 warm JVM", "read_train_over_plain",
        warmTotal / p, "ratio");
    report.add("pipeline", shape, files, "train --max-iter 1", "read_train_over_plain",
        readTrain / p, "ratio");
    report.add("pipeline", shape, files, "stream-train 1-row files", "seconds_per_batch",
        marginal, "s");
    report.add("pipeline", shape, files, method, "plain_prequential_accuracy",
        plainResult.prequentialAccuracy(), "");
    report.add("pipeline", shape, files, method, "stream_prequential_accuracy", streamAccuracy,
        "");
    report.flush();
  }

  private static String met(boolean met) {
    return met ? "yes" : "**no**";
  }

  static double[] array(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The median of a stream metrics file's batches' seconds. */
  private static double medianBatch(JsonNode metrics) {
    List<Double> seconds = new ArrayList<>();
    for (JsonNode b : metrics.path("batches")) {
      seconds.add(b.path("seconds").asDouble());
    }
    return PlainLoop.median(array(seconds));
  }

  /** A stream of the 1-row files in {@code input}, one per batch; its metrics. */
  private JsonNode tinyStream(Path run, Path input, int features)
      throws IOException, InterruptedException {
    Path s = fresh(run);
    job(run.getFileName().toString(), "submit/stream-train", "--master", master, "--input",
        input.toString(), "--format", "libsvm", "--num-features", Integer.toString(features),
        "--num-classes", "2", "--model", s.resolve("model").toString(), "--checkpoint-dir",
        s.resolve("checkpoint").toString(), "--trigger", "available-now",
        "--max-files-per-trigger", "1", "--metrics", s.resolve("stream.json").toString());
    return JSON.readTree(s.resolve("stream.json").toFile());
  }

  /**
   * {@code submit/train --max-iter 1}'s job run in this JVM (its session is the benchmark's):
   * the {@code seconds} of its metrics.
   */
  private static JsonNode trainInThisJvm(Path train, Path metrics) throws IOException {
    int code = new CommandLine(new TrainJob()).execute("--train", train.toString(), "--model",
        metrics.resolveSibling("model").toString(), "--overwrite", "--metrics",
        metrics.toString(), "--max-iter", "1");
    if (code != 0) {
      throw new IllegalStateException("the train job in this JVM exited with " + code);
    }
    return JSON.readTree(metrics.toFile()).path("seconds");
  }

  /**
   * OUT/pipeline-data/.../: the generated set, reused when its spec.json says the same rows,
   * width, non-zeros and seed and it holds the files asked for.
   */
  Path generate(long rows, int files, int features, int nnz)
      throws IOException, InterruptedException {
    Path dir = out.resolve("pipeline-data").resolve(Report.f("rows%d-d%d-nnz%d-files%d", rows,
        features, nnz, files));
    Path spec = dir.resolve("spec.json");
    if (Files.exists(spec)) {
      JsonNode s = JSON.readTree(spec.toFile());
      if (s.path("rows").asLong() == rows && s.path("numFeatures").asInt() == features
          && s.path("nonZerosPerRow").asInt() == nnz && s.path("seed").asLong() == 7
          && parts(dir.resolve("train")).size() == files) {
        System.err.println("pipeline: reusing " + dir);
        return dir;
      }
    }
    job("generate", "submit/generate", "--master", master, "--output", dir.toString(), "--rows",
        Long.toString(rows), "--features", Integer.toString(features), "--nnz",
        Integer.toString(nnz), "--margin", "0.05", "--label-noise", "0.05", "--seed", "7",
        "--format", "libsvm", "--partitions", Integer.toString(files), "--overwrite");
    return dir;
  }

  /** The data files of a directory Spark wrote, by name (Spark's own order of the parts). */
  static List<Path> parts(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> {
        String name = p.getFileName().toString();
        return !name.startsWith("_") && !name.startsWith(".") && Files.isRegularFile(p);
      }).sorted().toList();
    }
  }

  /**
   * Two inputs of 1-row files, OUT/pipeline-tiny/1 (the first row) and .../n (the first 1 + n
   * rows, a file each), from the first data file.
   */
  private Path tinyInputs(Path firstPart, int n) throws IOException {
    Path dir = fresh(out.resolve("pipeline-tiny"));
    Files.createDirectories(dir.resolve("1"));
    Files.createDirectories(dir.resolve("n"));
    try (BufferedReader r = Files.newBufferedReader(firstPart, StandardCharsets.UTF_8)) {
      for (int i = 0; i <= n; i++) {
        String line = r.readLine();
        if (line == null) {
          throw new IllegalStateException(firstPart + " has fewer than " + (n + 1) + " rows");
        }
        String name = Report.f("row-%03d.libsvm", i);
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        if (i == 0) {
          Files.write(dir.resolve("1").resolve(name), bytes);
        }
        Files.write(dir.resolve("n").resolve(name), bytes);
      }
    }
    return dir;
  }

  /** An empty directory at {@code dir} (what a previous run left there removed). */
  static Path fresh(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(dir);
    return dir;
  }

  /**
   * Runs a submit/ script from the project root, its output in OUT/pipeline-logs/NAME.log;
   * returns the wall seconds. A failure ends the section with the log's last lines.
   */
  double job(String name, String... command) throws IOException, InterruptedException {
    Path logs = out.resolve("pipeline-logs");
    Files.createDirectories(logs);
    Path log = logs.resolve(name + ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("SPARK_HOME");
    long start = System.nanoTime();
    int rc = pb.start().waitFor();
    double seconds = (System.nanoTime() - start) / 1e9;
    System.err.printf(Locale.ROOT, "pipeline %s: %.1f s (exit %d)%n", name, seconds, rc);
    if (rc != 0) {
      List<String> lines;
      try {
        lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      throw new IllegalStateException(String.join(" ", command) + " exited " + rc + "; its last"
          + " lines (all in " + log + "):\n" + String.join("\n",
          lines.subList(Math.max(0, lines.size() - 15), lines.size())));
    }
    return seconds;
  }
}
