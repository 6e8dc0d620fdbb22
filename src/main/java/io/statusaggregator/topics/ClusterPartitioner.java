package io.statusaggregator.topics;

import java.util.Map;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;

/**
 * Puts every record of one cluster on one partition, so that a cluster's events stay in order and one consumer
 * sees all of them: the partition is the hash of the key's cluster part ({@link ObjectStateKey}), the way Kafka's
 * default partitioner hashes a whole key.
 */
public class ClusterPartitioner implements Partitioner {
    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
        int partitions = cluster.partitionsForTopic(topic).size();
        return ObjectStateKey.partitionOf(ObjectStateKey.clusterOf((String) key), partitions);
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
