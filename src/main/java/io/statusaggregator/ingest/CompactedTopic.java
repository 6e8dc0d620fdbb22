package io.statusaggregator.ingest;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** What a compacted topic holds now: every key's latest value, read from the beginning to the end it had. */
public final class CompactedTopic {
    private CompactedTopic() {
    }

    /**
     * @return the latest value of every key ({@code null} for a tombstone), or empty when the topic could not be read
     *         to its end within {@code timeout}
     */
    public static Optional<Map<String, String>> latest(Map<String, Object> kafka, String topic, Duration timeout) {
        return read(kafka, topic, timeout, new StringDeserializer());
    }

    /**
     * @return the keys whose latest record is not a tombstone, or empty when the topic could not be read to its end
     *         within {@code timeout}; no value is copied or decoded, only told apart from a tombstone
     */
    public static Optional<java.util.Set<String>> liveKeys(Map<String, Object> kafka, String topic, Duration timeout) {
        return read(kafka, topic, timeout, new Present()).map(latest -> {
            java.util.Set<String> live = new java.util.HashSet<>();
            latest.forEach((key, present) -> {
                if (Boolean.TRUE.equals(present)) { // Kafka's consumer may hand a tombstone over as null, not asking
                    live.add(key);
                }
            });
            return live;
        });
    }

    /** Whether a record has a value, read without copying it. */
    private static final class Present implements Deserializer<Boolean> {
        @Override
        public Boolean deserialize(String topic, byte[] data) {
            return data != null;
        }

        @Override
        public Boolean deserialize(String topic, Headers headers, ByteBuffer data) {
            return data != null;
        }
    }

    private static <V> Optional<Map<String, V>> read(Map<String, Object> kafka, String topic, Duration timeout, Deserializer<V> values) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        props.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        // Read whole, at start: fetches as large as aggregation's (Kafka's 500 records a poll, 1 MiB a partition, made
        // a fresh JVM's read of 10,000 statuses a round trip per 500), unless the kafka.* settings say otherwise.
        props.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        props.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        Map<String, V> latest = new HashMap<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(props, new StringDeserializer(), values)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    return Optional.empty();
                }
                for (ConsumerRecord<String, V> record : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(record.key(), record.value());
                }
            }
        }
        return Optional.of(latest);
    }
}
