package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Models saved by earlier versions keep loading and predicting the same: every committed fixture
 * ({@link SavedModelFixtures}: binary, multiclass, voted, and a PipelineModel holding a
 * perceptron, in format 1 and in format 2) is loaded and must reproduce the predictions and raw
 * predictions recorded when it was saved, and format 2's probabilities (its calibrators: Platt's
 * sigmoid, isotonic per class, temperature scaling); format 1, saved before calibration, loads
 * with calibration=none. A change that breaks old models (a renamed param, a new data layout
 * without a reader for the old one) fails here. The fixtures are only read, never rewritten.
 */
class SavedModelCompatibilityTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @TempDir
  Path tmp;

  static Stream<org.junit.jupiter.params.provider.Arguments> fixtures() {
    return Stream.of(1, 2).flatMap(version -> SavedModelFixtures.NAMES.stream()
        .map(name -> org.junit.jupiter.params.provider.Arguments.of(version, name)));
  }

  private static Transformer load(String name, Path dir) {
    return name.equals("pipeline") ? PipelineModel.load(dir.toString())
        : PerceptronClassificationModel.load(dir.toString());
  }

  @ParameterizedTest(name = "format {0} {1}")
  @MethodSource("fixtures")
  void aSavedModelPredictsAsItDidWhenSaved(int version, String name) throws IOException {
    Path dir = SavedModelFixtures.directory(version);
    JsonNode expected = SavedModelFixtures.JSON.readTree(
        dir.resolve(name + ".expected.json").toFile());
    Transformer model = load(name, dir.resolve(name));

    List<TestData.Example> rows = SavedModelFixtures.examples(expected);
    List<Row> got = model.transform(TestData.frameInOrder(SPARK, rows, 1))
        .select("prediction", "rawPrediction", "probability").collectAsList();
    assertEquals(rows.size(), got.size());
    for (int i = 0; i < rows.size(); i++) {
      JsonNode want = expected.get("rows").get(i);
      String where = name + " row " + i;
      assertEquals(want.get("prediction").doubleValue(), got.get(i).getDouble(0), 0.0, where);
      double[] wantRaw = SavedModelFixtures.vector(want.get("rawPrediction")).toArray();
      double[] gotRaw = ((Vector) got.get(i).get(1)).toArray();
      // Relative 1e-12: the raw predictions are sums of at most 30 products (or vote weights),
      // which a different summation order may move by a few ulps; a misread model moves them
      // by orders of magnitude more.
      assertEquals(wantRaw.length, gotRaw.length, where);
      for (int k = 0; k < wantRaw.length; k++) {
        assertEquals(wantRaw[k], gotRaw[k], 1e-12 * Math.max(1, Math.abs(wantRaw[k])), where);
      }
      double[] gotProbability = ((Vector) got.get(i).get(2)).toArray();
      double[] wantProbability = version == 1 ? link(gotRaw)
          : SavedModelFixtures.vector(want.get("probability")).toArray();
      // Probabilities in [0, 1] from those raw predictions: the same 1e-12 (the calibrators'
      // slopes are below 1 here; a misread calibrator moves them by far more).
      assertEquals(wantProbability.length, gotProbability.length, where);
      for (int k = 0; k < wantProbability.length; k++) {
        assertEquals(wantProbability[k], gotProbability[k], 1e-12, where + " probability");
      }
    }
  }

  /** The uncalibrated link of format 1: logistic of the margin, softmax of the scores. */
  private static double[] link(double[] raw) {
    if (raw.length == 2) {
      double p = 1 / (1 + Math.exp(-raw[1]));
      return new double[] {1 - p, p};
    }
    double max = Arrays.stream(raw).max().orElseThrow();
    double[] e = Arrays.stream(raw).map(z -> Math.exp(z - max)).toArray();
    double sum = Arrays.stream(e).sum();
    return Arrays.stream(e).map(v -> v / sum).toArray();
  }

  @Test
  void theFixturesHoldWhatTheirNamesSay() {
    Path dir = SavedModelFixtures.directory(1);
    PerceptronClassificationModel binary =
        PerceptronClassificationModel.load(dir.resolve("binary").toString());
    assertEquals(2, binary.numClasses());
    assertEquals(30, binary.numFeatures());
    // Saved before numWorkers existed (its metadata does not name it): the default, 0 = auto.
    assertEquals(0, binary.getNumWorkers());
    PerceptronClassificationModel multiclass =
        PerceptronClassificationModel.load(dir.resolve("multiclass").toString());
    assertEquals(3, multiclass.numClasses());
    assertEquals("pa1", multiclass.getUpdateRule());
    // Saved before shuffleScope existed (issue 14), so its metadata names neither a value nor a
    // default: the param reads as today's default, as Spark's own readers do.
    assertTrue(!multiclass.isSet(multiclass.shuffleScope()));
    assertEquals("auto", multiclass.getShuffleScope());
    PerceptronClassificationModel voted =
        PerceptronClassificationModel.load(dir.resolve("voted").toString());
    assertTrue(voted.isVoted());
    assertEquals(0.25, voted.getThreshold(), 0.0);
    PipelineModel pipeline = PipelineModel.load(dir.resolve("pipeline").toString());
    assertInstanceOf(PerceptronClassificationModel.class, pipeline.stages()[1]);
    // Saved before calibration existed: the raw link.
    assertEquals("none", binary.getCalibration());
    assertEquals("none", voted.getCalibration());

    Path two = SavedModelFixtures.directory(2);
    assertEquals("sigmoid", PerceptronClassificationModel.load(two.resolve("binary").toString())
        .getCalibration());
    assertEquals("isotonic", PerceptronClassificationModel.load(
        two.resolve("multiclass").toString()).getCalibration());
    PerceptronClassificationModel temperature = (PerceptronClassificationModel) PipelineModel
        .load(two.resolve("pipeline").toString()).stages()[1];
    assertEquals("sigmoid", temperature.getCalibration());
    assertEquals(1, temperature.calibrator().parameters().length, "one temperature");
  }

  /**
   * An estimator (alone, or in a saved Pipeline or CrossValidator) saved by format 1 has none of
   * the params the probabilistic hierarchy and calibration added: its metadata, rewritten here as
   * format 1 wrote it, loads with their defaults.
   */
  @Test
  void anEstimatorSavedBeforeCalibrationLoadsWithTheNewDefaults() throws IOException {
    Path saved = tmp.resolve("estimator-format-1");
    new PerceptronClassifier().setMaxIter(4).write().save(saved.toString());
    String text = metadata(saved);
    for (String added : new String[] {"calibration", "calibrationFolds", "probabilityCol"}) {
      text = text.replaceAll(",?\"" + added + "\":(\"[a-z]*\"|[0-9]+)", "");
    }
    text = text.replace("\"formatVersion\":" + ModelFiles.FORMAT_VERSION, "\"formatVersion\":1");
    assertTrue(!text.contains("calibration") && !text.contains("probabilityCol"), text);
    Path file = metadataFile(saved);
    Files.writeString(file, text, StandardCharsets.UTF_8);
    // Hadoop's local file system would check the old text's checksum beside it.
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
    PerceptronClassifier loaded = PerceptronClassifier.load(saved.toString());
    assertEquals(4, loaded.getMaxIter());
    assertEquals("sigmoid", loaded.getCalibration());
    assertEquals("probability", loaded.getProbabilityCol());
    assertTrue(!loaded.isDefined(loaded.thresholds()));
  }

  @Test
  void everySavedStageDeclaresItsFormatVersion() throws IOException {
    PerceptronClassificationModel model = PerceptronClassificationModel.load(
        SavedModelFixtures.directory(1).resolve("binary").toString());
    Path saved = tmp.resolve("saved");
    model.write().save(saved.toString());
    assertTrue(metadata(saved).contains("\"formatVersion\":" + ModelFiles.FORMAT_VERSION),
        metadata(saved));
    Path estimator = tmp.resolve("estimator");
    new PerceptronClassifier().setInitialModel(model).write().save(estimator.toString());
    assertTrue(metadata(estimator).contains("\"formatVersion\":" + ModelFiles.FORMAT_VERSION));
    assertTrue(metadata(estimator.resolve("initialModel")).contains("\"formatVersion\""));
  }

  @Test
  void aNewerFormatIsRefusedWithAMessageAndAMissingOneReadsAsOne() throws IOException {
    Path original = SavedModelFixtures.directory(1).resolve("binary");
    Path newer = copy(original, tmp.resolve("newer"));
    rewriteMetadata(newer, "\"formatVersion\":1", "\"formatVersion\":99");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerceptronClassificationModel.load(newer.toString()));
    assertEquals("'" + newer + "' holds a PerceptronClassificationModel saved in format version"
        + " 99 by a newer spark-perceptron (with Spark 4.2.0); this version reads format"
        + " versions up to " + ModelFiles.FORMAT_VERSION + ": load it with a newer"
        + " spark-perceptron", e.getMessage());

    Path garbled = copy(original, tmp.resolve("garbled"));
    rewriteMetadata(garbled, "\"formatVersion\":1", "\"formatVersion\":\"one\"");
    e = assertThrows(IllegalArgumentException.class,
        () -> PerceptronClassificationModel.load(garbled.toString()));
    assertTrue(e.getMessage().contains("not a format version"), e.getMessage());

    Path unversioned = copy(original, tmp.resolve("unversioned"));
    rewriteMetadata(unversioned, ",\"formatVersion\":1", "");
    assertEquals(PerceptronClassificationModel.load(original.toString()).coefficients(),
        PerceptronClassificationModel.load(unversioned.toString()).coefficients());
  }

  private static Path metadataFile(Path stage) throws IOException {
    try (Stream<Path> files = Files.list(stage.resolve("metadata"))) {
      return files.filter(f -> f.getFileName().toString().startsWith("part-")).findFirst()
          .orElseThrow();
    }
  }

  private static String metadata(Path stage) throws IOException {
    return Files.readString(metadataFile(stage), StandardCharsets.UTF_8);
  }

  private static void rewriteMetadata(Path stage, String from, String to) throws IOException {
    String text = metadata(stage);
    assertTrue(text.contains(from), text);
    Files.writeString(metadataFile(stage), text.replace(from, to), StandardCharsets.UTF_8);
  }

  private static Path copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, to.resolve(from.relativize(f).toString()));
      }
    }
    return to;
  }
}
