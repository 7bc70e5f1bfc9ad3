package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.TextRecords;
import io.github.sparkperceptron.internal.plan.StreamRefusals;
import io.github.sparkperceptron.internal.streaming.StreamingBridge;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.streaming.StreamingPerceptron;
import io.github.sparkperceptron.streaming.StreamingProgress;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.ShutdownHookManager;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import scala.runtime.AbstractFunction0;
import scala.runtime.BoxedUnit;

/**
 * {@code submit/stream-train}: online learning from files arriving in a directory, or from the
 * messages of a Kafka topic, with {@link StreamingPerceptron}. Spark's file stream source tracks
 * which files are new (its {@code binaryFile} format lists them without reading their contents);
 * each micro-batch's files are then read by the same readers as {@code submit/train}, so bad
 * lines get the same {@code file:line} messages. From Kafka, Spark's Kafka source tracks the
 * offsets, and each message's value is one row, parsed by the same line parsers
 * ({@link TextRecords}); a bad message is named by topic, partition and offset. Rerunning the
 * same command resumes: only files (offsets) not learnt yet are read, a batch is never applied
 * twice, and without new data the published model is left alone.
 */
@Command(name = "stream-train", sortOptions = false, mixinStandardHelpOptions = true,
    versionProvider = JobVersion.class,
    description = {"Learn online from files arriving in a directory (Structured Streaming),"
        + " exactly once, publishing the model as it learns.",
        "Each micro-batch is scored by the model before it learns from it (prequential"
            + " accuracy), then learnt; rerunning the same command resumes."},
    footer = {"", "Spark options (--master, --conf, --properties-file, --driver-memory, ...) go to"
        + " spark-submit; the default master is local[*].",
        "Exit codes: 0 success, 2 bad usage or bad input, 1 any other failure."})
public final class StreamTrainJob implements Callable<Integer> {
  private static final String ROLE = "stream input (--input)";
  private static final String KAFKA_ROLE = "stream input (--kafka-topic)";
  /** The binaryFile source's schema; only path and length are read, never the contents. */
  static final StructType FILES = new StructType(new StructField[] {
      DataTypes.createStructField("path", DataTypes.StringType, false),
      DataTypes.createStructField("modificationTime", DataTypes.TimestampType, false),
      DataTypes.createStructField("length", DataTypes.LongType, false),
      DataTypes.createStructField("content", DataTypes.BinaryType, true)});
  private static final StructType ROWS = new StructType(new StructField[] {
      DataTypes.createStructField("label", DataTypes.DoubleType, false),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), false)});
  private static final Pattern PROCESSING_TIME = Pattern.compile(
      "processing-time=(\\d+)\\s*(ms|s|m|min|h)?");

  @Option(names = "--input", paramLabel = "DIR",
      description = "the directory new data files arrive in (local, file:// or hdfs://); files are"
          + " learnt oldest first, each once; hidden files (.name, _name) and empty files are"
          + " skipped. Give --input, or --kafka-bootstrap-servers and --kafka-topic")
  String inputDir;

  @Option(names = "--kafka-bootstrap-servers", paramLabel = "HOST:PORT[,...]",
      description = "learn from a Kafka topic instead of --input: the brokers to connect to (needs"
          + " Spark's Kafka source, spark-sql-kafka-0-10, on the classpath)")
  String kafkaServers;

  @Option(names = "--kafka-topic", paramLabel = "NAME",
      description = "the topic to learn from, from its earliest offsets; each message's value is"
          + " one row in --format libsvm or csv (CSV: label,feature1,... without a header)")
  String kafkaTopic;

  @Option(names = "--max-offsets-per-trigger", paramLabel = "N", defaultValue = "0",
      description = "Kafka: at most N messages per micro-batch; 0: all new messages"
          + " (default: ${DEFAULT-VALUE})")
  long maxOffsetsPerTrigger;

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "where the model is published (Spark ML layout, loadable with"
          + " PerceptronClassificationModel.load while the stream runs)")
  String modelPath;

  @Option(names = "--checkpoint-dir", required = true, paramLabel = "DIR",
      description = "the stream's state: Spark's query checkpoint (DIR/query) and the learner"
          + " state (DIR/learner); the same DIR resumes the stream")
  String checkpointDir;

  @Mixin
  InputOptions input;

  @Option(names = "--num-features", paramLabel = "D", defaultValue = "-1",
      description = "number of features; required for LIBSVM (a stream cannot look at every"
          + " file first); CSV and Parquet take it from the first batch (default: ${DEFAULT-VALUE})")
  int numFeatures;

  @Option(names = "--num-classes", paramLabel = "K", defaultValue = "0",
      description = "number of classes; 0 takes the first batch's largest label + 1, so set it"
          + " when early files may lack some classes (default: ${DEFAULT-VALUE})")
  int numClasses;

  @Option(names = "--trigger", paramLabel = "WHEN", defaultValue = "available-now",
      description = "available-now: learn the files present, publish, exit 0;"
          + " processing-time=10s: check for new files every 10 s until stopped (Ctrl-C"
          + " publishes and stops) (default: ${DEFAULT-VALUE})")
  String trigger;

  @Option(names = "--max-files-per-trigger", paramLabel = "N", defaultValue = "0",
      description = "at most N new files per micro-batch; 0: all new files in one batch"
          + " (default: ${DEFAULT-VALUE})")
  int maxFilesPerTrigger;

  @Option(names = "--publish-every", paramLabel = "N", defaultValue = "1",
      description = "publish the model every N batches, and at the end (default: ${DEFAULT-VALUE})")
  int publishEvery;

  @Option(names = "--publish-interval", paramLabel = "SECONDS", defaultValue = "2",
      description = "start at most one publication per SECONDS; a model due sooner waits and the"
          + " latest wins (the last one is published at the end at once); 0: no wait"
          + " (default: ${DEFAULT-VALUE})")
  double publishInterval;

  @Option(names = "--metrics", paramLabel = "FILE.json",
      description = "write this run's batches (rows, prequential accuracy, time) and the totals"
          + " since the stream began as JSON, rewritten after every batch")
  String metricsPath;

  @Option(names = "--plot", paramLabel = "FILE.png",
      description = "draw this run's prequential accuracy and batch times as a PNG at the end")
  String plotPath;

  @Option(names = "--overwrite",
      description = "replace an existing --model that this stream did not publish")
  boolean overwrite;

  @Option(names = "--epochs-per-batch", paramLabel = "N", defaultValue = "1",
      description = "passes over each batch; 1 is pure online learning (default: ${DEFAULT-VALUE})")
  int epochsPerBatch;

  @Option(names = "--drift-detector", paramLabel = "NAME", defaultValue = "adwin",
      description = "the change detector fed each batch's prequential errors: adwin (ADWIN,"
          + " delta 0.002), page-hinkley (delta 0.005, lambda 100) or none; a detection is"
          + " reported on the batch's line and in the metrics (default: ${DEFAULT-VALUE})")
  String driftDetector;

  @Option(names = "--on-drift", paramLabel = "POLICY", defaultValue = "report",
      description = "what a detected drift does: report (nothing else) or reset (the batch it"
          + " was found in is learnt by a fresh model: zero weights, average and clock)"
          + " (default: ${DEFAULT-VALUE})")
  String onDrift;

  @Option(names = "--partitions", paramLabel = "P", defaultValue = "0",
      description = "repartition each batch's rows into P partitions (a shuffle that deals them"
          + " evenly, in a reproducible order) before the workers take them; 0 keeps the"
          + " batch's partitions as read. The number of perceptrons is --workers, not P"
          + " (default: ${DEFAULT-VALUE})")
  int partitions;

  // The training flags of submit/train that apply to streams (one table, TrainingFlags); the
  // others are refused with the reason (whyNot).
  @Mixin
  TrainingFlags training = new TrainingFlags(TrainingFlags.Scope.STREAM);

  @Mixin
  JobConfOption jobConf;

  @Spec
  CommandSpec spec;

  private PrintWriter out;
  /** Files read for the batch being applied (set by the conversion, read by the listener). */
  int batchFiles;

  public static void main(String[] args) {
    System.exit(JobSupport.run(new StreamTrainJob(), args));
  }

  /** submit/train's flags that are not stream-train's, with what to do instead. */
  private static final Map<String, String> TRAIN_ONLY = Map.of(
      "--train", "a stream learns the files arriving in --input",
      "--test", "every batch is scored before it is learnt (prequential accuracy); score a"
          + " published model with submit/evaluate",
      "--validation", StreamRefusals.flagRefused("validationPatience"),
      "--resume", "the same command with the same --checkpoint-dir resumes by itself");

  /**
   * Why stream-train refuses {@code flag}, a flag of submit/train, or null: stream-train knows
   * the flags of train it does not take and says why rather than "Unknown option".
   */
  String whyNot(String flag) {
    String why = TRAIN_ONLY.getOrDefault(flag, training.whyNot(flag));
    return why == null ? null : flag + " (a flag of submit/train) does not apply to streams: "
        + why;
  }

  /**
   * The learner's configuration: the training flags the user gave (flags or --job-conf) on the
   * estimator's own defaults; its param validators check the values.
   */
  PerceptronClassifier estimator() {
    return training.applyTo(new PerceptronClassifier());
  }

  @Override
  public Integer call() throws Exception {
    out = spec.commandLine().getOut();
    PerceptronClassifier estimator = estimator();
    Trigger when = parseTrigger(trigger);
    boolean kafka = kafkaSource();
    if (input.format == DataFormat.libsvm && numFeatures < 1) {
      throw new BadInputException("--num-features is required for LIBSVM input (--format"
          + " libsvm): a stream cannot read every file first to find the largest index");
    }
    requireAtLeast("--publish-every", publishEvery, 1);
    if (!(publishInterval >= 0.0) || Double.isInfinite(publishInterval)) {
      throw new BadInputException("--publish-interval must be a number of seconds >= 0, got "
          + publishInterval);
    }
    requireAtLeast("--epochs-per-batch", epochsPerBatch, 1);
    requireAtLeast("--partitions", partitions, 0);
    requireAtLeast("--max-files-per-trigger", maxFilesPerTrigger, 0);
    if (!kafka) {
      // Checks the column flags against the format before any work.
      input.spec(estimator.getWeightCol());
    }
    StreamingPerceptron trainer = new StreamingPerceptron(estimator)
        .setCheckpointLocation(checkpointDir).setModelPath(modelPath)
        .setPublishEvery(publishEvery).setEpochsPerBatch(epochsPerBatch)
        .setPublishInterval(publishInterval)
        .setNumClasses(numClasses).setQueryName("spark-perceptron stream-train");
    try {
      trainer.setDriftDetector(driftDetector).setOnDrift(onDrift);
    } catch (IllegalArgumentException e) {
      throw new BadInputException("--" + (e.getMessage().startsWith("onDrift") ? "on-drift"
          : "drift-detector") + ": " + e.getMessage(), e);
    }

    SparkSession spark = JobSupport.session("spark-perceptron stream-train");
    ModelOutput output = new ModelOutput(spark.sparkContext().hadoopConfiguration());
    if (!kafka) {
      requireDirectory(spark, inputDir);
    }
    if (metricsPath != null) {
      output.checkWritable(metricsPath, true, "--metrics");
    }
    trainer.prepare(spark);
    if (!trainer.hasModel()) {
      output.checkWritable(modelPath, overwrite, "--model");
    }
    StreamingProgress before = trainer.progress();
    if (before != null) {
      out.println("Resuming: " + before);
    }

    StreamRunReport run = new StreamRunReport(this, trainer, output, out);
    trainer.addListener(run);

    long start = System.nanoTime();
    if (kafka) {
      trainer.start(kafkaMessages(spark), when, batch -> kafkaRows(batch, trainer));
    } else {
      Dataset<Row> files = listingSession(spark).readStream().format("binaryFile")
          .schema(FILES).options(sourceOptions()).load(inputDir).select("path", "length");
      StreamingBridge.startBatchInputs(trainer, files, when,
          batch -> trainingRows(spark, batch, trainer));
    }
    if (when.equals(Trigger.AvailableNow())) {
      awaitEnd(trainer);
    } else {
      stopOnShutdown(trainer);
      awaitEnd(trainer);
    }
    double seconds = (System.nanoTime() - start) / 1e9;

    run.finish(seconds);
    out.flush();
    return JobFailure.OK;
  }

  /**
   * A session for the stream of file listings: a new session of the same SparkContext with
   * adaptive query execution off. Spark runs every streaming query without it anyway, and
   * warns on each start when the session has it on (AQE's default), a warning about nothing the
   * user can change. The batches' files are read in {@code spark}, as configured.
   */
  private static SparkSession listingSession(SparkSession spark) {
    SparkSession listing = spark.newSession();
    listing.conf().set("spark.sql.adaptive.enabled", "false");
    return listing;
  }

  /**
   * Waits for the query; a failed batch (bad input) surfaces as its own exception, a bad file's
   * with the format hint the readers give ({@link DataFormat#hinted}).
   */
  private void awaitEnd(StreamingPerceptron trainer) throws Exception {
    try {
      trainer.awaitTermination();
    } catch (StreamingQueryException e) {
      Throwable cause = e.getCause();
      if (cause instanceof BadInputException bad && inputDir != null) {
        throw input.format.hinted(inputDir, bad);
      }
      throw cause instanceof Exception ? (Exception) cause : e;
    }
  }

  /**
   * With a processing-time trigger the job runs until stopped: on Ctrl-C or SIGTERM, stop the
   * query and publish before Spark's own shutdown hook stops the SparkContext (Spark runs hooks
   * of higher priority first; its context stops at priority 50).
   */
  private void stopOnShutdown(StreamingPerceptron trainer) {
    ShutdownHookManager.addShutdownHook(60,
        new AbstractFunction0<BoxedUnit>() {
          @Override
          public BoxedUnit apply() {
            try {
              trainer.stop();
              System.err.println("stream-train: stopped; the model of batch "
                  + (trainer.progress() == null ? "-" : trainer.progress().lastBatchId())
                  + " is published at " + modelPath);
            } catch (Exception | Error e) {
              System.err.println("stream-train: could not publish while stopping: "
                  + JobFailure.oneLine(e));
            }
            return BoxedUnit.UNIT;
          }
        });
  }

  /**
   * Checks the source flags: exactly one of --input and --kafka-bootstrap-servers, the topic with
   * the servers, a text format, no file or column flags. Returns whether the source is Kafka.
   */
  private boolean kafkaSource() {
    boolean kafka = kafkaServers != null || kafkaTopic != null;
    if (!kafka && inputDir == null) {
      throw new BadInputException("Give the stream's source: --input DIR (files arriving in a"
          + " directory), or --kafka-bootstrap-servers HOST:PORT and --kafka-topic NAME");
    }
    if (!kafka) {
      if (maxOffsetsPerTrigger != 0) {
        throw new BadInputException("--max-offsets-per-trigger applies to Kafka input; for files"
            + " use --max-files-per-trigger");
      }
      return false;
    }
    if (inputDir != null) {
      throw new BadInputException("--input and --kafka-bootstrap-servers/--kafka-topic are two"
          + " sources; a stream learns from one: drop one of them");
    }
    if (kafkaServers == null || kafkaServers.isBlank() || kafkaTopic == null
        || kafkaTopic.isBlank()) {
      throw new BadInputException("Kafka input needs both --kafka-bootstrap-servers HOST:PORT and"
          + " --kafka-topic NAME, got " + (kafkaServers == null ? "no servers" : "servers '"
          + kafkaServers + "'") + " and " + (kafkaTopic == null ? "no topic" : "topic '"
          + kafkaTopic + "'"));
    }
    if (input.format == DataFormat.parquet) {
      throw new BadInputException("Kafka messages are text: each one's value is one row in"
          + " --format libsvm or csv, not parquet");
    }
    ParseResult given = spec.commandLine().getParseResult();
    for (String flag : new String[] {"--label-col", "--feature-cols", "--features-col"}) {
      if (given.hasMatchedOption(flag)) {
        throw new BadInputException(flag + " names columns of a CSV header; Kafka CSV messages"
            + " have none: the first field is the label, the others the features in order");
      }
    }
    if (maxFilesPerTrigger != 0) {
      throw new BadInputException("--max-files-per-trigger applies to --input; for Kafka use"
          + " --max-offsets-per-trigger");
    }
    if (maxOffsetsPerTrigger < 0) {
      throw new BadInputException("--max-offsets-per-trigger must be >= 0, got "
          + maxOffsetsPerTrigger);
    }
    return true;
  }

  /** Where rows come from, for messages and the metrics. */
  String source() {
    return inputDir != null ? inputDir : "kafka " + kafkaServers + " topic " + kafkaTopic;
  }

  /**
   * The topic's messages from its earliest offsets: each message's value, and where it is
   * (topic, partition, offset) for messages about it.
   */
  private Dataset<Row> kafkaMessages(SparkSession spark) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("kafka.bootstrap.servers", kafkaServers);
    options.put("subscribe", kafkaTopic);
    options.put("startingOffsets", "earliest");
    if (maxOffsetsPerTrigger > 0) {
      options.put("maxOffsetsPerTrigger", String.valueOf(maxOffsetsPerTrigger));
    }
    Dataset<Row> messages;
    try {
      messages = spark.readStream().format("kafka").options(options).load();
    } catch (RuntimeException e) {
      if (String.valueOf(e.getMessage()).contains("kafka")
          && (e.getClass().getSimpleName().contains("Analysis")
              || e.getClass().getSimpleName().contains("ClassNotFound"))) {
        throw new BadInputException("Spark's Kafka source is not on the classpath: run with"
            + " spark-submit --packages org.apache.spark:spark-sql-kafka-0-10_2.13:"
            + org.apache.spark.package$.MODULE$.SPARK_VERSION() + " (or add its jar with --jars)",
            e);
      }
      throw e;
    }
    return messages.selectExpr("CAST(value AS STRING) AS value",
        "concat('topic ', topic, ', partition ', CAST(partition AS STRING), ', offset ',"
            + " CAST(offset AS STRING)) AS at");
  }

  /** One micro-batch of messages as labelled rows (one row per message), then partitioned. */
  private Dataset<Row> kafkaRows(Dataset<Row> batch, StreamingPerceptron trainer) {
    int width = trainer.hasModel() ? trainer.progress().numFeatures() : numFeatures;
    String widthSource = trainer.hasModel() ? "the model" : "--num-features";
    LabeledData data = TextRecords.read(batch, input.format == DataFormat.csv
        ? TextRecords.Format.CSV : TextRecords.Format.LIBSVM, width, widthSource, KAFKA_ROLE);
    return InputRepartition.of(data.frame(), partitions);
  }

  private Map<String, String> sourceOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    if (maxFilesPerTrigger > 0) {
      options.put("maxFilesPerTrigger", String.valueOf(maxFilesPerTrigger));
    }
    // Spark's file source ignores files older than its newest by more than 7 days by default;
    // a file copied in with an old timestamp would then never be learnt.
    options.put("maxFileAge", "36500d");
    return options;
  }

  /**
   * What one micro-batch learns: its new non-empty files. LIBSVM and CSV files of one directory
   * are read in one pass by the batch's workers ({@link BatchInput#text}: each line parsed once,
   * straight into the training blocks), through a glob naming exactly them. Parquet, files in
   * several directories and {@code --partitions} take the batch readers' DataFrame (all files of
   * a directory in one read), then its repartition.
   */
  private BatchInput trainingRows(SparkSession spark, Dataset<Row> batch,
      StreamingPerceptron trainer) {
    Map<Path, List<String>> byDirectory = new LinkedHashMap<>();
    List<String> paths = BatchFiles.nonEmpty(batch);
    for (String p : paths) {
      Path path = new Path(p);
      byDirectory.computeIfAbsent(path.getParent(), k -> new ArrayList<>()).add(path.getName());
    }
    batchFiles = paths.size();
    ReadSpec columns = input.spec(trainer.getParams().getWeightCol());
    int width = trainer.hasModel() ? trainer.progress().numFeatures() : numFeatures;
    String widthSource = trainer.hasModel() ? "the model" : "--num-features";
    if (byDirectory.size() == 1 && input.format != DataFormat.parquet && partitions == 0) {
      Map.Entry<Path, List<String>> group = byDirectory.entrySet().iterator().next();
      String files = glob(group.getKey(), group.getValue());
      ReadSpec read = width >= 0 ? columns.withNumFeatures(width, widthSource) : columns;
      return BatchInput.text(workers -> input.format.plan(spark, files, read, ROLE, workers));
    }
    Dataset<Row> rows = null;
    for (Map.Entry<Path, List<String>> group : byDirectory.entrySet()) {
      ReadSpec read = width >= 0 ? columns.withNumFeatures(width, widthSource) : columns;
      LabeledData data = input.format.read(spark, glob(group.getKey(), group.getValue()), read,
          ROLE);
      width = data.numFeatures();
      rows = rows == null ? data.frame() : rows.union(data.frame());
    }
    return BatchInput.of(rows == null ? spark.createDataFrame(List.<Row>of(), ROWS)
        : InputRepartition.of(rows, partitions));
  }

  /** {@code dir/{a,b,c}}, with the glob's special characters in names escaped. */
  static String glob(Path dir, List<String> names) {
    StringBuilder sb = new StringBuilder(dir.toString()).append("/{");
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      for (char c : names.get(i).toCharArray()) {
        if ("\\{}[]*?,^".indexOf(c) >= 0) {
          sb.append('\\');
        }
        sb.append(c);
      }
    }
    return sb.append('}').toString();
  }

  static Trigger parseTrigger(String value) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    if (v.equals("available-now")) {
      return Trigger.AvailableNow();
    }
    Matcher m = PROCESSING_TIME.matcher(v);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "s" : m.group(2);
      long ms = unit.equals("ms") ? n : unit.equals("s") ? n * 1000
          : unit.equals("h") ? n * 3_600_000 : n * 60_000;
      return Trigger.ProcessingTime(ms);
    }
    throw new BadInputException("--trigger must be available-now or processing-time=<interval>"
        + " (e.g. processing-time=10s, 500ms, 5m), got '" + value + "'");
  }

  private static void requireAtLeast(String flag, int value, int least) {
    if (value < least) {
      throw new BadInputException(flag + " must be >= " + least + ", got " + value);
    }
  }

  private static void requireDirectory(SparkSession spark, String dir) {
    try {
      Path p = new Path(dir);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(p)) {
        throw new BadInputException("The input directory (--input) '" + dir + "' does not exist;"
            + " create it (files arriving there are learnt)");
      }
      FileStatus status = fs.getFileStatus(p);
      if (!status.isDirectory()) {
        throw new BadInputException("The input (--input) '" + dir + "' is a file; a stream"
            + " reads the files arriving in a directory: put the file in one and name that");
      }
    } catch (IOException e) {
      throw new BadInputException("Cannot read the input directory (--input) '" + dir + "': "
          + e.getMessage(), e);
    }
  }
}
