package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Prints a fingerprint of the model bits of a fixed list of default (momentum) fits, one line per
 * fit, so that two builds can be compared fit for fit: a change that claims "models unchanged,
 * bit for bit" runs this in a clone of the commit before and of its own and diffs the outputs.
 * The fits: every set of {@code data-samples/} at 2 and 16 partitions, with and without the
 * default calibrator (which changes the rows trained on), 20 epochs, tol 0; and the 105-class
 * text-like set of the many-class section at seeds 1 and 3 (restarts and a long tail). The
 * fingerprint is the first 8 bytes of SHA-256 over the coefficients' and intercepts' raw bits.
 *
 * <p>Run (after {@code mvn -Pbench -DskipTests process-test-classes}): {@code java -cp
 * target/test-classes:target/classes:$(cat target/bench-classpath.txt)
 * io.github.sparkperceptron.bench.ModelFingerprints data-samples} with the Spark JVM flags of
 * {@code submit/bench}.
 */
public final class ModelFingerprints {
  private ModelFingerprints() {
  }

  public static void main(String[] args) throws Exception {
    Path samples = Path.of(args.length > 0 ? args[0] : "data-samples");
    SparkSession spark = SparkSession.builder().master("local[2]").appName("fingerprints")
        .config("spark.ui.enabled", "false").getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    for (String set : new String[] {"iris", "breast_cancer", "pendigits", "skin_nonskin",
        "spark_sample_libsvm"}) {
      Path train = samples.resolve(set).resolve("train.libsvm");
      if (!Files.exists(train)) {
        train = samples.resolve(set).resolve("train.libsvm.gz");
      }
      Dataset<Row> rows = spark.read().format("libsvm").load(train.toString()).cache();
      rows.count();
      for (int partitions : new int[] {2, 16}) {
        Dataset<Row> parts = rows.repartition(partitions).cache();
        parts.count();
        for (String calibration : new String[] {"none", "sigmoid"}) {
          PerceptronClassificationModel model = new PerceptronClassifier()
              .setCalibration(calibration).setMaxIter(20).setTol(0).fit(parts);
          print(set + " partitions " + partitions + " calibration " + calibration, model);
        }
        parts.unpersist();
      }
      rows.unpersist();
    }
    TextLikeData text = ExchangeBench.manyClassData();
    Dataset<Row> manyClass = text.frame(spark, 0, ExchangeBench.MANY_CLASS_TRAIN_ROWS, 2)
        .repartition(2).cache();
    manyClass.count();
    for (long seed : new long[] {1, 3}) {
      print("many-class seed " + seed, new PerceptronClassifier().setCalibration("none")
          .setMaxIter(20).setSeed(seed).fit(manyClass));
    }
    spark.stop();
  }

  private static void print(String fit, PerceptronClassificationModel model)
      throws NoSuchAlgorithmException {
    double[] coefficients = model.coefficientMatrix().toArray();
    double[] intercepts = model.interceptVector().toArray();
    ByteBuffer bits = ByteBuffer.allocate(8 * (coefficients.length + intercepts.length));
    for (double x : coefficients) {
      bits.putLong(Double.doubleToRawLongBits(x));
    }
    for (double x : intercepts) {
      bits.putLong(Double.doubleToRawLongBits(x));
    }
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(bits.array());
    System.out.println(fit + ": " + HexFormat.of().formatHex(digest, 0, 8) + ", mistakes "
        + Arrays.toString(model.summary().mistakesHistory()));
  }
}
