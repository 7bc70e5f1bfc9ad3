package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void trainsOnBreastCancer() {
    SparkSession spark = SparkTestSupport.spark();
    Dataset<Row> train = TestData.frame(spark,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 2);
    Dataset<Row> test = TestData.frame(spark,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "test.libsvm"), 30), 2);
    PerceptronClassificationModel model = new PerceptronClassifier().fit(train);
    long correct = model.transform(test).filter("prediction = label").count();
    double acc = correct / (double) test.count();
    System.out.println("accuracy " + acc + " " + model.summary());
    assertTrue(acc > 0.9);
  }
}
