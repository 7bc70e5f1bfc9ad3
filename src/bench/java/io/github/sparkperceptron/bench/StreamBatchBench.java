package io.github.sparkperceptron.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Issue 32, target 3's stream half, section {@code stream-batches}: what a long stream learns per
 * second once its JVM is warm, by batch size, against the plain loop ({@link PlainTextLoop}) over
 * the same files, and where a warm 50,000-row batch's time goes.
 *
 * <p>The {@code pipeline} section times a 10-batch stream in a fresh JVM, so most of its batches
 * run while the JIT is still compiling, where the plain loop is timed after a warm-up. Here one
 * generated set of F files of 50,000 rows (the batch; {@code submit/generate}, the
 * pipeline section's generator and seed, reused under {@code OUT/pipeline-data/}) is learnt by
 * {@code submit/stream-train --trigger available-now --max-files-per-trigger k} for each k, a
 * child process each. A run's <i>steady</i> batches are its second half (by batch id), its
 * <i>first</i> batch the one that pays the JIT; the steady rate is the median batch's rows over
 * its seconds (the batch's own seconds from the job's {@code --metrics}). The plain loop reads
 * every file once in this JVM, after one untimed pass over all of them, so that both sides are
 * timed warm: after a warm-up of one file, a JVM's first full pass ran 7-13% below the mean
 * rate of its next two (73,234-78,553 rows/s against 82,047-87,999, three JVMs, BENCHMARKS.md
 * issue 32's nineteenth stop), and the stream's steady batches are its warm ones.
 *
 * <p>The split of a batch: each child writes Spark's event log (uncompressed, under the run's
 * directory). Spark's own streaming work per batch is the query progress's {@code
 * triggerExecution} less {@code addBatch} (the offset and commit logs, the file listing, the
 * batch's planning: nothing our code runs); {@code addBatch} is our {@code foreachBatch}
 * function, of which the Spark jobs it ran (by their description: the micro-batch's conversion
 * and scoring, the mixing rounds, the publication, the query's own) took the sum of their
 * submission-to-completion times, and the rest is the driver's own code and Spark's job
 * submission around them.
 */
final class StreamBatchBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The batch: one 50,000-row file. */
  static final int ROWS_PER_FILE = 50_000;
  /** The target: rows per second ≥ 2× the plain loop's. */
  private static final double MIN_SPEEDUP = 2.0;
  /**
   * Each timing starts once the 1-minute load is below this, or after {@link #SETTLE_SECONDS}:
   * the plain loop is one thread, and a busy machine (the bench's own build) slows it the most.
   */
  private static final double SETTLED_LOAD = 1.0;
  private static final int SETTLE_SECONDS = 150;

  private final PipelineBench pipeline;
  private final Report report;
  private final String master;
  private final Path out;
  private final int repeats;

  StreamBatchBench(Report report, String master, Path out, int repeats) {
    this.pipeline = new PipelineBench(report, master, out, repeats);
    this.report = report;
    this.master = master;
    this.out = out.toAbsolutePath();
    this.repeats = repeats;
  }

  /** One stream run's figures. */
  private record Run(int batches, double firstSeconds, double steadySeconds, long batchRows,
      double allBatchSeconds, long rows, Map<String, Double> split) {
  }

  void run(int files, List<Integer> filesPerBatch, List<Integer> publishIntervals, int features,
      int nnz) throws Exception {
    Path data = pipeline.generate((long) files * ROWS_PER_FILE, files, features, nnz);
    List<Path> parts = PipelineBench.parts(data.resolve("train"));
    pipeline.job("warm-up", "submit/train", "--version");
    PlainTextLoop.run(parts, features);
    List<Double> plain = new ArrayList<>();
    long plainRows = 0;
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    List<String> loads = new ArrayList<>();
    for (int r = 0; r < repeats; r++) {
      loads.add(Report.f("plain %.2f", SystemLoad.settle(SETTLED_LOAD, SETTLE_SECONDS)));
      PlainTextLoop.Result p = PlainTextLoop.run(parts, features);
      plain.add(p.seconds());
      plainRows = p.rows();
      System.err.printf(Locale.ROOT, "stream-batches plain loop: %.2f s, %,d rows%n",
          p.seconds(), p.rows());
      for (int interval : publishIntervals) {
        for (int k : filesPerBatch) {
          loads.add(Report.f("k = %d %.2f", k, SystemLoad.settle(SETTLED_LOAD, SETTLE_SECONDS)));
          runs.computeIfAbsent(Report.f("%d, publish-interval %d s", k, interval),
              x -> new ArrayList<>()).add(stream(data.resolve("train"), k, interval, features));
        }
      }
    }
    double plainSeconds = PlainLoop.median(PipelineBench.array(plain));
    double plainRate = plainRows / plainSeconds;

    report.markdown(Report.f("## A long stream's batches once the JVM is warm (issue 32, target"
        + " 3)\n\n%d LIBSVM files of %,d rows × %,d features × %d non-zeros (`%s`, the pipeline"
        + " section's generator), learnt by `submit/stream-train --master %s --trigger"
        + " available-now --max-files-per-trigger k --publish-interval s` (2 s: the job's"
        + " default) in a child process per run. Steady: the"
        + " second half of a run's batches (median batch); first: batch 0, in a fresh JVM. Plain"
        + " loop: `PlainTextLoop` over every file once, in the benchmark's JVM, after one untimed"
        + " pass: %.2f s, %,.0f rows/s (median of %d). Each timing waited (at most %d s) for"
        + " the 1-minute load average to fall below %.1f; the loads when they started, in order:"
        + " %s. %s\n\n", parts.size(), ROWS_PER_FILE, features, nnz, data, master,
        plainSeconds, plainRate, repeats, SETTLE_SECONDS, SETTLED_LOAD, String.join(", ", loads),
        SystemLoad.text()));
    DataShape shape = new DataShape(Report.f("pipeline-%d", plainRows), plainRows, features,
        (long) nnz * plainRows, 2, 7L, false);
    Report.Table t = new Report.Table("files per batch, publication", "rows per batch", "batches",
        "first batch s", "steady batch s", "steady rows/s", "steady ÷ plain",
        "all batches rows/s ÷ plain", "target", "met");
    for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
      List<Run> rs = e.getValue();
      Run any = rs.get(0);
      double steady = PlainLoop.median(rs.stream().mapToDouble(Run::steadySeconds).toArray());
      double all = PlainLoop.median(rs.stream().mapToDouble(Run::allBatchSeconds).toArray());
      double steadyRate = any.batchRows() / steady;
      t.row(e.getKey(), Report.f("%,d", any.batchRows()), any.batches(),
          Report.f("%.2f", PlainLoop.median(rs.stream().mapToDouble(Run::firstSeconds)
              .toArray())), Report.f("%.3f", steady), Report.f("%,.0f", steadyRate),
          Report.f("%.2f×", steadyRate / plainRate),
          Report.f("%.2f×", any.rows() / all / plainRate),
          Report.f("≥ %.1f×", MIN_SPEEDUP), steadyRate / plainRate >= MIN_SPEEDUP ? "yes"
              : "**no**");
      report.add("stream-batches", shape, parts.size(), "stream-train steady " + e.getKey(),
          "rows_per_second_over_plain", steadyRate / plainRate, "ratio");
    }
    report.markdown(t.toString());

    Report.Table split = new Report.Table("files per batch, publication", "part of a steady batch",
        "ms (median over the steady batches, then the runs)");
    for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
      for (String part : e.getValue().get(0).split().keySet()) {
        split.row(e.getKey(), part, Report.f("%.1f", PlainLoop.median(e.getValue().stream()
            .mapToDouble(run -> run.split().getOrDefault(part, 0.0)).toArray())));
      }
    }
    report.markdown("Where a steady batch's time goes (Spark's event log of each run: the query"
        + " progress's durations and the jobs' submission-to-completion times):\n\n")
        .markdown(split.toString());
    report.flush();
  }

  /**
   * One stream over {@code input}, {@code k} files per batch, at most one publication per
   * {@code publishInterval} seconds, with Spark's event log.
   */
  private Run stream(Path input, int k, int publishInterval, int features) throws Exception {
    String name = "k" + k + "-p" + publishInterval;
    Path s = PipelineBench.fresh(out.resolve("stream-batches-runs").resolve(name));
    Path events = Files.createDirectories(s.resolve("events"));
    pipeline.job("stream-batches-" + name, "submit/stream-train", "--master", master,
        "--conf", "spark.eventLog.enabled=true", "--conf", "spark.eventLog.compress=false",
        "--conf", "spark.eventLog.dir=" + events.toUri(), "--input", input.toString(),
        "--format", "libsvm", "--num-features", Integer.toString(features), "--num-classes", "2",
        "--model", s.resolve("model").toString(), "--checkpoint-dir",
        s.resolve("checkpoint").toString(), "--trigger", "available-now",
        "--max-files-per-trigger", Integer.toString(k), "--publish-interval",
        Integer.toString(publishInterval), "--metrics",
        s.resolve("stream.json").toString());
    JsonNode m = JSON.readTree(s.resolve("stream.json").toFile());
    List<Double> seconds = new ArrayList<>();
    long batchRows = 0;
    for (JsonNode b : m.path("batches")) {
      seconds.add(b.path("seconds").asDouble());
      batchRows = Math.max(batchRows, b.path("rows").asLong());
    }
    int n = seconds.size();
    double steady = PlainLoop.median(PipelineBench.array(seconds.subList(n / 2, n)));
    return new Run(n, seconds.get(0), steady, batchRows,
        m.path("run").path("batchSeconds").asDouble(), m.path("run").path("rows").asLong(),
        split(events, n / 2));
  }

  /**
   * The median split of the batches with id ≥ {@code fromBatch} from the event log under
   * {@code events}: Spark's streaming work, the jobs by kind, the rest of {@code addBatch}.
   */
  private static Map<String, Double> split(Path events, int fromBatch) throws IOException {
    List<JsonNode> progress = new ArrayList<>();
    List<long[]> jobTimes = new ArrayList<>();
    List<String> jobKinds = new ArrayList<>();
    Map<Long, Integer> jobIndex = new LinkedHashMap<>();
    Path log;
    try (Stream<Path> files = Files.walk(events)) {
      log = files.filter(p -> Files.isRegularFile(p) && !p.getFileName().toString()
          .startsWith(".") && !p.getFileName().toString().startsWith("appstatus"))
          .findFirst().orElseThrow(() -> new IOException("no event log under " + events));
    }
    try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        JsonNode e = JSON.readTree(line);
        String event = e.path("Event").asText();
        if (event.endsWith("QueryProgressEvent")) {
          progress.add(e.path("progress"));
        } else if (event.equals("SparkListenerJobStart")) {
          jobIndex.put(e.path("Job ID").asLong(), jobTimes.size());
          jobTimes.add(new long[] {e.path("Submission Time").asLong(), -1});
          jobKinds.add(kind(e.path("Properties").path("spark.job.description").asText("")));
        } else if (event.equals("SparkListenerJobEnd")) {
          Integer i = jobIndex.get(e.path("Job ID").asLong());
          if (i != null) {
            jobTimes.get(i)[1] = e.path("Completion Time").asLong();
          }
        }
      }
    }
    Map<String, List<Double>> parts = new LinkedHashMap<>();
    for (JsonNode p : progress) {
      if (p.path("batchId").asLong() < fromBatch) {
        continue;
      }
      long start = Instant.parse(p.path("timestamp").asText()).toEpochMilli();
      JsonNode d = p.path("durationMs");
      double trigger = d.path("triggerExecution").asDouble();
      double add = d.path("addBatch").asDouble();
      parts.computeIfAbsent("the trigger (`triggerExecution`)", x -> new ArrayList<>())
          .add(trigger);
      parts.computeIfAbsent("Spark's streaming work: offsets, listing, planning, commit"
          + " (trigger − `addBatch`)", x -> new ArrayList<>()).add(trigger - add);
      parts.computeIfAbsent("our batch function (`addBatch`)", x -> new ArrayList<>()).add(add);
      Map<String, Double> byKind = new LinkedHashMap<>();
      for (int i = 0; i < jobTimes.size(); i++) {
        long[] j = jobTimes.get(i);
        if (j[0] >= start && j[1] >= 0 && j[1] <= start + (long) trigger) {
          byKind.merge(jobKinds.get(i), (double) (j[1] - j[0]), Double::sum);
        }
      }
      double inJobs = 0;
      for (String kind : BATCH_JOBS) {
        double ms = byKind.getOrDefault(kind, 0.0);
        inJobs += ms;
        parts.computeIfAbsent("  of it in Spark jobs: " + kind, x -> new ArrayList<>()).add(ms);
      }
      parts.computeIfAbsent("  of it between those jobs (driver code, job submission)",
          x -> new ArrayList<>()).add(add - inJobs);
      // The publisher's thread writes the model beside the batches, not inside addBatch.
      parts.computeIfAbsent("beside it, on the publisher's thread: publication jobs",
          x -> new ArrayList<>()).add(byKind.getOrDefault(PUBLICATION, 0.0));
    }
    Map<String, Double> medians = new LinkedHashMap<>();
    for (Map.Entry<String, List<Double>> e : parts.entrySet()) {
      medians.put(e.getKey(), PlainLoop.median(PipelineBench.array(e.getValue())));
    }
    return medians;
  }

  private static final String PUBLICATION = "publication";
  /** The kinds of job a batch function runs itself (the publication runs beside it). */
  private static final List<String> BATCH_JOBS = List.of("conversion and scoring",
      "mixing rounds", "other (the batch's own query job)");

  /** A job's kind, by the description the trainer and the stream give their jobs. */
  private static String kind(String description) {
    if (description.startsWith("perceptron micro-batch")) {
      return "conversion and scoring";
    } else if (description.startsWith("perceptron epoch")) {
      return "mixing rounds";
    } else if (description.startsWith("publish")) {
      return PUBLICATION;
    }
    return BATCH_JOBS.get(2);
  }
}
