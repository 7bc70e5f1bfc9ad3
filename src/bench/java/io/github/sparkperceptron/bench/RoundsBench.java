package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The benchmark of issue 18: what a mixing round costs when an epoch's rounds run in one barrier
 * stage, against one Spark job per round.
 *
 * <pre>
 * fixed cost of a round = (fit with mixingRounds R − fit with mixingRounds 1) / ((R − 1)·epochs)
 *                         same data, mixing=mistakes, tol=0, numWorkers = W, per path
 *                         (spark.perceptron.roundExecution = barrier or jobs); best and median
 *                         of the repetitions, the two fits alternating
 * defaults                the estimator's defaults (numWorkers automatic) and mixing=momentum
 *                         (automatic rounds, min(W, 64)) against the 1-round mistakes fit, as a
 *                         user runs them (roundExecution=auto), and momentum as jobs (before)
 * layout                  what gathering the workers through a shuffle (for barrier stages)
 *                         costs when the input has more partitions than workers (4W here): the
 *                         training input's preparation (convert, cache, validate) as a coalesce
 *                         and as a gather, alternating; the bytes the gather's shuffle writes
 * </pre>
 *
 * <p>Data: the census set lives outside the repository, so a generated set of its shape
 * stands in (32,000 rows, 123 features with 14 non-zeros a row, binary, label noise 0.15, like
 * LIBSVM's a9a), repartitioned into W cached partitions. Counted too, independently of the
 * machine's load: the epochs' Spark jobs and stages per fit (a listener; the data preparation's
 * job is not counted) and the bytes the workers sent each other per round (the library's
 * accumulator). A warm-up pair of fits precedes each path's. Timings are only meaningful on an
 * idle machine.
 *
 * <p>W is the master's task slots (run it once per master: local[2], local[16], local[64]) unless
 * {@code --rounds-workers} says otherwise. (The exchange's rejected variants, every worker's
 * changes to the driver and Spark's allGather, were measured with this section and then removed
 * from the library: BENCHMARKS.md keeps their figures.)
 */
final class RoundsBench {
  /** Spark configuration key / local property of the round execution (BarrierRounds). */
  static final String BYTES_ACCUMULATOR = "spark-perceptron barrier bytes exchanged";

  private final SparkSession spark;
  private final Report report;
  private final int repeats;
  private final Counter counter = new Counter();

  RoundsBench(SparkSession spark, Report report, int repeats) {
    this.spark = spark;
    this.report = report;
    this.repeats = repeats;
    spark.sparkContext().addSparkListener(counter);
  }

  /** Jobs and stages submitted, and the barrier bytes accumulator's latest total per id. */
  private static final class Counter extends SparkListener {
    long jobs;
    long stages;
    /** Bytes the epochs' tasks sent towards the driver: shuffle output and task results. */
    long resultBytes;
    final Set<Integer> epochStages = new HashSet<>();
    final Map<Long, Long> bytesById = new HashMap<>();

    @Override
    public synchronized void onJobStart(SparkListenerJobStart start) {
      Properties p = start.properties();
      String description = p == null ? null : p.getProperty("spark.job.description");
      // The epochs' jobs only: not the data preparation's, not the test set's scoring.
      if (description != null && description.startsWith("perceptron epoch")) {
        jobs++;
        for (Object id : CollectionConverters.asJava(start.stageIds())) {
          epochStages.add((Integer) id);
        }
      }
    }

    /** Stages that run (a job also lists its parents' stages that it skips). */
    @Override
    public synchronized void onStageSubmitted(SparkListenerStageSubmitted submitted) {
      if (epochStages.contains(submitted.stageInfo().stageId())) {
        stages++;
      }
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.taskMetrics() != null) {
        shuffleWrittenBytes += end.taskMetrics().shuffleWriteMetrics().bytesWritten();
      }
      if (epochStages.contains(end.stageId()) && end.taskMetrics() != null) {
        resultBytes += end.taskMetrics().resultSize()
            + end.taskMetrics().shuffleWriteMetrics().bytesWritten();
      }
    }

    @Override
    public synchronized void onStageCompleted(SparkListenerStageCompleted completed) {
      for (AccumulableInfo info : CollectionConverters.asJava(
          completed.stageInfo().accumulables().values())) {
        if (info.name().isDefined() && BYTES_ACCUMULATOR.equals(info.name().get())
            && info.value().isDefined()) {
          long v = ((Number) info.value().get()).longValue();
          bytesById.merge(info.id(), v, Math::max);
        }
      }
    }

    /** Bytes every task wrote to shuffles since this counter started. */
    long shuffleWrittenBytes;

    synchronized long shuffleWritten() {
      return shuffleWrittenBytes;
    }

    synchronized long[] snapshot() {
      long bytes = 0;
      for (long b : bytesById.values()) {
        bytes += b;
      }
      return new long[] {jobs, stages, bytes, resultBytes};
    }
  }

  /** One fit's wall time and what the counter saw during it. */
  private static final class Fit {
    double seconds;
    long jobs;
    long stages;
    long bytes;
    long resultBytes;
    double accuracy;
  }

  private Fit fit(PerceptronClassifier c, Dataset<Row> train, Dataset<Row> test, String mode) {
    spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, mode);
    try {
      drain();
      long[] before = counter.snapshot();
      long start = System.nanoTime();
      PerceptronClassificationModel model = c.fit(train);
      Fit f = new Fit();
      f.seconds = (System.nanoTime() - start) / 1e9;
      drain();
      long[] after = counter.snapshot();
      f.jobs = after[0] - before[0];
      f.stages = after[1] - before[1];
      f.bytes = after[2] - before[2];
      f.resultBytes = after[3] - before[3];
      f.accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy")
          .evaluate(model.transform(test));
      return f;
    } finally {
      spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
    }
  }

  private void drain() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
  }

  void run(int workers, long rows, int epochs, int maxRounds, String load) {
    SyntheticData data = SyntheticData.builder().numFeatures(123).nonZerosPerRow(14)
        .margin(0.05).labelNoise(0.15).seed(21).build();
    long testRows = Math.max(1000, rows / 4);
    Dataset<Row> train = data.frame(spark, 0, rows, workers).repartition(workers).cache();
    Dataset<Row> test = data.frame(spark, rows, testRows, workers).cache();
    long stored = train.javaRDD().map(r -> (long) ((Vector) r.get(1)).numNonzeros())
        .reduce(Long::sum);
    test.count();
    DataShape shape = new DataShape("census-like-" + rows / 1000 + "k", rows, 123, stored, 2,
        data.seed(), false);
    int slots = spark.sparkContext().defaultParallelism();
    report.markdown(Report.f("## Mixing rounds: the epochs in one barrier stage against one Spark"
        + " job per round (issue 18)\n\n%d workers on %d task slots; %s (%s, a stand-in for the"
        + " census set); %d epochs, tol=0, fits of 1 and %d rounds alternating, %d repetitions."
        + " Fixed cost of a round = (fit(R=%d) − fit(R=1)) / (%d·%d). %s\n\n", workers, slots,
        shape.describe(), data.describe(), epochs, maxRounds, repeats, maxRounds, maxRounds - 1,
        epochs, load));
    Report.Table t = new Report.Table("rounds run as", "fit R=1 s (best / median)",
        Report.f("fit R=%d s (best / median)", maxRounds), "ms per round (best / median)",
        Report.f("epoch jobs / stages per fit R=%d", maxRounds), "bytes sent per round",
        "result bytes per epoch R=1 / R=" + maxRounds, "accuracy R=1 / R=" + maxRounds);
    for (String mode : List.of("barrier", "jobs")) {
      int rounds = maxRounds;
      int e = epochs;
      String label = mode;
      List<Double> one = new ArrayList<>();
      List<Double> many = new ArrayList<>();
      Fit lastOne = null;
      Fit lastMany = null;
      // A warm-up pair (JIT, the first jobs' class loading), not counted.
      fit(mistakes(workers, e, 1), train, test, mode);
      fit(mistakes(workers, e, rounds), train, test, mode);
      for (int r = 0; r < repeats; r++) {
        lastOne = fit(mistakes(workers, e, 1), train, test, mode);
        lastMany = fit(mistakes(workers, e, rounds), train, test, mode);
        one.add(lastOne.seconds);
        many.add(lastMany.seconds);
        System.err.printf("rounds %s: R=1 %.2f s, R=%d %.2f s%n", label, lastOne.seconds,
            rounds, lastMany.seconds);
      }
      double perRoundBest = (min(many) - min(one)) / ((rounds - 1.0) * e);
      double perRoundMedian = (median(many) - median(one)) / ((rounds - 1.0) * e);
      double bytesPerRound = lastMany.bytes / (double) (rounds * e);
      t.row(label,
          Report.f("%.2f / %.2f", min(one), median(one)),
          Report.f("%.2f / %.2f", min(many), median(many)),
          Report.f("%.1f / %.1f", 1000 * perRoundBest, 1000 * perRoundMedian),
          Report.f("%d / %d", lastMany.jobs, lastMany.stages),
          mode.equals("barrier") ? Report.f("%,.0f", bytesPerRound) : "-",
          Report.f("%,d / %,d", lastOne.resultBytes / e, lastMany.resultBytes / e),
          Report.f("%.4f / %.4f", lastOne.accuracy, lastMany.accuracy));
      report.add("rounds", shape, workers, label, "result_bytes_per_epoch",
          lastMany.resultBytes / (double) e, "bytes");
      report.add("rounds", shape, workers, label, "round_fixed_cost_best", perRoundBest, "s");
      report.add("rounds", shape, workers, label, "round_fixed_cost_median", perRoundMedian,
          "s");
      report.add("rounds", shape, workers, label, "jobs_per_fit", lastMany.jobs, "jobs");
      report.add("rounds", shape, workers, label, "stages_per_fit", lastMany.stages, "stages");
      report.add("rounds", shape, workers, label, "bytes_sent_per_round", bytesPerRound,
          "bytes");
      report.flush();
    }
    report.markdown(t.toString());

    Report.Table d = new Report.Table("fit", "rounds run as", "s (best / median)",
        "/ 1-round mistakes (best)", "epoch jobs / stages", "accuracy");
    List<Object[]> defaults = new ArrayList<>();
    defaults.add(new Object[] {"mixing=mistakes, 1 round", mistakes(0, epochs, 1), "auto"});
    defaults.add(new Object[] {"defaults", new PerceptronClassifier().setMaxIter(epochs)
        .setTol(0), "auto"});
    defaults.add(new Object[] {"mixing=momentum", new PerceptronClassifier().setMaxIter(epochs)
        .setTol(0).setMixing("momentum"), "auto"});
    defaults.add(new Object[] {"mixing=momentum", new PerceptronClassifier().setMaxIter(epochs)
        .setTol(0).setMixing("momentum"), "jobs"});
    // The configurations alternate within each repetition, so that a drift of the machine
    // touches them alike; the ratio is to the first one's best, measured alongside.
    List<List<Double>> seconds = new ArrayList<>();
    Fit[] last = new Fit[defaults.size()];
    for (int i = 0; i < defaults.size(); i++) {
      seconds.add(new ArrayList<>());
    }
    for (int r = 0; r < repeats; r++) {
      for (int i = 0; i < defaults.size(); i++) {
        Object[] c = defaults.get(i);
        last[i] = fit((PerceptronClassifier) c[1], train, test, (String) c[2]);
        seconds.get(i).add(last[i].seconds);
      }
    }
    double baseline = min(seconds.get(0));
    for (int i = 0; i < defaults.size(); i++) {
      Object[] c = defaults.get(i);
      List<Double> s = seconds.get(i);
      d.row(c[0], c[2], Report.f("%.2f / %.2f", min(s), median(s)),
          Report.f("%.2f", min(s) / baseline), Report.f("%d / %d", last[i].jobs, last[i].stages),
          Report.f("%.4f", last[i].accuracy));
      report.add("rounds", shape, workers, c[0] + " (" + c[2] + ")", "fit_seconds_best", min(s),
          "s");
      report.add("rounds", shape, workers, c[0] + " (" + c[2] + ")",
          "fit_over_one_round_mistakes", min(s) / baseline, "ratio");
    }
    report.flush();
    report.markdown(Report.f("Fits as a user runs them (numWorkers automatic = %d task slots),"
        + " alternating, against the best 1-round mistakes fit of the same repetitions:\n\n",
        slots)).markdown(d.toString());
    report.flush();
    train.unpersist();
    test.unpersist();
  }

  /**
   * The layout table: preparing {@code rows} rows in 4W input partitions for W workers, as a
   * coalesce (rounds as jobs) and gathered through a shuffle (rounds in barrier stages).
   */
  void layout(int workers, long rows, String load) {
    SyntheticData data = SyntheticData.builder().numFeatures(123).nonZerosPerRow(14)
        .margin(0.05).labelNoise(0.15).seed(22).build();
    int inputs = 4 * workers;
    Dataset<Row> input = data.frame(spark, 0, rows, inputs).cache();
    input.count();
    TrainingConfig momentum = TrainingConfig.builder().columns("label", "features", "", "")
        .numWorkers(workers).mixing(MixingMode.MOMENTUM, 0, 2).build();
    Map<String, List<Double>> seconds = new LinkedHashMap<>();
    Map<String, Long> shuffled = new HashMap<>();
    String[][] paths = {{"coalesce (rounds as jobs)", "jobs"},
        {"gather through a shuffle (barrier stages)", "auto"}};
    for (int r = -1; r < repeats; r++) {
      for (String[] path : paths) {
        spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, path[1]);
        try {
          drain();
          long before = counter.shuffleWritten();
          long start = System.nanoTime();
          try (TrainingInput prepared = TrainingInput.prepare(input,
              TrainingPlan.forFit(JavaSparkContext.fromSparkContext(spark.sparkContext()),
                  momentum, workers))) {
            double s = (System.nanoTime() - start) / 1e9;
            drain();
            if (r >= 0) {
              // r = -1 is a warm-up pair, not counted.
              seconds.computeIfAbsent(path[0], k -> new ArrayList<>()).add(s);
              shuffled.put(path[0], counter.shuffleWritten() - before);
            }
          }
        } finally {
          spark.sparkContext().setLocalProperty(Settings.ROUND_EXECUTION, null);
        }
      }
    }
    Report.Table t = new Report.Table("workers laid out by", "prepare s (best / median)",
        "bytes the shuffle wrote");
    DataShape shape = new DataShape("census-like-" + rows / 1000 + "k", rows, 123, 14 * rows, 2,
        data.seed(), false);
    for (String[] path : paths) {
      List<Double> s = seconds.get(path[0]);
      t.row(path[0], Report.f("%.2f / %.2f", min(s), median(s)),
          Report.f("%,d", shuffled.get(path[0])));
      report.add("rounds", shape, workers, "layout: " + path[0], "prepare_seconds_best", min(s),
          "s");
      report.add("rounds", shape, workers, "layout: " + path[0], "shuffle_bytes_written",
          shuffled.get(path[0]), "bytes");
    }
    report.flush();
    report.markdown(Report.f("The training input's preparation for %d workers from %d input"
        + " partitions (%s, %,d rows, cached first), %d repetitions after a warm-up pair. %s\n\n",
        workers, inputs, data.describe(), rows, repeats, load)).markdown(t.toString());
    report.flush();
    input.unpersist();
  }

  private static PerceptronClassifier mistakes(int workers, int epochs, int rounds) {
    return new PerceptronClassifier().setMixing("mistakes").setMixingRounds(rounds)
        .setMaxIter(epochs).setTol(0).setNumWorkers(workers);
  }

  private static double min(List<Double> xs) {
    return Collections.min(xs);
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}
