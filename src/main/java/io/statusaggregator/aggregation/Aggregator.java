package io.statusaggregator.aggregation;

import io.statusaggregator.DaemonThreads;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import io.statusaggregator.feeds.StatusChange;
import io.statusaggregator.feeds.StatusFeed;
import io.statusaggregator.feeds.TransitionFeed;
import io.statusaggregator.ingest.ClusterPartitioner;
import io.statusaggregator.ingest.ObjectStateKey;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.StatusWriter;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
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
 * status (its echo), the written one counts as shown. Everything runs on one thread, the consumer's.
 */
public final class Aggregator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Aggregator.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param echoTimeout how long a written status counts as shown while the Cluster does not show it; after that
     *                    the Cluster's own status is trusted again (another controller may have overwritten it)
     */
    public record Settings(String topic, Duration coalescingWindow, Duration echoTimeout) {
    }

    private final Consumer<String, String> consumer;
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
    /** Clusters with a write whose echo has not arrived. */
    private final Set<TrackedCluster> awaitingEcho = new java.util.HashSet<>();
    private final Queue<StatusWriter.Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("aggregation"));
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
        boolean live;
        final Map<String, TrackedCluster> clusters = new HashMap<>();

        PartitionState(long rebuildUntil) {
            this.rebuildUntil = rebuildUntil;
            this.live = rebuildUntil == 0;
        }
    }

    public Aggregator(Consumer<String, String> consumer, Settings settings, java.util.function.Supplier<Compatibility> compatibility,
            java.util.function.Supplier<ManagementCluster> management,
            java.util.function.Function<java.util.function.Consumer<StatusWriter.Outcome>, StatusWriter> writers,
            StatusFeed feed, TransitionFeed transitions, java.util.function.Supplier<Map<String, ClusterStatus>> statusTopic, Clock clock) {
        this.transitions = transitions;
        this.statusTopic = statusTopic;
        this.management = management;
        this.consumer = consumer;
        this.settings = settings;
        this.compatibility = compatibility;
        this.writer = writers.apply(outcomes::add);
        this.feed = feed;
        this.clock = clock;
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

    private void process(ConsumerRecords<String, String> records) {
        measure();
        drainOutcomes();
        Runnable acknowledgement;
        while ((acknowledgement = acknowledged.poll()) != null) {
            acknowledgement.run();
        }
        while (!retries.isEmpty() && System.nanoTime() - retries.peek().getKey() >= 0) {
            retries.poll().getValue().run();
        }
        for (ConsumerRecord<String, String> record : records) {
            apply(record);
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
        settled = live && dirty.isEmpty() && awaitingEcho.isEmpty();
        progress = "partitions " + partitions.keySet() + (live ? " rebuilt" : " rebuilding") + ", " + tracked + " clusters, "
                + dirty.size() + " to compute, " + awaitingEcho.size() + " writes awaiting their echo";
    }

    private void apply(ConsumerRecord<String, String> record) {
        events.incrementAndGet();
        PartitionState partition = partitions.get(record.partition());
        if (partition == null) {
            return; // revoked while the batch was in flight
        }
        Optional<ObjectStateKey> parsed = ObjectStateKey.parse(record.key());
        if (parsed.isEmpty()) {
            LOG.warnf("skipped a record with a key this application does not write: %s (partition %d, offset %d)",
                    record.key(), record.partition(), record.offset());
            return;
        }
        ObjectStateKey key = parsed.get();
        TrackedCluster cluster = partition.clusters.computeIfAbsent(key.clusterName(), TrackedCluster::new);
        if (record.value() == null) {
            removed(partition, cluster, key);
        } else {
            try {
                Optional<KubernetesObject> object = ObjectDecoder.decode(JSON.readTree(record.value()));
                if (object.isEmpty()) {
                    LOG.warnf("skipped %s: not a kind the rules read", key.encode());
                    return;
                }
                if (object.get() instanceof EksaCluster eksa) {
                    shown(cluster, eksa);
                }
                cluster.state.put(object.get());
            } catch (MalformedObjectException e) {
                LOG.warnf("cluster %s: %s %s is malformed and left out: %s", key.clusterName(), key.kind().kind(), key.key(), e.getMessage());
                cluster.state.remove(key.kind(), key.key());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                LOG.warnf("cluster %s: the record of %s is not JSON and is left out: %s", key.clusterName(), key.encode(),
                        e.getOriginalMessage());
                cluster.state.remove(key.kind(), key.key());
            }
        }
        if (partition.live) {
            markDirty(cluster, System.nanoTime());
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
        if (cluster.state.isEmpty()) {
            partition.clusters.remove(cluster.state.clusterName());
            dirty.remove(cluster);
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
        sendDeletion(cluster, new StatusChange(cluster, generation, Optional.of(last), Optional.empty(), StatusChange.Progress.UNKNOWN));
    }

    private void sendDeletion(ObjectKey cluster, StatusChange deleted) {
        transitions.send(deleted, clock.instant(), error -> acknowledged.add(() -> {
            if (published.containsKey(cluster.toString())) {
                return; // the Cluster is back: its new status follows this event
            }
            if (error != null) {
                LOG.warnf("could not publish the deletion of %s (%s); trying again", cluster, error.toString());
                retry(() -> sendDeletion(cluster, deleted));
            } else {
                sendTombstone(cluster);
            }
        }));
    }

    private void sendTombstone(ObjectKey cluster) {
        feed.tombstone(cluster, error -> {
            if (error != null) {
                acknowledged.add(() -> retry(() -> {
                    if (!published.containsKey(cluster.toString())) {
                        sendTombstone(cluster);
                    }
                }));
            }
        });
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
        for (TrackedCluster cluster : List.copyOf(awaitingEcho)) {
            if (now - cluster.pendingSince > timeout) {
                LOG.debugf("cluster %s does not show the status written %s ago; trusting its own status again",
                        cluster.state.clusterName(), settings.echoTimeout());
                clearPending(cluster);
                markDirty(cluster, now - settings.coalescingWindow().toNanos());
            }
        }
    }

    private void clearPending(TrackedCluster cluster) {
        cluster.pending = null;
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
        cluster.pendingSince = System.nanoTime();
        awaitingEcho.add(cluster);
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
        StatusChange.Progress progress = cluster.state.snapshot(computedWith, managementComputedWith)
                .map(snapshot -> StatusChange.Progress.of(snapshot, status)).orElse(StatusChange.Progress.UNKNOWN);
        StatusChange change = new StatusChange(eksa.key(), eksa.generation(), before, Optional.of(status), progress);
        transitions.send(change, clock.instant(), error -> acknowledged.add(() -> {
            if (error == null) {
                feed.publish(eksa, status, feedError -> {
                    if (feedError != null) {
                        acknowledged.add(() -> unpublished(eksa.key(), before, status, feedError));
                    }
                });
            } else {
                unpublished(eksa.key(), before, status, error);
            }
        }));
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
                // A write of what the Cluster already shows changes nothing on the server, so no echo will come.
                if (written.status().equals(cluster.pending)
                        && cluster.state.cluster().map(c -> c.status().equals(written.status())).orElse(false)) {
                    clearPending(cluster);
                }
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
            // What the status topic holds for these partitions' clusters; another instance may have owned them.
            int partitionCount = consumer.partitionsFor(settings.topic()).size();
            Set<Integer> numbers = new java.util.HashSet<>();
            assigned.forEach(tp -> numbers.add(tp.partition()));
            published.keySet().removeIf(key -> numbers.contains(partitionOf(key, partitionCount)));
            statusTopic.get().forEach((key, status) -> {
                if (numbers.contains(partitionOf(key, partitionCount))) {
                    published.put(key, status);
                }
            });
            for (TopicPartition tp : assigned) {
                partitions.put(tp.partition(), new PartitionState(ends.getOrDefault(tp, 0L)));
            }
            live = false;
            LOG.debugf("assigned %s; rebuilding to %s", assigned, ends);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
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
                    dirty.removeAll(partition.clusters.values());
                    awaitingEcho.removeAll(partition.clusters.values());
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
                Runnable acknowledgement;
                while ((acknowledgement = acknowledged.poll()) != null) {
                    acknowledgement.run();
                }
            } catch (RuntimeException e) {
                LOG.debug("finishing the last outcomes", e);
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

    /** How long a stopping instance lets its status writes under way finish. */
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);
}
