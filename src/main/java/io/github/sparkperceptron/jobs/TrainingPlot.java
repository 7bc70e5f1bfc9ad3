package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.ml.PerceptronTrainingSummary;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The training curves of a run as a PNG: per epoch, the share of mistakes and the losses per
 * example (as the partitions saw them during the epoch), and accuracy on the test and validation
 * data when given, with the epoch whose model was kept marked.
 */
final class TrainingPlot {
  /** One colour per series across all panels, since the chart has a single legend. */
  private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xff7f0e),
      new Color(0x9467bd), new Color(0x2ca02c), new Color(0xd62728), new Color(0x8c564b)};

  private TrainingPlot() {
  }

  /**
   * @param testAccuracy per epoch, or empty when there is no test set
   */
  static byte[] png(String title, PerceptronTrainingSummary s, List<Double> testAccuracy)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    int n = s.totalIterations();
    long[] mistakes = s.mistakesHistory();
    long[] examples = s.examplesHistory();
    double[] loss = s.perceptronLossHistory();
    double[] hinge = s.hingeLossHistory();
    double[] validation = s.validationHistory();

    XYSeries mistakeShare = new XYSeries("mistakes (% of examples)");
    XYSeries lossPerExample = new XYSeries("perceptron loss per example");
    XYSeries hingePerExample = new XYSeries("hinge loss per example");
    XYSeries trainAccuracy = new XYSeries("training accuracy (online: 1 - mistakes)");
    for (int e = 0; e < n; e++) {
      double rows = Math.max(1, examples[e]);
      mistakeShare.add(e + 1, 100.0 * mistakes[e] / rows);
      lossPerExample.add(e + 1, loss[e] / rows);
      hingePerExample.add(e + 1, hinge[e] / rows);
      trainAccuracy.add(e + 1, 1.0 - mistakes[e] / rows);
    }
    XYSeriesCollection accuracies = new XYSeriesCollection(trainAccuracy);
    if (!testAccuracy.isEmpty()) {
      XYSeries test = new XYSeries("test accuracy");
      for (int e = 0; e < testAccuracy.size(); e++) {
        test.add(e + 1, testAccuracy.get(e));
      }
      accuracies.addSeries(test);
    }
    if (validation.length > 0) {
      XYSeries held = new XYSeries("validation accuracy");
      for (int e = 0; e < validation.length; e++) {
        held.add(e + 1, validation[e]);
      }
      accuracies.addSeries(held);
    }

    NumberAxis epochs = new NumberAxis("epoch");
    epochs.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(epochs);
    plot.setGap(12);
    plot.add(panel(new XYSeriesCollection(mistakeShare), "mistakes (%)", false, 0), 1);
    XYSeriesCollection losses = new XYSeriesCollection(lossPerExample);
    losses.addSeries(hingePerExample);
    plot.add(panel(losses, "loss per example", false, 1), 1);
    XYPlot accuracyPanel = panel(accuracies, "accuracy", true, 3);
    plot.add(accuracyPanel, 1);
    if (s.modelEpoch() > 0 && s.modelEpoch() < n) {
      ValueMarker kept = new ValueMarker(s.modelEpoch(), Color.GRAY, new BasicStroke(1.5f,
          BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      kept.setLabel("model kept");
      kept.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      kept.setLabelTextAnchor(TextAnchor.TOP_LEFT);
      accuracyPanel.addDomainMarker(kept);
    }

    JFreeChart chart = new JFreeChart(title, new Font("SansSerif", Font.BOLD, 15), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ChartUtils.writeChartAsPNG(out, chart, 900, 900);
    return out.toByteArray();
  }

  private static XYPlot panel(XYSeriesCollection data, String label, boolean unitRange,
      int firstColor) {
    NumberAxis axis = new NumberAxis(label);
    axis.setAutoRangeIncludesZero(!unitRange);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesPaint(i, COLORS[(firstColor + i) % COLORS.length]);
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    XYPlot plot = new XYPlot(data, null, axis, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return plot;
  }
}
