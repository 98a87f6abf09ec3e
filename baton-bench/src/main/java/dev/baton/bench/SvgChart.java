package dev.baton.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws a run's results as an SVG chart, written by hand (no charting library), to sit beside the markdown
 * report. One row per scenario, each an SVG group {@code <g class="scenario" data-scenario="name">}: on the left
 * Baton's throughput relative to Curator's (the report's "ops/s vs Curator", paired turn by turn; a line marks
 * 1×, longer is faster), on the right each library's p50 latency as a dark bar over its p99 as a light one, on one
 * logarithmic scale for the whole chart (latencies span microseconds to seconds), with the values written beside
 * them.
 *
 * <p>Stateless and thread-safe.
 */
final class SvgChart {

    private static final int WIDTH = 1040;
    private static final int TOP = 92;
    private static final int BAR = 11;
    private static final int GAP = 4;
    private static final int ROW_PADDING = 14;
    private static final int NAME_X = 12;
    private static final int RATIO_X = 200;
    private static final int RATIO_WIDTH = 250;
    private static final int LATENCY_X = 520;
    private static final int LATENCY_WIDTH = 280;
    private static final int LABEL_X = LATENCY_X + LATENCY_WIDTH + 8;
    /** The ratio axis runs from 0 to at least this, so that 1× sits in the middle when all ratios are small. */
    private static final double MIN_RATIO_SCALE = 2.0;
    private static final Map<String, String[]> COLORS = Map.of(
            Libraries.BATON, new String[] {"#1f5fa8", "#a9c5e8"},
            Libraries.CURATOR, new String[] {"#d9731a", "#f5c9a0"},
            Libraries.ZOOKEEPER, new String[] {"#5a5a5a", "#c8c8c8"});
    private static final String[] OTHER = {"#2a8a4a", "#b5dfc2"};

    private SvgChart() {
    }

    /**
     * {@return the SVG document}
     *
     * @param results the scenarios' results, in report order
     * @param options the settings they ran with, for the caption
     * @param serverDescription where they ran, for the caption
     */
    static String render(List<ScenarioResult> results, BenchOptions options, String serverDescription) {
        double ratioScale = MIN_RATIO_SCALE;
        for (ScenarioResult result : results) {
            double ratio = vsCurator(result);
            if (!Double.isNaN(ratio)) {
                ratioScale = Math.max(ratioScale, Math.ceil(ratio * 2) / 2);
            }
        }
        LogScale latency = LogScale.of(results);
        StringBuilder rows = new StringBuilder();
        int y = TOP;
        for (ScenarioResult result : results) {
            int height = rowHeight(result);
            rows.append(row(result, y, height, ratioScale, latency));
            y += height;
        }
        int height = y + 44;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>%n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n", WIDTH, height, WIDTH, height));
        svg.append("  <title>Baton beside Apache Curator: throughput ratio and latencies per scenario</title>\n");
        svg.append(String.format(Locale.ROOT, "  <rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", WIDTH,
                height));
        svg.append(text(NAME_X, 22, "Baton beside Apache Curator", "font-size=\"16\" font-weight=\"bold\""));
        svg.append(text(NAME_X, 40, String.format(Locale.ROOT, "median round of %d × %,d ops per library; %s",
                options.rounds(), options.ops(), serverDescription), "fill=\"#555555\""));
        svg.append(text(RATIO_X, 70, "Baton ops/s ÷ Curator's (> 1× is faster)", "font-weight=\"bold\""));
        svg.append(text(LATENCY_X, 70, "latency per op, log scale: p50 (dark), p99 (light)",
                "font-weight=\"bold\""));
        svg.append(legend(results));
        svg.append(rows);
        svg.append(axis(ratioScale, y));
        svg.append(latency.axis(y));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static int rowHeight(ScenarioResult result) {
        return Math.max(2, result.libraries().size()) * (BAR + GAP) + ROW_PADDING;
    }

    /** One scenario: its name, Baton's ratio to Curator, and every library's latencies. */
    private static String row(ScenarioResult result, int y, int height, double ratioScale, LogScale latency) {
        StringBuilder row = new StringBuilder();
        row.append(String.format(Locale.ROOT,
                "  <g class=\"scenario\" data-scenario=\"%s\" transform=\"translate(0,%d)\">%n",
                escape(result.scenario()), y));
        row.append("    <title>").append(escape(result.scenario() + ": " + result.description())).append("</title>\n");
        row.append(String.format(Locale.ROOT,
                "    <line x1=\"0\" y1=\"0\" x2=\"%d\" y2=\"0\" stroke=\"#e6e6e6\"/>%n", WIDTH));
        int middle = (height - ROW_PADDING / 2) / 2 + 4;
        row.append(indent(text(NAME_X, middle, result.scenario(), "font-weight=\"bold\"")));

        double ratio = vsCurator(result);
        int barY = middle - BAR + 2;
        if (Double.isNaN(ratio)) {
            row.append(indent(text(RATIO_X, middle, "n/a (no Curator row)", "fill=\"#888888\"")));
        } else {
            int width = (int) Math.round(Math.min(ratio, ratioScale) / ratioScale * RATIO_WIDTH);
            row.append(String.format(Locale.ROOT,
                    "    <rect class=\"ratio\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    RATIO_X, barY, Math.max(width, 1), BAR, ratio >= 1 ? "#2a8a4a" : "#c0392b"));
            row.append(indent(text(RATIO_X + width + 6, middle, String.format(Locale.ROOT, "%.2f×", ratio), "")));
        }

        int ly = GAP + 3;
        for (String library : result.libraries()) {
            RunResult run = result.median(library);
            String[] colors = COLORS.getOrDefault(library, OTHER);
            int p99 = latency.width(run.p99Nanos());
            int p50 = latency.width(run.p50Nanos());
            row.append(String.format(Locale.ROOT, "    <g class=\"library\" data-library=\"%s\">%n", escape(library)));
            row.append(String.format(Locale.ROOT,
                    "      <rect class=\"p99\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    LATENCY_X, ly, p99, BAR, colors[1]));
            row.append(String.format(Locale.ROOT,
                    "      <rect class=\"p50\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    LATENCY_X, ly, p50, BAR, colors[0]));
            String label = String.format(Locale.ROOT, "%s  p50 %s  p99 %s", library, micros(run.p50Nanos()),
                    micros(run.p99Nanos()));
            row.append("      ").append(text(LABEL_X, ly + BAR - 1, label, "font-size=\"11\""));
            row.append("    </g>\n");
            ly += BAR + GAP;
        }
        row.append("  </g>\n");
        return row.toString();
    }

    /** The ratio axis below the rows: 0, 1× (also a dashed line through every row), and the scale's end. */
    private static String axis(double ratioScale, int bottom) {
        StringBuilder axis = new StringBuilder();
        int one = RATIO_X + (int) Math.round(RATIO_WIDTH / ratioScale);
        axis.append(String.format(Locale.ROOT, "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\" "
                + "stroke-dasharray=\"3,3\"/>%n", one, TOP - 8, one, bottom));
        axis.append(String.format(Locale.ROOT, "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>%n",
                RATIO_X, bottom, RATIO_X + RATIO_WIDTH, bottom));
        axis.append(text(RATIO_X - 3, bottom + 16, "0", ""));
        axis.append(text(one - 6, bottom + 16, "1×", ""));
        axis.append(text(RATIO_X + RATIO_WIDTH - 12, bottom + 16, String.format(Locale.ROOT, "%.1f×", ratioScale),
                ""));
        return axis.toString();
    }

    private static String legend(List<ScenarioResult> results) {
        StringBuilder legend = new StringBuilder();
        int x = LATENCY_X;
        for (String library : List.of(Libraries.BATON, Libraries.CURATOR, Libraries.ZOOKEEPER)) {
            if (results.stream().noneMatch(r -> r.libraries().contains(library))) {
                continue;
            }
            legend.append(String.format(Locale.ROOT,
                    "  <rect x=\"%d\" y=\"78\" width=\"10\" height=\"10\" fill=\"%s\"/>%n", x,
                    COLORS.get(library)[0]));
            legend.append(text(x + 14, 87, library, ""));
            x += 90;
        }
        return legend.toString();
    }

    private static double vsCurator(ScenarioResult result) {
        if (!result.libraries().contains(Libraries.BATON)) {
            return Double.NaN;
        }
        return 1 / result.pairedTimeRatio(Libraries.BATON, Libraries.CURATOR);
    }

    /** Latency to bar length: whole decades from below the smallest p50 to above the largest p99. */
    private record LogScale(double lowDecade, double highDecade) {

        static LogScale of(List<ScenarioResult> results) {
            long min = Long.MAX_VALUE;
            long max = 1;
            for (ScenarioResult result : results) {
                for (String library : result.libraries()) {
                    RunResult run = result.median(library);
                    min = Math.min(min, Math.max(1, run.p50Nanos()));
                    max = Math.max(max, run.p99Nanos());
                }
            }
            double low = Math.floor(Math.log10((double) Math.min(min, max)));
            double high = Math.ceil(Math.log10((double) max));
            return new LogScale(low, Math.max(high, low + 1));
        }

        int width(long nanos) {
            double at = (Math.log10((double) Math.max(1, nanos)) - lowDecade) / (highDecade - lowDecade);
            return Math.max(1, (int) Math.round(Math.min(1, Math.max(0, at)) * LATENCY_WIDTH));
        }

        /** The latency axis below the rows, a tick and a label per decade. */
        String axis(int bottom) {
            StringBuilder axis = new StringBuilder();
            axis.append(String.format(Locale.ROOT,
                    "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>%n",
                    LATENCY_X, bottom, LATENCY_X + LATENCY_WIDTH, bottom));
            for (double exponent = lowDecade; exponent <= highDecade; exponent++) {
                int x = LATENCY_X + width((long) Math.pow(10, exponent));
                if (exponent == lowDecade) {
                    x = LATENCY_X;
                }
                axis.append(String.format(Locale.ROOT, "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                        + "stroke=\"#333333\"/>%n", x, bottom, x, bottom + 4));
                axis.append(text(x - 10, bottom + 16, decade(exponent), "font-size=\"11\""));
            }
            return axis.toString();
        }
    }

    /** A latency for a label: {@code 412 µs}, {@code 2.89 ms}, {@code 31.4 ms}, {@code 1.25 s}. */
    private static String micros(long nanos) {
        double micros = nanos / 1e3;
        if (micros >= 1_000_000) {
            return String.format(Locale.ROOT, "%.2f s", micros / 1e6);
        }
        return micros >= 10_000 ? String.format(Locale.ROOT, "%.1f ms", micros / 1e3)
                : micros >= 1_000 ? String.format(Locale.ROOT, "%.2f ms", micros / 1e3)
                : String.format(Locale.ROOT, "%.0f µs", micros);
    }

    /** A power of ten nanoseconds for the axis: {@code 100 µs}, {@code 1 ms}, {@code 10 s}. */
    private static String decade(double exponent) {
        int e = (int) exponent;
        String[] units = {"ns", "µs", "ms", "s"};
        int unit = Math.min(Math.max(e, 0) / 3, units.length - 1);
        long value = (long) Math.pow(10, e - unit * 3);
        return value + " " + units[unit];
    }

    private static String text(int x, int y, String content, String attributes) {
        return String.format(Locale.ROOT, "  <text x=\"%d\" y=\"%d\"%s>%s</text>%n", x, y,
                attributes.isEmpty() ? "" : " " + attributes, escape(content));
    }

    private static String indent(String element) {
        return "  " + element;
    }

    /** Escapes text for XML content and attribute values. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                        out.append(' '); // not allowed in XML 1.0
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
