package io.github.sparkperceptron.bench;

import static org.apache.spark.sql.functions.lit;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.classification.LinearSVC;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.RDDInfo;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The benchmark suite of issue 6, in one JVM and one SparkSession: every estimator of a dataset
 * sees the same cached input with the same partitions. Sections:
 *
 * <pre>
 * mllib       fit time and test accuracy: PerceptronClassifier (defaults, and each averaging x
 *             mixing), MLlib LinearSVC (defaults, maxIter=10), LogisticRegression (defaults)
 * epoch       seconds per epoch of the perceptron on Spark against the same kernel run as a plain
 *             single-threaded loop over one block of all rows (no Spark): the machine's floor
 * memory      bytes of the cached training blocks (Spark's storage info, taken during fit)
 *             against the raw CSR size and a cached DataFrame of the same vectors
 * partitions  test accuracy after every epoch for 1, 2, 4, ..., 256 workers, per mixing mode;
 *             accuracy after 10 epochs and epochs to reach the 1-worker accuracy of epoch 10
 * scale       10 epochs on generated data of growing size (up to 10M x 20 non-zeros): fit time,
 *             epoch time, the slope per million rows, the driver heap it needed
 * order       (only on request) the visiting orders of issue 14: order-kernel, the kernel's epoch
 *             per order and chunk size (no Spark), and order-accuracy, the test accuracy of
 *             shuffleScope=rows against chunks on every dataset, 3 seeds, 1, 2 and 16 partitions
 * export      (only on request) issue 23: ONNX export time of a K = 100, d = 2^16 model, ONNX
 *             Runtime against Spark's transform on 100,000 dense rows, the dense limit
 *             ({@link ExportBench})
 * rounds      (only on request) issue 18: the fixed cost of a mixing round in one barrier stage
 *             per epoch against one Spark job per round, and the defaults' fit ({@link
 *             RoundsBench})
 * calibration (only on request) issue 33: log-loss, Brier and ECE of the perceptron's
 *             probabilities (none, sigmoid, isotonic; training rows, a held-out share,
 *             cross-fitting, validation rows) against MLlib's LogisticRegression, and the fit
 *             time of the default calibration against none ({@link CalibrationBench})
 * pipeline    (only on request) issue 20: a plain single-threaded Java loop over LIBSVM files
 *             against submit/stream-train (one file per batch), submit/train --max-iter 1
 *             (reading, training, evaluation) and a 1-row batch's fixed cost ({@link
 *             PipelineBench})
 * stream-batches (only on request) issue 32, target 3: a long stream's warm batches by batch
 *             size against the plain loop, and where a warm batch's time goes ({@link
 *             StreamBatchBench})
 * lines       (only on request) issue 32, target 3: the one-pass reader's line finding against
 *             Hadoop's LineRecordReader over the stream-batches files ({@link LinesBench})
 * </pre>
 *
 * <p>Writes target/bench/results.csv (one measurement a row, each naming machine, Java, Spark,
 * data shape and seed), results.md and PNG charts. Not a test: run it with {@code submit/bench}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Run the spark-perceptron benchmark suite and write target/bench/.")
public final class BenchmarkRunner implements Callable<Integer> {
  /** Epoch whose 1-worker accuracy the other worker counts are measured against. */
  private static final int REFERENCE_EPOCH = 10;
  private static final String VALIDATION = "isValidation";

  @Option(names = "--quick", description = "small data, one repetition: a few minutes")
  boolean quick;

  @Option(names = "--sections", split = ",", paramLabel = "S",
      description = "sections to run: mllib, epoch, partitions, scale (default: these four;"
          + " memory is measured with epoch), and on request mixing-cost (issue 9), model-size,"
          + " many-class (issue 10), order (= order-kernel and order-accuracy, issue 14),"
          + " export (ONNX export and scoring, issue 23), scoring (issue 21),"
          + " rounds (issue 18), pipeline (issue 20), stream-batches and lines (issue 32),"
          + " strangers"
          + " (issue 30), calibration (issue 33), shapes and defaults (issue 32: the defaults"
          + " against 1-round mistakes on every dataset), large (issue 29: MLlib on"
          + " --large-train), small-fits (issues 31, 32: a Spark job's fixed cost, the default"
          + " calibration's fits on small data),"
          + " many-class-seeds (issue 32: epochs to converge on the many-class set, 8 seeds)")
  List<String> sections = new ArrayList<>(List.of("mllib", "epoch", "partitions", "scale"));

  @Option(names = "--datasets", split = ",", paramLabel = "NAME",
      description = "only these datasets (names as in the report; default: all)")
  List<String> only;

  @Option(names = "--master", defaultValue = "local[2]", description = "default: ${DEFAULT-VALUE}")
  String master;

  @Option(names = "--partitions", defaultValue = "2",
      description = "partitions of the cached inputs (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(names = "--repeats", defaultValue = "0",
      description = "repetitions of each timing; 0 = 1 with --quick, else 3")
  int repeats;

  @Option(names = "--data-dir", defaultValue = "data-samples",
      description = "the real datasets, NAME/train.libsvm[.gz] and NAME/test.libsvm[.gz]"
          + " (default: ${DEFAULT-VALUE})")
  Path dataDir;

  @Option(names = "--out", defaultValue = "target/bench", description = "default: ${DEFAULT-VALUE}")
  Path out;

  @Option(names = "--report-name", defaultValue = "results",
      description = "base name of the .md and .csv files in --out (default: ${DEFAULT-VALUE})")
  String reportName;

  @Option(names = "--mixings", split = ",", paramLabel = "AVERAGING:MIXING[:ROUNDS]",
      description = "configurations of the partitions section (default: average:momentum,"
          + "average:mistakes,average:uniform,average:oneshot); any averaging and mixing value"
          + " the estimator accepts, so new mixing modes are measured without changes here;"
          + " ROUNDS sets mixingRounds (a number, or P for as many rounds as workers)")
  List<String> mixings = new ArrayList<>(List.of("average:momentum", "average:mistakes",
      "average:uniform", "average:oneshot"));

  @Option(names = "--partition-epochs", defaultValue = "0",
      description = "epochs of the partitions section; 0 = 10 with --quick, else 20")
  int partitionEpochs;

  @Option(names = "--order-seeds", defaultValue = "3",
      description = "seeds 1..N of the order section's accuracy comparison (default:"
          + " ${DEFAULT-VALUE})")
  int orderSeeds;

  @Option(names = "--order-mixing", defaultValue = "mistakes",
      description = "the order-accuracy section's mixing: mistakes, issue 14's comparison, or"
          + " momentum, today's default (default: ${DEFAULT-VALUE})")
  String orderMixing;

  @Option(names = "--partition-counts", split = ",", paramLabel = "P",
      description = "worker counts of the partitions section (default: 1,2,4,...,256; --quick:"
          + " 1,2,4,16,64)")
  int[] partitionCounts;

  @Option(names = "--partition-datasets", split = ",", paramLabel = "NAME",
      description = "datasets of the partitions section (default: pendigits, skin_nonskin,"
          + " breast_cancer and the generated sparse, dense and multiclass sets)")
  List<String> partitionDatasets;

  @Option(names = "--scale-rows", split = ",", paramLabel = "N",
      description = "rows of the scale runs (default: 1M,2.5M,5M,10M; --quick: 100k,200k,400k)")
  long[] scaleRows;

  @Option(names = "--scale-partitions", defaultValue = "0",
      description = "partitions of the scale runs; 0 = Spark's default parallelism")
  int scalePartitions;

  @Option(names = "--scale-features", defaultValue = "100000",
      description = "d of the scale runs (default: ${DEFAULT-VALUE})")
  int scaleFeatures;

  @Option(names = "--large-train", description = "LIBSVM training file of the large section")
  String largeTrain;

  @Option(names = "--large-test", description = "LIBSVM test file of the large section")
  String largeTest;

  @Option(names = "--large-features", defaultValue = "0",
      description = "features of the large section's files (0: MLlib finds them with a pass;"
          + " default: ${DEFAULT-VALUE})")
  int largeFeatures;

  @Option(names = "--large-max-iter", defaultValue = "3",
      description = "maxIter of the large section's MLlib fits (default: ${DEFAULT-VALUE})")
  int largeMaxIter;

  @Option(names = "--large-methods", split = ",", paramLabel = "M",
      description = "MLlib methods of the large section: lr, svc (default: lr)")
  List<String> largeMethods = new ArrayList<>(List.of("lr"));

  @Option(names = "--shapes-rows", defaultValue = "200000",
      description = "training rows of the shapes section (default: ${DEFAULT-VALUE})")
  long shapesRows;

  @Option(names = "--shapes-epochs", defaultValue = "10",
      description = "epochs per fit of the shapes section (default: ${DEFAULT-VALUE})")
  int shapesEpochs;

  @Option(names = "--shapes-shuffle-scope", defaultValue = "auto",
      description = "the shapes section's fits' shuffleScope, auto, rows or chunks; the plain"
          + " loops keep a fresh full shuffle (default: ${DEFAULT-VALUE}, the library's)")
  String shapesShuffleScope;

  @Option(names = "--shapes-warmup-fits", defaultValue = "1",
      description = "fits of each shape before the timed ones, not timed: the plain loop's epochs"
          + " are timed after a warm-up too (default: ${DEFAULT-VALUE})")
  int shapesWarmupFits;

  @Option(names = "--model-size-rows", defaultValue = "200000",
      description = "training rows of the model-size section (default: ${DEFAULT-VALUE})")
  long modelSizeRows;

  @Option(names = "--model-size-epochs", defaultValue = "5",
      description = "epochs per fit of the model-size section (default: ${DEFAULT-VALUE})")
  int modelSizeEpochs;

  @Option(names = "--model-size-log-d", split = ",", paramLabel = "X",
      description = "d = 2^X of the model-size d sweep (default: 14,16,18,20,22,24,26; ''"
          + " for none)")
  List<String> modelSizeLogD = new ArrayList<>(List.of("14", "16", "18", "20", "22", "24", "26"));

  @Option(names = "--model-size-k", split = ",", paramLabel = "K",
      description = "classes of the model-size K sweep at d = 2^16 (default: 2,10,100,1000; ''"
          + " for none)")
  List<String> modelSizeK = new ArrayList<>(List.of("2", "10", "100", "1000"));

  @Option(names = "--export-rows", defaultValue = "0",
      description = "export section: training rows of its K = 100, d = 2^16 model (0 = 20,000;"
          + " --quick: 2,000)")
  long exportRows;

  @Option(names = "--export-scoring-rows", defaultValue = "0",
      description = "export section: dense rows scored by Spark and ONNX Runtime (0 = 100,000;"
          + " --quick: 10,000)")
  long exportScoringRows;

  @Option(names = "--export-dense-log-d", defaultValue = "-1",
      description = "export section: d = 2^X of the dense-limit model (-1 = 24, --quick: 20;"
          + " 0 skips it)")
  int exportDenseLogD;

  @Option(names = "--rounds-workers", defaultValue = "0",
      description = "workers of the rounds section; 0 = the master's task slots")
  int roundsWorkers;

  @Option(names = "--rounds-rows", defaultValue = "32000",
      description = "training rows of the rounds section (default: ${DEFAULT-VALUE})")
  long roundsRows;

  @Option(names = "--rounds-epochs", defaultValue = "10",
      description = "epochs per fit of the rounds section (default: ${DEFAULT-VALUE})")
  int roundsEpochs;

  @Option(names = "--rounds-max", defaultValue = "32",
      description = "mixingRounds of the rounds section's many-round fit (default:"
          + " ${DEFAULT-VALUE})")
  int roundsMax;

  @Option(names = "--strangers-rows", defaultValue = "32000",
      description = "training rows of the strangers section (default: ${DEFAULT-VALUE})")
  long strangersRows;

  @Option(names = "--strangers-epochs", defaultValue = "10",
      description = "epochs per fit of the strangers section (default: ${DEFAULT-VALUE})")
  int strangersEpochs;

  @Option(names = "--strangers-kinds", split = ",", paramLabel = "K",
      description = "kinds of stranger of the strangers section (default: all of"
          + " testing/Strangers.Kind: huge_length, negative_length, half_frame, silent,"
          + " slow_loris, garbage, http, no_secret, reset, flood)")
  List<String> strangersKinds = new ArrayList<>(List.of("huge_length", "negative_length",
      "half_frame", "silent", "slow_loris", "garbage", "http", "no_secret", "reset", "flood"));

  @Option(names = "--rounds-layout-rows", defaultValue = "1000000",
      description = "rows of the rounds section's layout table (4W input partitions for W"
          + " workers, coalesced or gathered; 0 skips it; default: ${DEFAULT-VALUE})")
  long roundsLayoutRows;

  @Option(names = "--many-class-epochs", defaultValue = "10",
      description = "epochs of the many-class section (default: ${DEFAULT-VALUE})")
  int manyClassEpochs;

  @Option(names = "--scoring-rows", defaultValue = "1000000",
      description = "rows the scoring section transforms (default: ${DEFAULT-VALUE})")
  long scoringRows;

  @Option(names = "--scoring-k", split = ",", paramLabel = "K",
      description = "classes of the scoring section's models (default: 100,2)")
  List<String> scoringK = new ArrayList<>(List.of("100", "2"));

  @Option(names = "--scoring-train-rows", defaultValue = "20000",
      description = "rows the scoring section's model is trained on (default: ${DEFAULT-VALUE})")
  long scoringTrainRows;

  @Option(names = "--pipeline-rows", defaultValue = "0",
      description = "pipeline section: generated rows (0 = 500,000; --quick: 50,000)")
  long pipelineRows;

  @Option(names = "--pipeline-files", defaultValue = "10",
      description = "pipeline section: LIBSVM files they are written in, one stream batch each"
          + " (default: ${DEFAULT-VALUE})")
  int pipelineFiles;

  @Option(names = "--pipeline-features", defaultValue = "100000",
      description = "pipeline section: d (default: ${DEFAULT-VALUE})")
  int pipelineFeatures;

  @Option(names = "--pipeline-nnz", defaultValue = "20",
      description = "pipeline section: non-zeros per row (default: ${DEFAULT-VALUE})")
  int pipelineNnz;

  @Option(names = "--pipeline-tiny-batches", defaultValue = "20",
      description = "pipeline section: the extra 1-row files whose batches give a batch's fixed"
          + " cost (default: ${DEFAULT-VALUE})")
  int pipelineTinyBatches;

  @Option(names = "--stream-batches-files", defaultValue = "40",
      description = "stream-batches section: generated files of 50,000 rows (the pipeline"
          + " section's d and non-zeros; default: ${DEFAULT-VALUE})")
  int streamBatchesFiles;

  @Option(names = "--stream-batches-sizes", split = ",", paramLabel = "K",
      defaultValue = "1,4,10",
      description = "stream-batches section: files per batch, a stream each (default:"
          + " ${DEFAULT-VALUE})")
  List<Integer> streamBatchesSizes;

  @Option(names = "--stream-batches-publish-intervals", split = ",", paramLabel = "S",
      defaultValue = "2",
      description = "stream-batches section: the streams' --publish-interval, each size run at"
          + " each (default: ${DEFAULT-VALUE}, the job's own default)")
  List<Integer> streamBatchesPublishIntervals;

  private SparkSession spark;
  private Report report;
  private StorageProbe probe;
  private EpochTaskTimes taskTimes;
  private final List<Bench> loaded = new ArrayList<>();

  /** A dataset as every section sees it: cached train and test frames of the same partitions. */
  private static final class Bench {
    DataShape shape;
    Dataset<Row> train;
    Dataset<Row> test;
    /** Bytes of the cached training DataFrame (Spark's storage info). */
    long frameBytes;
    boolean generated;
    /** Where the rows come from, for the datasets table. */
    String source;
  }

  /** The arguments as given, for the report's "command" line. */
  private static String[] arguments = new String[0];

  public static void main(String[] args) {
    arguments = args.clone();
    System.exit(new CommandLine(new BenchmarkRunner()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (repeats <= 0) {
      repeats = quick ? 1 : 3;
    }
    if (scaleRows == null) {
      scaleRows = quick ? new long[] {100_000, 200_000, 400_000}
          : new long[] {1_000_000, 2_500_000, 5_000_000, 10_000_000};
    }
    spark = SparkSession.builder().master(master).appName("spark-perceptron benchmarks")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", Integer.toString(partitions))
        .getOrCreate();
    probe = new StorageProbe();
    spark.sparkContext().addSparkListener(probe);
    taskTimes = new EpochTaskTimes();
    spark.sparkContext().addSparkListener(taskTimes);
    report = new Report(out, reportName, spark.version(), System.getenv().getOrDefault("BENCH_COMMAND",
        ("BenchmarkRunner " + String.join(" ", arguments)).strip()) + (System.getenv(
        "BENCH_COMMAND") == null ? "" : " (this JVM: " + String.join(" ", arguments) + ")"));
    report.markdown(Report.f("- Spark master: `%s`; cached inputs in %d partitions; %d"
        + " repetition(s) per timing, medians reported\n\n", master, partitions, repeats));
    Files.createDirectories(out);
    long start = System.nanoTime();
    try {
      if (sections.contains("mllib") || sections.contains("epoch")
          || sections.contains("partitions") || sections.contains("mixing-cost")
          || sections.contains("order") || sections.contains("order-accuracy")
          || sections.contains("defaults")) {
        loadDatasets();
      }
      if (sections.contains("defaults")) {
        List<DefaultsBench.Data> sets = new ArrayList<>();
        for (Bench b : loaded) {
          sets.add(new DefaultsBench.Data(b.shape, b.train, b.test));
        }
        for (Bench b : defaultsKinds()) {
          sets.add(new DefaultsBench.Data(b.shape, b.train, b.test));
        }
        new DefaultsBench(report, repeats).run(sets, load());
      }
      if (sections.contains("mllib")) {
        mllibSection();
      }
      if (sections.contains("epoch")) {
        epochSection();
      }
      if (sections.contains("partitions")) {
        partitionsSection();
      }
      if (sections.contains("mixing-cost")) {
        mixingCostSection();
      }
      if (sections.contains("scale")) {
        scaleSection();
      }
      if (sections.contains("order") || sections.contains("order-kernel")) {
        orderKernelSection();
      }
      if (sections.contains("order") || sections.contains("order-accuracy")) {
        orderAccuracySection();
      }
      if (sections.contains("rounds")) {
        RoundsBench rounds = new RoundsBench(spark, report, repeats);
        int roundsW = roundsWorkers > 0 ? roundsWorkers
            : spark.sparkContext().defaultParallelism();
        rounds.run(roundsW, roundsRows, roundsEpochs, roundsMax, load());
        if (roundsLayoutRows > 0) {
          rounds.layout(roundsW, roundsLayoutRows, load());
        }
      }
      if (sections.contains("strangers")) {
        new StrangersBench(spark, report, repeats).run(strangersRows, strangersEpochs,
            strangersKinds);
      }
      if (sections.contains("pipeline")) {
        new PipelineBench(report, master, out, repeats).run(
            pipelineRows > 0 ? pipelineRows : quick ? 50_000 : 500_000, pipelineFiles,
            pipelineFeatures, pipelineNnz, pipelineTinyBatches);
      }
      if (sections.contains("lines")) {
        new LinesBench(new PipelineBench(report, master, out, repeats), report, repeats)
            .run(streamBatchesFiles, pipelineFeatures, pipelineNnz);
      }
      if (sections.contains("stream-batches")) {
        new StreamBatchBench(report, master, out, repeats).run(streamBatchesFiles,
            streamBatchesSizes, streamBatchesPublishIntervals, pipelineFeatures, pipelineNnz);
      }
      if (sections.contains("model-size") || sections.contains("many-class")
          || sections.contains("many-class-seeds")) {
        ExchangeBench exchange = new ExchangeBench(spark, report, out, master, partitions,
            repeats);
        if (sections.contains("model-size")) {
          exchange.modelSize(modelSizeRows, modelSizeEpochs, integers(modelSizeLogD),
              integers(modelSizeK));
        }
        if (sections.contains("many-class")) {
          exchange.manyClass(manyClassEpochs);
        }
        if (sections.contains("many-class-seeds")) {
          exchange.manyClassSeeds(8);
        }
      }
      if (sections.contains("export")) {
        new ExportBench(spark, report, master, partitions, repeats, dataDir, out).run(
            exportRows > 0 ? exportRows : quick ? 2_000 : 20_000,
            exportScoringRows > 0 ? exportScoringRows : quick ? 10_000 : 100_000,
            exportDenseLogD >= 0 ? exportDenseLogD : quick ? 20 : 24);
      }
      if (sections.contains("shapes")) {
        new ShapesBench(spark, report, master, partitions, repeats).run(
            quick ? shapesRows / 10 : shapesRows, shapesEpochs, shapesWarmupFits, only,
            shapesShuffleScope);
      }
      if (sections.contains("large")) {
        if (largeTrain == null || largeTest == null) {
          throw new IllegalArgumentException("--sections large needs --large-train and"
              + " --large-test");
        }
        new LargeFileBench(spark, report).run(largeTrain, largeTest, largeFeatures,
            largeMaxIter, largeMethods, load());
      }
      if (sections.contains("calibration")) {
        new CalibrationBench(spark, report, partitions, repeats, dataDir, out).run(quick, only);
      }
      if (sections.contains("small-fits")) {
        new SmallFitsBench(spark, report, repeats, dataDir).run(load());
      }
      if (sections.contains("scoring")) {
        new ScoringBench(spark, report, master, partitions, repeats).run(scoringRows,
            integers(scoringK), scoringTrainRows);
      }
      report.markdown(Report.f("Total benchmark time: %.1f min\n",
          (System.nanoTime() - start) / 60e9));
      report.flush();
      System.out.println("Results in " + out.toAbsolutePath());
      return 0;
    } finally {
      spark.stop();
    }
  }

  // ---------------------------------------------------------------------------------- datasets

  private void loadDatasets() {
    for (String name : List.of("breast_cancer", "spark_sample_libsvm", "skin_nonskin", "iris",
        "pendigits")) {
      Path train = dataFile(name, "train.libsvm");
      if (!wanted(name)) {
        continue;
      }
      if (!Files.exists(train)) {
        System.err.println("skipping " + name + ": no " + train);
        continue;
      }
      LabeledData tr = LibSvmSource.read(spark, train.toString(), -1, "train");
      LabeledData te = LibSvmSource.read(spark, dataFile(name, "test.libsvm").toString(),
          tr.numFeatures(), "test");
      Bench b = cache(name, tr.frame(), te.frame(), tr.numFeatures(), null, false);
      b.source = dataDir.resolve(name).toString();
      loaded.add(b);
    }
    if (quick) {
      generated("gen-sparse-50k", SyntheticData.builder().numFeatures(10_000).nonZerosPerRow(20)
          .margin(0.05).labelNoise(0.05).seed(11).build(), 50_000);
      generated("gen-multi-sparse-20k", SyntheticData.builder().numFeatures(1000)
          .nonZerosPerRow(30).numClasses(10).margin(0.05).labelNoise(0.05).seed(18).build(),
          20_000);
      generated("gen-dense-20k", SyntheticData.builder().numFeatures(50).dense()
          .margin(0.05).labelNoise(0.05).seed(12).build(), 20_000);
    } else {
      generated("gen-sparse-100k", SyntheticData.builder().numFeatures(10_000).nonZerosPerRow(20)
          .margin(0.05).labelNoise(0.05).seed(11).build(), 100_000);
      generated("gen-dense-100k", SyntheticData.builder().numFeatures(50).dense()
          .margin(0.05).labelNoise(0.05).seed(12).build(), 100_000);
      generated("gen-sparse-1M", SyntheticData.builder().numFeatures(100_000)
          .nonZerosPerRow(20).margin(0.05).labelNoise(0.05).seed(13).build(), 1_000_000);
      generated("gen-dense-200k", SyntheticData.builder().numFeatures(100).dense()
          .margin(0.05).labelNoise(0.05).seed(14).build(), 200_000);
      generated("gen-multi-sparse-50k", SyntheticData.builder().numFeatures(1000)
          .nonZerosPerRow(30).numClasses(10).margin(0.05).labelNoise(0.05).seed(18).build(),
          50_000);
      generated("gen-multi-dense-50k", SyntheticData.builder().numFeatures(20).dense()
          .numClasses(10).margin(0.02).labelNoise(0.1).seed(17).build(), 50_000);
      generated("gen-multi20-sparse-40k", SyntheticData.builder().numFeatures(2000)
          .nonZerosPerRow(20).numClasses(20).margin(0.05).labelNoise(0.05).seed(16).build(),
          40_000);
    }
    Report.Table t = new Report.Table("dataset", "train rows x features", "stored values",
        "classes", "test rows", "source");
    for (Bench b : loaded) {
      t.row(b.shape.name, Report.f("%,d x %,d", b.shape.rows, b.shape.numFeatures),
          Report.f("%,d", b.shape.storedValues), b.shape.numClasses,
          Report.f("%,d", b.test.count()), b.source);
    }
    report.markdown("## Datasets\n\n").markdown(t.toString());
    report.flush();
  }

  /**
   * The kinds of data issue 32's first target names that the loaded sets lack: 26 classes of
   * dense rows (as the letters set: 16 features, 15,000 rows) and the many-class section's
   * text-like set (105 classes, 55,000 sparse features, 6,400 rows). Cached for the defaults
   * section only; {@code --datasets} selects them by name as the others.
   */
  private List<Bench> defaultsKinds() {
    List<Bench> kinds = new ArrayList<>();
    if (wanted("gen-multi26-dense-15k")) {
      SyntheticData letters = SyntheticData.builder().numFeatures(16).dense().numClasses(26)
          .margin(0.05).labelNoise(0.05).seed(47).build();
      Bench b = cache("gen-multi26-dense-15k", letters.frame(spark, 0, 15_000, partitions),
          letters.frame(spark, 15_000, 3_000, partitions), letters.numFeatures(), letters.seed(),
          true);
      b.source = "SyntheticData " + letters.describe();
      kinds.add(b);
    }
    if (wanted("text-like-105")) {
      TextLikeData text = ExchangeBench.manyClassData();
      Bench b = cache("text-like-105",
          text.frame(spark, 0, ExchangeBench.MANY_CLASS_TRAIN_ROWS, partitions),
          text.frame(spark, ExchangeBench.MANY_CLASS_TRAIN_ROWS,
              ExchangeBench.MANY_CLASS_TEST_ROWS, partitions), text.numFeatures, text.seed,
          false);
      b.source = text.describe();
      kinds.add(b);
    }
    return kinds;
  }

  /** DIR/NAME/FILE, or its gzipped copy FILE.gz (how data-samples/ ships the larger sets). */
  private Path dataFile(String name, String file) {
    Path plain = dataDir.resolve(name).resolve(file);
    Path gzipped = plain.resolveSibling(file + ".gz");
    return !Files.exists(plain) && Files.exists(gzipped) ? gzipped : plain;
  }

  private void generated(String name, SyntheticData data, long rows) {
    if (!wanted(name)) {
      return;
    }
    long testRows = Math.min(100_000, Math.max(1000, rows / 10));
    Bench b = cache(name, data.frame(spark, 0, rows, partitions),
        data.frame(spark, rows, testRows, partitions), data.numFeatures(), data.seed(),
        data.isDense());
    b.source = "SyntheticData " + data.describe();
    loaded.add(b);
  }

  private boolean wanted(String name) {
    return only == null || only.contains(name);
  }

  private Bench cache(String name, Dataset<Row> train, Dataset<Row> test, int numFeatures,
      Long seed, boolean dense) {
    Set<Integer> before = cachedRddIds();
    Bench b = new Bench();
    b.train = train.repartition(partitions).cache();
    long rows = b.train.count();
    b.frameBytes = cachedBytesSince(before);
    b.test = test.repartition(partitions).cache();
    b.test.count();
    long stored = b.train.javaRDD().map(r -> (long) ((Vector) r.get(1)).numNonzeros())
        .reduce(Long::sum);
    int classes = (int) b.train.javaRDD().map(r -> r.getDouble(0)).reduce(Math::max).doubleValue()
        + 1;
    b.shape = new DataShape(name, rows, numFeatures, stored, Math.max(2, classes), seed, dense);
    b.generated = seed != null;
    System.err.println("loaded " + name + ": " + b.shape.describe());
    return b;
  }

  private Set<Integer> cachedRddIds() {
    Set<Integer> ids = new HashSet<>();
    for (RDDInfo info : spark.sparkContext().getRDDStorageInfo()) {
      ids.add(info.id());
    }
    return ids;
  }

  private long cachedBytesSince(Set<Integer> before) {
    long bytes = 0;
    for (RDDInfo info : spark.sparkContext().getRDDStorageInfo()) {
      if (!before.contains(info.id())) {
        bytes += info.memSize() + info.diskSize();
      }
    }
    return bytes;
  }

  // ------------------------------------------------------------------------------------- mllib

  /** One estimator configuration of the comparison. */
  private static final class Method {
    final String name;
    final Supplier<Estimator<?>> estimator;
    final boolean binaryOnly;

    Method(String name, Supplier<Estimator<?>> estimator, boolean binaryOnly) {
      this.name = name;
      this.estimator = estimator;
      this.binaryOnly = binaryOnly;
    }
  }

  private static List<Method> methods() {
    List<Method> m = new ArrayList<>();
    m.add(new Method("Perceptron (defaults: average, momentum)", PerceptronClassifier::new,
        false));
    for (String averaging : List.of("none", "average")) {
      for (String mixing : List.of("momentum", "mistakes", "uniform", "oneshot")) {
        if (!(averaging.equals("average") && mixing.equals("momentum"))) {
          m.add(new Method("Perceptron " + averaging + ", " + mixing,
              () -> new PerceptronClassifier().setAveraging(averaging).setMixing(mixing), false));
        }
      }
    }
    m.add(new Method("LinearSVC (defaults)", LinearSVC::new, true));
    m.add(new Method("LinearSVC maxIter=10", () -> new LinearSVC().setMaxIter(10), true));
    m.add(new Method("LogisticRegression (defaults)", LogisticRegression::new, false));
    return m;
  }

  private void mllibSection() {
    report.markdown("## Fit time and test accuracy against MLlib\n\n"
        + "Median fit time over the repetitions (fewer when one fit takes over a minute); test"
        + " accuracy of the last fit. Same cached input, same partitions for every estimator. "
        + load() + "\n\n");
    DefaultCategoryDataset chart = new DefaultCategoryDataset();
    Report.Table targets = new Report.Table("dataset", "perceptron acc", "best MLlib acc",
        "acc gap (points)", "fit / LinearSVC", "fit / LR", "target met");
    for (Bench b : loaded) {
      Report.Table t = new Report.Table("method", "fit s", "fits", "test accuracy", "epochs");
      Map<String, double[]> results = new LinkedHashMap<>();
      for (Method m : methods()) {
        if (m.binaryOnly && b.shape.numClasses > 2) {
          t.row(m.name, "n/a (binary only)", "", "", "");
          continue;
        }
        List<Double> times = new ArrayList<>();
        Model<?> model = null;
        double total = 0;
        for (int r = 0; r < repeats && (r == 0 || total < 60); r++) {
          long start = System.nanoTime();
          model = m.estimator.get().fit(b.train);
          double s = (System.nanoTime() - start) / 1e9;
          times.add(s);
          total += s;
        }
        double fit = PlainLoop.median(times.stream().mapToDouble(Double::doubleValue).toArray());
        double accuracy = accuracy(model, b.test);
        String epochs = model instanceof PerceptronClassificationModel
            ? Integer.toString(((PerceptronClassificationModel) model).summary().totalIterations())
            : "";
        results.put(m.name, new double[] {fit, accuracy});
        t.row(m.name, Report.f("%.2f", fit), times.size(), Report.f("%.4f", accuracy), epochs);
        report.add("mllib", b.shape, partitions, m.name, "fit_seconds", fit, "s");
        report.add("mllib", b.shape, partitions, m.name, "test_accuracy", accuracy, "");
        chart.addValue(fit, m.name, b.shape.name);
        System.err.printf(Locale.ROOT, "%s %s: fit %.2f s, accuracy %.4f%n", b.shape.name,
            m.name, fit, accuracy);
      }
      report.markdown("### " + b.shape.name + " (" + b.shape.describe() + ")\n\n")
          .markdown(t.toString());
      double[] p = results.get(methods().get(0).name);
      double[] svc = results.get("LinearSVC (defaults)");
      double[] lr = results.get("LogisticRegression (defaults)");
      double best = Math.max(svc == null ? 0 : svc[1], lr[1]);
      double gap = 100 * (best - p[1]);
      double vsSvc = svc == null ? Double.NaN : p[0] / svc[0];
      double vsLr = p[0] / lr[0];
      boolean met = gap <= 1.0 && (svc == null || vsSvc <= 0.1) && vsLr <= 0.5;
      targets.row(b.shape.name, Report.f("%.4f", p[1]), Report.f("%.4f", best),
          Report.f("%+.2f", gap), svc == null ? "n/a" : Report.f("%.3f", vsSvc),
          Report.f("%.3f", vsLr), b.shape.numClasses == 2 ? (met ? "yes" : "no") : "(multiclass)");
      report.add("mllib", b.shape, partitions, "Perceptron defaults", "fit_over_linearsvc", vsSvc,
          "ratio");
      report.add("mllib", b.shape, partitions, "Perceptron defaults", "fit_over_lr", vsLr,
          "ratio");
      report.flush();
    }
    report.markdown("### Target: defaults within 1 point of the better of LinearSVC and LR, in at"
        + " most 1/10 of LinearSVC's and 1/2 of LR's fit time\n\n").markdown(targets.toString());
    Charts.bars(out.resolve("fit-time.png"), "Fit time (median)", "dataset", "seconds (log)",
        chart, true);
    report.markdown("![fit time](fit-time.png)\n\n");
    report.flush();
  }

  private static double accuracy(Model<?> model, Dataset<Row> test) {
    return new MulticlassClassificationEvaluator().setMetricName("accuracy")
        .evaluate(model.transform(test));
  }

  // ------------------------------------------------------------------------- epoch and memory

  private void epochSection() {
    int epochs = quick ? 5 : 10;
    report.markdown(Report.f("## One epoch: Spark against the plain single-threaded loop\n\n"
        + "Averaged perceptron (the default). Plain loop: `OnlineLearner.runEpoch` over one"
        + " TrainingBlock of all training rows built by `TrainingBlockBuilder`, one thread, no"
        + " Spark, a fresh full shuffle of the rows every epoch (shuffleScope=rows: the naive"
        + " shuffled loop), the order's drawing included; median of %d epochs after one warm-up"
        + " epoch. Plain chunks: the same loop in the chunked order (shuffleScope=chunks, block"
        + " laid out once). Spark: `%s`, %d partitions, `summary().epochSeconds()` (driver wall"
        + " clock of the epoch's job: broadcast, tasks, tree aggregation, mixing), median of"
        + " epochs 2..%d, with shuffleScope=chunks and with shuffleScope=rows (the default,"
        + " auto, is one of the two by the workers' size)."
        + " %d alternating repetitions; ratio = Spark / plain loop (2 cores: 0.5 is the limit)."
        + " Longest task: Spark's task metrics (executor run time and CPU time) of the slower of"
        + " the epoch's tasks (shuffleScope=chunks), which runs the kernel on its half of the"
        + " rows; task CPU / plain CPU is the in-task work against the plain loop's, free of waiting for a core."
        + " Spark ms outside tasks = Spark ms − longest task ms: scheduling, broadcast, task and"
        + " result (de)serialisation, tree aggregation, mixing on the driver. %s\n\n",
        epochs, master, partitions, epochs + 1, repeats, load()));
    Report.Table t = new Report.Table("dataset", "stored values", "plain ms", "plain ns/value",
        "plain CPU ms", "plain chunks ms", "Spark rows ms", "Spark chunks ms", "longest task ms",
        "its CPU ms", "Spark rows / plain", "Spark chunks / plain", "task CPU / plain CPU",
        "Spark ms outside tasks");
    Report.Table m = new Report.Table("dataset", "raw CSR bytes", "cached blocks bytes",
        "blocks / raw CSR", "cached DataFrame bytes", "blocks / DataFrame", "blocks on disk");
    DefaultCategoryDataset chart = new DefaultCategoryDataset();
    for (Bench b : loaded) {
      PlainLoop plain = new PlainLoop(b.train.toLocalIterator(), b.shape.numFeatures,
          b.shape.numClasses, Averaging.AVERAGE, ShuffleScope.ROWS);
      PlainLoop plainChunks = new PlainLoop(b.train.toLocalIterator(), b.shape.numFeatures,
          b.shape.numClasses, Averaging.AVERAGE, ShuffleScope.CHUNKS);
      double[] plainTimes = new double[repeats];
      double[] plainCpu = new double[repeats];
      double[] chunkTimes = new double[repeats];
      List<Double> sparkTimes = new ArrayList<>();
      List<Double> sparkRowsTimes = new ArrayList<>();
      List<Double> taskRun = new ArrayList<>();
      List<Double> taskCpu = new ArrayList<>();
      long blockBytes = 0;
      boolean spilled = false;
      for (int r = 0; r < repeats; r++) {
        plainTimes[r] = plain.medianEpochSeconds(epochs);
        plainCpu[r] = plain.medianCpuSeconds();
        chunkTimes[r] = plainChunks.medianEpochSeconds(epochs);
        Set<Integer> before = probe.seen();
        taskTimes.clear();
        PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(epochs + 1)
            .setTol(0).setNumWorkers(partitions).setShuffleScope("chunks").fit(b.train);
        waitForListener();
        blockBytes = probe.peakBytesSince(before);
        spilled |= probe.spilledSince(before);
        double[] s = model.summary().epochSeconds();
        double[] run = taskTimes.longestTaskSeconds();
        double[] cpu = taskTimes.longestTaskCpuSeconds();
        // Epoch 1 is dropped on both sides (the plain loop's warm-up epoch).
        for (int e = 1; e < s.length; e++) {
          sparkTimes.add(s[e]);
        }
        for (int e = 1; e < run.length; e++) {
          taskRun.add(run[e]);
          taskCpu.add(cpu[e]);
        }
        double[] rows = new PerceptronClassifier().setMaxIter(epochs + 1).setTol(0)
            .setNumWorkers(partitions)
            .setShuffleScope("rows").fit(b.train).summary().epochSeconds();
        for (int e = 1; e < rows.length; e++) {
          sparkRowsTimes.add(rows[e]);
        }
      }
      double plainMedian = PlainLoop.median(plainTimes);
      double plainCpuMedian = PlainLoop.median(plainCpu);
      double chunksMedian = PlainLoop.median(chunkTimes);
      double sparkMedian = median(sparkTimes);
      double sparkRowsMedian = median(sparkRowsTimes);
      double runMedian = median(taskRun);
      double cpuMedian = median(taskCpu);
      double ratio = sparkMedian / plainMedian;
      double rowsRatio = sparkRowsMedian / plainMedian;
      long stored = plain.block().features().storedValues();
      t.row(b.shape.name, Report.f("%,d", b.shape.storedValues),
          Report.f("%.3f", plainMedian * 1e3),
          Report.f("%.2f", plainMedian * 1e9 / b.shape.storedValues),
          Report.f("%.3f", plainCpuMedian * 1e3), Report.f("%.3f", chunksMedian * 1e3),
          Report.f("%.3f", sparkRowsMedian * 1e3), Report.f("%.3f", sparkMedian * 1e3),
          Report.f("%.1f", runMedian * 1e3), Report.f("%.1f", cpuMedian * 1e3),
          Report.f("%.2f", rowsRatio), Report.f("%.2f", ratio),
          Report.f("%.2f", cpuMedian / plainCpuMedian),
          Report.f("%.1f", (sparkMedian - runMedian) * 1e3));
      report.add("epoch", b.shape, 1, "plain loop (1 thread, no Spark)", "epoch_cpu_seconds",
          plainCpuMedian, "s");
      report.add("epoch", b.shape, 1, "plain loop, chunked order", "epoch_seconds",
          chunksMedian, "s");
      report.add("epoch", b.shape, partitions, "Spark " + master, "longest_task_run_seconds",
          runMedian, "s");
      report.add("epoch", b.shape, partitions, "Spark " + master, "longest_task_cpu_seconds",
          cpuMedian, "s");
      report.add("epoch", b.shape, 1, "plain loop (1 thread, no Spark)", "epoch_seconds",
          plainMedian, "s");
      report.add("epoch", b.shape, partitions, "Spark " + master + ", shuffleScope=chunks",
          "epoch_seconds", sparkMedian, "s");
      report.add("epoch", b.shape, partitions, "Spark " + master + ", shuffleScope=rows",
          "epoch_seconds", sparkRowsMedian, "s");
      report.add("epoch", b.shape, partitions, "Spark shuffleScope=chunks / plain", "epoch_ratio",
          ratio, "ratio");
      report.add("epoch", b.shape, partitions, "Spark shuffleScope=rows / plain", "epoch_ratio",
          rowsRatio, "ratio");
      chart.addValue(plainMedian, "plain loop, 1 thread", b.shape.name);
      chart.addValue(sparkRowsMedian, "Spark " + master + ", " + partitions
          + " partitions, shuffleScope=rows", b.shape.name);
      chart.addValue(sparkMedian, "Spark " + master + ", " + partitions + " partitions",
          b.shape.name);

      long raw = 12L * b.shape.storedValues + 4L * (b.shape.rows + partitions) + 4L * b.shape.rows;
      m.row(b.shape.name, Report.f("%,d", raw), Report.f("%,d", blockBytes),
          Report.f("%.3f", blockBytes / (double) raw), Report.f("%,d", b.frameBytes),
          Report.f("%.3f", blockBytes / (double) b.frameBytes), spilled ? "yes" : "no");
      report.add("memory", b.shape, partitions, "raw CSR (12 B/nnz + row starts + labels)",
          "bytes", raw, "B");
      report.add("memory", b.shape, partitions, "cached training blocks", "bytes", blockBytes,
          "B");
      report.add("memory", b.shape, partitions, "cached DataFrame", "bytes", b.frameBytes, "B");
      report.add("memory", b.shape, 1, "TrainingBlock.sizeInBytes (plain loop's block)", "bytes",
          plain.block().sizeInBytes(), "B");
      System.err.printf(Locale.ROOT, "%s: plain %.4f s, plain chunks %.4f s, spark %.4f s"
          + " (%.2fx), spark rows %.4f s (%.2fx); blocks %,d B, raw %,d B, frame %,d B, %d"
          + " stored%n", b.shape.name, plainMedian, chunksMedian, sparkMedian, ratio,
          sparkRowsMedian, rowsRatio, blockBytes, raw, b.frameBytes, stored);
      report.flush();
    }
    report.markdown(t.toString()).markdown("After the section: " + load() + "\n\n");
    Charts.bars(out.resolve("epoch-time.png"), "Seconds per epoch: Spark vs plain loop",
        "dataset", "seconds (log)", chart, true);
    report.markdown("![epoch time](epoch-time.png)\n\n");
    report.markdown("## Memory of the cached training blocks\n\n"
        + "Cached blocks: the peak of Spark's storage info (block manager sizes) for the RDD the"
        + " estimator caches during `fit`. Raw CSR: 12 bytes per stored value + 4 per row start"
        + " + 4 per label (no weights here). Blocks of data at least 2/3 dense are stored dense"
        + " (8 bytes per value), so they can be below the raw CSR size. Cached DataFrame: the"
        + " same training rows (label, vector) cached with `Dataset.cache()`.\n\n")
        .markdown(m.toString());
    report.flush();
  }

  /**
   * The machine's load average, printed with every timing section: these machines are shared,
   * and a load above the core count means the timings waited for a CPU.
   */
  private static String load() {
    return SystemLoad.text();
  }

  private static double median(List<Double> values) {
    return PlainLoop.median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Lets the asynchronous listener bus deliver the block updates of the last job. */
  static void waitForListener() {
    try {
      Thread.sleep(500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ------------------------------------------------------------------------------------ order

  /** The partition counts of the accuracy comparison of the visiting orders. */
  private static final int[] ORDER_PARTITIONS = {1, 2, 16};

  private void orderKernelSection() {
    int rounds = quick ? 5 : 15;
    report.markdown(Report.f("## Visiting order: kernel time per order and chunk size\n\n"
        + "`KernelOrderTimes`: one epoch of `OnlineLearner.runEpoch` (averaged perceptron, from"
        + " the weights after one epoch) on one thread without Spark, timed by the thread's CPU"
        + " clock; every round runs each order once, %d rounds (after 2 untimed ones), medians."
        + " rows: a full shuffle over the block in input order; sequential: storage order;"
        + " chunks: the chunked order over the laid-out block, C rows a chunk, reading the next"
        + " chunk ahead (the library's kernel); chunks, no prefetch: the same order without"
        + " reading ahead; chunks, storage order inside: the chunks in random order, their rows"
        + " in storage order. x sequential = CPU time / the sequential order's. %s\n\n",
        rounds, load()));
    for (KernelOrderTimes.Shape shape : KernelOrderTimes.SHAPES) {
      List<KernelOrderTimes.Result> results = KernelOrderTimes.measure(shape, rounds);
      long values = shape.nonZeros == 0 ? (long) shape.rows * shape.numFeatures
          : (long) shape.rows * shape.nonZeros;
      double bytesPerRow = shape.nonZeros == 0 ? 8.0 * shape.numFeatures
          : 12.0 * shape.nonZeros + 4;
      double sequential = results.get(1).cpuSeconds;
      DataShape data = new DataShape(shape.name, shape.rows, shape.numFeatures, values, 2, 3L,
          shape.nonZeros == 0);
      Report.Table t = new Report.Table("order", "C rows", "chunk KiB", "CPU ms", "ns/value",
          "x sequential", "wall ms");
      for (KernelOrderTimes.Result r : results) {
        t.row(r.order, r.chunkRows == 0 ? "" : Integer.toString(r.chunkRows),
            r.chunkRows == 0 ? "" : Report.f("%.0f", r.chunkRows * bytesPerRow / 1024),
            Report.f("%.2f", r.cpuSeconds * 1e3), Report.f("%.2f", r.cpuSeconds * 1e9 / values),
            Report.f("%.2f", r.cpuSeconds / sequential), Report.f("%.2f", r.wallSeconds * 1e3));
        String method = r.order + (r.chunkRows == 0 ? "" : ", C=" + r.chunkRows);
        report.add("order-kernel", data, 1, method, "epoch_cpu_seconds", r.cpuSeconds, "s");
        report.add("order-kernel", data, 1, method, "epoch_wall_seconds", r.wallSeconds, "s");
      }
      report.markdown("#### " + shape.name + "\n\n").markdown(t.toString());
      report.flush();
    }
    report.markdown("After the kernel measurement: " + load() + "\n\n");
    report.flush();
  }

  private void orderAccuracySection() {

    int k = orderSeeds;
    report.markdown(Report.f("## Visiting order: test accuracy, shuffleScope=rows against"
        + " chunks\n\nDefaults (averaged perceptron, 10 epochs, tol 1e-6) but for"
        + " mixing=" + orderMixing + ", shuffleScope and seed, on the training rows repartitioned"
        + " into P partitions (the same cached rows for every fit); test accuracy on the held-out"
        + " rows."
        + " rows and chunks: mean over seeds 1..%d; chunks − rows in points, with the standard"
        + " error of that mean (from the per-seed differences, paired by seed) and the smallest"
        + " and largest per-seed difference. Seed noise: the full shuffle with seeds %d..%d"
        + " against seeds 1..%d, the difference that another seed alone makes (a reference for"
        + " how small a difference these test sets can show). %s\n\n", k, k + 1, 2 * k, k,
        load()));
    Report.Table t = new Report.Table("dataset", "P", "rows", "chunks", "chunks − rows",
        "± s.e.", "per-seed range", "seed noise: rows − rows");
    for (Bench b : loaded) {
      for (int p : ORDER_PARTITIONS) {
        Dataset<Row> frame = p == partitions ? b.train : b.train.repartition(p).cache();
        double[] rows = new double[k];
        double[] chunks = new double[k];
        double[] otherRows = new double[k];
        for (int i = 0; i < k; i++) {
          long seed = i + 1;
          // Issue 14's comparison was made under mistake-weighted mixing (the default then).
          rows[i] = accuracy(new PerceptronClassifier().setSeed(seed).setNumWorkers(p)
              .setMixing(orderMixing).setShuffleScope("rows").fit(frame), b.test);
          chunks[i] = accuracy(new PerceptronClassifier().setSeed(seed).setNumWorkers(p)
              .setMixing(orderMixing).setShuffleScope("chunks").fit(frame), b.test);
          otherRows[i] = accuracy(new PerceptronClassifier().setSeed(seed + k).setNumWorkers(p)
              .setMixing(orderMixing).setShuffleScope("rows").fit(frame), b.test);
          report.add("order-accuracy", b.shape, p, "shuffleScope=rows, seed " + seed,
              "test_accuracy", rows[i], "");
          report.add("order-accuracy", b.shape, p, "shuffleScope=chunks, seed " + seed,
              "test_accuracy", chunks[i], "");
          report.add("order-accuracy", b.shape, p, "shuffleScope=rows, seed " + (seed + k),
              "test_accuracy", otherRows[i], "");
        }
        if (frame != b.train) {
          frame.unpersist();
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < k; i++) {
          lo = Math.min(lo, chunks[i] - rows[i]);
          hi = Math.max(hi, chunks[i] - rows[i]);
        }
        double meanRows = Arrays.stream(rows).average().orElse(Double.NaN);
        double meanChunks = Arrays.stream(chunks).average().orElse(Double.NaN);
        double meanOther = Arrays.stream(otherRows).average().orElse(Double.NaN);
        double squares = 0;
        for (int i = 0; i < k; i++) {
          double e = chunks[i] - rows[i] - (meanChunks - meanRows);
          squares += e * e;
        }
        double standardError = k > 1 ? Math.sqrt(squares / (k - 1) / k) : Double.NaN;
        t.row(b.shape.name, p, Report.f("%.4f", meanRows), Report.f("%.4f", meanChunks),
            Report.f("%+.2f", 100 * (meanChunks - meanRows)),
            Report.f("%.2f", 100 * standardError),
            Report.f("%+.2f .. %+.2f", 100 * lo, 100 * hi),
            Report.f("%+.2f", 100 * (meanOther - meanRows)));
        report.add("order-accuracy", b.shape, p, "chunks - rows, mean over seeds",
            "test_accuracy_difference", meanChunks - meanRows, "");
        report.add("order-accuracy", b.shape, p, "rows (other seeds) - rows, mean over seeds",
            "test_accuracy_difference", meanOther - meanRows, "");
        System.err.printf(Locale.ROOT, "order %s P=%d: rows %.4f chunks %.4f rows' %.4f%n",
            b.shape.name, p, meanRows, meanChunks, meanOther);
      }
      report.flush();
    }
    report.markdown(t.toString()).markdown("After the section: " + load() + "\n\n");
    report.flush();
  }

  // ------------------------------------------------------------------------------ mixing cost

  /**
   * What an epoch costs under each mixing mode at the default workers (one per partition of
   * {@code --partitions}): fits of every mode alternate, so that the machine's load falls on all
   * of them alike; median epoch seconds over epochs 2.. of every repetition, and its ratio to
   * {@code mistakes} (issue 9's target: momentum at most 1.10).
   */
  private void mixingCostSection() {
    int epochs = quick ? 5 : 10;
    List<String> modes = List.of("mistakes", "momentum", "uniform");
    report.markdown(Report.f("## Epoch time per mixing mode\n\nAveraged perceptron, %d workers,"
        + " `mixingRounds` automatic (momentum: %d rounds per epoch), %d epochs + 1 warm-up, tol=0;"
        + " the modes' fits alternate, %d repetitions; median of `summary().epochSeconds()` over"
        + " epochs 2.. of all repetitions. %s\n\n", partitions, Math.min(partitions, 64), epochs,
        repeats, load()));
    Report.Table t = new Report.Table("dataset", "mixing", "median epoch ms", "/ mistakes",
        "test accuracy");
    for (Bench b : loaded) {
      Map<String, List<Double>> seconds = new LinkedHashMap<>();
      Map<String, Double> accuracy = new LinkedHashMap<>();
      for (String mode : modes) {
        seconds.put(mode, new ArrayList<>());
      }
      for (int r = 0; r < repeats; r++) {
        for (String mode : modes) {
          PerceptronClassificationModel model = new PerceptronClassifier()
              .setMaxIter(epochs + 1).setTol(0).setMixing(mode).setNumWorkers(partitions)
              .fit(b.train);
          double[] s = model.summary().epochSeconds();
          for (int e = 1; e < s.length; e++) {
            seconds.get(mode).add(s[e]);
          }
          accuracy.put(mode, accuracy(model, b.test));
        }
      }
      double base = median(seconds.get("mistakes"));
      for (String mode : modes) {
        double m = median(seconds.get(mode));
        t.row(b.shape.name, mode, Report.f("%.1f", 1000 * m), Report.f("%.3f", m / base),
            Report.f("%.4f", accuracy.get(mode)));
        report.add("mixing-cost", b.shape, partitions, mode, "median_epoch_seconds", m, "s");
        report.add("mixing-cost", b.shape, partitions, mode, "epoch_time_over_mistakes",
            m / base, "ratio");
      }
      System.err.printf(Locale.ROOT, "mixing-cost %s: %s%n", b.shape.name, t);
      report.flush();
    }
    report.markdown(t.toString()).markdown("\n");
    report.flush();
  }

  // ------------------------------------------------------------------------------- partitions

  private void partitionsSection() {
    int epochs = partitionEpochs > 0 ? partitionEpochs : quick ? 10 : 20;
    int[] counts = partitionCounts != null ? partitionCounts
        : quick ? new int[] {1, 2, 4, 16, 64} : new int[] {1, 2, 4, 8, 16, 32, 64, 128, 256};
    int refEpoch = Math.min(REFERENCE_EPOCH, epochs);
    report.markdown(Report.f("## Test accuracy after each epoch against the number of"
        + " workers\n\nEach run trains on the same rows repartitioned into P partitions with"
        + " numWorkers = P, %d epochs, tol=0, defaults otherwise; the test rows ride along as"
        + " validation rows (`validationIndicatorCol`), so the accuracy after every epoch comes"
        + " from one fit. One-shot mixing trains every worker alone and forms no model per"
        + " epoch, so it is fitted once per epoch count (1, 2, 3, 5, 8, 13, 20, ...). Cells:"
        + " test accuracy after epoch %d, its difference to 1 worker in points, and the epochs"
        + " needed to reach the 1-worker accuracy of epoch %d (within 0.1 point; `>%d`: not"
        + " within the run). %s\n\n", epochs, refEpoch, refEpoch, epochs, load()));
    List<String> names = partitionDatasets != null ? partitionDatasets
        : quick ? List.of("gen-sparse-50k", "gen-multi-sparse-20k", "pendigits")
        : List.of("pendigits", "skin_nonskin", "gen-sparse-100k", "gen-dense-100k",
            "gen-multi-sparse-50k", "gen-multi-dense-50k", "gen-multi20-sparse-40k",
            "breast_cancer");
    for (Bench b : loaded) {
      if (!names.contains(b.shape.name)) {
        continue;
      }
      List<String> header = new ArrayList<>(List.of("averaging, mixing"));
      for (int p : counts) {
        header.add("P=" + p);
      }
      header.add("epochs P=64 / P=1");
      Report.Table t = new Report.Table(header.toArray(new String[0]));
      List<String> charts = new ArrayList<>();
      for (String config : mixings) {
        String[] c = config.split(":", 3);
        String rounds = c.length > 2 ? c[2] : "auto";
        String label = c[0] + ", " + c[1] + (c.length > 2 ? " (" + rounds + " rounds)" : "");
        Map<String, List<double[]>> curves = new LinkedHashMap<>();
        double[][] accuracy = new double[counts.length][];
        List<Object> cells = new ArrayList<>(List.of(label));
        double reference = Double.NaN;
        int firstNeeded = -1;
        int needed64 = -2;
        for (int i = 0; i < counts.length; i++) {
          int p = counts[i];
          long start = System.nanoTime();
          accuracy[i] = c[1].equals("oneshot") ? oneShotCurve(b, p, epochs)
              : mixingCurve(b, p, epochs, c[0], c[1], rounds);
          double seconds = (System.nanoTime() - start) / 1e9;
          List<double[]> points = new ArrayList<>();
          for (int e = 0; e < epochs; e++) {
            if (!Double.isNaN(accuracy[i][e])) {
              points.add(new double[] {e + 1, accuracy[i][e]});
              report.add("partitions", b.shape, p, label, "test_accuracy_epoch_" + (e + 1),
                  accuracy[i][e], "");
            }
          }
          report.add("partitions", b.shape, p, label, "fit_seconds", seconds, "s");
          curves.put(p + (p == 1 ? " worker" : " workers"), points);
          System.err.printf(Locale.ROOT, "%s %s P=%d (%.1f s): %s%n", b.shape.name, label, p,
              seconds, Arrays.toString(accuracy[i]));
          if (i == 0) {
            reference = accuracy[0][refEpoch - 1];
          }
          int needed = epochsToReach(accuracy[i], reference - 0.001);
          if (i == 0) {
            firstNeeded = needed;
          }
          if (p == 64) {
            needed64 = needed;
          }
          double at = accuracy[i][refEpoch - 1];
          cells.add(Report.f("%.4f (%+.2f) %s", at, 100 * (at - reference),
              needed < 0 ? ">" + epochs : Integer.toString(needed)));
          report.add("partitions", b.shape, p, label, "accuracy_difference_points_epoch_"
              + refEpoch, 100 * (at - reference), "points");
          report.add("partitions", b.shape, p, label, "epochs_to_reach_1_worker_accuracy",
              needed < 0 ? Double.NaN : needed, "epochs");
        }
        cells.add(needed64 == -2 || firstNeeded <= 0 ? "n/a"
            : needed64 < 0 ? ">" + Report.f("%.1f", (double) epochs / firstNeeded)
            : Report.f("%.1f", needed64 / (double) firstNeeded));
        t.row(cells.toArray());
        String file = "accuracy-" + b.shape.name + "-" + c[0] + "-" + c[1]
            + (c.length > 2 ? "-" + rounds + "rounds" : "") + ".png";
        Charts.lines(out.resolve(file), b.shape.name + ": test accuracy per epoch (" + label
            + ")", "epoch", "test accuracy", curves, true);
        charts.add("![" + label + "](" + file + ")");
        report.flush();
      }
      report.markdown("### " + b.shape.name + " (" + b.shape.describe() + ")\n\n")
          .markdown(t.toString());
      for (String chart : charts) {
        report.markdown(chart + "\n");
      }
      report.markdown("\n");
      report.flush();
    }
  }

  private static int epochsToReach(double[] accuracy, double target) {
    for (int e = 0; e < accuracy.length; e++) {
      if (accuracy[e] >= target) {
        return e + 1;
      }
    }
    return -1;
  }

  /** Test accuracy after each epoch of one iterative-mixing fit (later epochs of an early stop
   * keep the last value). */
  private double[] mixingCurve(Bench b, int p, int epochs, String averaging, String mixing,
      String rounds) {
    Dataset<Row> frame = b.train.withColumn(VALIDATION, lit(false))
        .unionByName(b.test.withColumn(VALIDATION, lit(true))).repartition(p);
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(epochs).setTol(0)
        .setNumWorkers(p).setAveraging(averaging).setMixing(mixing)
        .setValidationIndicatorCol(VALIDATION)
        .setMixingRounds(rounds.equals("auto") ? 0 : rounds.equals("P") ? p
            : Integer.parseInt(rounds))
        .setValidationPatience(epochs).fit(frame);
    double[] history = model.summary().validationHistory();
    double[] acc = new double[epochs];
    for (int e = 0; e < epochs; e++) {
      acc[e] = history[Math.min(e, history.length - 1)];
    }
    return acc;
  }

  /**
   * One-shot mixing: one fit per epoch count of 1, 2, 3, 5, 8, 13, 20, 30, ... up to
   * {@code epochs} (each a full training); the epochs between carry the last value forward, so
   * "epochs needed" reads the staircase.
   */
  private double[] oneShotCurve(Bench b, int p, int epochs) {
    Dataset<Row> frame = b.train.repartition(p);
    double[] acc = new double[epochs];
    Arrays.fill(acc, Double.NaN);
    List<Integer> counts = new ArrayList<>();
    for (int a = 1, next = 2; a < epochs; ) {
      counts.add(a);
      int sum = a + next;
      a = next;
      next = sum;
    }
    counts.add(epochs);
    for (int e : counts) {
      PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(e)
          .setNumWorkers(p).setMixing("oneshot").fit(frame);
      acc[e - 1] = accuracy(model, b.test);
    }
    for (int e = 1; e < epochs; e++) {
      if (Double.isNaN(acc[e])) {
        acc[e] = acc[e - 1];
      }
    }
    return acc;
  }

  // ------------------------------------------------------------------------------------ scale

  private void scaleSection() {
    int parts = scalePartitions > 0 ? scalePartitions : spark.sparkContext().defaultParallelism();
    long heap = Runtime.getRuntime().maxMemory();
    report.markdown(Report.f("## Scale: 10 epochs on generated data of growing size\n\n"
        + "SyntheticData d=%,d, 20 non-zeros per row, margin 0.05, label noise 0.05, seed 21,"
        + " generated inside the tasks (not cached beforehand), %d partitions on `%s`, driver"
        + " heap -Xmx %,d MiB. Fit time includes generating the rows and building the blocks;"
        + " epoch time is the sum of `epochSeconds()`. Test accuracy on 100,000 further rows. %s"
        + "\n\n", scaleFeatures, parts, master, heap >> 20, load()));
    Report.Table t = new Report.Table("rows", "non-zeros", "fit s", "sum of epochs s",
        "median epoch s", "test accuracy", "cached blocks bytes", "blocks on disk",
        "peak heap used MiB");
    double[] xs = new double[scaleRows.length];
    double[] fits = new double[scaleRows.length];
    double[] epochSums = new double[scaleRows.length];
    SyntheticData data = SyntheticData.builder().numFeatures(scaleFeatures).nonZerosPerRow(20)
        .margin(0.05).labelNoise(0.05).seed(21).build();
    Dataset<Row> test = data.frame(spark, 100_000_000L, 100_000, parts).cache();
    test.count();
    // An untimed small fit first, so that JIT compilation does not land on the first size.
    new PerceptronClassifier().setMaxIter(10).setTol(0).setNumWorkers(parts)
        .fit(data.frame(spark, 0, 50_000, parts));
    for (int i = 0; i < scaleRows.length; i++) {
      long rows = scaleRows[i];
      DataShape shape = new DataShape("scale-" + rows, rows, scaleFeatures, 20L * rows, 2,
          data.seed(), false);
      Set<Integer> before = probe.seen();
      PerceptronClassificationModel model;
      double fit;
      long peak;
      try (HeapSampler heapSampler = new HeapSampler()) {
        long start = System.nanoTime();
        try {
          model = new PerceptronClassifier().setMaxIter(10).setTol(0).setNumWorkers(parts)
              .fit(data.frame(spark, 0, rows, parts));
        } catch (RuntimeException e) {
          // Typically the heap: record the failure and the largest size that fitted.
          String why = rootCause(e);
          t.row(Report.f("%,d", rows), Report.f("%,d", 20L * rows), "failed: " + why, "", "", "",
              "", "", Report.f("%,d", heapSampler.peakUsedBytes() >> 20));
          report.add("scale", shape, parts, "Perceptron defaults, 10 epochs", "failed", 1, why);
          System.err.println("scale " + rows + " rows failed: " + why);
          report.flush();
          break;
        }
        fit = (System.nanoTime() - start) / 1e9;
        peak = heapSampler.peakUsedBytes();
      }
      waitForListener();
      long blocks = probe.peakBytesSince(before);
      boolean spilled = probe.spilledSince(before);
      double[] seconds = model.summary().epochSeconds();
      double sum = Arrays.stream(seconds).sum();
      double accuracy = accuracy(model, test);
      xs[i] = rows / 1e6;
      fits[i] = fit;
      epochSums[i] = sum;
      t.row(Report.f("%,d", rows), Report.f("%,d", 20L * rows), Report.f("%.1f", fit),
          Report.f("%.1f", sum), Report.f("%.3f", PlainLoop.median(seconds)),
          Report.f("%.4f", accuracy), Report.f("%,d", blocks), spilled ? "yes" : "no",
          Report.f("%,d", peak >> 20));
      report.add("scale", shape, parts, "Perceptron defaults, 10 epochs", "fit_seconds", fit, "s");
      report.add("scale", shape, parts, "Perceptron defaults, 10 epochs", "epochs_seconds", sum,
          "s");
      report.add("scale", shape, parts, "Perceptron defaults, 10 epochs", "test_accuracy",
          accuracy, "");
      report.add("scale", shape, parts, "cached training blocks", "bytes", blocks, "B");
      report.add("scale", shape, parts, "driver heap", "peak_used_bytes", peak, "B");
      System.err.printf(Locale.ROOT, "scale %,d rows: fit %.1f s, epochs %.1f s, acc %.4f,"
          + " blocks %,d B%s, peak heap %,d MiB%n", rows, fit, sum, accuracy, blocks,
          spilled ? " (spilled)" : "", peak >> 20);
      report.flush();
    }
    test.unpersist();
    int done = 0;
    while (done < xs.length && fits[done] > 0) {
      done++;
    }
    xs = Arrays.copyOf(xs, done);
    fits = Arrays.copyOf(fits, done);
    epochSums = Arrays.copyOf(epochSums, done);
    double[] fitLine = leastSquares(xs, fits);
    double[] epochLine = leastSquares(xs, epochSums);
    report.markdown(t.toString()).markdown("After the section: " + load() + "\n\n")
        .markdown(Report.f("Linear fit over the rows: fit time = %.2f s +"
        + " %.2f s per million rows (R² %.4f); 10 epochs = %.2f s + %.2f s per million rows"
        + " (R² %.4f).\n\n", fitLine[0], fitLine[1], fitLine[2], epochLine[0], epochLine[1],
        epochLine[2]));
    DataShape all = new DataShape("scale", scaleRows[scaleRows.length - 1], scaleFeatures,
        20L * scaleRows[scaleRows.length - 1], 2, data.seed(), false);
    report.add("scale", all, parts, "fit time vs rows", "slope_seconds_per_million_rows",
        fitLine[1], "s");
    report.add("scale", all, parts, "10 epochs vs rows", "slope_seconds_per_million_rows",
        epochLine[1], "s");
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    List<double[]> fitPoints = new ArrayList<>();
    List<double[]> epochPoints = new ArrayList<>();
    for (int i = 0; i < xs.length; i++) {
      fitPoints.add(new double[] {xs[i], fits[i]});
      epochPoints.add(new double[] {xs[i], epochSums[i]});
    }
    series.put("fit (generate + build blocks + 10 epochs)", fitPoints);
    series.put("10 epochs", epochPoints);
    Charts.lines(out.resolve("scale.png"), "Scale: seconds against rows (20 non-zeros per row)",
        "million rows", "seconds", series, false);
    report.markdown("![scale](scale.png)\n\n");
    report.flush();
  }

  private static String rootCause(Throwable e) {
    Throwable c = e;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    String text = c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": "
        + c.getMessage());
    int line = text.indexOf('\n');
    return (line > 0 ? text.substring(0, line) : text).replace(',', ';');
  }

  /** The numbers of a comma-split option, empty strings skipped (so '' means none). */
  private static int[] integers(List<String> values) {
    return values.stream().filter(v -> !v.isBlank()).mapToInt(v -> Integer.parseInt(v.strip()))
        .toArray();
  }

  /** Least squares y = a + b·x: {a, b, R²}. */
  static double[] leastSquares(double[] x, double[] y) {
    int n = x.length;
    double mx = Arrays.stream(x).average().orElse(0);
    double my = Arrays.stream(y).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < n; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    double b = sxx == 0 ? Double.NaN : sxy / sxx;
    double r2 = sxx == 0 || syy == 0 ? Double.NaN : sxy * sxy / (sxx * syy);
    return new double[] {my - b * mx, b, r2};
  }
}
