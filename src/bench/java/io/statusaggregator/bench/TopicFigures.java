package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.topics.ObjectStateKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.topics.PublishedStatus;
import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.Compatibility;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Figures 1, 4 (aggregator side) and 5, on topics the harness fills itself: aggregation against a bare consumer on
 * one topic of object-state events; the rebuild of an instance from the compacted state of the same fleet, and the
 * heap its state retains.
 */
final class TopicFigures {
    /**
     * One aggregation pass. CPU per event: {@code processCpuMicros} is the whole process's (the aggregator's threads,
     * the garbage collector, the in-process broker serving the fetches and taking the feeds); {@code withoutBrokerCpuMicros}
     * the same less the broker's request and network threads (the collector's work for the broker stays in);
     * {@code withoutCompilerCpuMicros} less the just-in-time compiler's threads too (in a warm pass, a flight recording
     * found half their time spent on the broker's code and almost none on the aggregator's); {@code aggregatorCpuMicros}
     * the aggregator's own two threads' (aggregation and feeds). With the broker in a JVM of its own (the default), the
     * first two are the same, and {@code brokerCpuMicros} is that JVM's CPU per event (NaN with the broker in this one);
     * {@code machine}, what the machine's CPUs did meanwhile (the time the hypervisor stole among it).
     */
    record Throughput(Bare bare, double aggregatedPerSecond, long events, long computations, long writes,
            double processCpuMicros, double withoutBrokerCpuMicros, double withoutCompilerCpuMicros, double aggregatorCpuMicros,
            double brokerCpuMicros, Bench.MachineTime machine) {
        double ratio() {
            return aggregatedPerSecond / bare.perSecond();
        }

        double barePerSecond() {
            return bare.perSecond();
        }

        /** The share of the CPUs' time the hypervisor may steal from a pass that counts as run on a quiet host. */
        static final double QUIET = 0.01;

        /**
         * How many of {@code passes} ran on a quiet host, and what they cost: the aggregation thread, which waits on memory,
         * runs slower while another guest of the host is busy (BENCHMARKS.md, "Choices the figures support").
         */
        static String quietHost(List<Throughput> passes) {
            if (passes.stream().anyMatch(pass -> Double.isNaN(pass.machine().cpus()))) {
                return ""; // no /proc/stat
            }
            List<Throughput> quiet = passes.stream().filter(pass -> pass.machine().stolenShare() < QUIET).toList();
            String stolen = "%.1f to %.1f %% of the CPUs' time stolen by the hypervisor".formatted(
                    100 * passes.stream().mapToDouble(pass -> pass.machine().stolenShare()).min().orElse(0),
                    100 * passes.stream().mapToDouble(pass -> pass.machine().stolenShare()).max().orElse(0));
            return quiet.isEmpty() ? "no run on a quiet host (%s); ".formatted(stolen)
                    : "%d of %d runs on a quiet host (under %.0f %% stolen; %s): median %.1f µs; ".formatted(quiet.size(), passes.size(),
                            100 * QUIET, stolen, Bench.median(quiet.stream().map(Throughput::withoutBrokerCpuMicros).toList()));
        }

        /** The just-in-time compiler's threads' part of the CPU the pass cost (the broker's left out). */
        double compilerShare() {
            return (withoutBrokerCpuMicros - withoutCompilerCpuMicros) / withoutBrokerCpuMicros;
        }
    }

    /**
     * The bare consumer's pass: records read per second, and the CPU per record of this JVM while it read (every thread:
     * its own, the collector's, the compiler's) and of its thread alone. The floor under figure 1's CPU per event: what
     * reading a record costs before anything is done with it.
     */
    record Bare(double perSecond, double cpuMicros, double threadCpuMicros) {
    }

    record Rebuild(double seconds, double liveSeconds, long objects, long retainedBytes) {
    }

    /**
     * The time both the harness and the aggregator here stamp on the conditions that change: a status then depends on
     * the objects alone, so the statuses the harness puts on the compacted topic's EKS-A Clusters are exactly those
     * the aggregator would have written, as on a real topic. The work of a computation does not depend on the time.
     */
    static final java.time.Instant STATUS_TIME = java.time.Instant.parse("2026-01-01T00:00:00Z");

    private final Bench.Broker broker;
    private final long seed;
    private final Compatibility compatibility;
    private final StatusCheck check;
    private final String topic;
    private final String compacted;
    private long events;
    /** While filling: every object's last state as the topic holds it (reduced), by record key: what compaction leaves. */
    private final Map<String, JsonNode> latest = new HashMap<>();
    /**
     * After filling: the same as the compacted topic's records, as bytes, decoded only for a check. Held as trees or
     * model records through a pass, they were most of the heap (1.1 to 1.7 GB after each collection) and the collector
     * marked them again and again, CPU counted as the aggregator's.
     */
    private final Map<String, byte[]> finalObjects = new HashMap<>();
    private int clusters;

    TopicFigures(Bench.Broker broker, long seed, Compatibility compatibility, StatusCheck check) {
        this.broker = broker;
        this.seed = seed;
        this.compatibility = compatibility;
        this.check = check;
        this.topic = "object-states-" + seed;
        this.compacted = "object-states-compacted-" + seed;
    }

    long events() {
        return events;
    }

    int objects() {
        return finalObjects.size();
    }

    /** The fleet created, then rolling upgrades through it, until the topic holds {@code atLeast} events. */
    void fill(int clusterCount, int machinesPerCluster, long atLeast) {
        clusters = clusterCount;
        broker.createTopics(true, topic);
        broker.createTopics(true, compacted);
        FleetWorkload workload = new FleetWorkload(seed, clusterCount, machinesPerCluster);
        try (KafkaProducer<String, String> producer = broker.objectStateProducer()) {
            for (FleetWorkload.Write write : workload.initialFleet()) {
                send(producer, write);
            }
            while (events < atLeast) {
                for (FleetWorkload.Write write : workload.nextStep().writes()) {
                    send(producer, write);
                }
            }
            producer.flush();
            // The compacted topic as a running pipeline leaves it: every EKS-A Cluster shows the status its objects give
            // (the echo of the last status written), which a restarted instance finds and need not write again.
            Map<String, ClusterState> objects = StatusCheck.clusters(latest.values());
            latest.replaceAll((key, value) -> withStatus(key, value, objects));
            latest.forEach((key, value) -> {
                String record = value.toString();
                producer.send(new ProducerRecord<>(compacted, key, record));
                finalObjects.put(key, record.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            });
            // And the status topic as it leaves it: each cluster's status, which a restarted instance reads first.
            broker.createTopics(true, statuses());
            StatusFeed feed = new StatusFeed(producer, statuses());
            for (JsonNode value : latest.values()) {
                if (ObjectDecoder.decode(value).orElse(null) instanceof EksaCluster eksa) {
                    feed.publish(eksa, PublishedStatus.of(eksa.status()), error -> { });
                }
            }
            producer.flush();
        } catch (MalformedObjectException e) {
            throw new IllegalStateException("the harness made a Cluster it cannot read", e);
        }
        latest.clear();
    }

    /** The fleet's final objects by cluster, decoded anew for a check. */
    private Map<String, ClusterState> finalClusters() {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        List<JsonNode> objects = new java.util.ArrayList<>(finalObjects.size());
        try {
            for (byte[] object : finalObjects.values()) {
                objects.add(json.readTree(object));
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the harness cannot read back an object it wrote", e);
        }
        return StatusCheck.clusters(objects);
    }

    /** A record as ingest's {@code ObjectStatePublisher} makes it ({@link FleetRecords}). */
    private void send(KafkaProducer<String, String> producer, FleetWorkload.Write write) {
        String key = FleetRecords.key(write).encode();
        JsonNode reduced = FleetRecords.value(write);
        producer.send(new ProducerRecord<>(topic, key, reduced == null ? null : reduced.toString()));
        if (reduced == null) {
            latest.remove(key);
        } else {
            latest.put(key, reduced);
        }
        events++;
    }

    /** An EKS-A Cluster's record with the status the rules give its cluster's objects; any other record as it is. */
    private JsonNode withStatus(String key, JsonNode value, Map<String, ClusterState> objects) {
        if (ObjectStateKey.parse(key).map(k -> k.kind() != ObjectKind.EKSA_CLUSTER).orElse(true)) {
            return value;
        }
        ObjectNode eksa = value.deepCopy();
        eksa.set("status", StatusEncoder.encode(check.compute(objects.get(ObjectStateKey.clusterOf(key)), ClusterStatus.NONE, STATUS_TIME)));
        return eksa;
    }

    /**
     * A consumer that only deserialises the records (keys and values as strings), from the beginning, with the
     * aggregator's fetch settings (larger polls and fetches than Kafka's defaults): the ratio compares the work per
     * record, not the fetching.
     */
    Bare bareConsumer() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = Bench.processCpuNanos();
        long threadBefore = threads.getCurrentThreadCpuTime();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(bareConsumerProperties(broker, "bench-bare"))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long read = 0;
            long bytes = 0;
            long first = 0;
            while (read < events) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                if (first == 0 && !records.isEmpty()) {
                    first = System.nanoTime();
                }
                for (var record : records) {
                    bytes += record.key().length() + (record.value() == null ? 0 : record.value().length());
                    read++;
                }
            }
            double seconds = (System.nanoTime() - first) / 1e9;
            if (bytes == 0) {
                throw new IllegalStateException("nothing read");
            }
            return new Bare(read / seconds, (Bench.processCpuNanos() - cpuBefore) / 1e3 / read,
                    (threads.getCurrentThreadCpuTime() - threadBefore) / 1e3 / read);
        }
    }

    /** The bare consumer's settings: aggregation's (group {@code group}), with keys and values turned into strings. */
    static Map<String, Object> bareConsumerProperties(Bench.Broker broker, String group) {
        Map<String, Object> props = new HashMap<>(io.statusaggregator.aggregation.ObjectStateConsumer.properties(broker.kafka(), group));
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return props;
    }

    /** Figure 1: every event of the topic through aggregation (rules, writes to the counting sink), then the check. */
    Throughput throughput(int repetition) throws Exception {
        Bare bare = bareConsumer();
        try (CountedAggregation instance = new CountedAggregation(broker, topic, seed + "-throughput-" + repetition, true,
                compatibility, Duration.ofMillis(100), Map::of)) {
            long cpuBefore = Bench.processCpuNanos();
            java.util.Optional<Duration> brokerBefore = broker.processCpu();
            Map<String, Long> ticksBefore = Bench.cpuTicksByThread();
            long[] machineBefore = Bench.machineTicks();
            Pass pass = pass(instance, events);
            Bench.MachineTime machine = Bench.MachineTime.since(machineBefore);
            double seconds = pass.seconds();
            long computations = pass.computations();
            long writes = pass.writes();
            long cpu = Bench.processCpuNanos() - cpuBefore;
            double brokerCpu = broker.processCpu().flatMap(after -> brokerBefore.map(after::minus))
                    .map(used -> used.toNanos() / 1e3 / instance.aggregator.events()).orElse(Double.NaN);
            long aggregatorCpu = Bench.threadCpuNanos("aggregation") + Bench.threadCpuNanos("feeds");
            long consumed = instance.aggregator.events();
            Map<String, Long> ticks = Bench.ticksSince(ticksBefore, Bench.cpuTicksByThread());
            // With --in-process-broker the broker runs in this process: its request and network threads are not the aggregator's.
            long brokerTicks = ticks.entrySet().stream().filter(e -> e.getKey().startsWith("data-plane-kaf"))
                    .mapToLong(Map.Entry::getValue).sum();
            // "C1 CompilerThread0", "C2 CompilerThread1": the kernel keeps 15 characters, the digits read as N.
            long compilerTicks = ticks.entrySet().stream().filter(e -> e.getKey().startsWith("CN Compiler"))
                    .mapToLong(Map.Entry::getValue).sum();
            Bench.log("CPU by thread over the pass (s): %s; the machine: %s", Bench.cpuByThread(ticks), machine);
            // Busy: on what polls returned; the rest of the pass it waited in a poll, or spent the poll's own CPU.
            double busy = instance.aggregator.busy().toNanos() / 1e9;
            Bench.log("aggregation thread busy %.2f s of the pass's %.2f s (%.0f %%), its CPU %.2f s", busy, seconds,
                    100 * busy / seconds, Bench.threadCpuNanos("aggregation") / 1e9);
            // Both threads are the instance's own, made for this pass: what they allocated is the pass's (and the start's).
            Bench.log("allocated per event: aggregation thread %.0f B, feeds thread %.0f B; per computation %.1f kB and %.1f kB",
                    (double) Bench.threadAllocatedBytes("aggregation") / consumed, (double) Bench.threadAllocatedBytes("feeds") / consumed,
                    Bench.threadAllocatedBytes("aggregation") / 1e3 / computations, Bench.threadAllocatedBytes("feeds") / 1e3 / computations);
            check.verify("throughput", seed, finalClusters(), instance.sink.statuses());
            return new Throughput(bare, consumed / seconds, consumed, computations, writes, cpu / 1e3 / consumed,
                    (cpu - brokerTicks * 10_000_000L) / 1e3 / consumed, (cpu - (brokerTicks + compilerTicks) * 10_000_000L) / 1e3 / consumed,
                    aggregatorCpu / 1e3 / consumed, brokerCpu, machine);
        }
    }

    /**
     * Figure 1 at the Deployment's limits ({@link LimitedPass}) with {@code collector}, a cold pass and
     * {@code warmPasses} warm ones; the statuses its last pass published are checked as every pass's are.
     */
    LimitedPass.Result limited(String collector, int warmPasses, List<String> jvmOptions) throws Exception {
        String run = seed + "-limited-" + collector.toLowerCase(java.util.Locale.ROOT);
        LimitedPass.Result result = LimitedPass.run(broker, topic, run, events, warmPasses, collector, jvmOptions);
        Map<String, ClusterStatus> published = StatusFeed.latest(broker.kafka(), LimitedPass.lastStatuses(run, warmPasses), Duration.ofMinutes(1))
                .orElseThrow(() -> new IllegalStateException("the limited pass's status topic could not be read"));
        Map<String, ClusterStatus> byName = new HashMap<>();
        // The status topic's keys are namespace/name; the check's, as the counting sink's, the name.
        published.forEach((key, status) -> ObjectKey.parse(key).ifPresent(cluster -> byName.put(cluster.name(), status)));
        check.verify("throughput at the Deployment's limits (" + collector + ")", seed, finalClusters(), byName);
        return result;
    }

    /** How long a pass took, from its first event consumed to its last computation or write, and what it did. */
    record Pass(double seconds, long computations, long writes) {
    }

    /**
     * Starts {@code instance} and waits until it has consumed {@code events} and nothing more is computed, written or
     * published for half a second (5 minutes at most).
     */
    static Pass pass(CountedAggregation instance, long events) throws InterruptedException {
        instance.start();
        if (!Bench.await(60_000, () -> instance.aggregator.events() > 0)) {
            throw new IllegalStateException("aggregation consumed nothing within 60 s");
        }
        long first = System.nanoTime();
        long lastChange = first;
        // Quiet only while this JVM ran: a collection's pause (the serial collector's reach half a second at the
        // Deployment's limits) stops the aggregation thread too, and once ended the pass before its last computations.
        long quietSince = first;
        long previous = first;
        long computations = -1;
        long writes = -1;
        long published = -1;
        long deadline = first + Duration.ofMinutes(5).toNanos();
        while (true) {
            Thread.sleep(2);
            long now = System.nanoTime();
            if (now - previous > 100_000_000L) {
                quietSince += now - previous;
            }
            previous = now;
            long c = instance.aggregator.computations();
            long w = instance.sink.writes();
            long p = instance.published();
            boolean working = c != computations || w != writes || instance.aggregator.events() < events;
            if (working) {
                computations = c;
                writes = w;
                lastChange = now;
            }
            // Quiet once the feeds are too: an instance closed while they still publish leaves the rest to the next
            // owner (FeedPublication's grace), and the status topic the check reads would lack it.
            if (working || p != published) {
                published = p;
                quietSince = now;
            } else if (now - quietSince > 500_000_000L) {
                return new Pass((lastChange - first) / 1e9, computations, writes);
            }
            if (now > deadline) {
                throw new IllegalStateException("aggregation did not finish within 5 minutes: " + instance.aggregator.progress());
            }
        }
    }

    /**
     * Figure 5 (and 4, aggregator side): a new instance rebuilds from the compacted topic, then computes every cluster
     * once; the heap its state retains is the heap with it running less the heap before it was made, with nothing of
     * the harness's own (the statuses its sink kept for the check) left in the first reading.
     */
    Rebuild rebuild(int repetition) throws Exception {
        return rebuild(compacted, seed + "-rebuild-" + repetition);
    }

    /**
     * Figure 5 from the throughput topic instead: every record of the fleet's history, as the part of a compacted topic
     * not compacted yet holds it (Kafka compacts only closed segments; ours close after a day).
     */
    Rebuild rebuildUncompacted() throws Exception {
        return rebuild(topic, seed + "-rebuild-uncompacted");
    }

    /** The status topic a running pipeline leaves beside the compacted topic: every cluster's status. */
    private String statuses() {
        return compacted + "-statuses";
    }

    /**
     * The status topic's statuses as the pipeline reads them when it starts: from now, in the background, while the
     * instance joins its group; its first assignment waits for them, and keeps no reference after.
     */
    static java.util.function.Supplier<Map<String, ClusterStatus>> published(Bench.Broker broker, String compacted) {
        java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Map<String, ClusterStatus>>> first =
                new java.util.concurrent.atomic.AtomicReference<>(java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> StatusFeed.latest(broker.kafka(), compacted + "-statuses", Duration.ofMinutes(1))
                                .orElseThrow(() -> new IllegalStateException("could not read the status topic of " + compacted))));
        return () -> {
            java.util.concurrent.CompletableFuture<Map<String, ClusterStatus>> statuses = first.getAndSet(null);
            return statuses == null ? Map.of() : statuses.join();
        };
    }

    private Rebuild rebuild(String from, String run) throws Exception {
        // The heap before the instance exists: what the harness holds (the fleet it checks against) is in both readings.
        long before = Bench.retainedHeap();
        CountedAggregation instance = new CountedAggregation(broker, from, run, false, compatibility, Duration.ofMillis(100),
                published(broker, compacted));
        long start = System.nanoTime();
        instance.start();
        instance.awaitRebuilt();
        long live = System.nanoTime();
        instance.awaitComputed(clusters);
        long computed = System.nanoTime();
        // The statuses reach the sink on the writer's threads, after the computations counted above: each cluster is
        // computed and submitted once here, so every submitted status is written once.
        if (!Bench.await(120_000, () -> instance.sink.writes() >= instance.aggregator.submitted())) {
            throw new IllegalStateException("statuses not written within 120 s: " + instance.aggregator.progress());
        }
        check.verify("rebuild", seed, finalClusters(), instance.sink.statuses());
        instance.sink.forgetStatuses(); // the harness's copy of what was written is not the aggregator's state
        long running = Bench.retainedHeap();
        instance.close();
        return new Rebuild((computed - start) / 1e9, (live - start) / 1e9, finalObjects.size(), running - before);
    }

    /**
     * The bare consumer in a fresh JVM (see {@link ColdRebuild}), with {@code jvmOptions}: the floor under figure 5's.
     * {@code atLimits}: that JVM as the Deployment limits it, the broker's held to the other CPU meanwhile.
     */
    ColdRebuild.Bare coldBare(String run, List<String> jvmOptions, boolean atLimits) throws Exception {
        return coldBare(run, ColdRebuild.Jvm.harness(), jvmOptions, atLimits);
    }

    /** {@link #coldBare(String, List, boolean)} on {@code runtime}. */
    ColdRebuild.Bare coldBare(String run, ColdRebuild.Jvm runtime, List<String> jvmOptions, boolean atLimits) throws Exception {
        broker.pinTo(atLimits ? LimitedPass.OTHER_CPU : null);
        try {
            return ColdRebuild.bare(String.valueOf(broker.kafka().get("bootstrap.servers")), compacted, seed + "-" + run, runtime, jvmOptions,
                    atLimits);
        } finally {
            broker.pinTo(null);
        }
    }

    /**
     * Figure 5 in a fresh JVM (see {@link ColdRebuild}), with {@code jvmOptions}; {@code atLimits} as for {@link #coldBare};
     * {@code rehearse}: the rebuild rehearsed before the group is joined.
     */
    ColdRebuild.Run coldRebuild(String run, java.util.List<String> jvmOptions, boolean atLimits, boolean rehearse) throws Exception {
        return coldRebuild(run, ColdRebuild.Jvm.harness(), jvmOptions, atLimits, rehearse);
    }

    /** {@link #coldRebuild(String, List, boolean, boolean)} on {@code runtime}. */
    ColdRebuild.Run coldRebuild(String run, ColdRebuild.Jvm runtime, List<String> jvmOptions, boolean atLimits, boolean rehearse)
            throws Exception {
        broker.pinTo(atLimits ? LimitedPass.OTHER_CPU : null);
        try {
            return ColdRebuild.run(String.valueOf(broker.kafka().get("bootstrap.servers")), compacted, clusters, seed + "-" + run, runtime,
                    jvmOptions, atLimits, rehearse);
        } finally {
            broker.pinTo(null);
        }
    }
}
