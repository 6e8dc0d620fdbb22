package io.statusaggregator.bench;

import io.statusaggregator.versions.json.CompatibilityReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Figure 5 in a fresh JVM, as a restarted pod rebuilds: a child process (the harness's class path, its own heap)
 * rebuilds from the compacted topic and computes every cluster, and prints how long that took from its own start.
 */
final class ColdRebuild {
    /**
     * What one child run measured, in seconds from the JVM's start: to the partitions rebuilt, to every cluster
     * computed, to the harness's main method, to the partitions assigned by the group, and to the status topic read
     * (in the background from the start, as the pipeline does, and waited for by the first assignment); and the CPU
     * each thread used.
     */
    record Run(double liveSeconds, double computedSeconds, double mainSeconds, double assignedSeconds, double statusesSeconds,
            double rehearsedSeconds, String cpuByThread) {
    }

    /** The fresh JVM off the Deployment's limits: a heap of 2 GB, the image's collector and its settings. */
    static final List<String> FRESH_JVM = java.util.stream.Stream.concat(java.util.stream.Stream.of("-Xmx2g"), LimitedPass.IMAGE_G1.stream())
            .toList();

    /**
     * The fresh JVM's runtime: its {@code java}, and a jar of the compiled classes to put on the class path in place of
     * their directory (an ahead-of-time cache archives classes from jars only), or null.
     */
    record Jvm(String java, String classesJar) {
        /** The harness's own java (the build's, Java 17 here). */
        static Jvm harness() {
            return new Jvm(Bench.java(), System.getProperty("bench.cold.classes-jar"));
        }
    }

    private ColdRebuild() {
    }

    /** The child: {@code bootstrap topic clusters run [bare|rehearse]}. */
    public static void main(String[] args) throws Exception {
        long jvmStart = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        Bench.quietLogging();
        Bench.Broker broker = new Bench.Broker(args[0]);
        int clusters = Integer.parseInt(args[2]);
        long main = System.currentTimeMillis();
        if (args.length > 4 && args[4].equals("bare")) {
            bareConsumer(broker, args[1], args[3], jvmStart, main);
            Runtime.getRuntime().halt(0);
        }
        // As the pipeline starts: the status topic read in the background while the instance joins its group.
        java.util.function.Supplier<java.util.Map<String, io.statusaggregator.model.ClusterStatus>> statusTopic =
                TopicFigures.published(broker, args[1]);
        long[] statuses = new long[1];
        CountedAggregation instance = new CountedAggregation(broker, args[1], args[3], false, CompatibilityReader.builtIn(),
                Duration.ofMillis(100), () -> {
                    java.util.Map<String, io.statusaggregator.model.ClusterStatus> read = statusTopic.get();
                    statuses[0] = statuses[0] == 0 ? System.currentTimeMillis() : statuses[0];
                    return read;
                });
        boolean rehearse = args.length > 4 && args[4].equals("rehearse");
        if (rehearse) {
            instance.rehearsingFirst(); // as a replica joining a group whose members serve the partitions meanwhile
        }
        instance.start();
        long rehearsed = 0; // when the rehearsal ended, its progress then "rehearsed the rebuild; joining the group"
        if (rehearse) {
            if (!Bench.await(120_000, 10, () -> !instance.aggregator.progress().equals("starting")
                    && !instance.aggregator.progress().startsWith("rehearsing"))) {
                throw new IllegalStateException("no rehearsal within 120 s: " + instance.aggregator.progress());
            }
            rehearsed = System.currentTimeMillis();
        }
        // When the group gave this consumer its partitions: what the JVM's start, the group join and the rebuild each take.
        if (!Bench.await(120_000, 10, () -> instance.aggregator.progress().startsWith("partitions [") && !instance.aggregator.progress().startsWith("partitions []"))) {
            throw new IllegalStateException("no partitions assigned within 120 s: " + instance.aggregator.progress());
        }
        long assigned = System.currentTimeMillis();
        instance.awaitRebuilt();
        long live = System.currentTimeMillis();
        instance.awaitComputed(clusters);
        long computed = System.currentTimeMillis();
        System.out.printf("cold-rebuild %.3f %.3f %.3f %.3f %.3f %.3f%n", (live - jvmStart) / 1e3, (computed - jvmStart) / 1e3, (main - jvmStart) / 1e3,
                (assigned - jvmStart) / 1e3, (statuses[0] - jvmStart) / 1e3, rehearse ? (rehearsed - jvmStart) / 1e3 : 0);
        // Where the fresh JVM's CPU went, thread by thread (the compiler's and the collector's too), in seconds.
        System.out.println("cold-rebuild-cpu " + Bench.cpuByThread(Bench.cpuTicksByThread()));
        System.out.flush();
        // A flight recording asked for with --cold-jvm-option is written now: halt skips the JVM's own dump at exit.
        for (jdk.jfr.Recording recording : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
            if (recording.getDestination() != null) {
                recording.dump(recording.getDestination());
            }
        }
        if (java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(option -> option.startsWith("-XX:AOTCacheOutput") || option.startsWith("-XX:ArchiveClassesAtExit"))) {
            // A training run: an ahead-of-time cache (JDK 24 and later) or a class-data-sharing archive (-XX:ArchiveClassesAtExit,
            // JDK 13 and later) is written at a normal exit.
            System.exit(0);
        }
        Runtime.getRuntime().halt(0); // no graceful stop: only the rebuild is measured
    }

    /**
     * The floor under the fresh JVM's rebuild: a consumer in the group, with aggregation's settings, that only turns
     * every record of the topic into strings, as the warm bare consumer of figure 1 does. Prints when it had its
     * partitions and when it had read them to their end, in seconds from the JVM's start.
     */
    private static void bareConsumer(Bench.Broker broker, String topic, String run, long jvmStart, long main) {
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(
                TopicFigures.bareConsumerProperties(broker, "bench-cold-bare-" + run))) {
            consumer.subscribe(List.of(topic));
            long assigned = 0;
            long read = 0;
            long bytes = 0;
            java.util.Map<org.apache.kafka.common.TopicPartition, Long> ends = null;
            while (true) {
                var records = consumer.poll(Duration.ofMillis(100));
                if (ends == null && !consumer.assignment().isEmpty()) {
                    assigned = System.currentTimeMillis();
                    ends = consumer.endOffsets(consumer.assignment());
                }
                for (var record : records) {
                    bytes += record.key().length() + (record.value() == null ? 0 : record.value().length());
                    read++;
                }
                if (ends != null && ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                    break;
                }
            }
            long done = System.currentTimeMillis();
            System.out.printf("cold-bare %.3f %.3f %.3f %d %d%n", (done - jvmStart) / 1e3, (assigned - jvmStart) / 1e3,
                    (main - jvmStart) / 1e3, read, bytes);
            System.out.flush();
        }
    }

    /** What the bare child measured: seconds from the JVM's start to its partitions, and to all of them read. */
    record Bare(double readSeconds, double assignedSeconds, long records) {
    }

    /**
     * Runs the child with {@code jvmOptions}; returns what it measured. {@code atLimits}: held to one CPU with the
     * Deployment's heap and collector, as {@link LimitedPass} runs its JVMs.
     */
    static Run run(String bootstrap, String topic, int clusters, String run, Jvm runtime, List<String> jvmOptions, boolean atLimits,
            boolean rehearse) throws IOException, InterruptedException {
        List<String> lines = child(bootstrap, topic, clusters, run, runtime, jvmOptions, rehearse ? "rehearse" : "", atLimits);
        String cpu = lines.stream().filter(l -> l.startsWith("cold-rebuild-cpu ")).findFirst().map(l -> l.substring(17)).orElse("");
        String[] figures = figureLine(lines, "cold-rebuild ");
        return new Run(Double.parseDouble(figures[1]), Double.parseDouble(figures[2]), Double.parseDouble(figures[3]),
                Double.parseDouble(figures[4]), Double.parseDouble(figures[5]), Double.parseDouble(figures[6]), cpu);
    }

    /** Runs the bare child (see {@link #bareConsumer}) with {@code jvmOptions}. */
    static Bare bare(String bootstrap, String topic, String run, Jvm runtime, List<String> jvmOptions, boolean atLimits)
            throws IOException, InterruptedException {
        String[] figures = figureLine(child(bootstrap, topic, 0, run, runtime, jvmOptions, "bare", atLimits), "cold-bare ");
        return new Bare(Double.parseDouble(figures[1]), Double.parseDouble(figures[2]), Long.parseLong(figures[4]));
    }

    private static String[] figureLine(List<String> lines, String prefix) {
        return lines.stream().filter(line -> line.startsWith(prefix)).findFirst().map(line -> line.split(" "))
                .orElseThrow(() -> new IllegalStateException("the fresh JVM printed no figure: " + String.join("\n", lines)));
    }

    /** @param mode "bare" for the bare consumer, "rehearse" for a rebuild rehearsed first, "" for the rebuild alone */
    private static List<String> child(String bootstrap, String topic, int clusters, String run, Jvm runtime, List<String> jvmOptions,
            String mode, boolean atLimits) throws IOException, InterruptedException {
        boolean bare = mode.equals("bare");
        List<String> command = new ArrayList<>(atLimits ? LimitedPass.ONE_CPU : List.of());
        command.add(runtime.java());
        command.addAll(atLimits ? LimitedPass.DEPLOYMENT_JVM : FRESH_JVM);
        command.add(Bench.LOG_MANAGER);
        // A flight recording is of the rebuild: the bare consumer's child would write over it.
        jvmOptions.stream().filter(option -> !(bare && option.startsWith("-XX:StartFlightRecording"))).forEach(command::add);
        String classPath = System.getProperty("java.class.path");
        String classesJar = runtime.classesJar();
        if (classesJar != null) {
            // An ahead-of-time cache (JDK 24 and later) archives classes from jars only: the compiled classes, jarred.
            classPath = java.util.Arrays.stream(classPath.split(java.io.File.pathSeparator))
                    .map(entry -> entry.endsWith("target" + java.io.File.separator + "classes") ? classesJar : entry)
                    .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        }
        command.addAll(List.of("-cp", classPath, ColdRebuild.class.getName(), bootstrap, topic,
                String.valueOf(clusters), run));
        if (!mode.isEmpty()) {
            command.add(mode);
        }
        Path output = Files.createTempFile("cold-rebuild", ".log");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!child.waitFor(5, TimeUnit.MINUTES)) {
            child.destroyForcibly();
            throw new IllegalStateException("the fresh JVM did not finish within 5 minutes: " + Files.readString(output));
        }
        return Files.readAllLines(output);
    }
}
