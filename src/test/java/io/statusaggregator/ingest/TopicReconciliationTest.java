package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The check of the object-state topic against the API server, on a real broker: the whole topic when asked, and
 * between whole checks only what was written since the last check read the topic to its end.
 */
class TopicReconciliationTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TOPIC = "object-states-reconciliation";

    @Test
    void aCheckBetweenWholeOnesReadsOnlyWhatWasWrittenSinceAndTheNextWholeOneReadsEverything() throws Exception {
        try (Admin admin = Admin.create(kafka())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
        }
        TopicReconciliation reconciliation = new TopicReconciliation();
        MockProducer<String, String> tombstones = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        ObjectStatePublisher publisher = new ObjectStatePublisher(tombstones, TOPIC, key -> { });

        write(machine("m1"), machine("gone-before-start"));
        Set<String> onTheApiServer = Set.of(machine("m1"));
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), TOPIC, key -> onTheApiServer.contains(key.encode()), publisher, DEADLINE, true));
        assertEquals(Set.of(machine("gone-before-start")), tombstoned(tombstones));

        // m1 goes without a tombstone (as if the informer missed it), and something else writes a key of no object.
        write(machine("written-by-another"));
        tombstones.clear();
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), TOPIC, key -> false, publisher, DEADLINE, false));
        assertEquals(Set.of(machine("written-by-another")), tombstoned(tombstones),
                "only the key written since the last check; m1 was checked then, and a relist's whole check finds it");

        tombstones.clear();
        reconciliation.tombstoneVanished(kafka(), TOPIC, key -> false, publisher, DEADLINE, true);
        // The tombstones of this test go to a mock producer, not the topic: every key is still alive on it.
        assertEquals(Set.of(machine("m1"), machine("gone-before-start"), machine("written-by-another")), tombstoned(tombstones),
                "the whole topic, m1 among it");
    }

    private Map<String, Object> kafka() {
        return Map.of("bootstrap.servers", kafka.bootstrapServers());
    }

    private static String machine(String name) {
        return new ObjectStateKey("c1", ObjectKind.MACHINE, new ObjectKey("eksa-system", name)).encode();
    }

    private void write(String... keys) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka(), new StringSerializer(), new StringSerializer())) {
            for (String key : keys) {
                producer.send(new ProducerRecord<>(TOPIC, key, "{}")).get();
            }
        }
    }

    private static Set<String> tombstoned(MockProducer<String, String> producer) {
        return producer.history().stream().filter(r -> r.value() == null).map(ProducerRecord::key).collect(Collectors.toSet());
    }
}
