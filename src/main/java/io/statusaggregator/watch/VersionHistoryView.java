package io.statusaggregator.watch;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.EksaClusterReader;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.topics.TopicFollower;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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

    private final Map<String, Versions> byCluster = new ConcurrentHashMap<>();
    private final String topic;
    private final TopicFollower<byte[]> follower;

    public VersionHistoryView(Map<String, Object> kafka, String topic) {
        this.topic = topic;
        this.follower = new TopicFollower<>(kafka, "version-history", topic, new ByteArrayDeserializer(),
                records -> records.forEach(record -> apply(record.key(), record.value())));
    }

    public VersionHistoryView start() {
        follower.start();
        return this;
    }

    /** Whether the view has read the topic up to where it ended when the view started: until then it may lack some. */
    public boolean caughtUp() {
        return follower.caughtUp();
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

    @Override
    public void close() {
        follower.close();
    }
}
