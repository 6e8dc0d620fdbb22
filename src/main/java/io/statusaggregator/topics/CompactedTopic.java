package io.statusaggregator.topics;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
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
        Map<String, String> latest = new HashMap<>();
        return read(
                        kafka,
                        topic,
                        timeout,
                        new StringDeserializer(),
                        Map.of(),
                        new HashMap<>(),
                        r -> latest.put(r.key(), r.value()))
                ? Optional.of(latest)
                : Optional.empty();
    }

    /**
     * The keys alive among the records from {@code from} (each partition's offset; a partition not named is read from
     * its beginning) to the topic's end, and that end, where the next read can start.
     *
     * @param partitions each key whose latest record in that range, on some partition, is not a tombstone, and those
     *                   partitions: one, unless something but ingest wrote the key on another
     * @param tombstoned each key whose latest record in that range, on some partition, is a tombstone, and those
     *                   partitions
     * @param ends       each partition's end offset when it was read
     */
    public record LiveKeys(
            Map<String, Set<Integer>> partitions, Map<String, Set<Integer>> tombstoned, Map<Integer, Long> ends) {
        /** The keys alive on some partition. */
        public Set<String> live() {
            return partitions.keySet();
        }
    }

    /**
     * The keys alive among the records from {@code from} on (an empty map: the whole topic); no value is copied or
     * decoded, only told apart from a tombstone. Empty when not read to the end within {@code timeout}.
     */
    public static Optional<LiveKeys> liveKeysSince(
            Map<String, Object> kafka, String topic, Map<Integer, Long> from, Duration timeout) {
        Map<Integer, Long> ends = new HashMap<>();
        Map<String, Set<Integer>> live = new HashMap<>();
        Map<String, Set<Integer>> tombstoned = new HashMap<>();
        boolean read = read(kafka, topic, timeout, new Present(), from, ends, record -> {
            if (record.key() == null) {
                return; // no key is no object's (and a compacted topic refuses such a record)
            }
            // Kafka's consumer may hand a tombstone over as null, not asking the deserializer.
            boolean alive = Boolean.TRUE.equals(record.value());
            (alive ? live : tombstoned).computeIfAbsent(record.key(), k -> new HashSet<>(2)).add(record.partition());
            forget(alive ? tombstoned : live, record.key(), record.partition());
        });
        return read ? Optional.of(new LiveKeys(live, tombstoned, Map.copyOf(ends))) : Optional.empty();
    }

    private static void forget(Map<String, Set<Integer>> keys, String key, int partition) {
        Set<Integer> on = keys.get(key);
        if (on != null && on.remove(partition) && on.isEmpty()) {
            keys.remove(key);
        }
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

    /**
     * Reads from {@code from} (or the beginning) to the end, which it puts in {@code ends}, by partition, handing each
     * record to {@code each} in order; false when not read to the end within {@code timeout}.
     */
    private static <V> boolean read(Map<String, Object> kafka, String topic, Duration timeout, Deserializer<V> values,
            Map<Integer, Long> from, Map<Integer, Long> ends, Consumer<ConsumerRecord<String, V>> each) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        props.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        // An offset compaction or retention has removed since: from the oldest there is, never from the end.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Read whole, at start: fetches as large as aggregation's (Kafka's 500 records a poll, 1 MiB a partition, made
        // a fresh JVM's read of 10,000 statuses a round trip per 500), unless the kafka.* settings say otherwise.
        props.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        props.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(props, new StringDeserializer(), values)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            // From the beginning too where the offset given is past the end: the topic was made anew since.
            List<TopicPartition> whole = partitions.stream()
                    .filter(p -> from.getOrDefault(p.partition(), Long.MAX_VALUE) > end.get(p)).toList();
            if (!whole.isEmpty()) {
                consumer.seekToBeginning(whole); // an empty list would mean every partition
            }
            partitions.stream().filter(p -> !whole.contains(p)).forEach(p -> consumer.seek(p, from.get(p.partition())));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                for (ConsumerRecord<String, V> record : consumer.poll(Duration.ofMillis(200))) {
                    each.accept(record);
                }
            }
            end.forEach((partition, offset) -> ends.put(partition.partition(), offset));
        }
        return true;
    }
}
