package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.data.SyntheticRows;
import io.github.sparkperceptron.internal.drift.Adwin;
import io.github.sparkperceptron.internal.drift.DriftDetector;
import io.github.sparkperceptron.internal.drift.DriftDetectors;
import io.github.sparkperceptron.internal.drift.PageHinkley;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The drift detectors' measurements of issue 22, without Spark: the stream learner's kernel
 * ({@link OnlineLearner}, averaged perceptron, the stream's defaults) on generated streams, one
 * worker, each batch learnt in arrival order, with a detector on its prequential errors and a
 * policy for what a detection does. Counts and accuracies only (no timing), so any machine gives
 * the same tables.
 *
 * <pre>
 * streams (SyntheticData, d = 100,000, 20 non-zeros, margin 0.05, 5% label noise, as the
 * streaming benchmark; batches of 50,000 rows):
 *   abrupt    batches 0-4 rows 0..249,999 of seed 7, batches 5-9 rows 0..249,999 of seed 8
 *             (issue 22's setup: submit/generate --seed 7 and --seed 8, 5 files each)
 *   gradual   row i from seed 8 with probability 1/(1 + exp(−4(i − 250,000)/100,000)), else
 *             from seed 7 (MOA's sigmoid ConceptDriftStream: the change spans batches 4-5)
 *   none      rows 0..999,999 of seed 7, 20 batches (issue 22's no-change target)
 *   bernoulli the detectors alone on 10,000,000 i.i.d. 0/1 errors, rates 0.1, 0.3, 0.5
 * scoring:
 *   batch     each batch scored by the model from before it, then learnt (what the stream
 *             does); its counts fed to the detector with DriftDetector.addBatch
 *   row       each row scored by the model, fed to the detector, then learnt ("test then train")
 * policies (what a detection does):
 *   report    nothing
 *   window    a fresh averaging window: keep w, restart u and the clock c
 *   average   w ← the averaged weights (the served model), then a fresh window
 *   zero      w = u = 0, c = 0: a fresh model
 * applied after the batch in which the drift was found is learnt ("after"), or before it is
 * learnt ("before": possible when the detector sees the batch's scores before training on it);
 * in row scoring, right after the row.
 * </pre>
 */
@Command(name = "drift-bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Measure the drift detectors and reset policies on generated streams.")
public final class DriftBench implements Callable<Integer> {
  private static final int BATCH_ROWS = 50_000;
  private static final long CHANGE_ROW = 250_000;
  /** Gradual change: P(new concept) rises from 0.12 to 0.88 over these rows. */
  private static final long GRADUAL_WIDTH = 100_000;

  @Option(names = "--sections", split = ",", paramLabel = "S",
      description = "detection, policies, bernoulli (default: all three)")
  List<String> sections = new ArrayList<>(List.of("detection", "policies", "bernoulli"));

  @Option(names = "--features", defaultValue = "100000",
      description = "d of the generated rows (default: ${DEFAULT-VALUE})")
  int features;

  @Option(names = "--out", defaultValue = "target/bench/drift.md",
      description = "where the tables go, besides stdout (default: ${DEFAULT-VALUE})")
  Path out;

  private final StringBuilder report = new StringBuilder();

  public static void main(String[] args) {
    arguments = args.clone();
    System.exit(new CommandLine(new DriftBench()).execute(args));
  }

  /** A generated stream: its batches and where its change is. */
  private static final class Stream {
    final String name;
    final TrainingBlock[] batches;
    /** First row of the change (abrupt), of the transition (gradual), or −1. */
    final long changeStart;
    /** The change's middle (gradual), or changeStart. */
    final long changeCenter;

    Stream(String name, TrainingBlock[] batches, long changeStart, long changeCenter) {
      this.name = name;
      this.batches = batches;
      this.changeStart = changeStart;
      this.changeCenter = changeCenter;
    }

    long rows() {
      return (long) batches.length * BATCH_ROWS;
    }
  }

  /** What one run of a stream with one detector and policy did. */
  private static final class Run {
    final double[] batchAccuracy;
    final List<Long> detections = new ArrayList<>();

    Run(int batches) {
      this.batchAccuracy = new double[batches];
    }

    double meanAccuracy(int from, int to) {
      double s = 0;
      for (int b = from; b < to; b++) {
        s += batchAccuracy[b];
      }
      return s / (to - from);
    }
  }

  @Override
  public Integer call() throws IOException {
    report.append("# Drift detection (issue 22), measured without Spark\n\n")
        .append("Command: `DriftBench ").append(String.join(" ", arguments)).append("`\n\n");
    Map<String, Supplier<DriftDetector>> detectors = detectorGrid();
    if (sections.contains("detection") || sections.contains("policies")) {
      List<Stream> streams = List.of(abrupt(), gradual(), none());
      if (sections.contains("detection")) {
        detection(streams, detectors);
      }
      if (sections.contains("policies")) {
        policies(streams);
      }
    }
    if (sections.contains("bernoulli")) {
      bernoulli(detectors);
    }
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report);
    System.out.println("Wrote " + out);
    return 0;
  }

  private static String[] arguments = new String[0];

  /** The configurations measured: the references' defaults and a λ / δ sweep around them. */
  static Map<String, Supplier<DriftDetector>> detectorGrid() {
    Map<String, Supplier<DriftDetector>> grid = new LinkedHashMap<>();
    for (double alpha : new double[] {1.0, 1 - 1e-4}) {
      for (double lambda : new double[] {25, 50, 100, 200}) {
        String name = String.format(Locale.ROOT, "page-hinkley δ=0.005 λ=%.0f α=%s", lambda,
            alpha == 1.0 ? "1" : "0.9999");
        grid.put(name, () -> new PageHinkley(0.005, lambda, alpha, 30));
      }
    }
    for (double delta : new double[] {0.002, 1e-4, 1e-6}) {
      grid.put("adwin δ=" + delta, () -> new Adwin(delta));
    }
    return grid;
  }

  // ---------------------------------------------------------------- streams

  private SyntheticData concept(long seed) {
    return SyntheticData.builder().numFeatures(features).nonZerosPerRow(20).margin(0.05)
        .labelNoise(0.05).seed(seed).build();
  }

  /** Rows {@code first ..} of each batch, from the concept {@code pick} chooses per row. */
  private TrainingBlock[] generate(int batches, RowSource pick) {
    SyntheticRows a = concept(7).rows();
    SyntheticRows b = concept(8).rows();
    int[] idx = new int[a.storedPerRow()];
    double[] val = new double[a.storedPerRow()];
    TrainingBlock[] out = new TrainingBlock[batches];
    for (int k = 0; k < batches; k++) {
      TrainingBlockBuilder builder = new TrainingBlockBuilder(features);
      for (int i = 0; i < BATCH_ROWS; i++) {
        long row = (long) k * BATCH_ROWS + i;
        long source = pick.source(row);
        int label = (source >= 0 ? a : b).row(source >= 0 ? source : -source - 1, idx, val);
        builder.addSparse(label, 1.0, idx, val, idx.length);
      }
      out[k] = builder.build();
    }
    return out;
  }

  /** Row {@code r} of the stream: ≥ 0 for that row of seed 7, −(i + 1) for row i of seed 8. */
  private interface RowSource {
    long source(long r);
  }

  private Stream abrupt() {
    return new Stream("abrupt", generate(10, r -> r < CHANGE_ROW ? r : -(r - CHANGE_ROW) - 1),
        CHANGE_ROW, CHANGE_ROW);
  }

  private Stream gradual() {
    return new Stream("gradual", generate(10, r -> {
      double pNew = 1.0 / (1.0 + Math.exp(-4.0 * (r - CHANGE_ROW) / GRADUAL_WIDTH));
      SeededShuffle coin = SeededShuffle.forEpoch(99, (int) (r >>> 31), (int) r);
      double u = (coin.nextLong() >>> 11) * 0x1.0p-53;
      return u < pNew ? -r - 1 : r;
    }), CHANGE_ROW - GRADUAL_WIDTH / 2, CHANGE_ROW);
  }

  private Stream none() {
    return new Stream("none", generate(20, r -> r), -1, -1);
  }

  // ---------------------------------------------------------------- one run

  private enum Policy {
    REPORT, WINDOW, AVERAGE, ZERO
  }

  /**
   * Runs the learner over the stream. {@code detector} may be null (no detection);
   * {@code rowScoring} picks the scoring; {@code before} applies batch-scoring resets before the
   * batch is learnt.
   */
  private Run run(Stream stream, DriftDetector detector, Policy policy, boolean rowScoring,
      boolean before) {
    LearnerConfig config = new LearnerConfig(features, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    LinearState state = LinearState.zero(config);
    Run run = new Run(stream.batches.length);
    int[] identity = new int[BATCH_ROWS];
    for (int i = 0; i < BATCH_ROWS; i++) {
      identity[i] = i;
    }
    EpochOrder order = EpochOrder.of(identity);
    EpochStats stats = new EpochStats();
    for (int b = 0; b < stream.batches.length; b++) {
      TrainingBlock block = stream.batches[b];
      long first = (long) b * BATCH_ROWS;
      if (rowScoring) {
        long correct = 0;
        for (int t = 0; t < BATCH_ROWS; t++) {
          boolean right = predict(state, block, t, config.numFeatures()) == block.label(t);
          correct += right ? 1 : 0;
          if (detector != null && detector.add(right ? 0 : 1)) {
            run.detections.add(first + t);
            reset(state, policy);
          }
          OnlineLearner.runEpoch(config, block, order, t, t + 1, state, 1.0, stats, null, null);
        }
        run.batchAccuracy[b] = (double) correct / BATCH_ROWS;
      } else {
        long correct = 0;
        double[] model = state.modelWeights();
        for (int t = 0; t < BATCH_ROWS; t++) {
          correct += predictWith(model, block, t, config.numFeatures()) == block.label(t) ? 1 : 0;
        }
        run.batchAccuracy[b] = (double) correct / BATCH_ROWS;
        boolean detected = false;
        if (detector != null) {
          detected = new Recording(detector, run.detections).addBatch(BATCH_ROWS,
              BATCH_ROWS - correct) > 0;
        }
        if (detected && before) {
          reset(state, policy);
        }
        OnlineLearner.runEpoch(config, block, order, state, 1.0, stats, null);
        if (detected && !before) {
          reset(state, policy);
        }
      }
    }
    return run;
  }

  private static int predict(LinearState state, TrainingBlock block, int row, int d) {
    FeatureBlock x = block.features();
    double[] w = state.weights();
    double score = x.dot(row, w, 0) + w[d];
    double c = state.clock();
    if (c > 0) {
      double[] u = state.averageAccumulator();
      score -= (x.dot(row, u, 0) + u[d]) / c;
    }
    return score > 0 ? 1 : 0;
  }

  private static int predictWith(double[] model, TrainingBlock block, int row, int d) {
    return block.features().dot(row, model, 0) + model[d] > 0 ? 1 : 0;
  }

  private static void reset(LinearState state, Policy policy) {
    double[] w = state.weights();
    double[] u = state.averageAccumulator();
    switch (policy) {
      case REPORT:
        return;
      case AVERAGE:
        double[] averaged = state.modelWeights();
        System.arraycopy(averaged, 0, w, 0, w.length);
        break;
      case ZERO:
        Arrays.fill(w, 0.0);
        break;
      case WINDOW:
        break;
      default:
        throw new IllegalStateException();
    }
    Arrays.fill(u, 0.0);
    state.setClock(0.0);
  }

  // ---------------------------------------------------------------- sections

  private void detection(List<Stream> streams, Map<String, Supplier<DriftDetector>> grid) {
    report.append("## Detection: every configuration, policy `report`\n\n")
        .append("Rows are counted from the stream's start; the change is at row 250,000 (abrupt;")
        .append(" gradual: its middle, the transition spanning rows 200,000-300,000). False")
        .append(" alarms: detections before the change (gradual: before row 200,000; none: all).")
        .append(" Delay: rows from the change (gradual: from its middle) to the first detection")
        .append(" after the false-alarm zone.\n\n")
        .append("| detector | scoring | abrupt: false alarms | abrupt: delay (rows) |")
        .append(" abrupt: drift batches | gradual: false alarms | gradual: delay |")
        .append(" gradual: drift batches | none (1M rows): false alarms |\n")
        .append("|---|---|--:|--:|---|--:|--:|---|--:|\n");
    for (boolean rowScoring : new boolean[] {false, true}) {
      for (Map.Entry<String, Supplier<DriftDetector>> d : grid.entrySet()) {
        StringBuilder line = new StringBuilder("| " + d.getKey() + " | "
            + (rowScoring ? "row" : "batch") + " |");
        for (Stream s : streams) {
          Run r = run(s, d.getValue().get(), Policy.REPORT, rowScoring, false);
          if (s.changeStart < 0) {
            line.append(' ').append(r.detections.size()).append(" |");
          } else {
            line.append(' ').append(falseAlarms(s, r)).append(" | ").append(delay(s, r))
                .append(" | ").append(batches(r)).append(" |");
          }
        }
        report.append(line).append('\n');
        System.out.println(line);
      }
    }
    report.append('\n');
  }

  private void policies(List<Stream> streams) {
    report.append("## Policies: prequential accuracy with each detector and policy\n\n")
        .append("Mean of the batches' prequential accuracies: abrupt and gradual over batches")
        .append(" 5-9 (after the change) and 0-4; none over all 20 batches. Detectors at the")
        .append(" library's defaults (DriftDetectors: page-hinkley δ=0.005 λ=100 α=1")
        .append(" minRows=30, adwin δ=0.002).\n\n")
        .append("| detector | scoring | policy | applied | abrupt 0-4 | abrupt 5-9 |")
        .append(" abrupt drift batches | gradual 0-4 | gradual 5-9 | gradual drift batches |")
        .append(" none: all | none: drift batches |\n")
        .append("|---|---|---|---|--:|--:|---|--:|--:|---|--:|---|\n");
    Map<String, Supplier<DriftDetector>> chosen = new LinkedHashMap<>();
    chosen.put("none", () -> null);
    chosen.put("page-hinkley", () -> DriftDetectors.create("page-hinkley"));
    chosen.put("adwin", () -> DriftDetectors.create("adwin"));
    for (boolean rowScoring : new boolean[] {false, true}) {
      for (Map.Entry<String, Supplier<DriftDetector>> d : chosen.entrySet()) {
        for (Policy policy : Policy.values()) {
          for (boolean before : rowScoring ? new boolean[] {false} : new boolean[] {false, true}) {
            if (d.getKey().equals("none") && (policy != Policy.REPORT || before)) {
              continue;
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "| %s | %s | %s | %s |", d.getKey(), rowScoring ? "row" : "batch",
                policy.name().toLowerCase(Locale.ROOT),
                rowScoring ? "at the row" : before ? "before" : "after"));
            for (Stream s : streams) {
              Run r = run(s, d.getValue().get(), policy, rowScoring, before);
              if (s.changeStart < 0) {
                line.append(String.format(Locale.ROOT, " %.4f | %s |",
                    r.meanAccuracy(0, s.batches.length), batches(r)));
              } else {
                line.append(String.format(Locale.ROOT, " %.4f | %.4f | %s |",
                    r.meanAccuracy(0, 5), r.meanAccuracy(5, 10), batches(r)));
              }
            }
            report.append(line).append('\n');
            System.out.println(line);
          }
        }
      }
    }
    report.append('\n');
  }

  private void bernoulli(Map<String, Supplier<DriftDetector>> grid) {
    int rows = 10_000_000;
    report.append("## Stationary errors: false alarms of the detectors alone\n\n")
        .append("10,000,000 i.i.d. 0/1 errors fed one per row (the worst case: a batch's counts")
        .append(" spread evenly carry less noise), seed 1.\n\n")
        .append("| detector | rate 0.1 | rate 0.3 | rate 0.5 |\n|---|--:|--:|--:|\n");
    for (Map.Entry<String, Supplier<DriftDetector>> d : grid.entrySet()) {
      StringBuilder line = new StringBuilder("| " + d.getKey() + " |");
      for (double p : new double[] {0.1, 0.3, 0.5}) {
        DriftDetector detector = d.getValue().get();
        SplittableRandom random = new SplittableRandom(1);
        for (int t = 0; t < rows; t++) {
          detector.add(random.nextDouble() < p ? 1 : 0);
        }
        line.append(' ').append(detector.detections()).append(" |");
      }
      report.append(line).append('\n');
      System.out.println(line);
    }
    report.append('\n');
  }

  private static long falseAlarms(Stream s, Run r) {
    return r.detections.stream().filter(row -> row < s.changeStart).count();
  }

  private static String delay(Stream s, Run r) {
    for (long row : r.detections) {
      if (row >= s.changeStart) {
        return String.format(Locale.ROOT, "%,d", row - s.changeCenter);
      }
    }
    return "none";
  }

  private static String batches(Run r) {
    List<Long> b = new ArrayList<>();
    for (long row : r.detections) {
      long batch = row / BATCH_ROWS;
      if (!b.contains(batch)) {
        b.add(batch);
      }
    }
    return b.isEmpty() ? "-" : b.toString().replace("[", "").replace("]", "");
  }

  /**
   * Feeds a detector through the interface's own {@link DriftDetector#addBatch} and notes the
   * row of every detection (the detector itself keeps only the last).
   */
  private static final class Recording implements DriftDetector {
    private final DriftDetector inner;
    private final List<Long> rows;

    Recording(DriftDetector inner, List<Long> rows) {
      this.inner = inner;
      this.rows = rows;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public boolean add(double error) {
      boolean found = inner.add(error);
      if (found) {
        rows.add(inner.lastDetectionRow());
      }
      return found;
    }

    @Override
    public long rows() {
      return inner.rows();
    }

    @Override
    public long detections() {
      return inner.detections();
    }

    @Override
    public long lastDetectionRow() {
      return inner.lastDetectionRow();
    }

    @Override
    public double errorRate() {
      return inner.errorRate();
    }

    @Override
    public double[] encode() {
      return inner.encode();
    }
  }
}
