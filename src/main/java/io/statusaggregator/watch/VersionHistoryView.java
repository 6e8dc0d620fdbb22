package io.statusaggregator.watch;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.EksaClusterReader;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Every cluster's version history ({@code status.versions}) as the status topic holds it, for the admission webhook:
 * every replica serves the webhook, and a replica computes only the clusters of its partitions, while a Cluster CRD
 * without {@code status.versions} (EKS-A's own) shows the webhook none. The topic (compacted) is read from its
 * beginning, every partition, without a consumer group, and followed; only each cluster's versions are kept (7.2 MB
 * for 10,000 clusters with next, current, last and two groups: docs/versions.md). A tombstone forgets the cluster.
 */
public final class VersionHistoryView implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(VersionHistoryView.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration POLL = Duration.ofMillis(500);
    /** How often the topic's partitions are listed again: partitions are rarely added. */
    private static final Duration PARTITION_CHECK = Duration.ofSeconds(30);

    private final Map<String, Versions> byCluster = new ConcurrentHashMap<>();
    private final String topic;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    /** Each partition's end when it was first assigned, until the view has read that far. */
    private final Map<TopicPartition, Long> toReach = new HashMap<>();
    private volatile boolean caughtUp;
    private volatile boolean running = true;

    public VersionHistoryView(Map<String, Object> kafka, String topic) {
        this.topic = topic;
        Map<String, Object> props = new HashMap<>(kafka);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // the pipeline creates the topics
        props.put(ConsumerConfig.CLIENT_ID_CONFIG,
                "status-aggregator-version-history-" + ProcessHandle.current().pid());
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        this.thread = DaemonThreads.named("version-history").newThread(this::run);
    }

    public synchronized VersionHistoryView start() {
        if (running) {
            thread.start();
        }
        return this;
    }

    /** Whether the view has read the topic up to where it ended when the view started: until then it may lack some. */
    public boolean caughtUp() {
        return caughtUp;
    }

    /** The versions the status topic last held for {@code cluster}; empty when none (or not read yet). */
    public Optional<Versions> of(ObjectKey cluster) {
        return Optional.ofNullable(byCluster.get(cluster.toString()));
    }

    /** How many clusters have a version history here. */
    public int size() {
        return byCluster.size();
    }

    /** A record of the status topic: {@code document} a status document, or null for a tombstone. */
    void apply(String cluster, byte[] document) {
        if (cluster == null) {
            return;
        }
        Optional<Versions> versions = document == null ? Optional.empty() : versionsOf(cluster, document);
        versions.filter(v -> !v.equals(Versions.NONE)).ifPresentOrElse(v -> byCluster.put(cluster, v),
                () -> byCluster.remove(cluster));
    }

    private Optional<Versions> versionsOf(String cluster, byte[] document) {
        Optional<ClusterStatus> streamed = EksaClusterReader.statusOf(document);
        if (streamed.isPresent()) {
            return Optional.of(streamed.get().versions());
        }
        try {
            return Optional.of(ObjectDecoder.statusOf(JSON.readTree(document)).versions());
        } catch (Exception e) {
            LOG.warnf("version history: skipped the status of %s on topic %s: %s", cluster, topic, e.getMessage());
            return Optional.empty();
        }
    }

    private void run() {
        Set<TopicPartition> assigned = new HashSet<>();
        long nextCheck = System.nanoTime();
        try {
            while (running) {
                try {
                    if (System.nanoTime() - nextCheck >= 0) {
                        assignNew(assigned);
                        Duration next = assigned.isEmpty() ? Duration.ofSeconds(1) : PARTITION_CHECK;
                        nextCheck = System.nanoTime() + next.toNanos();
                    }
                    if (assigned.isEmpty()) {
                        Thread.sleep(200); // the topic does not exist yet
                        continue;
                    }
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                        apply(record.key(), record.value());
                    }
                    if (!caughtUp) {
                        toReach.entrySet().removeIf(end -> consumer.position(end.getKey()) >= end.getValue());
                        caughtUp = toReach.isEmpty();
                    }
                } catch (WakeupException e) {
                    return;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    if (!running) {
                        return;
                    }
                    // The broker away: the view keeps what it has, and the webhook reads it meanwhile.
                    LOG.warnf("version history: reading topic %s failed, retrying: %s", topic, e.toString());
                    Thread.sleep(1_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    private void assignNew(Set<TopicPartition> assigned) {
        List<TopicPartition> added = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).filter(p -> !assigned.contains(p)).toList();
        if (added.isEmpty()) {
            return;
        }
        assigned.addAll(added);
        consumer.assign(assigned); // keeps the positions of the partitions assigned before
        consumer.seekToBeginning(added);
        toReach.putAll(consumer.endOffsets(added, Duration.ofSeconds(10)));
    }

    @Override
    public void close() {
        synchronized (this) {
            running = false;
            if (!thread.isAlive()) {
                consumer.close(Duration.ZERO); // never started: its loop does not close it
                return;
            }
        }
        consumer.wakeup(); // out of poll or partitionsFor; an interrupt would leave the consumer unable to close
        try {
            thread.join(Duration.ofSeconds(3).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
