package io.statusaggregator.bench;

import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The benchmark harness (issue [7]): every figure in one run on one machine, printed as one table with the machine's
 * description. See BENCHMARKS.md for what each figure measures and what bounds it.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs the benchmarks and prints one table of figures with the machine's description.")
public final class Benchmarks implements Callable<Integer> {
    enum Figure { throughput, limited, freshness, amplification, memory, rebuild, rules, reading, book, failover, cli }

    @Option(names = "--seed", description = "seed of every workload (default ${DEFAULT-VALUE})")
    long seed = 7;
    @Option(names = "--repetitions", description = "runs of each timed figure; the table shows medians (default ${DEFAULT-VALUE})")
    int repetitions = 3;
    @Option(names = "--slow-repetitions", description = "warm passes of figure 1 at the Deployment's limits, and runs of the "
            + "freshness figure, which take minutes each on a 2-core machine (default ${DEFAULT-VALUE})")
    int slowRepetitions = 1;
    @Option(names = "--warm-passes", description = "figure 1's warm passes over the throughput topic in the harness's JVM, "
            + "after its cold one and the warm-up passes; the warm rows are their medians (default ${DEFAULT-VALUE})")
    int warmPasses = 3;
    // A replica that has been running is a JVM that has stopped compiling; the compiler's threads took 7.7, 2.8 and
    // 1.9 s of the first warm passes' CPU in one run, 3.0, 1.5, 2.1 and 1.9 s in another (BENCHMARKS.md, "Choices
    // the figures support").
    @Option(names = "--warm-up-passes", description = "figure 1's passes after the cold one that the warm rows leave out, "
            + "at most: they end at the first pass whose compiler threads used under a tenth of the JVM's CPU; logged like "
            + "the others (default ${DEFAULT-VALUE})")
    int warmUpPasses = 6;
    @Option(names = "--cold-jvm-option", description = "an option for the fresh JVM of figure 5's cold rebuild (repeatable), "
            + "e.g. a class-data-sharing archive or a flight recording")
    List<String> coldJvmOptions = new ArrayList<>();
    @Option(names = "--cold-at-limits", description = "figure 5's fresh JVMs as the Deployment runs them: held to one CPU, its "
            + "heap and collector, the broker's JVM on the other CPU (default: the machine's CPUs, -Xmx2g, the image's G1)")
    boolean coldAtLimits;
    @Option(names = "--freshness-at-limits", description = "figure 2's churn against one packaged instance as the Deployment "
            + "runs it, instead of the pipeline in the harness's JVM and the baseline: held to one CPU, its heap and collector (the API "
            + "server, churn driver and broker not held); --slow-repetitions churns one after the other on it; --limited-jvm-option applies")
    boolean freshnessAtLimits;
    @Option(names = "--limited-env", split = ",", description = "settings of --freshness-at-limits' instance, as NAME=VALUE "
            + "environment variables (default: the application's defaults)")
    Map<String, String> limitedEnv = new java.util.HashMap<>();
    @Option(names = "--in-process-broker", description = "run the broker in the harness's JVM, as before 2026-11-26 (default: in a "
            + "JVM of its own, as production runs Kafka apart from the aggregator)")
    boolean inProcessBroker;
    @Option(names = "--limited-collectors", split = ",", description = "the collectors figure 1 runs with at the Deployment's "
            + "limits (one CPU, 768 MB heap), as in -XX:+Use<name>GC (default ${DEFAULT-VALUE})")
    List<String> limitedCollectors = List.of("G1", "Parallel", "Serial");
    @Option(names = "--limited-jvm-option", description = "an option for the JVMs at the Deployment's limits (repeatable; the "
            + "limited figure's and --freshness-at-limits' instance), e.g. a collector's setting or a flight recording")
    List<String> limitedJvmOptions = new ArrayList<>();
    @Option(names = "--cli-runs", description = "timed runs of each command of the command line figure, after one warm-up "
            + "(default ${DEFAULT-VALUE})")
    int cliRuns = 7;
    @Option(names = "--figures", split = ",", description = "which figures, of ${COMPLETION-CANDIDATES} (default all)")
    Set<Figure> figures = EnumSet.allOf(Figure.class);
    @Option(names = "--clusters", description = "clusters of the throughput, rebuild and memory fleet (default ${DEFAULT-VALUE})")
    int clusters = 10_000;
    @Option(names = "--machines", description = "Machines of that fleet (default ${DEFAULT-VALUE})")
    int machines = 100_000;
    @Option(names = "--events", description = "events on the throughput topic, at least (default ${DEFAULT-VALUE})")
    long events = 1_000_000;
    @Option(names = "--churn-clusters", description = "clusters of the freshness and write fleet (default ${DEFAULT-VALUE})")
    int churnClusters = 1_000;
    @Option(names = "--churn-machines", description = "Machines of that fleet (default ${DEFAULT-VALUE})")
    int churnMachines = 10_000;
    @Option(names = "--churn-rate", description = "changes per second written to the API server (default ${DEFAULT-VALUE})")
    int churnRate = 200;
    @Option(names = "--churn-seconds", description = "seconds of churn per freshness run (default ${DEFAULT-VALUE})")
    int churnSeconds = 20;
    @Option(names = "--upgrade-rate", description = "changes per second of the fleet-wide rolling upgrade (default ${DEFAULT-VALUE})")
    int upgradeRate = 400;
    @Option(names = "--failover-rates", split = ",", description = "changes per second written from the kill on in the failover "
            + "figure, one per cluster of the freshness fleet: a run at each (default ${DEFAULT-VALUE}: a fleet-wide upgrade's pace, "
            + "and a burst as fast as the harness writes)")
    List<Integer> failoverRates = List.of(50, 500);
    @Option(names = "--failover-baseline", description = "also run the failover figure with Kafka's and client-go's defaults "
            + "(session 45 s, Lease 15 s) for comparison")
    boolean failoverBaseline;
    @Option(names = "--failover-env", split = ",", description = "settings of the instances in the failover figure, as "
            + "NAME=VALUE environment variables (default: the application's defaults)")
    Map<String, String> failoverEnv = new java.util.HashMap<>();
    @Option(names = "--failover-background", description = "changes per second written through the steady minute before the kill "
            + "in the failover figure, as a running fleet has (default ${DEFAULT-VALUE}; 0: a still fleet)")
    int failoverBackground = 5;
    @Option(names = "--informer-machines", description = "Machines in the informer stores of the memory figure (default ${DEFAULT-VALUE})")
    int informerMachines = 100_000;
    @Option(names = "--informer-before-machines", description = "Machines in Fabric8's default store of whole objects, the "
            + "before row of the memory figure (per object it does not depend on the count) (default ${DEFAULT-VALUE})")
    int informerBeforeMachines = 20_000;
    @Option(names = "--informer-api-machines", description = "Machines for the cross-check of the informer caches through ingest and "
            + "the API server, which slows down with every object it holds; 0 skips it (default ${DEFAULT-VALUE})")
    int informerApiMachines = 2_000;

    private final FigureTable table = new FigureTable();
    private String loadAtStart;

    public static void main(String[] args) {
        Bench.quietLogging();
        System.exit(new CommandLine(new Benchmarks()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (repetitions < 1 || slowRepetitions < 1 || warmPasses < 1 || warmUpPasses < 0) {
            // Every figure is a median of its runs: none would leave nothing to report.
            System.err.println("--repetitions, --slow-repetitions and --warm-passes must be at least 1, --warm-up-passes at least 0");
            return 2;
        }
        long started = System.nanoTime();
        loadAtStart = Bench.loadAverage();
        Compatibility compatibility = CompatibilityReader.builtIn();
        StatusCheck check = new StatusCheck(compatibility, ManagementCluster.UNKNOWN);
        if (figures.contains(Figure.cli)) {
            commandLine();
        }
        try (Bench.Broker broker = new Bench.Broker(inProcessBroker)) {
            if (figures.contains(Figure.throughput) || figures.contains(Figure.limited) || figures.contains(Figure.rebuild)
                    || figures.contains(Figure.memory)) {
                topicFigures(broker, compatibility, check);
            }
            if (figures.contains(Figure.freshness) || figures.contains(Figure.amplification) || figures.contains(Figure.failover)) {
                ApiServerFigures api = new ApiServerFigures(broker, seed, churnClusters, churnMachines, compatibility);
                try (api) {
                    api.setUp();
                    if (figures.contains(Figure.freshness)) {
                        freshness(api);
                    }
                    if (figures.contains(Figure.amplification)) {
                        amplification(api);
                    }
                    if (figures.contains(Figure.failover)) {
                        failover(api);
                    }
                }
            }
            if (figures.contains(Figure.memory)) {
                informerMemory(broker);
            }
        }
        JmhFigures jmh = new JmhFigures(table);
        if (figures.contains(Figure.reading)) {
            jmh.reading();
        }
        if (figures.contains(Figure.rules)) {
            jmh.rules();
        }
        if (figures.contains(Figure.book)) {
            jmh.book(events, clusters);
        }
        print((System.nanoTime() - started) / 1e9);
        return 0;
    }

    private void throughputRows(String jvm, List<TopicFigures.Throughput> passes, long events, int warmingUp) {
        double aggregated = Bench.median(passes.stream().map(TopicFigures.Throughput::aggregatedPerSecond).toList());
        double ratio = Bench.median(passes.stream().map(TopicFigures.Throughput::ratio).toList());
        double process = Bench.median(passes.stream().map(TopicFigures.Throughput::processCpuMicros).toList());
        double withoutBroker = Bench.median(passes.stream().map(TopicFigures.Throughput::withoutBrokerCpuMicros).toList());
        double withoutCompiler = Bench.median(passes.stream().map(TopicFigures.Throughput::withoutCompilerCpuMicros).toList());
        double own = Bench.median(passes.stream().map(TopicFigures.Throughput::aggregatorCpuMicros).toList());
        TopicFigures.Throughput last = passes.get(passes.size() - 1);
        table.row("1 Throughput (" + jvm + " JVM): aggregation", "%,.0f events/s".formatted(aggregated), "≥ 100,000 events/s", aggregated >= 100_000,
                "%,d events, %d clusters, %,d Machines; %d runs%s; last run %,d computations, %,d writes"
                        .formatted(events, clusters, machines, passes.size(),
                                jvm.equals("warm") ? (" after %d warm-up passes, until the compiler's threads used under a tenth of "
                                        + "the JVM's CPU (%d at most)").formatted(warmingUp, warmUpPasses) : "",
                                last.computations(), last.writes()));
        table.row("1 Throughput (" + jvm + " JVM): bare consumer (deserialise only)",
                "%,.0f events/s".formatted(Bench.median(passes.stream().map(TopicFigures.Throughput::barePerSecond).toList())), "", null,
                ("same topic, just before each pass, with the aggregator's fetch settings; CPU per record %.1f µs (every thread "
                        + "of this JVM while it read), its thread alone %.1f µs").formatted(
                        Bench.median(passes.stream().map(pass -> pass.bare().cpuMicros()).toList()),
                        Bench.median(passes.stream().map(pass -> pass.bare().threadCpuMicros()).toList())));
        table.row("1 Throughput (" + jvm + " JVM): ratio aggregation / bare", "%.2f".formatted(ratio), "≥ 0.25", ratio >= 0.25,
                "median of the per-run ratios");
        double broker = Bench.median(passes.stream().map(TopicFigures.Throughput::brokerCpuMicros).toList());
        table.row("1 Throughput (" + jvm + " JVM): CPU per event", "%.1f µs".formatted(withoutBroker), "≤ 5 µs", withoutBroker <= 5,
                TopicFigures.Throughput.quietHost(passes) + (inProcessBroker
                        ? "the process's CPU over the pass per event, less the in-process broker's request and network threads "
                                + "(with them %.1f µs); less the compiler's threads too %.1f µs; the aggregation and feeds threads alone: %.1f µs"
                                        .formatted(process, withoutCompiler, own)
                        : ("the aggregator's JVM's CPU over the pass per event, every thread (the broker runs in a JVM of its own, "
                                + "which used %.1f µs per event); less the compiler's threads %.1f µs; the aggregation and feeds threads "
                                + "alone: %.1f µs").formatted(broker, withoutCompiler, own)));
    }

    /**
     * Figure 1 as a replica runs it, once per collector: the aggregator alone, on one CPU, with the Deployment's heap; a
     * cold pass and {@code --slow-repetitions} warm ones, the last reported.
     */
    private void limitedRows(TopicFigures topic) throws Exception {
        for (String collector : limitedCollectors) {
            LimitedPass.Result result = topic.limited(collector, slowRepetitions, limitedJvmOptions);
            Bench.log("throughput at the Deployment's limits, %s: cold %,.0f/s, %.1f µs per event (%s); warm %,.0f/s, %.1f µs per event (%s); "
                    + "%d pauses, median %.0f ms, 99th percentile %.0f ms, longest %.0f ms", collector, result.cold().perSecond(),
                    result.cold().cpuMicros(), result.cold().cpuByThread(), result.warm().perSecond(), result.warm().cpuMicros(),
                    result.warm().cpuByThread(), result.pauses(), result.pauseMedian(), result.pause99(), result.pauseLongest());
            table.row("1 Throughput at the Deployment's limits (" + collector + "), warm JVM: CPU per event",
                    "%.1f µs".formatted(result.warm().cpuMicros()), "≤ 5 µs", result.warm().cpuMicros() <= 5,
                    ("the aggregator alone in a JVM held to one CPU, heap 75 %% of 1 GiB, -XX:+Use%sGC%s, the broker's JVM on the other "
                            + "CPU; every thread of that JVM: last warm pass %,.0f events/s, cold %,.0f events/s at %.1f µs per event; "
                            + "the collector's pauses over every pass: median %.0f ms, 99th percentile %.0f ms, longest %.0f ms")
                            .formatted(collector, LimitedPass.options(collector, limitedJvmOptions).stream().map(option -> " " + option)
                                    .collect(java.util.stream.Collectors.joining()),
                                    result.warm().perSecond(), result.cold().perSecond(), result.cold().cpuMicros(),
                                    result.pauseMedian(), result.pause99(), result.pauseLongest()));
        }
    }

    private void topicFigures(Bench.Broker broker, Compatibility compatibility, StatusCheck check) throws Exception {
        TopicFigures topic = new TopicFigures(broker, seed, compatibility, check);
        long t = System.nanoTime();
        topic.fill(clusters, Math.max(1, machines / clusters), figures.contains(Figure.throughput) || figures.contains(Figure.limited) ? events : 0);
        Bench.log("topic filled: %,d events, %,d objects in %.1f s", topic.events(), topic.objects(), (System.nanoTime() - t) / 1e9);
        if (figures.contains(Figure.throughput)) {
            // The first pass runs in a JVM that has not run aggregation before (cold), as a restarted pod does; the
            // next ones in the same JVM (warm-up while the compiler still compiles, then warm), as an instance that has
            // been running.
            List<TopicFigures.Throughput> cold = new ArrayList<>();
            List<TopicFigures.Throughput> warm = new ArrayList<>();
            int warmingUp = 0;
            for (int i = 0; warm.size() < warmPasses; i++) {
                TopicFigures.Throughput pass = topic.throughput(i);
                boolean settled = i > 0 && (warmingUp == warmUpPasses || pass.compilerShare() < 0.1);
                Bench.log("throughput %d (%s): aggregation %,.0f/s, bare consumer %,.0f/s (%.1f µs of CPU per record, its thread %.1f), "
                        + "ratio %.2f; %,d computations, %,d writes; "
                        + "CPU per event %.1f µs (process), %.1f µs (without the broker's threads), %.1f µs (nor the compiler's), "
                        + "%.1f µs (aggregation and feeds threads); the broker's own JVM %.1f µs",
                        i + 1, i == 0 ? "cold" : warm.isEmpty() && !settled ? "warm-up" : "warm", pass.aggregatedPerSecond(), pass.barePerSecond(), pass.bare().cpuMicros(),
                        pass.bare().threadCpuMicros(), pass.ratio(), pass.computations(),
                        pass.writes(), pass.processCpuMicros(), pass.withoutBrokerCpuMicros(), pass.withoutCompilerCpuMicros(),
                        pass.aggregatorCpuMicros(), pass.brokerCpuMicros());
                if (i == 0) {
                    cold.add(pass);
                } else if (warm.isEmpty() && !settled) {
                    warmingUp++;
                } else {
                    warm.add(pass);
                }
            }
            throughputRows("cold", cold, topic.events(), 0);
            throughputRows("warm", warm, topic.events(), warmingUp);
        }
        if (figures.contains(Figure.limited)) {
            limitedRows(topic);
        }
        if (figures.contains(Figure.rebuild) || figures.contains(Figure.memory)) {
            List<Double> seconds = new ArrayList<>();
            List<Double> live = new ArrayList<>();
            List<Double> perObject = new ArrayList<>();
            for (int i = 0; i < repetitions; i++) {
                TopicFigures.Rebuild rebuild = topic.rebuild(i);
                Bench.log("rebuild %d: %,d objects rebuilt in %.2f s, every cluster computed at %.2f s; state retains %,d bytes",
                        i + 1, rebuild.objects(), rebuild.liveSeconds(), rebuild.seconds(), rebuild.retainedBytes());
                seconds.add(rebuild.seconds());
                live.add(rebuild.liveSeconds());
                perObject.add((double) rebuild.retainedBytes() / rebuild.objects());
            }
            if (figures.contains(Figure.rebuild)) {
                table.row("5 Rebuild from the compacted topic (warm JVM)", "%.2f s".formatted(Bench.median(seconds)), "≤ 5 s", Bench.median(seconds) <= 5,
                        "%,d objects; partitions read to their end in %.2f s, then every cluster computed; %d runs"
                                .formatted(topic.objects(), Bench.median(live), repetitions));
                coldRebuild(topic);
                if (topic.events() > topic.objects()) {
                    TopicFigures.Rebuild history = topic.rebuildUncompacted();
                    table.row("5 Rebuild from a topic not compacted yet (warm JVM)", "%.2f s".formatted(history.seconds()), "", null,
                            ("%,d records of %,d objects (the throughput topic: a fleet's history, as the segments not compacted "
                                    + "yet hold it); read to their end in %.2f s, then every cluster computed; 1 run")
                                    .formatted(topic.events(), history.objects(), history.liveSeconds()));
                }
            }
            if (figures.contains(Figure.memory)) {
                double bytes = Bench.median(perObject);
                table.row("4 Memory: aggregator state", "%,.0f B/object".formatted(bytes), "≤ 1,024 B", bytes <= 1024,
                        "retained heap after full GC, running minus before the instance was made (the harness's copy of the statuses dropped), over %,d objects; %d runs".formatted(topic.objects(), repetitions));
            }
        }
    }

    private void freshness(ApiServerFigures api) throws Exception {
        if (freshnessAtLimits) {
            limitedFreshness(api);
            return;
        }
        List<ApiServerFigures.Freshness> aggregator = new ArrayList<>();
        List<ApiServerFigures.Freshness> direct = new ArrayList<>();
        List<ApiServerFigures.Freshness> poller = new ArrayList<>();
        for (int i = 0; i < slowRepetitions; i++) {
            // The limit first, before the pipeline starts: a pipeline that finds the statuses it wrote overwritten by
            // another writer while it was stopped steps aside from those Clusters (StatusOwnership), as it should.
            ApiServerFigures.Freshness d = api.directFreshness(churnRate, churnSeconds);
            Bench.log("freshness %d, direct controller: %s", i + 1, d);
            direct.add(d);
            ApiServerFigures.Freshness a = api.aggregatorFreshness(churnRate, churnSeconds);
            Bench.log("freshness %d, aggregator: %s", i + 1, a);
            aggregator.add(a);
            ApiServerFigures.Freshness p = api.pollerFreshness(churnRate, churnSeconds);
            Bench.log("freshness %d, 10 s poller: %s", i + 1, p);
            poller.add(p);
        }
        freshnessAgainstLimit("p50", 30, aggregator, direct, ApiServerFigures.Freshness::p50);
        freshnessAgainstLimit("p99", 150, aggregator, direct, ApiServerFigures.Freshness::p99);
        freshnessAgainstLimit("max", 500, aggregator, direct, ApiServerFigures.Freshness::max);
        table.row("2 Freshness: aggregator p50 / p99 / max", freshnessCell(aggregator), "", null,
                "%d clusters, %,d Machines, %d changes/s asked, %s achieved, %d s per run; %d runs; status writes per change %s; %s"
                        .formatted(churnClusters, churnMachines, churnRate, achieved(aggregator), churnSeconds, slowRepetitions,
                                writesPerChange(aggregator), unreflected(aggregator)));
        table.row("2 Freshness: the limit, a direct controller p50 / p99 / max", freshnessCell(direct), "", null,
                ("informers on the five kinds, the rules and a status write on each event, no Kafka (DirectController), the "
                        + "pipeline stopped; same churn, same runs; %s achieved; status writes per change %s; %s")
                        .formatted(achieved(direct), writesPerChange(direct), unreflected(direct)));
        table.row("2 Freshness: baseline, 10 s re-read of not-Ready clusters", freshnessCell(poller), "", null,
                "same churn, same runs; %s achieved; %s; clusters it had not caught up with 60 s after the churn %s"
                        .formatted(achieved(poller), unreflected(poller), poller.stream().map(r -> String.valueOf(r.behind())).toList()));
    }

    /** One of figure 2's targets: the aggregator's figure, the limit's, and the one over the other (medians of the runs). */
    private void freshnessAgainstLimit(String which, double targetMillis, List<ApiServerFigures.Freshness> aggregator,
            List<ApiServerFigures.Freshness> limit, java.util.function.ToDoubleFunction<ApiServerFigures.Freshness> figure) {
        double ours = Bench.median(aggregator.stream().map(figure::applyAsDouble).toList());
        double limits = Bench.median(limit.stream().map(figure::applyAsDouble).toList());
        table.row("2 Freshness " + which + ": aggregator (the limit: a direct controller)",
                "%.0f ms (limit %.0f ms; %.1f × the limit)".formatted(ours, limits, ours / limits), "≤ %.0f ms".formatted(targetMillis),
                ours <= targetMillis, "from a change's last write answered to an informer seeing its status; both in the same run");
    }

    private static String writesPerChange(List<ApiServerFigures.Freshness> runs) {
        return runs.stream().map(r -> "%.2f".formatted(r.writesPerChange())).toList().toString();
    }

    /**
     * Figure 2 as a replica runs it: a packaged instance at the Deployment's limits, {@code --slow-repetitions} churns
     * one after the other on it; the first (a JVM that started a minute before) and the last are reported.
     */
    private void limitedFreshness(ApiServerFigures api) throws Exception {
        List<ApiServerFigures.LimitedFreshness> runs = api.limitedFreshness(churnRate, churnSeconds, slowRepetitions, limitedJvmOptions, limitedEnv);
        limitedFreshnessRow("first churn after the start", runs.get(0));
        if (runs.size() > 1) {
            limitedFreshnessRow("churn " + runs.size(), runs.get(runs.size() - 1));
        }
    }

    private void limitedFreshnessRow(String which, ApiServerFigures.LimitedFreshness run) {
        table.row("2 Freshness at the Deployment's limits, " + which + ": p50 / p99 / max", freshnessCell(List.of(run.changes())), "p99 ≤ 500 ms",
                run.changes().p99() <= 500,
                ("the packaged application (run) held to one CPU, heap 75 %% of 1 GiB, G1%s; the API server, churn driver and broker "
                        + "not held; same churn: %s achieved, %d s; the instance's CPU from the churn's start until every change was "
                        + "shown %.1f s in %.1f s (%.0f %% of its one CPU); the collector's pauses then: median %.0f ms, 99th percentile "
                        + "%.0f ms, longest %.0f ms; status write attempts by outcome %s; %s")
                        .formatted(limitedJvmOptions.stream().map(option -> " " + option).collect(java.util.stream.Collectors.joining()),
                                achieved(List.of(run.changes())), churnSeconds, run.cpuSeconds(), run.seconds(),
                                100 * run.cpuSeconds() / run.seconds(), run.pauseMedian(), run.pause99(), run.pauseLongest(),
                                run.statusWrites(), unreflected(List.of(run.changes()))));
    }

    private static String freshnessCell(List<ApiServerFigures.Freshness> runs) {
        return "%.0f / %.0f / %.0f ms".formatted(Bench.median(runs.stream().map(ApiServerFigures.Freshness::p50).toList()),
                Bench.median(runs.stream().map(ApiServerFigures.Freshness::p99).toList()),
                Bench.median(runs.stream().map(ApiServerFigures.Freshness::max).toList()));
    }

    private static String achieved(List<ApiServerFigures.Freshness> runs) {
        return "%.0f changes/s".formatted(Bench.median(runs.stream().map(ApiServerFigures.Freshness::changesPerSecond).toList()));
    }

    private static String unreflected(List<ApiServerFigures.Freshness> runs) {
        return "changes measured per run %s, undone by the next change before they were computed %s, not reflected by the run's end %s".formatted(
                runs.stream().map(r -> String.valueOf(r.measured())).toList(), runs.stream().map(r -> String.valueOf(r.undone())).toList(),
                runs.stream().map(r -> String.valueOf(r.unreflected())).toList());
    }

    private void amplification(ApiServerFigures api) throws Exception {
        ApiServerFigures.Amplification a = api.rollingUpgrade(upgradeRate);
        Bench.log("write amplification: %s", a);
        double perDistinct = (double) a.writes() / a.distinctStatuses();
        table.row("3 Writes per distinct status: aggregator", "%.2f".formatted(perDistinct), "≤ 1", perDistinct <= 1.0,
                "rolling upgrade of %d clusters: %,d changes, %,d input events, %,d distinct statuses, %,d writes (%.3f per input event); 1 run"
                        .formatted(churnClusters, a.changes(), a.events(), a.distinctStatuses(), a.writes(), (double) a.writes() / a.events()));
        table.row("3 Writes per distinct status: baseline, write on every event", "%.2f".formatted((double) a.baselineWrites() / a.distinctStatuses()),
                "", null, "same upgrade: %,d writes (%.3f per input event)".formatted(a.baselineWrites(), (double) a.baselineWrites() / a.events()));
    }

    /** Figure 5 as a restarted pod meets it: the rebuild in a fresh JVM, timed from the JVM's start. */
    private void coldRebuild(TopicFigures topic) throws Exception {
        List<Double> cold = new ArrayList<>();
        List<Double> coldLive = new ArrayList<>();
        List<Double> assigned = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            ColdRebuild.Run run = topic.coldRebuild("cold-" + i, coldJvmOptions, coldAtLimits, false);
            Bench.log("rebuild in a fresh JVM %d, seconds after the JVM started: main %.2f, status topic read %.2f, partitions "
                    + "assigned %.2f, rebuilt %.2f, every cluster computed %.2f; CPU seconds by thread: %s", i + 1, run.mainSeconds(),
                    run.statusesSeconds(), run.assignedSeconds(), run.liveSeconds(), run.computedSeconds(), run.cpuByThread());
            assigned.add(run.assignedSeconds());
            cold.add(run.computedSeconds());
            coldLive.add(run.liveSeconds());
        }
        String jvm = coldAtLimits ? "held to one CPU, the Deployment's heap and G1, the broker's JVM on the other CPU" : String.join(" ", ColdRebuild.FRESH_JVM);
        imageRuntimeRebuild(topic, jvm);
        table.row("5 Rebuild from the compacted topic, fresh JVM, Java " + Runtime.version().feature() + " without a cache"
                        + (coldAtLimits ? " at the Deployment's limits" : ""),
                "%.2f s".formatted(Bench.median(cold)), "", null,
                ("%,d objects; from the JVM's start (" + jvm + "): partitions assigned by the group at %.2f s, read to their end at %.2f s, "
                        + "then every cluster computed; %d runs").formatted(topic.objects(), Bench.median(assigned), Bench.median(coldLive), repetitions));
        rehearsedRebuild(topic, jvm);
        List<Double> bare = new ArrayList<>();
        List<Double> bareAssigned = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            ColdRebuild.Bare run = topic.coldBare("cold-bare-" + i, coldJvmOptions, coldAtLimits);
            Bench.log("bare consumer in a fresh JVM %d: partitions assigned %.2f s, %,d records read %.2f s after the JVM started", i + 1,
                    run.assignedSeconds(), run.records(), run.readSeconds());
            bare.add(run.readSeconds());
            bareAssigned.add(run.assignedSeconds());
        }
        table.row("5 Bare consumer over the compacted topic, fresh JVM, Java " + Runtime.version().feature()
                        + (coldAtLimits ? " at the Deployment's limits" : ""), "%.2f s".formatted(Bench.median(bare)), "", null,
                ("the floor under the row above: the same topic, group and settings, every record only turned into strings; "
                        + "partitions assigned at %.2f s; %d runs").formatted(Bench.median(bareAssigned), repetitions));
    }

    /**
     * Figure 5 on the image's runtime: a fresh JVM of Java 25 with an ahead-of-time cache that a training run wrote (one
     * rebuild of the same topic by a JVM of its own, as the image's build trains its cache on a run), and the bare
     * consumer on the same runtime and cache, in the same run.
     */
    private void imageRuntimeRebuild(TopicFigures topic, String jvm) throws Exception {
        String figure = "5 Rebuild from the compacted topic, fresh JVM, the image's runtime (Java 25, AOT cache)";
        java.util.Optional<String> imageJava = ImageRuntime.java();
        if (imageJava.isEmpty()) {
            table.row(figure, "not run", "≤ 3 s", null, "no Java 25 at " + ImageRuntime.home() + " (-Dbench.image-java-home)");
            return;
        }
        ColdRebuild.Jvm runtime = new ColdRebuild.Jvm(imageJava.get(), ImageRuntime.classesJar());
        java.nio.file.Path cache = ImageRuntime.WORK.resolve("rebuild.aot").toAbsolutePath();
        java.nio.file.Files.deleteIfExists(cache);
        List<String> training = new ArrayList<>(coldJvmOptions);
        training.add("-XX:AOTCacheOutput=" + cache);
        ColdRebuild.Run trained = topic.coldRebuild("aot-training", runtime, training, coldAtLimits, false);
        Bench.log("image's runtime (%s): training run rebuilt in %.2f s, the cache %,d bytes", ImageRuntime.describe(imageJava.get()),
                trained.computedSeconds(), java.nio.file.Files.size(cache));
        List<String> options = new ArrayList<>(coldJvmOptions);
        options.add("-XX:AOTCache=" + cache);
        List<Double> cold = new ArrayList<>();
        List<Double> assigned = new ArrayList<>();
        List<Double> live = new ArrayList<>();
        List<Double> bare = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            ColdRebuild.Run run = topic.coldRebuild("aot-" + i, runtime, options, coldAtLimits, false);
            Bench.log("rebuild in a fresh JVM on the image's runtime %d, seconds after the JVM started: main %.2f, partitions assigned "
                    + "%.2f, rebuilt %.2f, every cluster computed %.2f; CPU seconds by thread: %s", i + 1, run.mainSeconds(),
                    run.assignedSeconds(), run.liveSeconds(), run.computedSeconds(), run.cpuByThread());
            cold.add(run.computedSeconds());
            assigned.add(run.assignedSeconds());
            live.add(run.liveSeconds());
            ColdRebuild.Bare floor = topic.coldBare("aot-bare-" + i, runtime, options, coldAtLimits);
            Bench.log("bare consumer in a fresh JVM on the image's runtime %d: %,d records read %.2f s after the JVM started", i + 1,
                    floor.records(), floor.readSeconds());
            bare.add(floor.readSeconds());
        }
        table.row(figure + (coldAtLimits ? " at the Deployment's limits" : ""), "%.2f s".formatted(Bench.median(cold)), "≤ 3 s",
                Bench.median(cold) <= 3, ("%,d objects; from the JVM's start (%s; %s): partitions assigned at %.2f s, read to their end at "
                        + "%.2f s, then every cluster computed; a bare consumer on the same runtime and cache %.2f s; %d runs")
                        .formatted(topic.objects(), ImageRuntime.describe(imageJava.get()), jvm, Bench.median(assigned), Bench.median(live),
                                Bench.median(bare), repetitions));
    }

    /**
     * Figure 5 as a replica meets it that joins a group whose members serve the partitions meanwhile (a rolling update,
     * a scale-out): the fresh JVM rehearses the rebuild first, then joins; timed from the group's assignment.
     */
    private void rehearsedRebuild(TopicFigures topic, String jvm) throws Exception {
        List<Double> fromAssignment = new ArrayList<>();
        List<Double> rehearsed = new ArrayList<>();
        List<Double> live = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            ColdRebuild.Run run = topic.coldRebuild("rehearsed-" + i, coldJvmOptions, coldAtLimits, true);
            Bench.log("rebuild in a fresh JVM that rehearsed it first %d, seconds after the JVM started: main %.2f, rehearsed %.2f, "
                    + "partitions assigned %.2f, rebuilt %.2f (%.2f s after the assignment); CPU seconds by thread: %s", i + 1,
                    run.mainSeconds(), run.rehearsedSeconds(), run.assignedSeconds(), run.liveSeconds(),
                    run.liveSeconds() - run.assignedSeconds(), run.cpuByThread());
            fromAssignment.add(run.computedSeconds() - run.assignedSeconds());
            rehearsed.add(run.rehearsedSeconds());
            live.add(run.liveSeconds());
        }
        table.row("5 Rebuild in a fresh JVM that rehearsed it before joining" + (coldAtLimits ? ", at the Deployment's limits" : "")
                        + ": from the assignment", "%.2f s".formatted(Bench.median(fromAssignment)), "≤ 3 s", Bench.median(fromAssignment) <= 3,
                ("%,d objects, as a replica joining a group whose members serve the partitions meanwhile (" + jvm + "): rehearsed by "
                        + "%.2f s from the JVM's start, read to the end at %.2f s; %d runs").formatted(topic.objects(), Bench.median(rehearsed),
                        Bench.median(live), repetitions));
    }

    /**
     * Figure 10, the command line: each command a process of its own, on the image's runtime with its cache (trained
     * by deploy/image/train-aot.sh on the packaged application, as the image's build does) and on plain Java 17.
     */
    private void commandLine() throws Exception {
        CommandLineFigures cli = new CommandLineFigures(cliRuns);
        Map<String, CommandLineFigures.Timed> plain = cli.time(Bench.java(), List.of());
        java.util.Optional<String> imageJava = ImageRuntime.java();
        Map<String, CommandLineFigures.Timed> image = Map.of();
        String runtime = "no Java 25 at " + ImageRuntime.home() + " (-Dbench.image-java-home)";
        if (imageJava.isPresent()) {
            java.nio.file.Path cache = ImageRuntime.WORK.resolve("app.aot").toAbsolutePath();
            java.nio.file.Files.createDirectories(ImageRuntime.WORK);
            List<String> train = new ArrayList<>(List.of("bash", "deploy/image/train-aot.sh", imageJava.get(),
                    CommandLineFigures.APP.toString(), cache.toString()));
            train.addAll(ImageRuntime.IMAGE_JVM);
            Process training = new ProcessBuilder(train).inheritIO().start();
            if (training.waitFor() != 0) {
                throw new IllegalStateException("the training run failed: " + String.join(" ", train));
            }
            List<String> options = new ArrayList<>(ImageRuntime.IMAGE_JVM);
            options.add("-XX:AOTCache=" + cache);
            image = cli.time(imageJava.get(), options);
            runtime = "%s, the image's JVM options, a cache of %,d bytes".formatted(ImageRuntime.describe(imageJava.get()),
                    java.nio.file.Files.size(cache));
        }
        for (Map.Entry<String, CommandLineFigures.Timed> entry : plain.entrySet()) {
            CommandLineFigures.Timed onImage = image.get(entry.getKey());
            CommandLineFigures.Timed on17 = entry.getValue();
            table.row("10 Command line: " + entry.getKey() + ", the image's runtime (Java 25, AOT cache)",
                    onImage == null ? "not run" : "%.2f s".formatted(onImage.median()), "≤ 0.5 s",
                    onImage == null ? null : onImage.median() <= 0.5,
                    ("whole process, wall, median of %d runs after a warm-up%s; %s. Plain Java %d: %.2f s (%.2f to %.2f)").formatted(
                            on17.runs(), onImage == null ? "" : " (%.2f to %.2f)".formatted(onImage.min(), onImage.max()), runtime,
                            Runtime.version().feature(), on17.median(), on17.min(), on17.max()));
        }
    }

    /** Figure 8: SIGKILL of the instance holding the Lease, with the application's defaults, then Kafka's and client-go's. */
    private void failover(ApiServerFigures api) throws Exception {
        for (int rate : failoverRates) {
            ApiServerFigures.Failover tuned = api.failover("defaults-" + rate, failoverEnv, rate, failoverBackground);
            Bench.log("failover, the application's defaults, %d changes/s: %s", rate, tuned);
            table.row("8 Failover: SIGKILL of the Lease holder, change → fresh status p50 / p99 / max, %d changes/s asked".formatted(rate),
                    failoverCell(tuned), "max ≤ 10 s", tuned.changes().max() <= 10_000, failoverNotes(tuned, "the application's defaults: "
                            + "consumer session 3 s, heartbeat 1 s; Lease 3 s, renew deadline 2 s, retry 0.5 s"));
        }
        if (failoverBaseline) {
            int rate = failoverRates.get(failoverRates.size() - 1);
            ApiServerFigures.Failover before = api.failover("baseline", Map.of("KAFKA_SESSION_TIMEOUT_MS", "45000",
                    "KAFKA_HEARTBEAT_INTERVAL_MS", "3000", "AGGREGATOR_INGEST_LEASE_DURATION", "15s",
                    "AGGREGATOR_INGEST_LEASE_RENEW_DEADLINE", "10s", "AGGREGATOR_INGEST_LEASE_RETRY_PERIOD", "2s"), rate, failoverBackground);
            Bench.log("failover, Kafka's and client-go's defaults: %s", before);
            table.row("8 Failover: baseline, Kafka's and client-go's defaults, %d changes/s asked".formatted(rate), failoverCell(before), "", null,
                    failoverNotes(before, "consumer session 45 s, heartbeat 3 s; Lease 15 s, renew deadline 10 s, retry 2 s"));
        }
    }

    private static String failoverCell(ApiServerFigures.Failover run) {
        return "%.1f / %.1f / %.1f s".formatted(run.changes().p50() / 1000, run.changes().p99() / 1000, run.changes().max() / 1000);
    }

    private String failoverNotes(ApiServerFigures.Failover run, String settings) {
        return ("two packaged instances, %d clusters, %,d Machines; %s; %d changes measured (one per cluster at %.0f/s, from the "
                + "kill; %d/s through the steady minute before it), %d not reflected; every one shown %.1f s after the kill; 1 run")
                .formatted(churnClusters, churnMachines, settings, run.changes().measured(), run.changes().changesPerSecond(),
                        failoverBackground, run.changes().unreflected(), run.allShownMillis() / 1000);
    }

    private void informerMemory(Bench.Broker broker) throws Exception {
        int perCluster = Math.max(1, machines / clusters);
        InformerMemory.Result full = InformerMemory.measureStores(seed, Math.max(1, informerBeforeMachines / perCluster), perCluster, true);
        Bench.log("informer stores, whole objects: %s", full);
        double fullPerObject = (double) full.retainedBytes() / full.objects();
        table.row("4 Memory: ingest informer caches, whole objects (before)", "%,.0f B/object".formatted(fullPerObject), "",
                null, "%,d objects (%,d Machines) in Fabric8's default informer store, one per kind; %s"
                        .formatted(full.objects(), full.machines(), full.histogram()));
        InformerMemory.Result reduced = InformerMemory.measureStores(seed, Math.max(1, informerMachines / perCluster), perCluster, false);
        Bench.log("informer stores, ReducedObjectStore: %s", reduced);
        double reducedPerObject = (double) reduced.retainedBytes() / reduced.objects();
        table.row("4 Memory: ingest informer caches (ReducedObjectStore, as shipped)", "%,.0f B/object".formatted(reducedPerObject), "≤ 1,024 B",
                reducedPerObject <= 1024, "the same objects, each kept as ingest publishes it (ObjectReduction's fields, UTF-8 JSON); %s"
                        .formatted(reduced.histogram()));
        if (informerApiMachines > 0) {
            InformerMemory.Result api = InformerMemory.measure(broker, seed, Math.max(1, informerApiMachines / perCluster), perCluster);
            Bench.log("informer memory through the API server: %s", api);
            table.row("4 Memory: ingest's informers on the API server (cross-check)", "%,.0f B/object".formatted((double) api.retainedBytes() / api.objects()),
                    "", null, "ObjectIngest listing %,d objects (%,d Machines) from the CRUD mock, running minus stopped; %s"
                            .formatted(api.objects(), api.machines(), api.histogram()));
        }
    }

    private void print(double seconds) {
        StringBuilder out = new StringBuilder();
        out.append("Machine: ").append(Bench.machine()).append('\n');
        out.append("Run: seed ").append(seed).append(", ").append(repetitions).append(" repetitions (").append(slowRepetitions)
                .append(" of freshness and of the warm pass at the limits, ").append(warmPasses)
                .append(" warm passes of figure 1 after at most ").append(warmUpPasses)
                .append(" warm-up passes), whole run %.0f s; 1-minute load average %s at the start, %s at the end"
                        .formatted(seconds, loadAtStart, Bench.loadAverage())).append("\n\n");
        out.append(table.markdown());
        System.out.print(out);
        System.out.flush();
    }
}
