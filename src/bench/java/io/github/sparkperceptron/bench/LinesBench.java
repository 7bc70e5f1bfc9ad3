package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.internal.io.LineReadingProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Issue 32, target 3, section {@code lines}: the one-pass reader's line finding ({@code
 * SplitLines}: reads of up to 1 MiB, line ends eight bytes at a time) against Hadoop's {@code
 * LineRecordReader}, which it replaced, over the stream-batches section's files (F files of
 * 50,000 LIBSVM rows, generated once under {@code OUT/pipeline-data/}).
 *
 * <p>One JVM, passes over every file alternating the reader that goes first (pass p: Hadoop's
 * first when p is even). A pass reads each file whole, as one split, and only counts its lines,
 * their bytes and their first bytes: no parse, no Spark. The first pass of each reader is the one
 * that compiles its code (as a stream's first batches do); its first file is timed apart. Files
 * the benchmark generated through Spark have checksum files, so both readers verify CRCs; a
 * second set of passes reads them through the raw local file system, as a user's own files
 * (no .crc) are read.
 */
final class LinesBench {
  private final PipelineBench pipeline;
  private final Report report;
  private final int repeats;

  LinesBench(PipelineBench pipeline, Report report, int repeats) {
    this.pipeline = pipeline;
    this.report = report;
    this.repeats = repeats;
  }

  void run(int files, int features, int nnz) throws Exception {
    Path data = pipeline.generate((long) files * StreamBatchBench.ROWS_PER_FILE, files, features,
        nnz);
    List<Path> parts = PipelineBench.parts(data.resolve("train"));
    long bytes = 0;
    for (Path p : parts) {
      bytes += Files.size(p);
    }
    Configuration summed = new Configuration();
    // A user's own files have no .crc beside them: the raw local file system reads as they do.
    Configuration raw = new Configuration();
    raw.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    raw.setBoolean("fs.file.impl.disable.cache", true);
    // Shared code (the file systems, the checksums) warmed by neither reader's loop.
    for (Configuration conf : List.of(summed, raw)) {
      try (var in = new org.apache.hadoop.fs.Path(parts.get(0).toUri()).getFileSystem(conf)
          .open(new org.apache.hadoop.fs.Path(parts.get(0).toUri()))) {
        in.readNBytes(1 << 20);
      }
    }
    String loadBefore = Report.f("%.2f", SystemLoad.settle(1.0, 150));
    int passes = Math.max(3, repeats + 1);
    Report.Table t = new Report.Table("files", "reader", "first file, first pass s",
        "first pass s", "later passes s (median)", "later passes MB/s", "÷ Hadoop's");
    String[] names = {"Hadoop's `LineRecordReader`", "`SplitLines`"};
    DataShape shape = null;
    for (Configuration conf : List.of(summed, raw)) {
      String kind = conf == summed ? "with checksums (.crc)" : "raw (no .crc)";
      // [reader][pass] seconds; [reader] the first file of the first pass.
      double[][] seconds = new double[2][passes];
      double[] firstFile = new double[2];
      long[] lines = new long[2];
      long[] checks = new long[2];
      for (int pass = 0; pass < passes; pass++) {
        for (int k = 0; k < 2; k++) {
          int reader = pass % 2 == 0 ? k : 1 - k;
          long total = 0;
          long n = 0;
          long check = 0;
          for (int f = 0; f < parts.size(); f++) {
            LineReadingProbe.Pass p = LineReadingProbe.pass(reader == 0, conf, parts.get(f));
            total += p.nanos();
            n += p.lines();
            check += p.check();
            if (pass == 0 && f == 0) {
              firstFile[reader] = p.nanos() / 1e9;
            }
          }
          seconds[reader][pass] = total / 1e9;
          lines[reader] = n;
          checks[reader] = check;
        }
      }
      if (lines[0] != lines[1] || checks[0] != checks[1]) {
        throw new IllegalStateException("the readers disagree: " + lines[0] + " and " + lines[1]
            + " lines");
      }
      shape = new DataShape(Report.f("lines-%d", lines[0]), lines[0], features,
          (long) nnz * lines[0], 2, 7L, false);
      double[] later = new double[2];
      for (int r = 0; r < 2; r++) {
        double[] rest = new double[passes - 1];
        System.arraycopy(seconds[r], 1, rest, 0, passes - 1);
        later[r] = PlainLoop.median(rest);
      }
      for (int r = 0; r < 2; r++) {
        t.row(kind, names[r], Report.f("%.3f", firstFile[r]), Report.f("%.2f", seconds[r][0]),
            Report.f("%.2f", later[r]), Report.f("%.0f", bytes / 1e6 / later[r]),
            Report.f("%.2f×", later[r] / later[0]));
        report.add("lines", shape, parts.size(), names[r] + " " + kind, "seconds_per_pass",
            later[r], "s");
      }
    }
    report.markdown(Report.f("## Finding the lines: `SplitLines` against Hadoop's reader (issue"
        + " 32, target 3)\n\n%d files, %,d lines, %,.0f MB (`%s`), each read whole as one split,"
        + " lines counted, not parsed; %d passes in one JVM, the reader going first alternating"
        + " (Hadoop's in pass 0), the files as the benchmark wrote them (with checksums), then"
        + " through the raw local file system. Load before: %s; after: %s\n\n", parts.size(),
        shape.rows, bytes / 1e6, data, passes, loadBefore, SystemLoad.text()));
    report.markdown(t.toString());
    report.flush();
  }
}
