package example;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.Arrays;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.StandardScaler;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The README's Java example as a program of its own: fits a StandardScaler + PerceptronClassifier
 * pipeline, saves and reloads it, prints the test accuracy and the learned weights, and exports
 * the perceptron as ONNX (the README's "Serving a model outside Spark"), which runs the protobuf
 * runtime relocated inside the library jar. Arguments: the training file, the test file, a
 * directory for the saved pipeline, a directory for the ONNX model.
 */
public final class ConsumerPipeline {
  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkSession.builder().master("local[2]").appName("consumer")
        .config("spark.ui.enabled", "false").getOrCreate();
    try {
      Dataset<Row> train = spark.read().format("libsvm").load(args[0]);
      Dataset<Row> test = spark.read().format("libsvm").option("numFeatures", "30").load(args[1]);

      PerceptronClassifier perceptron = new PerceptronClassifier()
          .setFeaturesCol("scaled")
          .setMaxIter(20)
          .setAveraging("average");
      Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
          new StandardScaler().setInputCol("features").setOutputCol("scaled"), perceptron});

      PipelineModel model = pipeline.fit(train);
      model.write().overwrite().save(args[2]);
      PipelineModel loaded = PipelineModel.load(args[2]);
      double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy")
          .evaluate(loaded.transform(test));

      PerceptronClassificationModel p = (PerceptronClassificationModel) loaded.stages()[1];
      System.out.println("accuracy=" + accuracy);
      System.out.println("intercept=" + p.intercept());
      System.out.println("coefficients=" + Arrays.toString(p.coefficients().toArray()));
      p.write().format("onnx").save(args[3]);
      System.out.println("onnx=" + args[3]);
    } finally {
      spark.stop();
    }
  }
}
