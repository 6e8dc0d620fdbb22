package io.statusaggregator.bench;

import java.util.ArrayList;
import java.util.List;

/** The harness's one table of figures: a row per figure measured, printed as Markdown at the end of the run. */
final class FigureTable {
    private final List<String[]> rows = new ArrayList<>();

    /** A figure: {@code met} null when it has no target. */
    void row(String figure, String value, String target, Boolean met, String notes) {
        rows.add(new String[] {figure, value, target, met == null ? "" : met ? "met" : "**missed**", notes});
    }

    String markdown() {
        StringBuilder out = new StringBuilder("| figure | measured | target | | notes |\n| --- | --- | --- | --- | --- |\n");
        for (String[] row : rows) {
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        return out.toString();
    }
}
