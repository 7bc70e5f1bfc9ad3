package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The train job reads its data from and saves its model and metrics to HDFS (an in-JVM
 * MiniDFSCluster: a NameNode and a DataNode on 127.0.0.1), and the model loads back from there
 * and predicts like one trained from the same file on the local disk.
 */
@Tag("hdfs")
class HdfsTrainJobTest {
  private static final org.apache.hadoop.fs.Path TRAIN =
      new org.apache.hadoop.fs.Path("/data/breast_cancer/train.libsvm");
  private static final org.apache.hadoop.fs.Path TEST =
      new org.apache.hadoop.fs.Path("/data/breast_cancer/test.libsvm");

  @TempDir
  static Path tmp;

  private static MiniDFSCluster hdfs;
  private static FileSystem fs;
  private static String uri;

  @BeforeAll
  static void startHdfs() throws IOException {
    SparkTestSupport.spark();
    Configuration conf = new Configuration();
    // Without it the NameNode and DataNode keep their storage under ./target/test/data.
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, tmp.resolve("dfs").toString());
    hdfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    hdfs.waitActive();
    fs = hdfs.getFileSystem();
    uri = fs.getUri().toString();
    fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(
        TestData.sharedData("breast_cancer", "train.libsvm").toString()), TRAIN);
    fs.copyFromLocalFile(new org.apache.hadoop.fs.Path(
        TestData.sharedData("breast_cancer", "test.libsvm").toString()), TEST);
  }

  @AfterAll
  static void stopHdfs() {
    if (hdfs != null) {
      // Stopping interrupts the DataNode's threads, which it reports as an error.
      String dataNode = "org.apache.hadoop.hdfs.server.datanode";
      Level level = LogManager.getLogger(dataNode).getLevel();
      Configurator.setLevel(dataNode, Level.OFF);
      try {
        hdfs.shutdown();
      } finally {
        Configurator.setLevel(dataNode, level);
      }
    }
  }

  @Test
  void trainsFromHdfsAndSavesTheModelThere() throws IOException {
    assertTrue(uri.startsWith("hdfs://"), uri);
    String model = uri + "/models/breast-cancer";
    String metrics = uri + "/models/breast-cancer-metrics.json";
    JobRun onHdfs = JobRun.of(new TrainJob(), "--train", uri + TRAIN, "--test", uri + TEST,
        "--model", model, "--metrics", metrics, "--partitions", "2");
    assertEquals(0, onHdfs.exitCode, onHdfs.toString());
    assertTrue(fs.exists(new org.apache.hadoop.fs.Path("/models/breast-cancer/metadata")));

    Path localModel = tmp.resolve("local-model");
    JobRun onDisk = JobRun.of(new TrainJob(),
        "--train", TestData.sharedData("breast_cancer", "train.libsvm").toString(),
        "--test", TestData.sharedData("breast_cancer", "test.libsvm").toString(),
        "--model", localModel.toString(), "--metrics", tmp.resolve("local.json").toString(),
        "--partitions", "2");
    assertEquals(0, onDisk.exitCode, onDisk.toString());

    PerceptronClassificationModel fromHdfs = PerceptronClassificationModel.load(model);
    PerceptronClassificationModel fromDisk =
        PerceptronClassificationModel.load(localModel.toString());
    // Same rows in the same partitions (one input split, spread over 2 by a shuffle with a single
    // map task, so in a fixed order) with the same seed: the same model, bit for bit.
    assertArrayEquals(fromDisk.coefficients().toArray(), fromHdfs.coefficients().toArray());
    assertEquals(fromDisk.intercept(), fromHdfs.intercept(), 0.0);

    SparkSession spark = SparkTestSupport.spark();
    Dataset<Row> test = LibSvmSource.read(spark, uri + TEST, fromHdfs.numFeatures(), "test data")
        .frame();
    List<Row> hdfsPredictions = fromHdfs.transform(test).select("rawPrediction", "prediction")
        .collectAsList();
    List<Row> diskPredictions = fromDisk.transform(test).select("rawPrediction", "prediction")
        .collectAsList();
    assertEquals(114, hdfsPredictions.size());
    assertEquals(diskPredictions, hdfsPredictions);

    JsonNode json;
    try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(metrics))) {
      json = Json.MAPPER.readTree(in);
    }
    JsonNode local = Json.MAPPER.readTree(tmp.resolve("local.json").toFile());
    assertEquals(uri + TRAIN, json.get("data").get("train").asText());
    assertEquals(local.get("test").get("accuracy"), json.get("test").get("accuracy"));
    assertTrue(json.get("test").get("accuracy").asDouble() > 0.9, json.toPrettyString());
  }
}
