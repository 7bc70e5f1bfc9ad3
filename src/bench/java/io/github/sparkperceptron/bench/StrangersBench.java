package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.Strangers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The benchmark of issue 30: what each kind of stranger on the network costs the default fit,
 * whose epochs run in barrier stages and exchange their rounds over the library's sockets.
 *
 * <pre>
 * per kind of stranger ({@code testing/Strangers}): the default fit (momentum, automatic
 *   rounds, numWorkers = the task slots, the rendezvous on a fixed port) undisturbed and with
 *   the stranger hammering the rendezvous and every listener the tasks open, alternating,
 *   best and median of the repetitions; whether the two models are the same bits
 * sealed: the same undisturbed fit with spark.perceptron.barrier.encryption=always (what
 *   Spark's security settings turn on), against the clear one
 * </pre>
 *
 * <p>Data: the rounds section's census-shaped generated set (32,000 rows, 123 features, 14
 * non-zeros a row), the size of the measurement (2.9 s undisturbed on {@code local[2]},
 * then hung for good after one packet). Timings are only meaningful on an idle machine; the
 * "same model" column is not a timing and holds on any.
 */
final class StrangersBench {

  private final SparkSession spark;
  private final Report report;
  private final int repeats;

  StrangersBench(SparkSession spark, Report report, int repeats) {
    this.spark = spark;
    this.report = report;
    this.repeats = repeats;
  }

  /** One fit: its seconds and its weights. */
  private static final class Fit {
    double seconds;
    double[] weights;
  }

  private Fit fit(Dataset<Row> train, int epochs, int port, String encryption) {
    spark.sparkContext().setLocalProperty(Settings.BARRIER_PORT, String.valueOf(port));
    spark.sparkContext().setLocalProperty(Settings.BARRIER_ENCRYPTION, encryption);
    try {
      long start = System.nanoTime();
      PerceptronClassificationModel m = new PerceptronClassifier().setMaxIter(epochs).setTol(0)
          .fit(train);
      Fit f = new Fit();
      f.seconds = (System.nanoTime() - start) / 1e9;
      Vector w = m.coefficients();
      f.weights = Arrays.copyOf(w.toArray(), w.size() + 1);
      f.weights[w.size()] = m.intercept();
      return f;
    } finally {
      spark.sparkContext().setLocalProperty(Settings.BARRIER_PORT, null);
      spark.sparkContext().setLocalProperty(Settings.BARRIER_ENCRYPTION, null);
    }
  }

  void run(long rows, int epochs, List<String> kinds) {
    SyntheticData data = SyntheticData.builder().numFeatures(123).nonZerosPerRow(14)
        .margin(0.05).labelNoise(0.15).seed(21).build();
    int slots = spark.sparkContext().defaultParallelism();
    Dataset<Row> train = data.frame(spark, 0, rows, slots).repartition(slots).cache();
    train.count();
    int port = freePort();
    report.markdown(Report.f("## Strangers on the network: the default fit undisturbed and"
        + " hammered (issue 30)\n\n%d workers on %d task slots; %s, %,d rows; %d epochs, the"
        + " library's defaults (momentum, automatic rounds, barrier stages), the rendezvous on"
        + " port %d; undisturbed and disturbed fits alternating, %d repetitions after a warm-up"
        + " fit. %s\n\n", slots, slots, data.describe(), rows, epochs, port, repeats,
        SystemLoad.text()));
    Fit reference = fit(train, epochs, port, "auto");
    Report.Table t = new Report.Table("stranger", "undisturbed s (best / median)",
        "disturbed s (best / median)", "disturbed / undisturbed (best)", "stranger connections",
        "ports hit", "same model");
    for (String name : kinds) {
      Strangers.Kind kind = Strangers.Kind.valueOf(name.trim().toUpperCase(Locale.ROOT));
      List<Double> calm = new ArrayList<>();
      List<Double> hammered = new ArrayList<>();
      boolean same = true;
      long connections = 0;
      int ports = 0;
      for (int r = 0; r < repeats; r++) {
        Fit undisturbed = fit(train, epochs, port, "auto");
        calm.add(undisturbed.seconds);
        same &= Arrays.equals(reference.weights, undisturbed.weights);
        Fit disturbed;
        try (Strangers s = Strangers.start(kind, Strangers.newListenersOfThisJvm(port))) {
          disturbed = fit(train, epochs, port, "auto");
          connections += s.connections();
          ports = Math.max(ports, s.portsHit().size());
        }
        hammered.add(disturbed.seconds);
        same &= Arrays.equals(reference.weights, disturbed.weights);
        System.err.printf("strangers %s: %.2f s undisturbed, %.2f s disturbed%n", kind,
            undisturbed.seconds, disturbed.seconds);
      }
      t.row(kind.description, Report.f("%.2f / %.2f", min(calm), median(calm)),
          Report.f("%.2f / %.2f", min(hammered), median(hammered)),
          Report.f("%.2f", min(hammered) / min(calm)), Report.f("%,d", connections / repeats),
          ports, same ? "yes" : "NO");
      report.flush();
    }
    List<Double> clear = new ArrayList<>();
    List<Double> sealed = new ArrayList<>();
    boolean same = true;
    for (int r = 0; r < repeats; r++) {
      clear.add(fit(train, epochs, port, "auto").seconds);
      Fit s = fit(train, epochs, port, "always");
      sealed.add(s.seconds);
      same &= Arrays.equals(reference.weights, s.weights);
    }
    t.row("none; frames sealed (AES-256-GCM)", Report.f("%.2f / %.2f", min(clear),
        median(clear)), Report.f("%.2f / %.2f", min(sealed), median(sealed)),
        Report.f("%.2f", min(sealed) / min(clear)), "-", "-", same ? "yes" : "NO");
    report.markdown(t.toString()).markdown("\"Ports hit\": the rendezvous and the tasks'"
        + " listeners the stranger found open (they are open only while a stage's tasks"
        + " connect). After the section: " + SystemLoad.text() + "\n\n");
    report.flush();
    train.unpersist();
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double min(List<Double> xs) {
    return Collections.min(xs);
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}
