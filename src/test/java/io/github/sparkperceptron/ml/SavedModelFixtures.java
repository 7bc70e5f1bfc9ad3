package io.github.sparkperceptron.ml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.feature.StandardScaler;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The saved models under {@code src/test/resources/saved-models/format-N/} and the predictions
 * they must keep making ({@code NAME.expected.json}), which {@link SavedModelCompatibilityTest}
 * checks. This class makes them; it runs only when asked, so the check never regenerates what it
 * checks:
 *
 * <pre>
 * mvn test -Dtest=SavedModelFixtures -DregenerateSavedModels=true
 * </pre>
 *
 * Regenerate only when {@link ModelFiles#FORMAT_VERSION} is raised, into the new version's own
 * directory, and keep the older directories: they are what old users have on disk. Format 1's
 * expected rows have no probability (it had none); format 2's do.
 */
class SavedModelFixtures {
  /** The models: a binary, a multiclass and a voted one, and a PipelineModel. */
  static final List<String> NAMES = List.of("binary", "multiclass", "voted", "pipeline");

  static Path directory(int formatVersion) {
    return TestData.projectRoot().resolve("src/test/resources/saved-models")
        .resolve("format-" + formatVersion);
  }

  static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);

  /** A vector as JSON: {"size": d, "values": [...]}, plus "indices" when sparse. */
  static ObjectNode vectorJson(Vector v) {
    ObjectNode node = JSON.createObjectNode();
    node.put("size", v.size());
    if (v instanceof SparseVector) {
      ArrayNode indices = node.putArray("indices");
      for (int i : ((SparseVector) v).indices()) {
        indices.add(i);
      }
    }
    ArrayNode values = node.putArray("values");
    double[] stored = v instanceof SparseVector ? ((SparseVector) v).values()
        : ((DenseVector) v).values();
    for (double x : stored) {
      values.add(x);
    }
    return node;
  }

  static Vector vector(JsonNode node) {
    double[] values = new double[node.get("values").size()];
    for (int k = 0; k < values.length; k++) {
      values[k] = node.get("values").get(k).doubleValue();
    }
    if (!node.has("indices")) {
      return Vectors.dense(values);
    }
    int[] indices = new int[values.length];
    for (int k = 0; k < indices.length; k++) {
      indices[k] = node.get("indices").get(k).intValue();
    }
    return Vectors.sparse(node.get("size").intValue(), indices, values);
  }

  /** Rows of TestData's schema (label, features) from a fixture's expected file. */
  static List<TestData.Example> examples(JsonNode expected) {
    List<TestData.Example> out = new ArrayList<>();
    for (JsonNode row : expected.get("rows")) {
      out.add(new TestData.Example(row.get("label").doubleValue(),
          vector(row.get("features"))));
    }
    return out;
  }

  private static List<TestData.Example> sample(String dataset, int d, int n, boolean denseFirst) {
    List<TestData.Example> all = TestData.readLibSvm(TestData.sharedData(dataset, "test.libsvm"), d);
    List<TestData.Example> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      TestData.Example e = all.get(i * all.size() / n);
      // one dense row: both vector kinds must keep predicting the same
      out.add(i == 0 && denseFirst ? new TestData.Example(e.label, e.features.toDense()) : e);
    }
    return out;
  }

  @Test
  @EnabledIfSystemProperty(named = "regenerateSavedModels", matches = "true")
  void regenerate() throws IOException {
    SparkSession spark = SparkTestSupport.spark();
    Path dir = directory(ModelFiles.FORMAT_VERSION);
    Dataset<Row> cancer = TestData.frame(spark,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 2);
    Dataset<Row> iris = TestData.frame(spark,
        TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4), 2);

    // Format 2: the calibrators, Platt's sigmoid (binary, the default), isotonic per class
    // (multiclass) and temperature scaling (the pipeline's multiclass default).
    save(spark, dir, "binary", new PerceptronClassifier().setMaxIter(5).fit(cancer),
        sample("breast_cancer", 30, 8, true));
    save(spark, dir, "multiclass", new PerceptronClassifier().setMaxIter(5).setUpdateRule("pa1")
        .setAveraging("none").setCalibration("isotonic").fit(iris), sample("iris", 4, 9, true));
    // A vote keeps every update: a small separable set keeps the fixture a few KB.
    TestData.Separable small = TestData.separable(11, 40, 3, 0.1, 2);
    PerceptronClassificationModel voted = new PerceptronClassifier().setAveraging("vote")
        .setMaxIter(3).fit(TestData.frame(spark, small.examples, 2));
    voted.setThreshold(0.25);
    save(spark, dir, "voted", voted, noisy(small.examples.subList(0, 8), 3));
    Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
        new StandardScaler().setInputCol("features").setOutputCol("scaled"),
        new PerceptronClassifier().setFeaturesCol("scaled").setMaxIter(4)});
    save(spark, dir, "pipeline", pipeline.fit(iris), sample("iris", 4, 9, false));
  }

  /** Copies of rows moved off their training positions, so that the vote is not unanimous. */
  private static List<TestData.Example> noisy(List<TestData.Example> rows, long seed) {
    Random random = new Random(seed);
    List<TestData.Example> out = new ArrayList<>();
    for (TestData.Example e : rows) {
      double[] x = e.features.toArray();
      for (int j = 0; j < x.length; j++) {
        x[j] += random.nextGaussian() * 0.5;
      }
      out.add(new TestData.Example(e.label, Vectors.dense(x)));
    }
    return out;
  }

  private static void save(SparkSession spark, Path dir, String name, Transformer model,
      List<TestData.Example> rows) throws IOException {
    Path target = dir.resolve(name);
    ((MLWritable) model).write().overwrite().save(target.toString());
    deleteChecksums(target);

    List<Row> predicted = model.transform(TestData.frameInOrder(spark, rows, 1))
        .select("prediction", "rawPrediction", "probability").collectAsList();
    ObjectNode expected = JSON.createObjectNode();
    expected.put("model", name);
    expected.put("note", "written by SavedModelFixtures from the model before it was saved");
    ArrayNode out = expected.putArray("rows");
    for (int i = 0; i < rows.size(); i++) {
      ObjectNode row = out.addObject();
      row.put("label", rows.get(i).label);
      row.set("features", vectorJson(rows.get(i).features));
      row.put("prediction", predicted.get(i).getDouble(0));
      row.set("rawPrediction", vectorJson((Vector) predicted.get(i).get(1)));
      row.set("probability", vectorJson((Vector) predicted.get(i).get(2)));
    }
    Files.writeString(dir.resolve(name + ".expected.json"), JSON.writeValueAsString(expected));
  }

  /**
   * Hadoop's local file system writes a .crc beside every file; they add nothing to a fixture
   * (git keeps its integrity) and Hadoop reads the files without them.
   */
  private static void deleteChecksums(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString()
          .endsWith(".crc"))::iterator) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
