package io.statusaggregator.bench;

import io.statusaggregator.versions.json.CompatibilityReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Figure 1 as a replica runs it: the aggregator alone, in a JVM limited as the Deployment limits it (one CPU, pinned
 * with {@code taskset}; the heap 75 % of 1 GiB), with the collector given, while the broker's JVM is held to the
 * other core. A cold pass and then warm ones over the throughput topic, each a new instance in a group of its own
 * (on one CPU the compiler is still busy in the first warm pass); the collector's log gives its pauses. The harness
 * checks the statuses the last pass published.
 */
final class LimitedPass {
    /** As deploy/kubernetes/deployment.yaml limits a replica: 1 GiB, the heap 75 % of it. */
    static final List<String> DEPLOYMENT_LIMITS = List.of("-XX:MaxRAM=1g", "-XX:MaxRAMPercentage=75.0");
    /** G1's settings in deploy/kubernetes/deployment.yaml's JAVA_TOOL_OPTIONS besides the collector itself. */
    static final List<String> DEPLOYMENT_G1 = List.of("-XX:-G1UseAdaptiveIHOP", "-XX:InitiatingHeapOccupancyPercent=75");
    /** The collector the image and the Deployment set, with its settings. */
    static final List<String> IMAGE_G1 = java.util.stream.Stream.concat(java.util.stream.Stream.of("-XX:+UseG1GC"), DEPLOYMENT_G1.stream())
            .toList();
    /** The JVM as the Deployment runs it: its limits, and the collector it sets. */
    static final List<String> DEPLOYMENT_JVM = java.util.stream.Stream.concat(DEPLOYMENT_LIMITS.stream(), IMAGE_G1.stream()).toList();
    private static final String CPU = "1";
    /** The command prefix that holds a JVM to one CPU, as the Deployment's limit of one CPU does. */
    static final List<String> ONE_CPU = List.of("taskset", "-c", CPU);
    /** The CPU the broker's JVM is held to meanwhile. */
    static final String OTHER_CPU = "0";

    /** One pass: events per second, the JVM's CPU per event, every thread, and each thread's CPU seconds. */
    record Pass(double perSecond, double cpuMicros, String cpuByThread) {
    }

    /** The cold pass and the last warm one, and the collector's pauses over the child's whole run, in milliseconds. */
    record Result(String collector, Pass cold, Pass warm, double pauseMedian, double pause99, double pauseLongest, int pauses) {
    }

    private LimitedPass() {
    }

    /** The child: {@code bootstrap topic run events warmPasses}. */
    public static void main(String[] args) throws Exception {
        Bench.quietLogging();
        Bench.Broker broker = new Bench.Broker(args[0]);
        long events = Long.parseLong(args[3]);
        for (String pass : passes(Integer.parseInt(args[4]))) {
            try (CountedAggregation instance = new CountedAggregation(broker, args[1], args[2] + "-" + pass, true,
                    CompatibilityReader.builtIn(), Duration.ofMillis(100), Map::of)) {
                long cpuBefore = Bench.processCpuNanos();
                Map<String, Long> ticksBefore = Bench.cpuTicksByThread();
                TopicFigures.Pass timed = TopicFigures.pass(instance, events);
                long cpu = Bench.processCpuNanos() - cpuBefore;
                long consumed = instance.aggregator.events();
                String threads = Bench.cpuByThread(Bench.ticksSince(ticksBefore, Bench.cpuTicksByThread()));
                System.out.printf("limited-pass %s %.1f %.3f %s%n", pass, consumed / timed.seconds(), cpu / 1e3 / consumed, threads);
                // Where the instance stood when its pass was taken as ended: what the status check then finds.
                System.out.printf("limited-progress %s %s%n", pass, instance.aggregator.progress());
                System.out.flush();
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private static List<String> passes(int warm) {
        List<String> passes = new ArrayList<>(List.of("cold"));
        for (int i = 1; i <= warm; i++) {
            passes.add("warm" + i);
        }
        return passes;
    }

    /** The status topic the last pass of {@code run} published to: what the harness checks. */
    static String lastStatuses(String run, int warmPasses) {
        return "statuses-" + run + "-" + passes(warmPasses).get(warmPasses);
    }

    /** The options a child with {@code collector} gets besides the limits: the Deployment's G1 settings, then {@code jvmOptions}. */
    static List<String> options(String collector, List<String> jvmOptions) {
        return java.util.stream.Stream.concat(collector.equals("G1") ? DEPLOYMENT_G1.stream() : java.util.stream.Stream.empty(),
                jvmOptions.stream()).toList();
    }

    /** Runs the child with {@code collector} (as in {@code -XX:+UseG1GC}: G1, Parallel, Serial) and {@code jvmOptions}. */
    static Result run(Bench.Broker broker, String topic, String run, long events, int warmPasses, String collector, List<String> jvmOptions)
            throws IOException, InterruptedException {
        Path gcLog = Files.createTempFile("limited-gc", ".log");
        Path output = Files.createTempFile("limited-pass", ".log");
        List<String> command = new ArrayList<>(ONE_CPU);
        command.add(Bench.java());
        command.addAll(DEPLOYMENT_LIMITS);
        command.addAll(options(collector, jvmOptions));
        command.addAll(List.of("-XX:+Use" + collector + "GC", "-Xlog:gc:file=" + gcLog, Bench.LOG_MANAGER,
                "-cp", System.getProperty("java.class.path"), LimitedPass.class.getName(),
                String.valueOf(broker.kafka().get("bootstrap.servers")), topic, run, String.valueOf(events),
                String.valueOf(warmPasses)));
        broker.pinTo(OTHER_CPU);
        try {
            Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!child.waitFor(10, TimeUnit.MINUTES)) {
                child.destroyForcibly();
                throw new IllegalStateException("the limited JVM did not finish within 10 minutes: " + Files.readString(output));
            }
        } finally {
            broker.pinTo(null);
        }
        List<String> lines = Files.readAllLines(output);
        lines.stream().filter(line -> line.startsWith("limited-progress ")).forEach(line -> Bench.log("%s: %s", collector, line));
        Pass cold = pass(lines, "cold");
        Pass warm = pass(lines, passes(warmPasses).get(warmPasses));
        List<Double> pauses = pauses(gcLog);
        Files.deleteIfExists(gcLog);
        Files.deleteIfExists(output);
        return new Result(collector, cold, warm, Bench.percentile(pauses, 50), Bench.percentile(pauses, 99),
                pauses.stream().mapToDouble(Double::doubleValue).max().orElse(0), pauses.size());
    }

    /** The collector's pauses in the log {@code -Xlog:gc:file=} wrote, in milliseconds. */
    static List<Double> pauses(Path gcLog) throws IOException {
        return Files.readAllLines(gcLog).stream().filter(line -> line.contains(" Pause "))
                .map(line -> line.substring(line.lastIndexOf(' ') + 1)).filter(last -> last.endsWith("ms"))
                .map(last -> Double.parseDouble(last.substring(0, last.length() - 2))).toList();
    }

    private static Pass pass(List<String> lines, String which) {
        String prefix = "limited-pass " + which + " ";
        String line = lines.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the limited JVM printed no " + which + " pass: " + String.join("\n", lines)));
        String[] figures = line.substring(prefix.length()).split(" ", 3);
        return new Pass(Double.parseDouble(figures[0]), Double.parseDouble(figures[1]), figures.length > 2 ? figures[2] : "");
    }
}
