package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark fleet's writes as records of the object-state topic, as ingest's {@code ObjectStatePublisher} makes
 * them: the reduced object under its key, a tombstone for a delete. Public for the benchmarks that drive a package's
 * own classes from inside it (a JMH benchmark of the aggregation book) without a broker.
 */
public final class FleetRecords {
    /** A record of the topic: the partition its cluster's records go to, its key, its value (null: a tombstone). */
    public record TopicRecord(int partition, byte[] key, byte[] value) {
    }

    /** The partitions of the harness's topics, as figure 1's. */
    public static final int PARTITIONS = Bench.Broker.PARTITIONS;

    private FleetRecords() {
    }

    /**
     * The fleet of {@code clusters} clusters of 10 Machines from {@code seed} (figure 1's), created then upgraded, until
     * at least {@code atLeast} records, on a topic of {@code partitions} partitions.
     */
    public static List<TopicRecord> of(long seed, int clusters, int atLeast, int partitions) {
        FleetWorkload workload = new FleetWorkload(seed, clusters, 10);
        List<TopicRecord> records = new ArrayList<>(atLeast + 100);
        workload.initialFleet().forEach(write -> records.add(record(write, partitions)));
        while (records.size() < atLeast) {
            workload.nextStep().writes().forEach(write -> records.add(record(write, partitions)));
        }
        return records;
    }

    private static TopicRecord record(FleetWorkload.Write write, int partitions) {
        ObjectStateKey key = key(write);
        JsonNode value = value(write);
        return new TopicRecord(ObjectStateKey.partitionOf(key.clusterName(), partitions), key.encode().getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The key of the record of {@code write}. */
    static ObjectStateKey key(FleetWorkload.Write write) {
        JsonNode object = write.object();
        try {
            String cluster = ObjectDecoder.clusterNameOf(write.kind(), object).orElseThrow();
            return new ObjectStateKey(cluster, write.kind(),
                    new ObjectKey(object.path("metadata").path("namespace").asText(), object.path("metadata").path("name").asText()));
        } catch (MalformedObjectException e) {
            throw new IllegalStateException("the harness made an object it cannot name", e);
        }
    }

    /** The value of the record of {@code write}: the object reduced as ingest reduces it; null for a delete (a tombstone). */
    static JsonNode value(FleetWorkload.Write write) {
        return write.op() == FleetWorkload.Op.DELETE ? null : ObjectReduction.reduce(write.kind(), write.object());
    }
}
