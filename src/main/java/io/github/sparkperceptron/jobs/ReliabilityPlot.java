package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYBarDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The reliability diagram of a model's probabilities as a PNG (DeGroot &amp; Fienberg 1983; the
 * binning of Guo et al. 2017): for each of the {@value ProbabilityMetrics#BINS} equal-width bins
 * of the confidence (the largest class probability), the share of its rows whose most probable
 * class is right against their mean confidence, beside the diagonal a calibrated model follows;
 * below, the share of the rows in each bin. The title carries log-loss, Brier score and ECE.
 */
final class ReliabilityPlot {
  private ReliabilityPlot() {
  }

  /** The path of the diagram beside the training curves' {@code plotPath} (a.png: a-reliability.png). */
  static String besidePlot(String plotPath) {
    String base = plotPath.toLowerCase(Locale.ROOT).endsWith(".png")
        ? plotPath.substring(0, plotPath.length() - 4) : plotPath;
    return base + "-reliability.png";
  }

  static byte[] png(String title, ProbabilityMetrics m) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int bins = ProbabilityMetrics.BINS;
    double[] weight = m.binWeights();
    double[] confidence = m.binConfidences();
    double[] accuracy = m.binAccuracies();
    double total = 0;
    for (double w : weight) {
      total += w;
    }
    XYSeries observed = new XYSeries("accuracy of the rows in the bin", false);
    XYSeries ideal = new XYSeries("calibrated (accuracy = confidence)");
    XYSeries share = new XYSeries("share of the rows");
    ideal.add(0.0, 0.0);
    ideal.add(1.0, 1.0);
    for (int b = 0; b < bins; b++) {
      if (weight[b] > 0) {
        observed.add(confidence[b], accuracy[b]);
      }
      share.add((b + 0.5) / bins, total > 0 ? weight[b] / total : 0.0);
    }
    XYSeriesCollection curves = new XYSeriesCollection(observed);
    curves.addSeries(ideal);
    NumberAxis x = new NumberAxis("confidence (largest class probability)");
    x.setRange(0.0, 1.0);
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
    plot.setGap(12);

    NumberAxis y = new NumberAxis("accuracy");
    y.setRange(0.0, 1.0);
    XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, true);
    lines.setSeriesPaint(0, new Color(0x1f77b4));
    lines.setSeriesStroke(0, new BasicStroke(2f));
    lines.setSeriesPaint(1, Color.GRAY);
    lines.setSeriesShapesVisible(1, false);
    lines.setSeriesStroke(1, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
        10f, new float[] {6f, 4f}, 0f));
    XYPlot top = new XYPlot(curves, null, y, lines);
    style(top);
    plot.add(top, 3);

    XYBarRenderer bars = new XYBarRenderer(0.1);
    bars.setBarPainter(new StandardXYBarPainter());
    bars.setSeriesPaint(0, new Color(0xff7f0e));
    bars.setShadowVisible(false);
    bars.setDrawBarOutline(false);
    XYPlot bottom = new XYPlot(new XYBarDataset(
        new XYSeriesCollection(share), 1.0 / bins), null, new NumberAxis("share of rows"), bars);
    style(bottom);
    plot.add(bottom, 1);

    String heading = String.format(Locale.ROOT, "%s\nlog-loss %.4f, Brier %.4f, ECE %.4f (%,d"
        + " rows)", title, m.logLoss(), m.brier(), m.expectedCalibrationError(), m.rows());
    JFreeChart chart = new JFreeChart(heading, new Font("SansSerif", Font.BOLD, 14), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ChartUtils.writeChartAsPNG(out, chart, 800, 800);
    return out.toByteArray();
  }

  private static void style(XYPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
  }
}
