package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.streaming.BatchListener;
import io.github.sparkperceptron.streaming.BatchReport;
import io.github.sparkperceptron.streaming.StreamingPerceptron;
import io.github.sparkperceptron.streaming.StreamingProgress;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a run of {@code submit/stream-train} tells: a line per batch as it is learnt, and at the
 * end the run's summary, its metrics JSON ({@code --metrics}, also rewritten after every batch,
 * so that a long-running stream can be watched) and its plot ({@code --plot}). The job drives
 * the stream (its source, trigger and checks); this listens to it.
 */
final class StreamRunReport implements BatchListener {
  private final StreamTrainJob job;
  private final StreamingPerceptron trainer;
  private final ModelOutput output;
  private final PrintWriter out;
  private final List<BatchReport> reports = new ArrayList<>();

  StreamRunReport(StreamTrainJob job, StreamingPerceptron trainer, ModelOutput output,
      PrintWriter out) {
    this.job = job;
    this.trainer = trainer;
    this.output = output;
    this.out = out;
  }

  @Override
  public void onBatch(BatchReport report) {
    reports.add(report);
    String from = job.inputDir == null ? "topic " + job.kafkaTopic
        : job.batchFiles + (job.batchFiles == 1 ? " file" : " files");
    out.printf(Locale.ROOT, "batch %d: %,d rows from %s, prequential accuracy %.4f"
        + " (%,d mistakes); since the start %.4f over %,d rows; %.2f s%s%s%n",
        report.batchId(), report.rows(), from, report.prequentialAccuracy(),
        report.prequentialMistakes(), report.cumulative().prequentialAccuracy(),
        report.cumulative().rows(), report.seconds(), !report.drift() ? ""
            : report.freshModel() ? "; DRIFT detected (" + job.driftDetector + "): learnt by a"
                + " fresh model" : "; DRIFT detected (" + job.driftDetector + ")",
        report.published() ? "; published" : "");
    out.flush();
    if (job.metricsPath != null) {
      output.writeText(job.metricsPath, Json.write(metrics(0.0)));
    }
  }

  /** At the end of a run of {@code seconds}: the summary, the metrics and the plot. */
  void finish(double seconds) {
    summary(seconds);
    if (job.metricsPath != null) {
      output.writeText(job.metricsPath, Json.write(metrics(seconds)));
      out.println("Metrics written to " + job.metricsPath);
    }
    if (job.plotPath != null) {
      output.writeBytes(job.plotPath, StreamingPlot.png("Prequential accuracy: " + job.source(),
          reports));
      out.println("Plot written to " + job.plotPath);
    }
  }

  /** This run's batches summed: the one tally that the summary line and the metrics both show. */
  private record RunTotals(long rows, long correct, long drifts, double batchSeconds) {
    static RunTotals of(List<BatchReport> reports) {
      long rows = 0;
      long correct = 0;
      long drifts = 0;
      double seconds = 0;
      for (BatchReport r : reports) {
        rows += r.rows();
        correct += r.prequentialCorrect();
        drifts += r.drift() ? 1 : 0;
        seconds += r.seconds();
      }
      return new RunTotals(rows, correct, drifts, seconds);
    }
  }

  /** The run's summary: what it learnt, how fast, and the stream's progress since its start. */
  private void summary(double seconds) {
    RunTotals run = RunTotals.of(reports);
    StreamingProgress total = trainer.progress();
    if (reports.isEmpty()) {
      out.println("No new " + (job.inputDir != null ? "files in " : "messages in ") + job.source()
          + ": nothing learnt"
          + (total == null ? "" : "; the model at " + job.modelPath + " is unchanged ("
              + total + ")"));
      return;
    }
    // The same two rates as the metrics JSON (run.batchRowsPerSecond, run.rowsPerSecond).
    out.printf(Locale.ROOT, "Learnt %,d rows in %d batch%s: %.1f s in batches (%,.0f rows/s),"
        + " %.1f s in all (%,.0f rows/s)%n", run.rows(), reports.size(),
        reports.size() == 1 ? "" : "es", run.batchSeconds(),
        rowsPerSecond(run.rows(), run.batchSeconds()), seconds,
        rowsPerSecond(run.rows(), seconds));
    out.println("Since the start: " + total);
    out.println("Model published to " + job.modelPath + " (batch " + total.lastBatchId() + ")");
  }

  /** Rows per second, or NaN (null in JSON) when no time passed. */
  private static double rowsPerSecond(long rows, double seconds) {
    return seconds > 0 ? rows / seconds : Double.NaN;
  }

  /**
   * The run's metrics JSON (--metrics): the settings, every batch, the run's totals and the
   * stream's since its start.
   */
  private ObjectNode metrics(double seconds) {
    ObjectNode root = Json.object();
    root.put("input", job.source());
    root.put("model", job.modelPath);
    root.put("checkpointDir", job.checkpointDir);
    root.put("format", job.input.format.name());
    root.put("trigger", job.trigger);
    // The params a stream uses (the job.training flags it takes), then the stream's own settings.
    ObjectNode params = root.putObject("params");
    job.training.writeParams(trainer.getParams(), params);
    params.put("epochsPerBatch", job.epochsPerBatch);
    params.put("publishEvery", job.publishEvery);
    params.put("publishInterval", job.publishInterval);
    params.put("driftDetector", trainer.getDriftDetector());
    params.put("onDrift", trainer.getOnDrift());
    ArrayNode batches = root.putArray("batches");
    for (BatchReport r : reports) {
      ObjectNode b = batches.addObject();
      b.put("batchId", r.batchId());
      b.put("rows", r.rows());
      b.put("prequentialCorrect", r.prequentialCorrect());
      Json.putNumber(b, "prequentialAccuracy", r.prequentialAccuracy());
      Json.putNumber(b, "cumulativeAccuracy", r.cumulative().prequentialAccuracy());
      b.put("updates", r.updates());
      b.put("onlineMistakes", r.onlineMistakes());
      b.put("partitions", r.workers());
      Json.putNumber(b, "seconds", r.seconds());
      b.put("published", r.published());
      b.put("drift", r.drift());
      b.put("freshModel", r.freshModel());
    }
    RunTotals totals = RunTotals.of(reports);
    long rows = totals.rows();
    ObjectNode run = root.putObject("run");
    run.put("batches", reports.size());
    run.put("rows", rows);
    run.put("drifts", totals.drifts());
    Json.putNumber(run, "prequentialAccuracy",
        rows == 0 ? Double.NaN : (double) totals.correct() / rows);
    Json.putNumber(run, "batchSeconds", totals.batchSeconds());
    Json.putNumber(run, "batchRowsPerSecond", rowsPerSecond(rows, totals.batchSeconds()));
    if (seconds > 0) {
      Json.putNumber(run, "seconds", seconds);
      Json.putNumber(run, "rowsPerSecond", rowsPerSecond(rows, seconds));
    }
    StreamingProgress total = trainer.progress();
    if (total != null) {
      ObjectNode cumulative = root.putObject("cumulative");
      cumulative.put("batches", total.batches());
      cumulative.put("lastBatchId", total.lastBatchId());
      cumulative.put("rows", total.rows());
      cumulative.put("prequentialCorrect", total.prequentialCorrect());
      Json.putNumber(cumulative, "prequentialAccuracy", total.prequentialAccuracy());
      cumulative.put("updates", total.updates());
      cumulative.put("drifts", total.drifts());
      cumulative.put("numClasses", total.numClasses());
      cumulative.put("numFeatures", total.numFeatures());
    }
    return root;
  }
}
