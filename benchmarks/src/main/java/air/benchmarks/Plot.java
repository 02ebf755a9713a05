package air.benchmarks;

import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * Charts of a benchmark's output ({@code ./air bench … --plot DIR}): reads the lines the scripts
 * print and writes a PNG per kind of figure found —
 * {@code throughput.png} (median events/s per engine and layout, from RESULT lines),
 * {@code latency.png} (p50, p99 and max per routing and progress mode, from LATENCY lines) and
 * {@code recovery.png} (per kill, from the supervisors' {@code [launcher] kill k: …_ms=} lines).
 * No chart is drawn from a log in which a run's output differed from the reference or the loop
 * (a {@code DIFFERS} line): {@link #write} refuses it, and the command exits 1.
 */
public final class Plot {

    private static final Pattern FIELD = Pattern.compile("(\\w+)=(\\S+)");
    private static final Pattern KILL = Pattern.compile("\\[launcher] kill (\\d+): (.*)");

    private Plot() {
    }

    /** {@code Plot LOG DIR}: the charts of log file LOG into folder DIR. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Plot LOG DIR   (LOG: what ./air bench printed; DIR: where the PNG charts go)");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        try {
            for (Path p : write(Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8), Path.of(args[1]))) {
                System.out.println("PLOT " + p);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("plot: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Writes the charts {@code lines} hold into {@code dir}; returns the files written. */
    static List<Path> write(List<String> lines, Path dir) throws IOException {
        for (String line : lines) {
            if (line.startsWith("DIFFERS")) {
                throw new IllegalArgumentException("no charts: a run's output was wrong (" + line + ")");
            }
        }
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        DefaultCategoryDataset throughput = throughput(lines);
        if (throughput.getColumnCount() > 0) {
            written.add(save(ChartFactory.createBarChart("Throughput (median of runs)", "engine and layout", "events/s", throughput,
                    PlotOrientation.HORIZONTAL, false, false, false), dir.resolve("throughput.png")));
        }
        DefaultCategoryDataset latency = latency(lines);
        if (latency.getColumnCount() > 0) {
            written.add(save(ChartFactory.createBarChart("Latency: window end to result", "mode", "ms", latency,
                    PlotOrientation.HORIZONTAL, true, false, false), dir.resolve("latency.png")));
        }
        DefaultCategoryDataset recovery = recovery(lines);
        if (recovery.getColumnCount() > 0) {
            written.add(save(ChartFactory.createBarChart("Recovery per kill", "kill", "ms", recovery, PlotOrientation.VERTICAL, true,
                    false, false), dir.resolve("recovery.png")));
        }
        return written;
    }

    static Map<String, String> fields(String line) {
        Map<String, String> f = new LinkedHashMap<>();
        Matcher m = FIELD.matcher(line);
        while (m.find()) {
            f.put(m.group(1), m.group(2));
        }
        return f;
    }

    /** Median throughput per engine, workers, peers, routing and progress, from RESULT lines. */
    static DefaultCategoryDataset throughput(List<String> lines) {
        Map<String, List<Long>> runs = new LinkedHashMap<>();
        for (String line : lines) {
            if (!line.startsWith("RESULT ")) {
                continue;
            }
            Map<String, String> f = fields(line);
            String eps = f.get("throughput_eps");
            if (eps == null) {
                continue;
            }
            StringBuilder label = new StringBuilder(f.getOrDefault("engine", "?") + " p=" + f.getOrDefault("p", "?"));
            if (f.containsKey("peers") && !f.get("peers").equals("1")) {
                label.append(" x").append(f.get("peers")).append(" peers");
            }
            if (f.containsKey("routing")) {
                label.append(' ').append(f.get("routing")).append('/').append(f.getOrDefault("progress", "?"));
            }
            runs.computeIfAbsent(label.toString(), k -> new ArrayList<>()).add(Long.parseLong(eps));
        }
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        runs.forEach((label, values) -> data.addValue(median(values), "events/s", label));
        return data;
    }

    /** p50, p99 and max per configuration, from LATENCY lines (the latency script prefixes each with its mode). */
    static DefaultCategoryDataset latency(List<String> lines) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (String line : lines) {
            if (!line.startsWith("LATENCY ")) {
                continue;
            }
            Map<String, String> f = fields(line);
            String label = String.join(" ", new String[] {f.getOrDefault("layout", ""), f.getOrDefault("routing", ""),
                    f.getOrDefault("progress", ""), f.containsKey("watermark_ms") ? "wm" + f.get("watermark_ms") : "",
                    f.containsKey("offered") ? "@" + f.get("offered") : ""}).trim().replaceAll(" +", " ");
            for (String q : new String[] {"p50_ms", "p99_ms", "max_ms"}) {
                String v = f.get(q);
                if (v != null && !v.equals("NaN")) {
                    data.addValue(Double.parseDouble(v), q.replace("_ms", ""), label.isEmpty() ? "run" : label);
                }
            }
        }
        return data;
    }

    /** The supervisors' per-kill figures ({@code first_output_ms}, {@code takeover_ms}, {@code running_again_ms}). */
    static DefaultCategoryDataset recovery(List<String> lines) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        int run = 0;
        for (String line : lines) {
            Matcher m = KILL.matcher(line.replaceFirst("^\\[peer \\d+] ", ""));
            if (!m.find()) {
                continue;
            }
            if (m.group(1).equals("1")) {
                run++;
            }
            String kill = (run > 1 ? "run " + run + " " : "") + "kill " + m.group(1);
            fields(m.group(2)).forEach((k, v) -> {
                if (k.endsWith("_ms") && !v.startsWith("-")) {
                    data.addValue(Long.parseLong(v), k.replace("_ms", ""), kill);
                }
            });
        }
        return data;
    }

    private static double median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }

    private static Path save(JFreeChart chart, Path file) throws IOException {
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(new Color(0xF4F4F4));
        plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.45f);
        ((NumberAxis) plot.getRangeAxis()).setNumberFormatOverride(NumberFormat.getCompactNumberInstance(Locale.ROOT,
                NumberFormat.Style.SHORT));
        int rows = plot.getDataset().getColumnCount() * Math.max(1, plot.getDataset().getRowCount());
        ChartUtils.saveChartAsPNG(new File(file.toString()), chart, 1000, Math.max(360, 140 + 34 * rows));
        return file;
    }

    static String describe(DefaultCategoryDataset d) {
        StringBuilder sb = new StringBuilder();
        for (Object col : d.getColumnKeys()) {
            for (Object row : d.getRowKeys()) {
                Number v = d.getValue((Comparable<?>) row, (Comparable<?>) col);
                if (v != null) {
                    sb.append(String.format(Locale.ROOT, "%s %s=%s%n", col, row, v));
                }
            }
        }
        return sb.toString();
    }
}
