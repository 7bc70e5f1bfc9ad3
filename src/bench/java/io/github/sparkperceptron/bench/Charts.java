package io.github.sparkperceptron.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** PNG charts of the benchmark results (JFreeChart, headless). */
final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 560;

  private Charts() {
  }

  /** Lines through (x, y) points, one series per map entry (insertion order). */
  static void lines(Path file, String title, String xLabel, String yLabel,
      Map<String, List<double[]>> series, boolean integerX) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      XYSeries s = new XYSeries(e.getKey(), false, true);
      for (double[] p : e.getValue()) {
        s.add(p[0], p[1]);
      }
      data.addSeries(s);
    }
    JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data,
        PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    plot.setRenderer(renderer);
    NumberAxis range = (NumberAxis) plot.getRangeAxis();
    range.setAutoRangeIncludesZero(false);
    if (integerX) {
      plot.getDomainAxis().setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    }
    save(file, chart);
  }

  /** Grouped bars: rows are groups on the axis, columns the bars within a group. */
  static void bars(Path file, String title, String categoryLabel, String valueLabel,
      DefaultCategoryDataset data, boolean logScale) {
    JFreeChart chart = ChartFactory.createBarChart(title, categoryLabel, valueLabel, data,
        PlotOrientation.VERTICAL, true, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.getDomainAxis().setMaximumCategoryLabelLines(3);
    if (logScale) {
      double min = Double.POSITIVE_INFINITY;
      double max = 0;
      for (int r = 0; r < data.getRowCount(); r++) {
        for (int c = 0; c < data.getColumnCount(); c++) {
          Number v = data.getValue(r, c);
          if (v != null && v.doubleValue() > 0) {
            min = Math.min(min, v.doubleValue());
            max = Math.max(max, v.doubleValue());
          }
        }
      }
      LogAxis axis = new LogAxis(valueLabel);
      axis.setBase(10);
      axis.setSmallestValue(1e-6);
      axis.setNumberFormatOverride(new DecimalFormat("0.###E0"));
      if (max > 0) {
        axis.setRange(min / 2, max * 2);
      }
      plot.setRangeAxis(axis);
    }
    save(file, chart);
  }

  private static void save(Path file, JFreeChart chart) {
    try {
      ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
