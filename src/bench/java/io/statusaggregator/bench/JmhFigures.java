package io.statusaggregator.bench;

import io.statusaggregator.aggregation.ClusterBookBenchmark;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** The figures JMH measures, each in a JVM of its own, no broker: the rules, a record's reading, the book per record. */
final class JmhFigures {
    /** The book's JVM: its topic and book held, with the image's collector settings (as the harness's own JVM). */
    private static final String[] BOOK_JVM = {"-Xms3g", "-Xmx3g", "-XX:+UseG1GC", "-XX:-G1UseAdaptiveIHOP",
        "-XX:InitiatingHeapOccupancyPercent=75"};

    private final FigureTable table;

    JmhFigures(FigureTable table) {
        this.table = table;
    }

    void rules() throws Exception {
        perCall(RulesBenchmark.class, "cluster", "6 Rules: one cluster's status (%s)", "10-Machine cluster");
    }

    void reading() throws Exception {
        perCall(ClusterRecordBenchmark.class, "reading", "7 Reading an EKS-A Cluster's record (%s)",
                "the reduced Cluster of a 10-Machine cluster in a rolling upgrade, with the status the rules give it");
    }

    /** Figure 9: whole passes of figure 1's topic through the aggregation book, per record. */
    void book(long records, int clusters) throws Exception {
        var options = new OptionsBuilder().include(ClusterBookBenchmark.class.getName()).forks(1)
                .param("records", Long.toString(records)).param("clusters", Integer.toString(clusters))
                // A collection before each pass: the last pass's book is garbage in the old generation, whose
                // concurrent marking would otherwise share the two cores with the pass measured.
                .warmupIterations(4).measurementIterations(8).shouldDoGC(true).addProfiler(GCProfiler.class).jvmArgs(BOOK_JVM).build();
        for (RunResult result : new Runner(options).run()) {
            double ns = result.getPrimaryResult().getScore() / records;
            double error = result.getPrimaryResult().getScoreError() / records;
            table.row("9 Aggregation book: per record", "%,.0f ns, %,.0f B allocated".formatted(ns, allocated(result) / records), "", null,
                    ("JMH, 1 fork, 8 passes after 4, ± %.0f ns (99.9%%); figure 1's %,d records of %,d clusters applied to the "
                            + "book live from the start, in polls of 2,000, the clusters due computed after each, every write done at "
                            + "once; no broker, no feeds").formatted(error, records, clusters));
        }
    }

    /** Runs a JMH benchmark of one call, a row for each value of its parameter {@code param}. */
    private void perCall(Class<?> benchmark, String param, String figure, String what) throws Exception {
        // Six seconds of warm-up: after three, the tree's reading was still being compiled in the first measured
        // second (21 µs against 11 after), which made figure 7's first row vary by ± 13 to 18 µs.
        var options = new OptionsBuilder().include(benchmark.getName()).forks(1)
                .warmupIterations(6).warmupTime(TimeValue.seconds(1))
                .measurementIterations(5).measurementTime(TimeValue.seconds(1))
                .addProfiler(GCProfiler.class).jvmArgs("-Xmx512m").build();
        for (RunResult result : new Runner(options).run()) {
            double ns = result.getPrimaryResult().getScore();
            double error = result.getPrimaryResult().getScoreError();
            table.row(figure.formatted(result.getParams().getParam(param)), "%,.0f ns, %,.0f B allocated".formatted(ns, allocated(result)),
                    "", null, "JMH, 1 fork, 5 × 1 s after 6 × 1 s warm-up, ± %.0f ns (99.9%%); %s".formatted(error, what));
        }
    }

    /** Bytes allocated per operation, as JMH's GC profiler measured them. */
    private static double allocated(RunResult result) {
        return result.getSecondaryResults().entrySet().stream().filter(e -> e.getKey().endsWith("alloc.rate.norm"))
                .mapToDouble(e -> e.getValue().getScore()).findFirst().orElse(Double.NaN);
    }
}
