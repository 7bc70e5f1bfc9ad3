package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.StandardScaler;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.tuning.CrossValidator;
import org.apache.spark.ml.tuning.CrossValidatorModel;
import org.apache.spark.ml.tuning.ParamGridBuilder;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.CollectionConverters;

/** Spark-standard persistence alone, inside pipelines, and model selection with CrossValidator. */
class PersistenceTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static Dataset<Row> binary;
  private static Dataset<Row> multiclass;

  @TempDir
  Path tmp;

  @BeforeAll
  static void data() {
    binary = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 2).cache();
    multiclass = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4), 2).cache();
  }

  private static List<Row> predictions(Transformer model, Dataset<Row> data) {
    return model.transform(data).select("rawPrediction", "prediction").collectAsList();
  }

  @Test
  void binaryAndMulticlassModelsRoundTrip() throws IOException {
    for (Dataset<Row> data : List.of(binary, multiclass)) {
      PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(4)
          .setStepSize(0.5).setUpdateRule("pa1").fit(data);
      model.setThreshold(0.25);
      String path = tmp.resolve("model-" + model.numClasses()).toString();
      model.write().overwrite().save(path);
      PerceptronClassificationModel loaded = PerceptronClassificationModel.load(path);

      assertEquals(model.uid(), loaded.uid());
      assertEquals(model.numClasses(), loaded.numClasses());
      assertEquals(model.numFeatures(), loaded.numFeatures());
      assertArrayEquals(model.coefficientMatrix().toArray(), loaded.coefficientMatrix().toArray(),
          0.0);
      assertArrayEquals(model.interceptVector().toArray(), loaded.interceptVector().toArray(),
          0.0);
      assertEquals(4, loaded.getMaxIter());
      assertEquals("pa1", loaded.getUpdateRule());
      assertEquals(0.25, loaded.getThreshold(), 0.0);
      assertFalse(loaded.hasSummary());
      assertEquals(predictions(model, data), predictions(loaded, data));
    }
  }

  @Test
  void estimatorRoundTripsWithItsInitialModel() throws IOException {
    PerceptronClassificationModel start = new PerceptronClassifier().setMaxIter(2).fit(binary);
    PerceptronClassifier estimator = new PerceptronClassifier().setMaxIter(3)
        .setMixing("uniform").setWeightCol("w").setInitialModel(start);
    String path = tmp.resolve("estimator").toString();
    estimator.write().overwrite().save(path);
    PerceptronClassifier loaded = PerceptronClassifier.load(path);
    assertEquals(estimator.uid(), loaded.uid());
    assertEquals(3, loaded.getMaxIter());
    assertEquals("uniform", loaded.getMixing());
    assertEquals("w", loaded.getWeightCol());
    assertNotNull(loaded.getInitialModel());
    assertArrayEquals(start.coefficients().toArray(),
        loaded.getInitialModel().coefficients().toArray(), 0.0);
    assertTrue(Files.isDirectory(tmp.resolve("estimator/initialModel")));
    // the initial model also survives copies (CrossValidator and Pipeline copy estimators)
    assertNotNull(estimator.copy(new ParamMap()).getInitialModel());
  }

  @Test
  void pipelineAndPipelineModelRoundTrip() throws IOException {
    Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
        new StandardScaler().setInputCol("features").setOutputCol("scaled"),
        new PerceptronClassifier().setFeaturesCol("scaled").setMaxIter(5)});
    String pipelinePath = tmp.resolve("pipeline").toString();
    pipeline.write().overwrite().save(pipelinePath);
    Pipeline loadedPipeline = Pipeline.load(pipelinePath);
    PerceptronClassifier stage = (PerceptronClassifier) loadedPipeline.getStages()[1];
    assertEquals(5, stage.getMaxIter());
    assertEquals("scaled", stage.getFeaturesCol());

    PipelineModel fitted = loadedPipeline.fit(multiclass);
    String modelPath = tmp.resolve("pipeline-model").toString();
    fitted.write().overwrite().save(modelPath);
    PipelineModel loaded = PipelineModel.load(modelPath);
    assertInstanceOf(PerceptronClassificationModel.class, loaded.stages()[1]);
    assertEquals(predictions(fitted, multiclass), predictions(loaded, multiclass));
  }

  @Test
  void crossValidatorSearchesTheGridAndSavesTheBestModel() throws IOException {
    // calibration=none: the search is by accuracy and the round trip compares raw scores and
    // predictions, which a calibrator does not change; on these 455 rows the default would
    // cross-fit three fold models more in each of the search's 17 fits (the models' own
    // calibrated round trips: ProbabilityContractTest).
    PerceptronClassifier clf = new PerceptronClassifier().setCalibration("none");
    ParamMap[] grid = new ParamGridBuilder()
        .addGrid(clf.maxIter(), new int[] {1, 8})
        .addGrid(clf.averaging(), CollectionConverters.ListHasAsScala(
            List.of("none", "average")).asScala())
        .addGrid(clf.stepSize(), new double[] {0.1, 1.0})
        .build();
    assertEquals(8, grid.length);
    CrossValidator cv = new CrossValidator().setEstimator(clf).setEstimatorParamMaps(grid)
        .setEvaluator(new MulticlassClassificationEvaluator().setMetricName("accuracy"))
        .setNumFolds(2).setParallelism(2).setSeed(1);
    CrossValidatorModel cvModel = cv.fit(binary);
    assertEquals(8, cvModel.avgMetrics().length);
    for (double metric : cvModel.avgMetrics()) {
      assertTrue(metric > 0.5 && metric <= 1.0, "accuracy " + metric);
    }
    PerceptronClassificationModel best = (PerceptronClassificationModel) cvModel.bestModel();
    int bestIndex = 0;
    for (int i = 1; i < grid.length; i++) {
      if (cvModel.avgMetrics()[i] > cvModel.avgMetrics()[bestIndex]) {
        bestIndex = i;
      }
    }
    assertEquals(grid[bestIndex].apply(clf.maxIter()), (Integer) best.getMaxIter());
    assertEquals(grid[bestIndex].apply(clf.averaging()), best.getAveraging());

    String path = tmp.resolve("cv").toString();
    cvModel.write().overwrite().save(path);
    CrossValidatorModel loaded = CrossValidatorModel.load(path);
    assertEquals(predictions(cvModel, binary), predictions(loaded, binary));
  }
}
