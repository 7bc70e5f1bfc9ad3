// The README's "Use it from Java", line for line (ReadmeFiguresTest checks that the README's block
// is here unchanged), run as a script by NotebookExamplesTest:
//   examples/run-jshell examples/use-from-java.jsh
// or pasted into an interactive examples/run-jshell. jshell carries on after a failing line and
// exits 0, so the last lines turn "every line worked" into the exit status (a declaration whose
// initializer threw keeps null).
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.feature.StandardScaler;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

SparkSession spark = SparkSession.builder().master("local[*]").getOrCreate();
Dataset<Row> train = spark.read().format("libsvm").load("data-samples/breast_cancer/train.libsvm");
Dataset<Row> test = spark.read().format("libsvm").option("numFeatures", "30").
    load("data-samples/breast_cancer/test.libsvm");

// Chained calls end their lines with the dot, so that jshell reads on (see examples/README.md).
PerceptronClassifier perceptron = new PerceptronClassifier().
    setFeaturesCol("scaled").
    setMaxIter(20).
    setAveraging("average");
Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
    new StandardScaler().setInputCol("features").setOutputCol("scaled"), perceptron});

PipelineModel model = pipeline.fit(train);
model.transform(test).select("label", "prediction", "rawPrediction").show(5);
model.write().overwrite().save("out/pipeline-model");

PerceptronClassificationModel p = (PerceptronClassificationModel) model.stages()[1];
System.out.println(p.coefficients() + " " + p.intercept());
System.out.println(java.util.Arrays.toString(p.summary().mistakesHistory()));

/exit p != null && p.summary().totalIterations() == 20 ? 0 : 1
