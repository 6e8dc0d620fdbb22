package io.statusaggregator.topics;

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
        CompactedTopic.LiveKeys keys = CompactedTopic.liveKeysSince(kafka(), topic, Map.of(), DEADLINE).orElseThrow();
        assertEquals(Set.of("alive", "recreated", "empty"), keys.live());
        assertEquals(Set.of("deleted"), keys.tombstoned().keySet(), "the keys whose latest record is a tombstone");
    }

    @Test
    void aReadFromTheLastEndGivesTheKeysAliveAmongTheRecordsSinceAndTheNewEnd() throws Exception {
        String topic = topicWith("compacted-since", List.of(new String[] {"before", "{}"}, new String[] {"deleted-later", "{}"}));
        CompactedTopic.LiveKeys first = CompactedTopic.liveKeysSince(kafka(), topic, Map.of(), DEADLINE).orElseThrow();
        assertEquals(Set.of("before", "deleted-later"), first.live());
        assertEquals(2L, first.ends().values().stream().mapToLong(Long::longValue).sum(), "two records in all: " + first.ends());

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka(), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "after", "{}")).get();
            producer.send(new ProducerRecord<>(topic, "deleted-later", null)).get();
        }
        CompactedTopic.LiveKeys since = CompactedTopic.liveKeysSince(kafka(), topic, first.ends(), DEADLINE).orElseThrow();
        assertEquals(Set.of("after"), since.live(), "the records since: a new key alive, another's tombstone");
        assertEquals(Set.of("deleted-later"), since.tombstoned().keySet());
        assertEquals(4L, since.ends().values().stream().mapToLong(Long::longValue).sum());
        // An offset past a partition's end (the topic made anew): that partition is read from its beginning.
        Map<Integer, Long> beyond = new HashMap<>();
        since.ends().keySet().forEach(partition -> beyond.put(partition, 1_000L));
        assertEquals(Set.of("before", "after"), CompactedTopic.liveKeysSince(kafka(), topic, beyond, DEADLINE).orElseThrow().live());
    }

    @Test
    void anEmptyTopicHasNoKeys() throws Exception {
        String topic = topicWith("compacted-empty", List.of());
        assertEquals(Optional.of(Map.of()), CompactedTopic.latest(kafka(), topic, DEADLINE));
        assertEquals(Optional.of(Set.of()), CompactedTopic.liveKeysSince(kafka(), topic, Map.of(), DEADLINE).map(CompactedTopic.LiveKeys::live));
    }
}
