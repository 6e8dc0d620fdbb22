package io.statusaggregator.aggregation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/** The settings of the consumer aggregation reads the object-state topic with. */
public final class ObjectStateConsumer {
    private ObjectStateConsumer() {
    }

    /**
     * The consumer aggregation needs, from the Kafka clients' settings: in the group, from the beginning, committed by
     * this class (no auto-commit), keys and values as bytes so that a record it cannot use reaches the dead-letter
     * topic exactly as it was. A value is the part of the fetched response it came in, not a copy: most records wait
     * unread through a coalescing window, and copying each one, then the collector copying the copies it found alive,
     * would be a large part of aggregation's work (see {@link #source} for what must not hold a response long).
     * Larger polls and fetches than Kafka's defaults (500 records, 1 MiB per partition): with
     * those, aggregation spends most of a fleet-wide catch-up waiting for the next fetch. A short
     * session timeout for failover. The clients' settings may still set the sizes and the timeouts.
     */
    public static Map<String, Object> properties(Map<String, Object> kafka, String groupId) {
        Map<String, Object> consumer = new HashMap<>(kafka);
        consumer.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
        consumer.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        consumer.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        // A replica killed without leaving the group keeps its partitions until the session times out (see
        // GroupSession).
        consumer.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int)
                GroupSession.DEFAULT.timeout().toMillis());
        consumer.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int)
                GroupSession.DEFAULT.heartbeat().toMillis());
        // Cooperative rebalancing: when a replica goes, the others keep their partitions (no rebuild of them) and only
        // take the ones that moved. Kafka's default list [range, cooperative-sticky] moves to this in one rolling
        // update.
        consumer.putIfAbsent(
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        return consumer;
    }

    /**
     * {@code record} as the core takes it. {@code detached}: its value copied, holding nothing of the response it was
     * fetched in (several MiB), for a record that may wait longer than a coalescing window, as those of a partition
     * being rebuilt do. Its headers are copied either way (few records have any).
     */
    static SourceRecord source(ConsumerRecord<byte[], ByteBuffer> record, boolean detached) {
        ByteBuffer value = !detached || record.value() == null
                ? record.value() : ByteBuffer.wrap(ObjectRecord.bytes(record.value()));
        List<SourceRecord.Header> headers = List.of();
        for (Header header : record.headers()) {
            if (headers.isEmpty()) {
                headers = new ArrayList<>(2);
            }
            headers.add(new SourceRecord.Header(header.key(), header.value()));
        }
        return new SourceRecord(record.topic(), record.partition(), record.offset(), record.timestamp(), record.key(),
                value, headers);
    }
}
