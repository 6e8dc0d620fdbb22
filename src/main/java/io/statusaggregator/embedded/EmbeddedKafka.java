package io.statusaggregator.embedded;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real Kafka broker in this process: KRaft, one node that is broker and controller, its logs in a temporary
 * directory removed on close. The embedded default and the tests run on it.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private final KafkaClusterTestKit cluster;

    private EmbeddedKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    public static EmbeddedKafka start() throws Exception {
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                // Compaction is what a rebuild relies on; run the cleaner often enough to be seen working.
                .setConfigProp("log.cleaner.backoff.ms", "1000")
                .setDeleteOnClose(true)
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        return new EmbeddedKafka(cluster);
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Stops the broker, leaving the controller and the data: an outage as clients see one (fault tests). */
    public void stopBroker() {
        cluster.brokers().values().forEach(broker -> broker.shutdown());
    }

    /** Starts the stopped broker again, on the same port with the same data. */
    public void startBroker() throws Exception {
        for (var broker : cluster.brokers().values()) {
            broker.startup();
        }
        cluster.waitForReadyBrokers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
