package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file stream's micro-batch names the same non-empty files through its plan's file index as
 * its collected {@code path} and {@code length} rows do (the reference: Spark's own
 * {@code binaryFile} reader over the same batch), each file once, without a Spark job; empty
 * files, a directory and names with spaces, a percent sign and glob characters, and batches of
 * several files included.
 */
class BatchFilesTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @TempDir
  Path tmp;

  @Test
  void eachBatchNamesTheFilesItsRowsNameWithoutAJob() throws Exception {
    Path input = Files.createDirectories(tmp.resolve("in put"));
    String[] names = {"a.libsvm", "empty.libsvm", "b c.libsvm", "h {1,2} [x].libsvm",
        "d%20e.libsvm", "f.libsvm", "also-empty.libsvm", "g.libsvm"};
    for (String name : names) {
      Files.writeString(input.resolve(name), name.contains("empty") ? "" : "1 1:0.5\n",
          StandardCharsets.UTF_8);
    }
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
    List<String> allNamed = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger jobs = new AtomicInteger();
    SparkListener counter = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart job) {
        jobs.incrementAndGet();
      }
    };
    VoidFunction2<Dataset<Row>, Long> check = (batch, id) -> {
      SparkTestSupport.awaitListeners(SPARK);
      int before = jobs.get();
      List<String> indexed = BatchFiles.nonEmpty(batch);
      SparkTestSupport.awaitListeners(SPARK);
      int during = jobs.get() - before;
      List<String> collected = new ArrayList<>();
      for (Row r : batch.collectAsList()) {
        if (r.getLong(1) > 0) {
          collected.add(r.getString(0));
        }
      }
      // Each file once: Spark lists a batch's files twice where one name holds glob characters.
      List<String> distinct = new ArrayList<>(new TreeSet<>(collected));
      if (!indexed.equals(distinct)) {
        failures.add("batch " + id + ": " + indexed + " against " + distinct);
      }
      allNamed.addAll(indexed);
      if (during != 0) {
        failures.add("batch " + id + " ran " + during + " job(s) to name its files");
      }
      if (BatchFiles.fromPlan(batch.queryExecution().analyzed()) == null) {
        failures.add("batch " + id + ": no file scan found in its plan");
      }
      batchSizes.add(indexed.size());
    };
    SPARK.sparkContext().addSparkListener(counter);
    try {
      StreamingQuery query = SPARK.readStream().format("binaryFile").schema(StreamTrainJob.FILES)
          .option("maxFilesPerTrigger", "3").load(input.toString()).select("path", "length")
          .writeStream().trigger(Trigger.AvailableNow())
          .option("checkpointLocation", tmp.resolve("checkpoint").toString())
          .foreachBatch(check).start();
      query.awaitTermination();
    } finally {
      SPARK.sparkContext().removeSparkListener(counter);
    }
    assertEquals(List.of(), failures);
    assertEquals(3, batchSizes.size(), "8 files at 3 a batch");
    assertEquals(6, allNamed.size(), "the six non-empty files, each once: " + allNamed);
    assertEquals(6, new TreeSet<>(allNamed).size(), "no file in two batches: " + allNamed);
    assertTrue(batchSizes.stream().allMatch(n -> n <= 3));
  }

  @Test
  void aPlanWithoutAFileScanFallsBackToTheRows() {
    StructType listing = new StructType().add("path", DataTypes.StringType)
        .add("length", DataTypes.LongType);
    Dataset<Row> rows = SPARK.createDataFrame(List.of(RowFactory.create("file:/x/a", 3L),
        RowFactory.create("file:/x/b", 0L)), listing);
    assertEquals(null, BatchFiles.fromPlan(rows.queryExecution().analyzed()));
    List<String> paths = BatchFiles.nonEmpty(rows);
    assertNotNull(paths);
    assertEquals(List.of("file:/x/a"), paths);
  }
}
