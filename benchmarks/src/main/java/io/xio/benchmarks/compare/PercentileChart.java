package io.xio.benchmarks.compare;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.List;
import java.util.Locale;

/**
 * The latency-percentile chart: one panel per group of latency rows, round-trip time (log scale) against the
 * percentile (x = 1 / (1 - p), so 90 %, 99 %, 99.9 % are evenly spaced). Rendered headless to PNG with
 * JFreeChart.
 */
final class PercentileChart
{
    private static final double LAST_PERCENTILE = 99.99;
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf),
        Color.BLACK, new Color(0x393b79), new Color(0xad494a), new Color(0x637939)};

    /** One curve. */
    record Curve(String label, Histogram histogram)
    {
    }

    /** One panel. */
    record Panel(String title, List<Curve> curves)
    {
    }

    private PercentileChart()
    {
    }

    static void write(final Path png, final String title, final List<Panel> panels) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final LogAxis percentile = new LogAxis("percentile");
        percentile.setBase(10);
        percentile.setNumberFormatOverride(new PercentileFormat());
        percentile.setRange(1.5, 1.2 / (1 - LAST_PERCENTILE / 100));
        percentile.setTickUnit(new NumberTickUnit(1)); // one tick per power of ten: 90 %, 99 %, 99.9 %
        final CombinedDomainXYPlot plot = new CombinedDomainXYPlot(percentile);
        plot.setGap(12);
        // one colour and one legend entry per case, whichever panels it appears in
        final java.util.Map<String, Color> colors = new java.util.LinkedHashMap<>();
        for (final Panel panel : panels)
        {
            final XYSeriesCollection data = new XYSeriesCollection();
            for (final Curve curve : panel.curves())
            {
                final XYSeries series = new XYSeries(curve.label(), false, true);
                for (final HistogramIterationValue value : curve.histogram().percentiles(5))
                {
                    final double p = value.getPercentileLevelIteratedTo();
                    if (p > LAST_PERCENTILE)
                    {
                        break;
                    }
                    series.add(1 / (1 - p / 100), Math.max(0.01, value.getValueIteratedTo() / 1000.0));
                }
                data.addSeries(series);
            }
            final LogAxis micros = new LogAxis(panel.title() + ": round trip, µs");
            micros.setBase(10);
            micros.setNumberFormatOverride(NumberFormat.getNumberInstance(Locale.ROOT));
            micros.setTickUnit(new NumberTickUnit(1));
            final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
            for (int i = 0; i < panel.curves().size(); i++)
            {
                final String label = panel.curves().get(i).label();
                renderer.setSeriesVisibleInLegend(i, !colors.containsKey(label));
                renderer.setSeriesPaint(i, colors.computeIfAbsent(label, l -> COLORS[colors.size() % COLORS.length]));
                renderer.setSeriesStroke(i, new BasicStroke(panel.curves().get(i).label().startsWith("xio") ? 2.5f : 1.5f));
            }
            final XYPlot sub = new XYPlot(data, null, micros, renderer);
            sub.setBackgroundPaint(Color.WHITE);
            sub.setDomainGridlinePaint(Color.LIGHT_GRAY);
            sub.setRangeGridlinePaint(Color.LIGHT_GRAY);
            plot.add(sub, 1);
        }
        final JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1100, 420 * Math.max(1, panels.size()));
    }

    /** Shows x = 1 / (1 - p) as p in percent. */
    private static final class PercentileFormat extends NumberFormat
    {
        @Override
        public StringBuffer format(final double x, final StringBuffer to, final FieldPosition pos)
        {
            final double p = 100 * (1 - 1 / x);
            final String digits = String.format(Locale.ROOT, "%.3f", p).replaceAll("0+$", "").replaceAll("\\.$", "");
            return to.append(digits).append('%');
        }

        @Override
        public StringBuffer format(final long x, final StringBuffer to, final FieldPosition pos)
        {
            return format((double)x, to, pos);
        }

        @Override
        public Number parse(final String source, final ParsePosition pos)
        {
            throw new UnsupportedOperationException("display only");
        }
    }
}
