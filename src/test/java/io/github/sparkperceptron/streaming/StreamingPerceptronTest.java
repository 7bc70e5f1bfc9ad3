package io.github.sparkperceptron.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaiveMixingSimulation;
import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Online learning from a file stream: one partition per batch is the serial online perceptron
 * over the concatenated batches, bit for bit, with the average running across batches; the
 * prequential accuracy is a naive test-then-train count; models are published whole while the
 * stream runs; a streaming DataFrame can be scored; labels beyond the model's classes stop it.
 */
class StreamingPerceptronTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @TempDir
  Path tmp;

  /**
   * Feeds a real dataset in 3 files (3 batches, one partition each) and checks after the stream
   * (1) the model equals one serial pass of the naive perceptron over the whole file in the same
   * order, to the last bit (its averaging sum added to u at each batch's end, as the trainer adds
   * each round's), and (2) every batch's prequential count equals the naive model's
   * correct predictions on the batch before it learnt the batch.
   */
  @ParameterizedTest(name = "{0} {3} {4}")
  @CsvSource({
      "breast_cancer, 30, 2, none,    perceptron",
      "breast_cancer, 30, 2, average, perceptron",
      "iris,           4, 3, average, pa1",
  })
  void kBatchesOnOnePartitionAreOneSerialOnlinePassAndPrequentialIsNaiveTestThenTrain(
      String dataset, int d, int k, String averaging, String rule) throws Exception {
    List<List<String>> files = StreamInput.slices(StreamInput.lines(dataset, "train.libsvm"), 3);
    StreamInput input = new StreamInput(SPARK, tmp, d);
    List<List<TestData.Example>> batches = new ArrayList<>();
    for (List<String> file : files) {
      input.add(file);
      batches.add(StreamInput.examples(file, d, tmp));
    }
    List<BatchReport> reports = Collections.synchronizedList(new ArrayList<>());
    StreamingPerceptron trainer = new StreamingPerceptron(new PerceptronClassifier()
        .setAveraging(averaging).setUpdateRule(rule).setAggressiveness(0.5).setShuffle(false)
        .setNumWorkers(1))
        .setCheckpointLocation(tmp.resolve("ckpt").toString()).setNumClasses(k)
        .addListener(reports::add);
    trainer.start(input.stream(), Trigger.AvailableNow());
    trainer.awaitTermination();

    NaivePerceptron naive = new NaivePerceptron(d, k, true, 1.0, averaging.equals("average"),
        rule, 0.5);
    // The trainer sums a round's averaging terms apart and adds the sum to u (the sparse state
    // change a partition returns); one batch is one round here, so the naive pass adds its
    // running sum to u once per batch: the same terms, associated per batch.
    naive.foldAverageEachEpoch = true;
    long cumulativeCorrect = 0;
    assertEquals(batches.size(), reports.size());
    for (int b = 0; b < batches.size(); b++) {
      List<TestData.Example> batch = batches.get(b);
      long correct = 0;
      for (TestData.Example e : batch) {
        correct += naivePrediction(naive, e.features.toArray()) == (int) e.label ? 1 : 0;
      }
      naive.train(Examples.dense(batch), Examples.labels(batch), 1,
          NaivePerceptron.inOrder(batch.size()));
      cumulativeCorrect += correct;
      BatchReport report = reports.get(b);
      assertEquals(b, report.batchId());
      assertEquals(batch.size(), report.rows());
      assertEquals(correct, report.prequentialCorrect(), "batch " + b);
      assertEquals(cumulativeCorrect, report.cumulative().prequentialCorrect(), "batch " + b);
    }

    PerceptronClassificationModel model = trainer.latestModel();
    Matrix coef = model.coefficientMatrix();
    for (int row = 0; row < coef.numRows(); row++) {
      double[] expected = naive.modelRow(row);
      for (int j = 0; j < d; j++) {
        assertEquals(expected[j], coef.apply(row, j), 0.0, "row " + row + ", feature " + j);
      }
      assertEquals(expected[d], model.interceptVector().apply(row), 0.0, "intercept " + row);
    }
    assertEquals(averaging, model.getAveraging(), "the model carries the configuration's params");
    assertEquals(batches.stream().mapToInt(List::size).sum(), trainer.progress().rows());
  }

  /**
   * With two partitions per batch, each batch is one epoch of iterative parameter mixing that
   * starts from the mixed state, accumulator and clock the previous batch left: the model after two
   * batches equals a naive simulation of that definition (uniform mixing μ_i = n_i/n, each
   * partition's clock advancing by n/n_i per example, the clock carried across batches).
   * Tolerance as in IterativeParameterMixingTest: the library blends partitions pairwise, the
   * simulation sums directly, both rounding at about 1e-16 per operation.
   */
  @Test
  void underMixingTheAverageRunsOnAcrossBatchesAsTheDefinitionSays() throws Exception {
    List<List<String>> files = StreamInput.slices(StreamInput.lines("breast_cancer",
        "train.libsvm"), 2);
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    List<List<TestData.Example>> batches = new ArrayList<>();
    for (List<String> file : files) {
      input.add(file);
      batches.add(StreamInput.examples(file, 30, tmp));
    }
    StreamingPerceptron trainer = new StreamingPerceptron(new PerceptronClassifier()
        .setMixing("uniform").setShuffle(false).setNumWorkers(2))
        .setCheckpointLocation(tmp.resolve("ckpt").toString());
    // Each batch (one file, read as one partition) is laid out in two partitions, in order.
    trainer.start(input.stream(), Trigger.AvailableNow(), batch -> {
      List<TestData.Example> rows = new ArrayList<>();
      for (Row r : batch.collectAsList()) {
        rows.add(new TestData.Example(r.getDouble(0), (Vector) r.get(1)));
      }
      return TestData.frameInOrder(SPARK, rows, 2);
    });
    trainer.awaitTermination();

    double[] w = new double[31];
    double[] u = new double[31];
    double clock = 0;
    for (List<TestData.Example> batch : batches) {
      int n = batch.size();
      double[] nextW = new double[31];
      double[] nextU = new double[31];
      for (int p = 0; p < 2; p++) {
        List<TestData.Example> slice = batch.subList(p * n / 2, (p + 1) * n / 2);
        NaivePerceptron local = NaivePerceptron.perceptron(30, 2, true, 1.0, true);
        System.arraycopy(w, 0, local.w[0], 0, 31);
        System.arraycopy(u, 0, local.u[0], 0, 31);
        local.clock = clock;
        local.clockStep = (double) n / slice.size();
        local.train(Examples.dense(slice), Examples.labels(slice), 1,
            NaivePerceptron.inOrder(slice.size()));
        double mu = (double) slice.size() / n;
        for (int j = 0; j < 31; j++) {
          nextW[j] += mu * local.w[0][j];
          nextU[j] += mu * local.u[0][j];
        }
      }
      w = nextW;
      u = nextU;
      clock += n;
    }
    PerceptronClassificationModel model = trainer.latestModel();
    for (int j = 0; j < 31; j++) {
      double expected = w[j] - u[j] / clock;
      double actual = j < 30 ? model.coefficients().apply(j) : model.intercept();
      assertEquals(expected, actual, 1e-12 * (1 + Math.abs(expected)), "j=" + j);
    }
  }

  /**
   * mixing=momentum on a stream: each batch runs block momentum over 4 workers (β = 3/4,
   * automatic rounds min(4, 64) = 4) from the weights, accumulator and clock the previous batch
   * left, and from its momentum: the velocity Δ, the masses and ‖w_0‖² carry over, ρ is the
   * larger of the batches' (OnlineTraining's documented choice). The model after three batches
   * equals, bit for bit, the naive simulation chained batch by batch with that carry and each
   * batch's seed (seed ^ γ·(batchId + 1), γ the golden-ratio constant, the formula of
   * OnlineTraining written again); it is neither the model of mistake mixing (the momentum acted)
   * nor that of a velocity restarted every batch (the carry acted).
   */
  @Test
  void blockMomentumCarriesAcrossBatches() throws Exception {
    List<List<String>> files = StreamInput.slices(StreamInput.lines("breast_cancer",
        "train.libsvm"), 3);
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    List<List<TestData.Example>> batches = new ArrayList<>();
    for (List<String> file : files) {
      input.add(file);
      batches.add(StreamInput.examples(file, 30, tmp));
    }
    long seed = 5;
    StreamingPerceptron trainer = new StreamingPerceptron(new PerceptronClassifier()
        .setMixing("momentum").setSeed(seed).setNumWorkers(4))
        .setCheckpointLocation(tmp.resolve("ckpt").toString());
    trainer.start(input.stream(), Trigger.AvailableNow(), batch -> {
      List<TestData.Example> rows = new ArrayList<>();
      for (Row r : batch.collectAsList()) {
        rows.add(new TestData.Example(r.getDouble(0), (Vector) r.get(1)));
      }
      return TestData.frameInOrder(SPARK, rows, 4);
    });
    trainer.awaitTermination();

    double[] expected = chainedSimulation(batches, "momentum", seed, true);
    PerceptronClassificationModel model = trainer.latestModel();
    double[] actual = new double[31];
    for (int j = 0; j < 30; j++) {
      actual[j] = model.coefficients().apply(j);
    }
    actual[30] = model.intercept();
    assertArrayEquals(expected, actual, 0.0);
    assertFalse(Arrays.equals(chainedSimulation(batches, "mistakes", seed, false),
        actual), "momentum gave the model of mistake mixing: the test cannot tell them apart");
    assertFalse(Arrays.equals(chainedSimulation(batches, "momentum", seed, false),
        actual), "the carried momentum gave the model of a momentum restarted every batch");
  }

  /**
   * The naive simulation run batch after batch, each warm-started, its momentum carried from the
   * batch before ({@code carry}) or from zero.
   */
  static double[] chainedSimulation(List<List<TestData.Example>> batches, String mixing,
      long seed, boolean carry) {
    double[] w = new double[31];
    double[] u = new double[31];
    double clock = 0;
    NaiveMixingSimulation sim = null;
    for (int b = 0; b < batches.size(); b++) {
      List<TestData.Example> batch = batches.get(b);
      long batchSeed = seed ^ (0x9E3779B97F4A7C15L * (b + 1L));
      NaiveMixingSimulation next = new NaiveMixingSimulation(Examples.dense(batch),
          Examples.labels(batch), 30, 4, 4, mixing, true, true, batchSeed)
          .startingFrom(w, u, clock);
      if (carry && sim != null) {
        next.carryingMomentumOf(sim);
      }
      sim = next.run(1);
      w = sim.w;
      u = sim.u;
      clock = sim.clock;
    }
    return sim.model();
  }

  /** The naive model's prediction: margin > 0 for binary, arg-max (ties low) for multiclass. */
  private static int naivePrediction(NaivePerceptron naive, double[] x) {
    int rows = naive.numClasses == 2 ? 1 : naive.numClasses;
    double best = Double.NEGATIVE_INFINITY;
    int arg = 0;
    for (int k = 0; k < rows; k++) {
      double[] w = naive.modelRow(k);
      double score = 0;
      for (int j = 0; j < naive.d; j++) {
        score += x[j] * w[j];
      }
      score += w[naive.d];
      if (rows == 1) {
        return score > 0 ? 1 : 0;
      }
      if (k == 0 || score > best) {
        best = score;
        arg = k;
      }
    }
    return arg;
  }

  /**
   * A micro-batch of one file (one input partition) over two workers, averaged, publishing
   * after every batch, runs one Spark job of one stage per batch from its second batch on (its
   * first takes three: facts, which fix the model's shape, then scoring, then the round), counted
   * by a SparkListener from the batch id Spark puts on every job of the batch; the publications
   * run in their own thread and job group. (Before, a batch took 6 jobs and 7 stages: a facts job
   * with the deal's shuffle, a scoring job, the round, and the model saved inline in 3 jobs.)
   * Mistake mixing, one round per batch: the default, block momentum over two workers, takes a
   * job to score and then one per round (its rounds depend on the batch's rows, and its
   * look-ahead on the batch's largest row norm), see OnlineTraining.
   */
  @Test
  void aMicroBatchIsOneSparkJobOfOneStage() throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    for (List<String> file : StreamInput.slices(StreamInput.lines("breast_cancer",
        "train.libsvm"), 4)) {
      input.add(file);
    }
    Map<String, Integer> jobs = new ConcurrentHashMap<>();
    Map<String, Integer> stages = new ConcurrentHashMap<>();
    Set<String> publisherJobs = ConcurrentHashMap.newKeySet();
    SparkListener counter =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart e) {
            String batch = e.properties().getProperty("streaming.sql.batchId");
            if (ModelPublisher.JOB_GROUP.equals(e.properties().getProperty("spark.jobGroup.id"))) {
              publisherJobs.add(String.valueOf(e.jobId()));
            } else if (batch != null) {
              jobs.merge(batch, 1, Integer::sum);
            }
          }

          @Override
          public void onStageSubmitted(
              SparkListenerStageSubmitted e) {
            String batch = e.properties() == null ? null
                : e.properties().getProperty("streaming.sql.batchId");
            if (batch != null) {
              stages.merge(batch, 1, Integer::sum);
            }
          }
        };
    StreamingPerceptron trainer = new StreamingPerceptron(new PerceptronClassifier()
        .setMixing("mistakes").setNumWorkers(2))
        .setCheckpointLocation(tmp.resolve("ckpt").toString())
        .setModelPath(tmp.resolve("model").toString());
    SPARK.sparkContext().addSparkListener(counter);
    try {
      trainer.start(input.stream(), Trigger.AvailableNow());
      trainer.awaitTermination();
      SparkTestSupport.awaitListeners(SPARK);
    } finally {
      SPARK.sparkContext().removeSparkListener(counter);
    }
    assertEquals(Map.of("0", 3, "1", 1, "2", 1, "3", 1), jobs);
    assertEquals(Map.of("0", 3, "1", 1, "2", 1, "3", 1), stages);
    assertFalse(publisherJobs.isEmpty(), "the models were published, in their own jobs");
    assertEquals(3, trainer.progress().lastBatchId());
  }

  /**
   * Models published every 3 batches are whole whenever a concurrent reader loads them: every
   * load that succeeds gives exactly one of the published models, and the last is the final one.
   * The stream waits after its publication until the reader has loaded it, so the reader is
   * certainly loading while the stream runs and publishes (without that wait a slow reader could
   * load nothing and the test would pass on zero loads).
   */
  @Test
  void publishedModelsAreLoadableWholeWhileTheStreamRuns() throws Exception {
    StreamInput input = breastCancerInFourFiles();
    String modelPath = tmp.resolve("model").toString();
    List<double[]> published = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<double[]> awaited = new AtomicReference<>();
    CountDownLatch loadedWhileStreaming = new CountDownLatch(1);
    AtomicBoolean readerKeptUp = new AtomicBoolean(false);
    StreamingPerceptron trainer = new StreamingPerceptron()
        .setCheckpointLocation(tmp.resolve("ckpt").toString()).setModelPath(modelPath)
        .setPublishEvery(3);
    trainer.addListener(report -> {
      if (report.published()) {
        double[] w = weights(trainer.latestModel());
        published.add(w);
        awaited.set(w);
        try {
          // Generous: the reader loads every 200 ms; a loaded machine can take seconds a load.
          readerKeptUp.set(loadedWhileStreaming.await(2, TimeUnit.MINUTES));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    List<double[]> loaded = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean streaming = new AtomicBoolean(true);
    Thread reader = new Thread(() -> {
      while (streaming.get()) {
        try {
          double[] w = weights(PerceptronClassificationModel.load(modelPath));
          loaded.add(w);
          if (Arrays.equals(w, awaited.get())) {
            loadedWhileStreaming.countDown();
          }
        } catch (RuntimeException notYetOrMidSwap) {
          // before the first publication, or during the swap's two renames: retried
        }
        try {
          Thread.sleep(200); // a few loads per batch; more would only starve the stream
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    reader.start();
    try {
      trainer.start(input.stream(), Trigger.AvailableNow());
      trainer.awaitTermination();
    } finally {
      streaming.set(false);
      reader.join();
    }
    assertTrue(readerKeptUp.get(), "the reader loaded the model published mid-stream while the"
        + " stream waited");
    // 4 batches with publishEvery=3: after the third, then the final one at the end.
    assertEquals(1, published.size());
    double[] last = weights(trainer.latestModel());
    published.add(last);
    assertArrayEquals(last, weights(PerceptronClassificationModel.load(modelPath)), 0.0);
    assertFalse(loaded.isEmpty(), "concurrent loads happened");
    for (double[] w : loaded) {
      assertTrue(published.stream().anyMatch(p -> Arrays.equals(p, w)),
          "a loaded model is one of the published ones");
    }
    assertFalse(trainer.publish(), "nothing new to publish after the final publication");
  }

  /**
   * With a publication interval longer than the stream, the first batch's model is published at
   * once and no other until the clean end, which publishes the final model without waiting: every
   * model a reader finds while the batches run is batch 0's, and the final one is there after.
   */
  @Test
  void aPublicationIntervalHoldsLaterModelsBackUntilTheEnd() throws Exception {
    StreamInput input = breastCancerInFourFiles();
    String modelPath = tmp.resolve("model").toString();
    AtomicReference<double[]> first = new AtomicReference<>();
    List<double[]> foundMidStream = Collections.synchronizedList(new ArrayList<>());
    List<Boolean> handedOver = Collections.synchronizedList(new ArrayList<>());
    StreamingPerceptron trainer = new StreamingPerceptron()
        .setCheckpointLocation(tmp.resolve("ckpt").toString()).setModelPath(modelPath)
        .setPublishEvery(1).setPublishInterval(3600);
    trainer.addListener(report -> {
      handedOver.add(report.published());
      if (report.batchId() == 0) {
        first.set(weights(trainer.latestModel()));
        return;
      }
      // Batch 0's publication may still be under way: wait for the file, then read it.
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (System.nanoTime() < deadline) {
        try {
          foundMidStream.add(weights(PerceptronClassificationModel.load(modelPath)));
          return;
        } catch (RuntimeException notYet) {
          try {
            Thread.sleep(100);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    });
    trainer.start(input.stream(), Trigger.AvailableNow());
    trainer.awaitTermination();
    assertEquals(List.of(true, true, true, true), handedOver, "every batch's model handed over");
    assertEquals(3, foundMidStream.size());
    for (double[] w : foundMidStream) {
      assertArrayEquals(first.get(), w, 0.0, "only batch 0's model is published mid-stream");
    }
    double[] last = weights(trainer.latestModel());
    assertFalse(Arrays.equals(first.get(), last), "the stream learnt after batch 0");
    assertArrayEquals(last, weights(PerceptronClassificationModel.load(modelPath)), 0.0,
        "the clean end publishes the final model at once");
  }

  /** breast_cancer's training rows in 4 files: 4 batches of one file each. */
  private StreamInput breastCancerInFourFiles() throws Exception {
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    for (List<String> file : StreamInput.slices(StreamInput.lines("breast_cancer",
        "train.libsvm"), 4)) {
      input.add(file);
    }
    return input;
  }

  private static double[] weights(PerceptronClassificationModel m) {
    double[] w = Arrays.copyOf(m.coefficients().toArray(), m.numFeatures() + 1);
    w[m.numFeatures()] = m.intercept();
    return w;
  }

  /** {@code model.transform} on a streaming DataFrame gives the static transform's rows. */
  @Test
  void aModelScoresAStreamingDataFrame() throws Exception {
    List<String> lines = StreamInput.lines("breast_cancer", "test.libsvm");
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(3)
        .fit(TestData.frameInOrder(SPARK,
            TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 2));
    StreamInput input = new StreamInput(SPARK, tmp, 30);
    for (List<String> file : StreamInput.slices(lines, 2)) {
      input.add(file);
    }
    Dataset<Row> scored = model.transform(input.stream());
    assertTrue(scored.isStreaming());
    StreamingQuery query = scored.writeStream().format("memory").queryName("scored_stream")
        .option("checkpointLocation", tmp.resolve("scoring-ckpt").toString())
        .trigger(Trigger.AvailableNow()).start();
    query.awaitTermination();
    try {
      List<Row> streamed = SPARK.table("scored_stream").collectAsList();
      assertEquals(lines.size(), streamed.size());
      for (Row r : streamed) {
        Vector x = r.getAs("features");
        assertEquals(model.predict(x), (double) r.getAs("prediction"), 0.0);
        assertEquals(model.predictRaw(x), r.getAs("rawPrediction"));
      }
    } finally {
      SPARK.sql("DROP VIEW IF EXISTS scored_stream");
    }
  }

  /**
   * The README's Kafka example parses each record's value, "label,x1,...,x30", with Spark SQL
   * functions; here the same parsing runs on a text file stream (Kafka's value is the same text
   * once cast to a string), and the learnt model is one serial pass of the naive perceptron.
   */
  @Test
  void theReadmesKafkaParsingFeedsTheLearner() throws Exception {
    List<String> libsvm = StreamInput.lines("breast_cancer", "train.libsvm");
    List<TestData.Example> examples = StreamInput.examples(libsvm, 30, tmp);
    List<String> csv = new ArrayList<>();
    for (TestData.Example e : examples) {
      StringBuilder line = new StringBuilder().append(e.label);
      for (double v : e.features.toArray()) {
        line.append(',').append(v);
      }
      csv.add(line.toString());
    }
    Files.createDirectories(tmp.resolve("text"));
    Files.write(tmp.resolve("text/records.csv"), csv);

    Dataset<Row> records = SPARK.readStream().text(tmp.resolve("text").toString());
    // As in the README, from here on:
    Dataset<Row> examplesStream = records
        .selectExpr("CAST(value AS STRING) AS line")
        .select(functions.split(functions.col("line"), ",").as("v"))
        .select(functions.col("v").getItem(0).cast("double").as("label"),
            org.apache.spark.ml.functions.array_to_vector(
                functions.slice(functions.col("v"), 2, 30).cast("array<double>"))
                .as("features"));
    StreamingPerceptron trainer = new StreamingPerceptron(
        new PerceptronClassifier().setShuffle(false).setNumWorkers(1))
        .setCheckpointLocation(tmp.resolve("ckpt").toString()).setNumClasses(2);
    trainer.start(examplesStream, Trigger.AvailableNow());
    trainer.awaitTermination();

    NaivePerceptron naive = NaivePerceptron.perceptron(30, 2, true, 1.0, true)
        .train(Examples.dense(examples), Examples.labels(examples), 1,
            NaivePerceptron.inOrder(examples.size()));
    PerceptronClassificationModel model = trainer.latestModel();
    double[] expected = naive.modelRow(0);
    assertArrayEquals(Arrays.copyOf(expected, 30), model.coefficients().toArray(), 0.0);
    assertEquals(expected[30], model.intercept(), 0.0);
  }

  /**
   * A model learnt from labels 0/1 has two classes; a later batch with label 2 stops the query
   * with a message naming the label and the classes, and leaves the learner at the batch before.
   */
  @Test
  void aLabelBeyondTheModelsClassesStopsTheStreamWithAClearError() throws Exception {
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      first.add((i % 2) + " 1:" + i + " 2:1");
      second.add((i % 3) + " 1:1 2:" + i);
    }
    StreamInput input = new StreamInput(SPARK, tmp, 2);
    input.add(first);
    input.add(second);
    StreamingPerceptron trainer = new StreamingPerceptron()
        .setCheckpointLocation(tmp.resolve("ckpt").toString());
    trainer.start(input.stream(), Trigger.AvailableNow());
    StreamingQueryException e = assertThrows(StreamingQueryException.class,
        trainer::awaitTermination);
    String message = rootMessage(e);
    assertTrue(message.contains("has label 2 in 2 rows of this batch")
        && message.contains("the model has 2 classes") && message.contains("numClasses"),
        message);
    assertEquals(0, trainer.progress().lastBatchId());
    assertEquals(6, trainer.progress().rows());
  }

  static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage();
  }

  @Test
  void paramsThatNeedTheWholeDatasetAreRefusedForStreams() {
    StreamInput input = new StreamInput(SPARK, tmp, 2);
    for (PerceptronClassifier refused : new PerceptronClassifier[] {
        new PerceptronClassifier().setAveraging("vote"),
        new PerceptronClassifier().setMixing("oneshot"),
        new PerceptronClassifier().setClassWeight("balanced")}) {
      StreamingPerceptron trainer = new StreamingPerceptron(refused)
          .setCheckpointLocation(tmp.resolve("ckpt").toString());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> trainer.start(input.stream()));
      assertTrue(e.getMessage().startsWith("Cannot learn from a stream with these params: "),
          e.getMessage());
    }
    assertThrows(IllegalStateException.class,
        () -> new StreamingPerceptron().start(input.stream()), "no checkpoint location");
    assertThrows(IllegalArgumentException.class, () -> new StreamingPerceptron()
        .setCheckpointLocation(tmp.toString()).start(SPARK.emptyDataFrame()));
  }
}
