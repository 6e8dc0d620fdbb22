package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.topics.ObjectStateKey;

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
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), TOPIC, key -> onTheApiServer.contains(key.encode()), publisher, key -> true, List.of(), DEADLINE, true));
        assertEquals(Set.of(machine("gone-before-start")), tombstoned(tombstones));

        // m1 goes without a tombstone (as if the informer missed it), and something else writes a key of no object.
        write(machine("written-by-another"));
        tombstones.clear();
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), TOPIC, key -> false, publisher, key -> true, List.of(), DEADLINE, false));
        assertEquals(Set.of(machine("written-by-another")), tombstoned(tombstones),
                "only the key written since the last check; m1 was checked then, and a relist's whole check finds it");

        tombstones.clear();
        reconciliation.tombstoneVanished(kafka(), TOPIC, key -> false, publisher, key -> true, List.of(), DEADLINE, true);
        // The tombstones of this test go to a mock producer, not the topic: every key is still alive on it.
        assertEquals(Set.of(machine("m1"), machine("gone-before-start"), machine("written-by-another")), tombstoned(tombstones),
                "the whole topic, m1 among it");
    }

    /**
     * A record on a partition its cluster is not routed to (something but ingest wrote it, or the topic gained
     * partitions since) would be read by that partition's owner as its own: it is tombstoned there, and an object that
     * exists has its state sent where it belongs if it is not there already.
     */
    @Test
    void aRecordOnAnotherPartitionThanItsClustersIsTombstonedThereAndItsObjectSentWhereItBelongs() throws Exception {
        String topic = TOPIC + "-placed";
        try (Admin admin = Admin.create(kafka())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        int routed = ObjectStateKey.partitionOf("c1", 3);
        int other = (routed + 1) % 3;
        writeTo(topic, routed, machine("m1"), machine("m2"));
        writeTo(topic, other, machine("m1"), machine("ghost"));
        TopicReconciliation reconciliation = new TopicReconciliation();
        MockProducer<String, String> tombstones = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        ObjectStatePublisher publisher = new ObjectStatePublisher(tombstones, topic, key -> { });
        Set<String> onTheApiServer = Set.of(machine("m1"), machine("m2"), machine("m3"));
        List<String> resent = new ArrayList<>();

        assertEquals(2, reconciliation.tombstoneVanished(kafka(), topic, key -> onTheApiServer.contains(key.encode()), publisher,
                key -> resent.add(key.encode()), List.of(), DEADLINE, true));
        assertEquals(Set.of(machine("m1") + "@" + other, machine("ghost") + "@" + other), placedTombstones(tombstones),
                "each stray record where it is; m1 and m2 where they belong are left alone");
        assertEquals(List.of(), resent, "m1 is also where it belongs");

        // An object whose only record is on another partition: tombstoned there, its state sent where it belongs.
        writeTo(topic, other, machine("m3"));
        tombstones.clear();
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), topic, key -> onTheApiServer.contains(key.encode()), publisher,
                key -> resent.add(key.encode()), List.of(), DEADLINE, false));
        assertEquals(Set.of(machine("m3") + "@" + other), placedTombstones(tombstones));
        assertEquals(List.of(machine("m3")), resent);
    }

    /**
     * A tombstone that something but ingest wrote where the cluster's records go, for an object the API server still
     * has, made aggregation forget a live object: the object's state is sent again. A tombstone of an object that is
     * gone stays, and one the check already answered is not answered again by the next check between whole ones.
     */
    @Test
    void aTombstoneOfAnObjectTheApiServerHasHasItsStateSentAgain() throws Exception {
        String topic = TOPIC + "-revived";
        try (Admin admin = Admin.create(kafka())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        int routed = ObjectStateKey.partitionOf("c1", 3);
        int other = (routed + 1) % 3;
        writeTo(topic, routed, machine("m1"), machine("m2"), machine("deleted"));
        tombstoneOn(topic, routed, machine("m1"), machine("deleted"));
        tombstoneOn(topic, other, machine("m2")); // not where c1's records go: no object of c1 was forgotten for it
        TopicReconciliation reconciliation = new TopicReconciliation();
        MockProducer<String, String> tombstones = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        ObjectStatePublisher publisher = new ObjectStatePublisher(tombstones, topic, key -> { });
        Set<String> onTheApiServer = Set.of(machine("m1"), machine("m2"));
        List<String> resent = new ArrayList<>();

        assertEquals(1, reconciliation.tombstoneVanished(kafka(), topic, key -> onTheApiServer.contains(key.encode()), publisher,
                key -> resent.add(key.encode()), List.of(), DEADLINE, true));
        assertEquals(List.of(machine("m1")), resent, "m1 exists; 'deleted' does not, and m2 is alive where it belongs");
        assertEquals(Set.of(), tombstoned(tombstones));

        writeTo(topic, routed, machine("m1")); // the state sent again, as ingest would
        tombstoneOn(topic, routed, machine("m2"));
        resent.clear();
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), topic, key -> onTheApiServer.contains(key.encode()), publisher,
                key -> resent.add(key.encode()), List.of(), DEADLINE, false));
        assertEquals(List.of(machine("m2")), resent, "only what was written since: m1 is alive again");

        tombstoneOn(topic, routed, machine("m1"));
        assertEquals(0, reconciliation.tombstoneVanished(kafka(), topic, key -> onTheApiServer.contains(key.encode()), publisher,
                key -> false, List.of(), DEADLINE, false), "an object whose state cannot be sent again (a CNI observation) is not counted");
    }

    /**
     * An object the informers hold with no record at all on the topic (the topic made again, a record lost): a whole
     * check sends its state; a check of what was written since cannot tell, and leaves it to the next whole one.
     */
    @Test
    void anObjectWithNoRecordOnTheTopicIsSentByAWholeCheck() throws Exception {
        String topic = TOPIC + "-missing";
        try (Admin admin = Admin.create(kafka())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        writeTo(topic, ObjectStateKey.partitionOf("c1", 3), machine("m1"));
        TopicReconciliation reconciliation = new TopicReconciliation();
        MockProducer<String, String> tombstones = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());
        ObjectStatePublisher publisher = new ObjectStatePublisher(tombstones, topic, key -> { });
        List<ObjectStateKey> held = Stream.of("m1", "m9").map(m -> ObjectStateKey.parse(machine(m)).orElseThrow()).toList();
        List<String> resent = new ArrayList<>();

        assertEquals(0, reconciliation.tombstoneVanished(kafka(), topic, key -> true, publisher,
                key -> resent.add(key.encode()), held, DEADLINE, false));
        assertEquals(List.of(), resent);
        assertEquals(1, reconciliation.tombstoneVanished(kafka(), topic, key -> true, publisher,
                key -> resent.add(key.encode()), held, DEADLINE, true));
        assertEquals(List.of(machine("m9")), resent, "m1 has its record");
    }

    private void tombstoneOn(String topic, int partition, String... keys) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka(), new StringSerializer(), new StringSerializer())) {
            for (String key : keys) {
                producer.send(new ProducerRecord<>(topic, partition, key, null)).get();
            }
        }
    }

    private static Set<String> placedTombstones(MockProducer<String, String> producer) {
        return producer.history().stream().filter(r -> r.value() == null).map(r -> r.key() + "@" + r.partition()).collect(Collectors.toSet());
    }

    private void writeTo(String topic, int partition, String... keys) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka(), new StringSerializer(), new StringSerializer())) {
            for (String key : keys) {
                producer.send(new ProducerRecord<>(topic, partition, key, "{}")).get();
            }
        }
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
                producer.send(new ProducerRecord<>(TOPIC, ObjectStateKey.partitionOf("c1", 3), key, "{}")).get(); // as ingest routes
            }
        }
    }

    private static Set<String> tombstoned(MockProducer<String, String> producer) {
        return producer.history().stream().filter(r -> r.value() == null).map(ProducerRecord::key).collect(Collectors.toSet());
    }
}
