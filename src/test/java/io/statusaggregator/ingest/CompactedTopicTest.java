package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.statusaggregator.embedded.KafkaBroker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A compacted topic read whole, on a real broker: each key's latest value, and which keys are alive. */
class CompactedTopicTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private Map<String, Object> kafka() {
        return Map.of("bootstrap.servers", kafka.bootstrapServers());
    }

    /** Sends {@code records} (key, value; a null value is a tombstone) in order to a new topic of three partitions. */
    private String topicWith(String name, List<String[]> records) throws Exception {
        try (Admin admin = Admin.create(kafka())) {
            admin.createTopics(List.of(new NewTopic(name, 3, (short) 1))).all().get();
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka(), new StringSerializer(), new StringSerializer())) {
            for (String[] record : records) {
                producer.send(new ProducerRecord<>(name, record[0], record[1])).get();
            }
        }
        return name;
    }

    @Test
    void readsEachKeysLatestValueAndTellsTheLiveKeysWithoutTheirValues() throws Exception {
        String topic = topicWith("compacted-latest", List.of(
                new String[] {"alive", "{\"v\": 1}"},
                new String[] {"alive", "{\"v\": 2}"},
                new String[] {"deleted", "{\"v\": 1}"},
                new String[] {"deleted", null},
                new String[] {"recreated", null},
                new String[] {"recreated", "{\"v\": 3}"},
                new String[] {"empty", ""}));

        Map<String, String> expected = new HashMap<>();
        expected.put("alive", "{\"v\": 2}");
        expected.put("deleted", null);
        expected.put("recreated", "{\"v\": 3}");
        expected.put("empty", "");
        assertEquals(Optional.of(expected), CompactedTopic.latest(kafka(), topic, DEADLINE));
        // An empty value is a value, not a tombstone: only a record without one deletes its key.
        assertEquals(Optional.of(Set.of("alive", "recreated", "empty")), CompactedTopic.liveKeys(kafka(), topic, DEADLINE));
    }

    @Test
    void anEmptyTopicHasNoKeys() throws Exception {
        String topic = topicWith("compacted-empty", List.of());
        assertEquals(Optional.of(Map.of()), CompactedTopic.latest(kafka(), topic, DEADLINE));
        assertEquals(Optional.of(Set.of()), CompactedTopic.liveKeys(kafka(), topic, DEADLINE));
    }
}
