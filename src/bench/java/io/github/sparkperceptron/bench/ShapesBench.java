package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Issue 32's shapes: the defaults' median epoch in Spark against the same averaged perceptron in
 * one plain Java thread over the same rows ({@link PlainLoop}: the library's kernel over one
 * block of all rows, a fresh full shuffle per epoch), for the shapes whose epochs pay a fixed
 * cost (small binary data), grow with d beyond the coordinates they touch (hashed features: each
 * row's features drawn from all of d = 2^24) and carry K = 100 classes, and a 26-class dense
 * shape (issue 32's target 2).
 */
final class ShapesBench {
  private final SparkSession spark;
  private final Report report;
  private final String master;
  private final int partitions;
  private final int repeats;

  ShapesBench(SparkSession spark, Report report, String master, int partitions, int repeats) {
    this.spark = spark;
    this.report = report;
    this.master = master;
    this.partitions = partitions;
    this.repeats = Math.max(1, repeats);
  }

  /** One shape: its name, rows and how to make them. */
  private record Shape(String name, int numFeatures, int numClasses, Dataset<Row> train) {
  }

  /**
   * @param shuffleScope the fits' visiting order ({@code auto}, the library's default,
   *     {@code rows} or {@code chunks}); the plain loops keep a fresh full shuffle
   */
  void run(long rows, int epochs, int warmupFits, List<String> only, String shuffleScope) {
    report.markdown(Report.f("## Shapes: the default epoch against a plain loop (issue 32)\n\n"
        + "`%s`, %d partitions, %,d rows × 30 non-zeros; PerceptronClassifier defaults with"
        + " maxIter=%d, tol=0, shuffleScope=%s (momentum mixing, averaged, the rounds automatic)."
        + " Spark epoch:"
        + " median of `summary().epochSeconds()` of epochs 2..%d pooled over %d fit(s), after %d"
        + " fit(s) not timed (the JIT's warm-up, as the plain loop's; an epoch"
        + " of a barrier stage of several gets its share of the stage); plain loop: the same"
        + " averaged perceptron, one thread, no Spark, one block of all rows, a fresh full"
        + " shuffle per epoch, median of %d epochs after one warm-up; two plain loops side by"
        + " side: each over every other row, their epochs at once on two threads, the machine's"
        + " own floor for 2 workers (perfect splitting: half the one loop). Binary rows:"
        + " SyntheticData (margin 0.05, noise 0.05, seed 41), features drawn from all of d;"
        + " K = 100: TextLikeData (Zipf s = 1, topics of 200 features, topic share 0.3, seed"
        + " 43). Shapes: binary-d16 (d = 2^16), hashed-d24 (binary, d = 2^24, each row's"
        + " features spread over all of d, as hashed features are), classes100-d16 (K = 100,"
        + " d = 2^16), classes26-dense16 (K = 26, 16 dense features: SyntheticData, margin"
        + " 0.05, noise 0.05, seed 47; issue 32's target 2). %s\n\n", master, partitions, rows, epochs,
        shuffleScope, epochs, repeats, warmupFits, epochs,
        SystemLoad.text()));
    List<Shape> shapes = new ArrayList<>();
    shapes.add(new Shape("binary-d16", 1 << 16, 2, synthetic(1 << 16, rows)));
    shapes.add(new Shape("hashed-d24", 1 << 24, 2, synthetic(1 << 24, rows)));
    shapes.add(new Shape("classes100-d16", 1 << 16, 100,
        new TextLikeData(1 << 16, 100, 30, 1.0, 200, 0.3, 43).frame(spark, 0, rows,
            partitions)));
    shapes.add(new Shape("classes26-dense16", 16, 26, SyntheticData.builder().numFeatures(16)
        .dense().numClasses(26).margin(0.05).labelNoise(0.05).seed(47).build()
        .frame(spark, 0, rows, partitions)));
    Report.Table t = new Report.Table("shape", "Spark epoch s", "plain loop epoch s",
        "Spark / plain", "two plain loops side by side s", "two loops / one", "fit s");
    for (Shape s : shapes) {
      if (only != null && !only.isEmpty() && !only.contains(s.name)) {
        continue;
      }
      Dataset<Row> train = s.train.persist(StorageLevel.MEMORY_ONLY());
      train.count();
      for (int r = 0; r < warmupFits; r++) {
        new PerceptronClassifier().setMaxIter(epochs).setTol(0.0).setShuffleScope(shuffleScope)
            .fit(train);
      }
      List<Double> sparkEpochs = new ArrayList<>();
      List<Double> fits = new ArrayList<>();
      for (int r = 0; r < repeats; r++) {
        long start = System.nanoTime();
        PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(epochs)
            .setTol(0.0).setShuffleScope(shuffleScope).fit(train);
        fits.add((System.nanoTime() - start) / 1e9);
        double[] seconds = model.summary().epochSeconds();
        for (int e = 1; e < seconds.length; e++) {
          sparkEpochs.add(seconds[e]);
        }
      }
      PlainLoop plain = new PlainLoop(train.toLocalIterator(), s.numFeatures, s.numClasses,
          Averaging.AVERAGE, ShuffleScope.ROWS);
      double plainEpoch = plain.medianEpochSeconds(epochs);
      plain = null;
      double twoLoops = sideBySide(train, s, epochs);
      double sparkEpoch = median(sparkEpochs);
      t.row(s.name, Report.f("%.4f", sparkEpoch), Report.f("%.4f", plainEpoch),
          Report.f("%.2f×", sparkEpoch / plainEpoch), Report.f("%.4f", twoLoops),
          Report.f("%.2f×", twoLoops / plainEpoch), Report.f("%.2f", median(fits)));
      train.unpersist(true);
    }
    report.markdown(t.toString());
  }

  /**
   * The machine's own floor for 2 workers: two plain loops, each over every other row, their
   * epochs run at once on two threads (no Spark, no mixing); the median of the epochs' wall time
   * (the slower of the two), after one warm-up. Perfect splitting would give half the one
   * loop's epoch; what the two cores deliver with both busy (shared caches, memory bandwidth) is
   * this.
   */
  private static double sideBySide(Dataset<Row> train, Shape s, int epochs) {
    PlainLoop[] loops = new PlainLoop[2];
    for (int k = 0; k < 2; k++) {
      int half = k;
      Iterator<Row> rows = train.toLocalIterator();
      Iterator<Row> every = new Iterator<>() {
        private long index;
        private Row next = advance();

        private Row advance() {
          while (rows.hasNext()) {
            Row r = rows.next();
            if (index++ % 2 == half) {
              return r;
            }
          }
          return null;
        }

        @Override
        public boolean hasNext() {
          return next != null;
        }

        @Override
        public Row next() {
          Row r = next;
          next = advance();
          return r;
        }
      };
      loops[k] = new PlainLoop(every, s.numFeatures, s.numClasses, Averaging.AVERAGE,
          ShuffleScope.ROWS);
    }
    ExecutorService two = Executors.newFixedThreadPool(2);
    try {
      double[] seconds = new double[epochs];
      for (int e = 0; e <= epochs; e++) {
        long start = System.nanoTime();
        Future<Double> a = two.submit(loops[0]::epoch);
        Future<Double> b = two.submit(loops[1]::epoch);
        a.get();
        b.get();
        if (e > 0) {
          seconds[e - 1] = (System.nanoTime() - start) / 1e9;
        }
      }
      return PlainLoop.median(seconds);
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException(e);
    } finally {
      two.shutdownNow();
    }
  }

  private Dataset<Row> synthetic(int numFeatures, long rows) {
    return SyntheticData.builder().numFeatures(numFeatures).nonZerosPerRow(30).margin(0.05)
        .labelNoise(0.05).seed(41).build().frame(spark, 0, rows, partitions);
  }

  private static double median(List<Double> values) {
    return PlainLoop.median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }
}
