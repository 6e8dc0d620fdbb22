package io.statusaggregator.ingest;


import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Deletions that happened while no ingest was running. An informer reports the deletions it sees and those it
 * missed while its watch was down, but a freshly started one has seen nothing, so the objects deleted before it
 * started would live on in the compacted topic. Once the informers have listed the API server, every key still
 * alive on the topic whose object the API server no longer has gets its tombstone.
 */
final class TopicReconciliation {
    private static final Logger LOG = Logger.getLogger(TopicReconciliation.class);

    private TopicReconciliation() {
    }

    /**
     * @param exists whether the API server (as listed by the informers) still has the object of a key
     * @return how many tombstones were sent
     */
    static int tombstoneVanished(Map<String, Object> kafka, String topic, Predicate<ObjectStateKey> exists,
            ObjectStatePublisher publisher, Duration timeout) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        Map<String, Boolean> alive = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    LOG.warnf("could not read %s to its end within %s; deletions from before this start may linger", topic, timeout);
                    return 0;
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    alive.put(record.key(), record.value() != null);
                }
            }
        }
        int sent = 0;
        for (Map.Entry<String, Boolean> entry : alive.entrySet()) {
            Optional<ObjectStateKey> key = ObjectStateKey.parse(entry.getKey());
            if (entry.getValue() && key.isPresent() && !exists.test(key.get())) {
                publisher.tombstone(key.get());
                sent++;
            }
        }
        if (sent > 0) {
            LOG.infof("%d objects deleted while ingest was not running: tombstones sent", sent);
        }
        return sent;
    }

}
