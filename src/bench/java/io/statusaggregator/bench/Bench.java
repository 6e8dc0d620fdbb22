package io.statusaggregator.bench;

import io.statusaggregator.embedded.EmbeddedKafka;
import io.statusaggregator.topics.ClusterPartitioner;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** What every figure stands on: the in-process broker, timing and heap readings, medians. */
final class Bench {
    private Bench() {
    }

    /**
     * The KRaft broker every figure runs on (the embedded default's): in a JVM of its own ({@link BrokerProcess}), as
     * production runs Kafka, or in this process; topics get the application's default partition count.
     */
    static final class Broker implements AutoCloseable {
        static final int PARTITIONS = 6;
        /** The broker this process runs; null for one that runs in another process. */
        private final EmbeddedKafka kafka;
        /** The broker's own JVM, if this harness started it. */
        private final Process process;
        private final String bootstrapServers;

        /** A broker in this process ({@code inProcess}) or in a JVM of its own. */
        Broker(boolean inProcess) throws Exception {
            if (inProcess) {
                kafka = EmbeddedKafka.start();
                process = null;
                bootstrapServers = kafka.bootstrapServers();
            } else {
                BrokerProcess.Started started = BrokerProcess.start();
                kafka = null;
                process = started.process();
                bootstrapServers = started.bootstrapServers();
            }
        }

        /** The broker another process runs, at {@code bootstrapServers}. */
        Broker(String bootstrapServers) {
            kafka = null;
            process = null;
            this.bootstrapServers = bootstrapServers;
        }

        /**
         * Holds the broker's own JVM, every thread of it, to {@code cpus} (as {@code taskset -c} reads them; null: every
         * CPU again), so that a JVM pinned to another CPU has that one to itself. Nothing for a broker in this process.
         */
        void pinTo(String cpus) throws IOException, InterruptedException {
            if (process == null) {
                return;
            }
            String list = cpus != null ? cpus : "0-" + (Runtime.getRuntime().availableProcessors() - 1);
            Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", list, String.valueOf(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!taskset.waitFor(30, TimeUnit.SECONDS) || taskset.exitValue() != 0) {
                throw new IllegalStateException("taskset could not hold the broker's JVM to CPUs " + list);
            }
        }

        /** The CPU the broker's own JVM has used, if this harness started one. */
        java.util.Optional<java.time.Duration> processCpu() {
            return process == null ? java.util.Optional.empty() : process.toHandle().info().totalCpuDuration();
        }

        Map<String, Object> kafka() {
            return Map.of("bootstrap.servers", bootstrapServers);
        }

        void createTopics(boolean compacted, String... topics) {
            Map<String, Boolean> byName = new java.util.LinkedHashMap<>();
            for (String topic : topics) {
                byName.put(topic, compacted);
            }
            createTopics(byName);
        }

        /** Each topic, compacted or not, with one admin client: as the pipeline's start makes them. */
        void createTopics(Map<String, Boolean> compactedByName) {
            try (Admin admin = Admin.create(new HashMap<>(kafka()))) {
                List<NewTopic> created = new ArrayList<>();
                compactedByName.forEach((topic, compacted) -> created.add(new NewTopic(topic, PARTITIONS, (short) 1).configs(
                        Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, compacted ? TopicConfig.CLEANUP_POLICY_COMPACT : TopicConfig.CLEANUP_POLICY_DELETE))));
                admin.createTopics(created).all().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("could not create topics " + compactedByName.keySet(), e);
            }
        }

        /** A producer of object states as ingest's (keys by cluster through the partitioner), batching for bulk. */
        KafkaProducer<String, String> objectStateProducer() {
            Map<String, Object> producer = new HashMap<>(kafka());
            producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer.put(ProducerConfig.ACKS_CONFIG, "all");
            producer.put(ProducerConfig.LINGER_MS_CONFIG, 20);
            producer.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
            producer.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, ClusterPartitioner.class.getName());
            return new KafkaProducer<>(producer);
        }

        @Override
        public void close() throws Exception {
            if (kafka != null) {
                kafka.close();
            }
            if (process != null) {
                BrokerProcess.stop(process);
            }
        }
    }

    /** Heap in use after full collections: what is retained. */
    static long retainedHeap() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** The CPU time of this whole process so far (every thread, the collector's too). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * CPU time by thread of this process, in clock ticks (user and system), from Linux's {@code /proc/self/task}: the
     * collector's and the compiler's threads too, which Java's thread bean does not list. Names have their numbers
     * dropped ({@code GC Thread#0} and {@code #1} count as one). Empty where there is no {@code /proc}.
     */
    static Map<String, Long> cpuTicksByThread() {
        return cpuTicksByThread("self");
    }

    /** As {@link #cpuTicksByThread()}, for the process {@code pid} ("self": this one). */
    static Map<String, Long> cpuTicksByThread(String pid) {
        Map<String, Long> ticks = new java.util.TreeMap<>();
        try (java.util.stream.Stream<java.nio.file.Path> tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc", pid, "task"))) {
            for (java.nio.file.Path task : tasks.toList()) {
                try {
                    String stat = java.nio.file.Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "N");
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks.merge(name, Long.parseLong(fields[11]) + Long.parseLong(fields[12]), Long::sum);
                } catch (java.io.IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            return Map.of();
        }
        return ticks;
    }

    /** What each thread of {@code after} used since {@code before}, in ticks, as {@link #cpuTicksByThread} counts them. */
    static Map<String, Long> ticksSince(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> used = new java.util.TreeMap<>(after);
        before.forEach((name, ticks) -> used.computeIfPresent(name, (n, now) -> now - ticks));
        return used;
    }

    /** {@code ticks} in seconds, the threads of a twentieth of a second or more, the busiest first: "aggregation 5.52, ...". */
    static String cpuByThread(Map<String, Long> ticks) {
        return ticks.entrySet().stream().filter(e -> e.getValue() >= 5)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> "%s %.2f".formatted(e.getKey(), e.getValue() / 100.0)).collect(java.util.stream.Collectors.joining(", "));
    }

    /**
     * The machine's CPU time so far, in clock ticks, from Linux's {@code /proc/stat}: {every CPU's time, idle (and
     * waiting on I/O), stolen by the hypervisor for other guests}. Empty where there is no {@code /proc}.
     */
    static long[] machineTicks() {
        try {
            String[] fields = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i <= 8 && i < fields.length; i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(fields[i]);
            }
            return new long[] {total, Long.parseLong(fields[4]) + Long.parseLong(fields[5]), Long.parseLong(fields[8])};
        } catch (java.io.IOException | RuntimeException e) {
            return new long[0];
        }
    }

    /**
     * What the machine's CPUs did over a stretch of time, in seconds: their time, what the hypervisor stole of it for other
     * guests, and what was idle. A pass slower than its neighbours with time stolen ran on a host others were using.
     */
    record MachineTime(double cpus, double stolen, double idle) {
        /** Since {@code before} ({@link #machineTicks}); NaN where there is no {@code /proc/stat}. */
        static MachineTime since(long[] before) {
            long[] after = machineTicks();
            if (before.length < 3 || after.length < 3) {
                return new MachineTime(Double.NaN, Double.NaN, Double.NaN);
            }
            return new MachineTime((after[0] - before[0]) / 100.0, (after[2] - before[2]) / 100.0, (after[1] - before[1]) / 100.0);
        }

        /** The share of the CPUs' time stolen. */
        double stolenShare() {
            return stolen / cpus;
        }

        @Override
        public String toString() {
            return Double.isNaN(cpus) ? "unknown (no /proc/stat)"
                    : "%.2f s of the CPUs, %.2f s stolen by the hypervisor, %.2f s idle".formatted(cpus, stolen, idle);
        }
    }

    /** The CPU time of the live threads named {@code name}, summed. */
    static long threadCpuNanos(String name) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long total = 0;
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().equals(name)) {
                total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }

    /** The bytes the live threads named {@code name} have allocated, summed. */
    static long threadAllocatedBytes(String name) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long total = 0;
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().equals(name)) {
                total += Math.max(0, threads.getThreadAllocatedBytes(info.getThreadId()));
            }
        }
        return total;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The {@code p}th percentile (nearest rank) of {@code values}, in their unit. */
    static double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    /** Waits until {@code done} holds, checking every 10 ms; false after {@code timeoutMillis}. */
    static boolean await(long timeoutMillis, java.util.function.BooleanSupplier done) {
        return await(timeoutMillis, 10, done);
    }

    /** Waits until {@code done} holds, checking every {@code everyMillis}; false after {@code timeoutMillis}. */
    static boolean await(long timeoutMillis, long everyMillis, java.util.function.BooleanSupplier done) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                return false;
            }
            try {
                Thread.sleep(everyMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The JVM's log manager, as the harness's and the cold rebuild's command lines name it (Quarkus's, as in production). */
    static final String LOG_MANAGER = "-Djava.util.logging.manager=org.jboss.logmanager.LogManager";

    /** The {@code java} of the JDK the harness runs on: what its child JVMs (broker, fresh JVMs, instances) run. */
    static String java() {
        return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Warnings only, the clients' errors only, as in production where Quarkus sets the levels. Without levels set, the
     * log manager has every level enabled and the Kafka clients format their trace messages (a record's
     * {@code toString} for every send), work a running aggregator never does.
     */
    static void quietLogging() {
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        for (String quiet : List.of("org.apache.kafka", "kafka", "state.change.logger", "io.fabric8", "io.vertx", "io.netty")) {
            java.util.logging.Logger.getLogger(quiet).setLevel(java.util.logging.Level.SEVERE);
        }
    }

    static void log(String format, Object... args) {
        System.err.printf("[bench] " + format + "%n", args);
    }

    /** The machine's load average: other processes on the same cores change every figure. */
    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
        } catch (Exception e) {
            return "%.2f".formatted(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    /** The machine and the JVM the figures were measured on: cores, memory, runtime, heap, collector and its options. */
    static String machine() {
        String cpu = "unknown CPU";
        try {
            cpu = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        } catch (Exception e) {
            // not Linux: the CPU model stays unknown
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return String.format(java.util.Locale.ROOT, "%d cores (%s), %.1f GiB RAM, %s %s (%s), heap max %.1f GiB, %s, %s %s %s",
                Runtime.getRuntime().availableProcessors(), cpu, os.getTotalMemorySize() / 1073741824.0,
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"), System.getProperty("java.vm.vendor"),
                Runtime.getRuntime().maxMemory() / 1073741824.0,
                ManagementFactory.getGarbageCollectorMXBeans().stream().map(g -> g.getName()).toList() + " "
                        + ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("-XX:")).toList(),
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
    }
}
