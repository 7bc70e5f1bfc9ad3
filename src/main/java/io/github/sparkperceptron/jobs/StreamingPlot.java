package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.streaming.BatchReport;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * A stream's learning curve as a PNG: per batch, the prequential accuracy (the batch scored by
 * the model before it learnt from it) and its running value since the stream began, and the
 * batch's wall time.
 */
final class StreamingPlot {
  private StreamingPlot() {
  }

  static byte[] png(String title, List<BatchReport> reports) {
    System.setProperty("java.awt.headless", "true");
    XYSeries perBatch = new XYSeries("prequential accuracy of the batch");
    XYSeries cumulative = new XYSeries("prequential accuracy since the start");
    XYSeries seconds = new XYSeries("batch time (s)");
    for (BatchReport r : reports) {
      if (r.rows() > 0) {
        perBatch.add(r.batchId(), r.prequentialAccuracy());
        cumulative.add(r.batchId(), r.cumulative().prequentialAccuracy());
      }
      seconds.add(r.batchId(), r.seconds());
    }
    XYSeriesCollection accuracy = new XYSeriesCollection(perBatch);
    accuracy.addSeries(cumulative);
    NumberAxis batches = new NumberAxis("batch id");
    batches.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(batches);
    plot.setGap(12);
    plot.add(panel(accuracy, "accuracy", new Color[] {new Color(0x1f77b4), new Color(0xff7f0e)}),
        2);
    plot.add(panel(new XYSeriesCollection(seconds), "seconds",
        new Color[] {new Color(0x2ca02c)}), 1);
    JFreeChart chart = new JFreeChart(title, new Font("SansSerif", Font.BOLD, 15), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ChartUtils.writeChartAsPNG(out, chart, 900, 700);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not draw the plot", e);
    }
  }

  private static XYPlot panel(XYSeriesCollection data, String label, Color[] colors) {
    NumberAxis axis = new NumberAxis(label);
    axis.setAutoRangeIncludesZero(false);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesPaint(i, colors[i % colors.length]);
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    XYPlot plot = new XYPlot(data, null, axis, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return plot;
  }
}
