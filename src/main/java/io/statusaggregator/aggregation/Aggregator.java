package io.statusaggregator.aggregation;

import io.statusaggregator.DaemonThreads;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import io.statusaggregator.feeds.StatusChange;
import io.statusaggregator.feeds.PublishedStatus;
import io.statusaggregator.feeds.StatusFeed;
import io.statusaggregator.feeds.TransitionFeed;
import io.statusaggregator.ingest.ClusterPartitioner;
import io.statusaggregator.ingest.ObjectStateKey;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.MalformedObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.StatusWriter;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.statusaggregator.aggregation.DeadLetters.Reason;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jboss.logging.Logger;

/**
 * Aggregation: consumes the object-state topic in a consumer group and keeps, for the clusters on its partitions,
 * their objects; computes their status with the rules and hands changed statuses to write-back.
 *
 * <p>On assignment, a partition is read from its beginning to the end offset it had then, without computing:
 * the compacted topic holds the latest state of every object, so this rebuilds the clusters' state. Then every
 * cluster of the partition is computed once, and from there on each event marks its cluster; a cluster is computed
 * when its oldest uncomputed event is one coalescing window old, so a burst of events makes one computation.
 *
 * <p>A status is written only when it differs from the one the Cluster shows. After a write, the Cluster's next
 * states may still show the older status (they were read before the write): until the Cluster shows the written
 * status (its echo), the written one counts as shown. The echo timeout starts when the write is done, not when it is
 * submitted: a write queued behind others or retried through an outage cannot have an echo yet. Everything runs on
 * one thread, the consumer's.
 *
 * <p>A record it cannot use goes to the {@link DeadLetters dead-letter topic}: a key it does not write, a value that
 * is not JSON or of no kind the rules read, and an object that cannot be read (whose cluster's status also says so,
 * see {@code rules.MalformedInputs}). The group's committed offset of a partition is how far it has been handled:
 * a rebuild reads the partition from its beginning, but dead-letters only the records at or after the offset
 * committed when the partition was assigned, so that a restart does not send the same records again. Offsets are
 * committed by this class (no auto-commit, which would commit the rebuild's position and move it back), never past
 * a record whose dead letter is still on its way.
 */
public final class Aggregator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Aggregator.class);
    private static final ObjectReader JSON = new ObjectMapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    /** How often read positions are committed at most. */
    private static final Duration COMMIT_INTERVAL = Duration.ofSeconds(1);

    /**
     * @param echoTimeout how long a written status counts as shown, from the end of its write, while the Cluster
     *                    does not show it; after that the Cluster's own status is trusted again (another controller
     *                    may have overwritten it)
     */
    public record Settings(String topic, Duration coalescingWindow, Duration echoTimeout) {
    }

    private final Consumer<byte[], byte[]> consumer;
    private final DeadLetters deadLetters;
    private long committedAt = System.nanoTime();
    private final Settings settings;
    private final java.util.function.Supplier<Compatibility> compatibility;
    /** The compatibility data the clusters were last computed with: when it changes, every cluster is computed again. */
    private Compatibility computedWith;
    /** What the management cluster holds for every cluster, and what the clusters were last computed with. */
    private final java.util.function.Supplier<ManagementCluster> management;
    private ManagementCluster managementComputedWith = ManagementCluster.UNKNOWN;
    private final StatusWriter writer;
    private final StatusFeed feed;
    private final TransitionFeed transitions;
    /** Reads the status topic's last status of each cluster (namespace/name), on each assignment. */
    private final java.util.function.Supplier<Map<String, ClusterStatus>> statusTopic;
    /**
     * The last status on the status topic of each cluster (namespace/name) of the assigned partitions: read from the
     * topic on assignment, then what this instance publishes. A cluster here with no Cluster left is announced deleted.
     */
    private final Map<String, ClusterStatus> published = new HashMap<>();
    /** Announcements the broker did not take, tried again a second later: when (System.nanoTime) and what. */
    private final Queue<Map.Entry<Long, Runnable>> retries = new java.util.ArrayDeque<>();
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    /** Work that the producer's acknowledgements hand back to this thread. */
    private final Queue<Runnable> acknowledged = new ConcurrentLinkedQueue<>();
    private final Clock clock;
    private final Map<Integer, PartitionState> partitions = new HashMap<>();
    private final Set<TrackedCluster> dirty = new LinkedHashSet<>();
    /** Clusters whose pending status write-back has not written yet (queued, under way, or retried). */
    private final Set<TrackedCluster> beingWritten = new java.util.HashSet<>();
    /** Clusters whose pending status is written and whose echo has not arrived, oldest write first. */
    private final Set<TrackedCluster> awaitingEcho = new LinkedHashSet<>();
    private final Queue<StatusWriter.Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("aggregation"));
    /**
     * Builds and sends the feeds' records (encoding a change's statuses, its event id and data), in the order this
     * thread decided them: that was most of the aggregation thread's work per status change. Bounded: when the feeds
     * fall behind, aggregation waits for them rather than piling changes up in memory.
     */
    private final ExecutorService feeds = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(FEED_BACKLOG), DaemonThreads.named("feeds"), (task, executor) -> {
                try {
                    if (!executor.isShutdown()) {
                        executor.getQueue().put(task);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
    private static final int FEED_BACKLOG = 1_000;
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong computations = new AtomicLong();
    private final AtomicLong submitted = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean live;
    private volatile boolean settled;
    private volatile String progress = "starting";
    private volatile int tracked;
    private Cancellable subscription;

    private static final class PartitionState {
        final long rebuildUntil;
        /** The group's committed offset when assigned: records before it were handled by an earlier owner. */
        final long handledBefore;
        /** The offset this instance committed last (or found committed). */
        long committed;
        boolean live;
        final Map<String, TrackedCluster> clusters = new HashMap<>();

        PartitionState(long rebuildUntil, long handledBefore) {
            this.rebuildUntil = rebuildUntil;
            this.handledBefore = handledBefore;
            this.committed = handledBefore;
            this.live = rebuildUntil == 0;
        }
    }

    public Aggregator(Consumer<byte[], byte[]> consumer, DeadLetters deadLetters, Settings settings, java.util.function.Supplier<Compatibility> compatibility,
            java.util.function.Supplier<ManagementCluster> management,
            java.util.function.Function<java.util.function.Consumer<StatusWriter.Outcome>, StatusWriter> writers,
            StatusFeed feed, TransitionFeed transitions, java.util.function.Supplier<Map<String, ClusterStatus>> statusTopic, Clock clock) {
        this.transitions = transitions;
        this.statusTopic = statusTopic;
        this.management = management;
        this.consumer = consumer;
        this.deadLetters = deadLetters;
        this.settings = settings;
        this.compatibility = compatibility;
        this.writer = writers.apply(outcomes::add);
        this.feed = feed;
        this.clock = clock;
    }

    /**
     * The consumer aggregation needs, from the Kafka clients' settings: in the group, from the beginning, committed by
     * this class (no auto-commit), keys and values as bytes so that a record it cannot use reaches the dead-letter
     * topic exactly as it was. Larger polls and fetches than Kafka's defaults (500 records, 1 MiB per partition): with
     * those, aggregation spent most of a fleet-wide catch-up waiting for the next fetch (benchmark figure 1). A short
     * session timeout for failover. The clients' settings may still set the sizes and the timeouts.
     */
    public static Map<String, Object> consumerProperties(Map<String, Object> kafka, String groupId) {
        Map<String, Object> consumer = new HashMap<>(kafka);
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumer.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        consumer.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        // A replica killed without leaving the group keeps its partitions until the session times out: 6 s (the
        // broker's default minimum) rather than Kafka's 45 s, heartbeats from the client's own thread every 1.5 s.
        // Benchmark figure 8 (failover) measures what this buys.
        consumer.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        consumer.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_500);
        // Cooperative rebalancing: when a replica goes, the others keep their partitions (no rebuild of them) and only
        // take the ones that moved. Kafka's default list [range, cooperative-sticky] moves to this in one rolling update.
        consumer.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName());
        return consumer;
    }

    public void start() {
        Duration poll = settings.coalescingWindow().compareTo(Duration.ofMillis(100)) < 0
                ? settings.coalescingWindow() : Duration.ofMillis(100);
        subscription = Multi.createBy().repeating()
                .supplier(() -> {
                    subscribeOnce();
                    return consumer.poll(poll);
                })
                .until(records -> closed)
                .runSubscriptionOn(thread)
                .subscribe().with(this::process, failure -> {
                    if (!closed) {
                        LOG.error("aggregation stopped", failure);
                    }
                });
    }

    private boolean subscribed;

    private void subscribeOnce() {
        if (!subscribed) {
            consumer.subscribe(List.of(settings.topic()), new Rebalance());
            subscribed = true;
        }
    }

    /**
     * True when this instance has rebuilt its partitions, computed every event it consumed, and seen every status it
     * wrote come back from the API server: nothing is left in flight.
     */
    public boolean settled() {
        return settled;
    }

    /** Where this instance stands, in words, for logs and diagnostics. */
    public String progress() {
        return progress;
    }

    /** True once every partition assigned to this instance has been rebuilt. */
    public boolean live() {
        return live;
    }

    public long events() {
        return events.get();
    }

    public long computations() {
        return computations.get();
    }

    /** Statuses handed to write-back. */
    public long submitted() {
        return submitted.get();
    }

    public StatusWriter writer() {
        return writer;
    }

    public int clustersTracked() {
        return tracked;
    }

    /** The records of the assigned partitions not read yet, and whether the consumer is connected to a broker. */
    private volatile long lag;
    private volatile boolean connected;

    public long lag() {
        return lag;
    }

    /** Whether the aggregation's consumer has a connection to the brokers (read on its own thread, after each poll). */
    public boolean connected() {
        return connected;
    }

    private void measure() {
        long behind = 0;
        for (TopicPartition partition : consumer.assignment()) {
            behind += consumer.currentLag(partition).orElse(0);
        }
        lag = behind;
        connected = consumer.metrics().entrySet().stream()
                .filter(m -> m.getKey().name().equals("connection-count") && m.getKey().group().equals("consumer-metrics"))
                .anyMatch(m -> m.getValue().metricValue() instanceof Double count && count > 0);
    }

    public DeadLetters deadLetters() {
        return deadLetters;
    }

    private void process(ConsumerRecords<byte[], byte[]> records) {
        measure();
        drainOutcomes();
        Runnable acknowledgement;
        while ((acknowledgement = acknowledged.poll()) != null) {
            acknowledgement.run();
        }
        while (!retries.isEmpty() && System.nanoTime() - retries.peek().getKey() >= 0) {
            retries.poll().getValue().run();
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
            apply(record);
        }
        if (System.nanoTime() - committedAt >= COMMIT_INTERVAL.toNanos()) {
            commit(partitions.keySet(), false);
        }
        for (Map.Entry<Integer, PartitionState> entry : partitions.entrySet()) {
            PartitionState partition = entry.getValue();
            if (!partition.live && consumer.position(new TopicPartition(settings.topic(), entry.getKey())) >= partition.rebuildUntil) {
                partition.live = true;
                LOG.debugf("partition %s rebuilt: %s clusters", (Object) entry.getKey(), (Object) partition.clusters.size());
                long due = System.nanoTime() - settings.coalescingWindow().toNanos();
                partition.clusters.values().forEach(c -> markDirty(c, due));
                announceVanished(entry.getKey(), partition);
            }
        }
        live = !partitions.isEmpty() && partitions.values().stream().allMatch(p -> p.live);
        Compatibility inForce = compatibility.get();
        ManagementCluster managementNow = management.get();
        if (computedWith != null && (inForce != computedWith || !managementNow.equals(managementComputedWith))) {
            long due = System.nanoTime() - settings.coalescingWindow().toNanos();
            partitions.values().stream().filter(p -> p.live).forEach(p -> p.clusters.values().forEach(c -> markDirty(c, due)));
        }
        computedWith = inForce;
        managementComputedWith = managementNow;
        tracked = partitions.values().stream().mapToInt(p -> p.clusters.size()).sum();
        expireEchoes();
        computeDue();
        settled = live && dirty.isEmpty() && beingWritten.isEmpty() && awaitingEcho.isEmpty();
        progress = "partitions " + partitions.keySet() + (live ? " rebuilt" : " rebuilding") + ", " + tracked + " clusters, "
                + dirty.size() + " to compute, " + beingWritten.size() + " writes under way, " + awaitingEcho.size()
                + " writes awaiting their echo";
    }

    private void apply(ConsumerRecord<byte[], byte[]> record) {
        events.incrementAndGet();
        PartitionState partition = partitions.get(record.partition());
        if (partition == null) {
            return; // revoked while the batch was in flight
        }
        boolean unseen = record.offset() >= partition.handledBefore;
        Optional<ObjectStateKey> parsed = keyOf(record.key());
        if (parsed.isEmpty()) {
            deadLetter(unseen, record, Reason.UNKNOWN_KEY, "not a key this application writes (cluster/Kind.group/namespace/name of a kind "
                    + "the rules read): " + describeKey(record.key()));
            return;
        }
        ObjectStateKey key = parsed.get();
        TrackedCluster cluster = partition.clusters.computeIfAbsent(key.clusterName(), TrackedCluster::new);
        if (record.value() == null) {
            removed(partition, cluster, key);
        } else {
            boolean changed = read(record, unseen, key, cluster);
            forgetIfEmpty(partition, cluster); // poison alone makes no cluster
            if (!changed) {
                return;
            }
        }
        if (partition.live) {
            markDirty(cluster, System.nanoTime());
        }
    }

    /**
     * Applies an object's state to its cluster; dead-letters what cannot be used.
     *
     * @return whether the cluster's state changed
     */
    private boolean read(ConsumerRecord<byte[], byte[]> record, boolean unseen, ObjectStateKey key, TrackedCluster cluster) {
        JsonNode json;
        try {
            json = JSON.readTree(record.value());
            if (json == null || json.isMissingNode()) {
                throw new com.fasterxml.jackson.core.JsonParseException(null, "no content");
            }
        } catch (IOException e) {
            String problem = e instanceof com.fasterxml.jackson.core.JsonProcessingException json1 ? json1.getOriginalMessage() : e.toString();
            deadLetter(unseen, record, Reason.NOT_JSON, "the value is not JSON: " + problem);
            cluster.state.remove(key.kind(), key.key()); // what it held before no longer holds
            return true;
        }
        try {
            if (ObjectDecoder.kindOf(json).isEmpty()) {
                deadLetter(unseen, record, Reason.UNKNOWN_KIND, "not a kind the rules read: apiVersion \"" + json.path("apiVersion").asText()
                        + "\", kind \"" + json.path("kind").asText() + "\"");
                return false;
            }
        } catch (MalformedObjectException e) {
            deadLetter(unseen, record, Reason.UNKNOWN_KIND, "not a Kubernetes object of a kind the rules read: " + e.getMessage());
            return false;
        }
        try {
            KubernetesObject object = ObjectDecoder.decode(json).orElseThrow();
            if (object.kind() != key.kind() || !object.key().equals(key.key())) {
                throw new MalformedObjectException("", "the record's key names %s %s, its value is %s %s"
                        .formatted(key.kind().kind(), key.key(), object.kind().kind(), object.key()));
            }
            if (object instanceof EksaCluster eksa) {
                shown(cluster, eksa);
            }
            cluster.state.put(object);
        } catch (MalformedObjectException e) {
            MalformedObject problem = new MalformedObject(key.kind(), key.key(), e.getMessage());
            Optional<EksaCluster> standIn = key.kind() == ObjectKind.EKSA_CLUSTER
                    ? Optional.of(ObjectDecoder.unreadableCluster(json, key.key())) : Optional.empty();
            standIn.ifPresent(eksa -> shown(cluster, eksa));
            Optional<MalformedObject> before = cluster.state.putMalformed(problem, standIn);
            // While it stays unreadable in the same way, its next states (a Machine's status, the echo of the status
            // written about it) say nothing new: its cluster's status keeps saying it.
            if (!before.equals(Optional.of(problem))) {
                deadLetter(unseen, record, Reason.MALFORMED_OBJECT, problem.describe());
            }
        }
        return true;
    }

    private void deadLetter(boolean unseen, ConsumerRecord<byte[], byte[]> record, Reason reason, String error) {
        if (unseen) {
            deadLetters.send(record, reason, error);
        } else {
            LOG.debugf("%s-%d@%d (%s: %s) was handled before this instance was assigned the partition", record.topic(),
                    record.partition(), record.offset(), reason.code(), error);
        }
    }

    /** Decodes record keys, strictly; used on the aggregation thread only. */
    private final CharsetDecoder keys = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);

    /** The key, if it is UTF-8 text naming an object of a kind this application writes. */
    private Optional<ObjectStateKey> keyOf(byte[] key) {
        if (key == null) {
            return Optional.empty();
        }
        try {
            return ObjectStateKey.parse(keys.decode(ByteBuffer.wrap(key)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static String describeKey(byte[] key) {
        return key == null ? "no key" : "\"" + new String(key, StandardCharsets.UTF_8) + "\"";
    }

    /**
     * Commits, for each partition, how far it has been handled: its read position, but not past a record whose dead
     * letter is still on its way, and never back (a rebuild reads again what was committed before).
     */
    private void commit(Collection<Integer> which, boolean sync) {
        committedAt = System.nanoTime();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Integer number : which) {
            PartitionState partition = partitions.get(number);
            if (partition == null) {
                continue;
            }
            TopicPartition tp = new TopicPartition(settings.topic(), number);
            long handled = consumer.position(tp);
            OptionalLong sending = deadLetters.oldestInFlight(tp);
            if (sending.isPresent()) {
                handled = Math.min(handled, sending.getAsLong());
            }
            if (handled > partition.committed) {
                offsets.put(tp, new OffsetAndMetadata(handled));
                partition.committed = handled;
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        if (sync) {
            consumer.commitSync(offsets);
        } else {
            consumer.commitAsync(offsets, (committed, error) -> {
                if (error != null) {
                    LOG.debugf("could not commit %s: %s", committed, error.toString());
                }
            });
        }
    }

    /** The Cluster shows a status: the echo of the pending write, an older one, or another writer's. */
    private void shown(TrackedCluster cluster, EksaCluster eksa) {
        if (cluster.pending != null && cluster.pending.equals(eksa.status())) {
            clearPending(cluster);
        }
    }

    private void removed(PartitionState partition, TrackedCluster cluster, ObjectStateKey key) {
        Optional<EksaCluster> before = cluster.state.cluster();
        cluster.state.remove(key.kind(), key.key());
        if (key.kind() == ObjectKind.EKSA_CLUSTER && before.isPresent() && cluster.state.cluster().isEmpty()) {
            clearPending(cluster);
            // While rebuilding, the partition's end decides (announceVanished): the Cluster may be back by then.
            if (partition.live) {
                announceDeleted(key.key(), before.get().generation());
            }
        }
        forgetIfEmpty(partition, cluster);
    }

    private void forgetIfEmpty(PartitionState partition, TrackedCluster cluster) {
        if (cluster.state.isEmpty()) {
            partition.clusters.remove(cluster.state.clusterName());
            dirty.remove(cluster);
            beingWritten.remove(cluster);
            awaitingEcho.remove(cluster);
        }
    }

    /** The clusters of a rebuilt partition that have a status on the topic but no Cluster any more: deleted meanwhile. */
    private void announceVanished(int partitionNumber, PartitionState partition) {
        int partitionCount = consumer.partitionsFor(settings.topic()).size();
        for (String key : List.copyOf(published.keySet())) {
            ObjectKey cluster = ObjectKey.parse(key).orElse(null);
            if (cluster == null) {
                continue;
            }
            if (ClusterPartitioner.partitionOf(cluster.name(), partitionCount) != partitionNumber) {
                continue;
            }
            TrackedCluster tracked = partition.clusters.get(cluster.name());
            if (tracked == null || tracked.state.cluster().filter(c -> c.key().equals(cluster)).isEmpty()) {
                announceDeleted(cluster, published.get(key).observedGeneration());
            }
        }
    }

    /**
     * A deleted Cluster: its last event ({@code before} its last published status, {@code after} nothing), then the
     * tombstone of its status. Tried again until the broker takes both, unless the Cluster is back by then.
     */
    private void announceDeleted(ObjectKey cluster, long generation) {
        ClusterStatus last = published.remove(cluster.toString());
        if (last == null) {
            return; // never published, or announced already
        }
        sendDeletion(cluster, new StatusChange(cluster, generation, Optional.of(PublishedStatus.of(last)), Optional.empty(), StatusChange.Progress.UNKNOWN));
    }

    private void sendDeletion(ObjectKey cluster, StatusChange deleted) {
        java.time.Instant time = clock.instant();
        feeds.execute(() -> transitions.send(deleted, time, error -> acknowledged.add(() -> {
            if (published.containsKey(cluster.toString())) {
                return; // the Cluster is back: its new status follows this event
            }
            if (error != null) {
                LOG.warnf("could not publish the deletion of %s (%s); trying again", cluster, error.toString());
                retry(() -> sendDeletion(cluster, deleted));
            } else {
                sendTombstone(cluster);
            }
        })));
    }

    private void sendTombstone(ObjectKey cluster) {
        feeds.execute(() -> feed.tombstone(cluster, error -> {
            if (error != null) {
                acknowledged.add(() -> retry(() -> {
                    if (!published.containsKey(cluster.toString())) {
                        sendTombstone(cluster);
                    }
                }));
            }
        }));
    }

    private void retry(Runnable announcement) {
        retries.add(Map.entry(System.nanoTime() + RETRY_AFTER.toNanos(), announcement));
    }

    /**
     * A written status whose echo has not come within the echo timeout (another writer overwrote it, or the write
     * was lost): the Cluster's own status is trusted again, and the cluster computed against it.
     */
    private void expireEchoes() {
        long now = System.nanoTime();
        long timeout = settings.echoTimeout().toNanos();
        Iterator<TrackedCluster> oldestFirst = awaitingEcho.iterator();
        while (oldestFirst.hasNext()) {
            TrackedCluster cluster = oldestFirst.next();
            if (now - cluster.writtenAt <= timeout) {
                break; // the writes after it are younger
            }
            LOG.debugf("cluster %s does not show the status written %s ago; trusting its own status again",
                    cluster.state.clusterName(), settings.echoTimeout());
            oldestFirst.remove();
            cluster.pending = null;
            markDirty(cluster, now - settings.coalescingWindow().toNanos());
        }
    }

    private void clearPending(TrackedCluster cluster) {
        cluster.pending = null;
        beingWritten.remove(cluster);
        awaitingEcho.remove(cluster);
    }

    private void markDirty(TrackedCluster cluster, long since) {
        if (cluster.dirtySince == TrackedCluster.CLEAN) {
            cluster.dirtySince = since;
            dirty.add(cluster);
        }
    }

    private void computeDue() {
        long now = System.nanoTime();
        long window = settings.coalescingWindow().toNanos();
        Iterator<TrackedCluster> it = dirty.iterator();
        while (it.hasNext()) {
            TrackedCluster cluster = it.next();
            if (now - cluster.dirtySince < window) {
                continue;
            }
            it.remove();
            cluster.dirtySince = TrackedCluster.CLEAN;
            compute(cluster);
        }
    }

    private void compute(TrackedCluster cluster) {
        Optional<EksaCluster> eksa = cluster.state.cluster();
        if (eksa.isEmpty()) {
            return; // CAPI objects whose EKS-A Cluster has not been seen (yet)
        }
        ClusterStatus shown = cluster.pending != null ? cluster.pending : eksa.get().status();
        ClusterSnapshot snapshot = cluster.state.snapshot(computedWith, managementComputedWith).orElseThrow().showing(shown);
        ClusterStatus computed = StatusRules.compute(snapshot, clock.instant());
        computations.incrementAndGet();
        if (computed.equals(shown)) {
            if (cluster.pending == null) {
                publish(cluster, eksa.get(), computed);
            }
            return;
        }
        cluster.pending = computed;
        awaitingEcho.remove(cluster); // its echo clock starts again when this status is written
        beingWritten.add(cluster);
        submitted.incrementAndGet();
        writer.submit(eksa.get().key(), computed);
    }

    /**
     * A status the Cluster shows (written, or found correct): its change goes to the transitions feed, and once the
     * broker has that, the status to the status topic. That order lets an instance starting after a crash find a
     * change whose status never reached the status topic, and publish it again under the same event id.
     */
    private void publish(TrackedCluster cluster, EksaCluster eksa, ClusterStatus status) {
        String key = eksa.key().toString();
        Optional<ClusterStatus> before = Optional.ofNullable(published.get(key));
        if (before.equals(Optional.of(status))) {
            return;
        }
        published.put(key, status);
        // Encoded on the feeds thread, once for the event and the status record; not kept (memory per cluster).
        PublishedStatus after = PublishedStatus.of(status);
        StatusChange.Progress progress = cluster.state.snapshot(computedWith, managementComputedWith)
                .filter(snapshot -> snapshot.malformed().stream().noneMatch(m -> m.kind() == ObjectKind.EKSA_CLUSTER)) // no counts to read
                .map(snapshot -> StatusChange.Progress.of(snapshot, status)).orElse(StatusChange.Progress.UNKNOWN);
        StatusChange change = new StatusChange(eksa.key(), eksa.generation(), before.map(PublishedStatus::of), Optional.of(after), progress);
        java.time.Instant time = clock.instant();
        feeds.execute(() -> transitions.send(change, time, error -> acknowledged.add(() -> {
            if (error == null) {
                feeds.execute(() -> feed.publish(eksa, after, feedError -> {
                    if (feedError != null) {
                        acknowledged.add(() -> unpublished(eksa.key(), before, status, feedError));
                    }
                }));
            } else {
                unpublished(eksa.key(), before, status, error);
            }
        })));
    }

    /**
     * A change the broker did not take (its event, or its status record): the cluster is computed again a second
     * later, and the same change goes out again under the same event id. Unless a newer status was published since.
     */
    private void unpublished(ObjectKey key, Optional<ClusterStatus> before, ClusterStatus status, Exception error) {
        if (!status.equals(published.get(key.toString()))) {
            return;
        }
        LOG.warnf("could not publish the status change of %s (%s); trying again", key, error.toString());
        before.ifPresentOrElse(b -> published.put(key.toString(), b), () -> published.remove(key.toString()));
        retry(() -> {
            TrackedCluster cluster = find(key);
            if (cluster != null) {
                markDirty(cluster, System.nanoTime() - settings.coalescingWindow().toNanos());
            }
        });
    }

    /** Write-back's outcomes, applied on this thread. */
    private void drainOutcomes() {
        StatusWriter.Outcome outcome;
        while ((outcome = outcomes.poll()) != null) {
            TrackedCluster cluster = find(outcome.cluster());
            if (cluster == null) {
                continue;
            }
            if (outcome instanceof StatusWriter.Written written) {
                if (written.status().equals(cluster.pending)) {
                    if (cluster.state.cluster().map(c -> c.status().equals(written.status())).orElse(false)) {
                        // A write of what the Cluster already shows changes nothing on the server: no echo will come.
                        clearPending(cluster);
                    } else if (beingWritten.remove(cluster)) {
                        cluster.writtenAt = System.nanoTime();
                        awaitingEcho.add(cluster); // at the end: the set stays in the order of writtenAt
                    }
                } // else a newer status is pending, and write-back writes it next
                if (cluster.state.cluster().isPresent()) {
                    publish(cluster, cluster.state.cluster().get(), written.status());
                }
            } else if (outcome instanceof StatusWriter.Gone gone) {
                // The Cluster was deleted; its tombstone follows on the topic. Stop computing it meanwhile, and
                // announce the deletion now (the tombstone will find nothing left to announce).
                long generation = cluster.state.cluster().map(EksaCluster::generation).orElse(0L);
                cluster.state.remove(ObjectKind.EKSA_CLUSTER, gone.cluster());
                clearPending(cluster);
                announceDeleted(gone.cluster(), generation);
            } else {
                clearPending(cluster); // refused for good: the Cluster's own status is the truth again
            }
        }
    }

    /** The object-state partition of a cluster's status key (namespace/name): the partition of its objects. */
    private static int partitionOf(String statusKey, int partitionCount) {
        return ObjectKey.parse(statusKey).map(key -> ClusterPartitioner.partitionOf(key.name(), partitionCount)).orElse(-1);
    }

    private TrackedCluster find(ObjectKey eksaCluster) {
        for (PartitionState partition : partitions.values()) {
            TrackedCluster cluster = partition.clusters.get(eksaCluster.name());
            if (cluster != null && cluster.state.cluster().map(c -> c.key().equals(eksaCluster)).orElse(false)) {
                return cluster;
            }
        }
        return null;
    }

    /** Rebuild on assignment; forget what is revoked or lost. Called by the consumer on the aggregation thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            if (assigned.isEmpty()) {
                return;
            }
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
            // What the status topic holds for these partitions' clusters; another instance may have owned them. Every
            // status this instance sent is there first.
            settleFeeds();
            int partitionCount = consumer.partitionsFor(settings.topic()).size();
            Set<Integer> numbers = new java.util.HashSet<>();
            assigned.forEach(tp -> numbers.add(tp.partition()));
            published.keySet().removeIf(key -> numbers.contains(partitionOf(key, partitionCount)));
            statusTopic.get().forEach((key, status) -> {
                if (numbers.contains(partitionOf(key, partitionCount))) {
                    published.put(key, status);
                }
            });
            Map<TopicPartition, OffsetAndMetadata> committed;
            try {
                committed = consumer.committed(new java.util.HashSet<>(assigned));
            } catch (RuntimeException e) {
                // Unknown how far the group got: take everything there as handled rather than dead-letter it twice.
                LOG.warnf("could not read the committed offsets of %s (%s): the records there now are not dead-lettered again",
                        assigned, e.toString());
                committed = new HashMap<>();
                for (TopicPartition tp : assigned) {
                    committed.put(tp, new OffsetAndMetadata(ends.getOrDefault(tp, 0L)));
                }
            }
            for (TopicPartition tp : assigned) {
                OffsetAndMetadata handled = committed.get(tp);
                partitions.put(tp.partition(), new PartitionState(ends.getOrDefault(tp, 0L), handled == null ? 0 : handled.offset()));
            }
            live = false;
            LOG.debugf("assigned %s; rebuilding to %s", assigned, ends);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            if (!revoked.isEmpty()) {
                settleFeeds(); // the next owner reads the status topic: what was sent about these clusters is there
            }
            try {
                commit(revoked.stream().map(TopicPartition::partition).toList(), true);
            } catch (RuntimeException e) {
                LOG.debugf("committing revoked partitions %s: %s", revoked, e.toString());
            }
            forget(revoked);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            forget(lost);
        }

        private void forget(Collection<TopicPartition> gone) {
            for (TopicPartition tp : gone) {
                PartitionState partition = partitions.remove(tp.partition());
                if (partition != null) {
                    // One by one: removeAll would look each member of the set up in the map's values, a linear search.
                    partition.clusters.values().forEach(c -> {
                        dirty.remove(c);
                        beingWritten.remove(c);
                        awaitingEcho.remove(c);
                    });
                }
            }
        }
    }

    @Override
    /**
     * Stops gracefully: no more polls; the writes under way finish (for at most {@link #SHUTDOWN_GRACE}) and their
     * changes go to the feeds; then the consumer commits what it read and leaves the group, so that the partitions
     * move to the other instances at once. Whatever is left undone, the next owner's rebuild does again.
     */
    public void close() {
        closed = true;
        if (subscription != null) {
            subscription.cancel();
        }
        writer.finish(SHUTDOWN_GRACE);
        thread.submit(() -> {
            try {
                drainOutcomes();
                settleFeeds();
            } catch (RuntimeException e) {
                LOG.debug("finishing the last outcomes", e);
            }
            feeds.shutdown(); // what was handed to the feeds is sent before the producers close
            try {
                feeds.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                deadLetters.awaitSent(Duration.ofSeconds(5));
                commit(List.copyOf(partitions.keySet()), true);
            } catch (RuntimeException e) {
                LOG.debug("committing", e);
            }
            try {
                consumer.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.debug("closing the consumer", e);
            }
        });
        thread.shutdown();
        try {
            thread.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        writer.close();
    }

    /**
     * Waits until the broker has what the feeds were handed, and what its acknowledgements hand on in turn (a change's
     * status record follows its event, a tombstone its deletion event); for at most {@link #FEEDS_GRACE}. Before a stop
     * and before partitions change hands, in both directions: an owner reads the status topic when it is assigned
     * partitions, and a status record still on its way then is one it never learns of: a change published again, or,
     * for a cluster deleted meanwhile, a status left on the topic with no deletion announced.
     */
    private void settleFeeds() {
        if (feeds.isShutdown()) {
            return;
        }
        long deadline = System.nanoTime() + FEEDS_GRACE.toNanos();
        boolean handedOn = true;
        while (handedOn) {
            java.util.concurrent.Future<?> flushed = feeds.submit(() -> {
                transitions.flush();
                feed.flush();
            });
            try {
                flushed.get(deadline - System.nanoTime(), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                LOG.infof("the feeds did not finish within %s (%s); the next owner of their clusters publishes what is left", FEEDS_GRACE, e.toString());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            handedOn = false;
            Runnable acknowledgement;
            while ((acknowledgement = acknowledged.poll()) != null) {
                acknowledgement.run();
                handedOn = true;
            }
        }
    }

    /** How long a stopping instance lets its status writes under way finish. */
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);
    /** How long a stopping instance lets the feeds' last records reach the broker. */
    static final Duration FEEDS_GRACE = Duration.ofSeconds(5);
}
