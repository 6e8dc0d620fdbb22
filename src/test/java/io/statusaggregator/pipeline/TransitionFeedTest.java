package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.model.ObjectKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transitions feed as a subscriber sees it, on a real broker: one CloudEvent per status change of a cluster, in
 * order, each starting where the one before ended; and after a restart, no new event for what was already
 * published, while a change whose status never reached the status topic (a crash between the two sends) is
 * published again under the same id.
 */
class TransitionFeedTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());

    private KafkaConsumer<String, CloudEvent> subscriber;

    @AfterEach
    void stop() {
        if (subscriber != null) {
            subscriber.close();
        }
    }

    /**
     * A pipeline, and a cluster it has seen waiting for its first control plane before that came up: so that the feed
     * has a story to tell (on a fast machine all the objects could arrive within one coalescing window).
     */
    private Pipeline startSeeingItsControlPlaneComeUp(String cluster) throws Exception {
        Pipeline pipeline = pipelineRun.start();
        pipelineRun.fleet().createCluster(cluster, 1, 1);
        pipelineRun.fleet().awaitCondition(cluster, "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "First control plane not ready yet");
        pipelineRun.fleet().controlPlaneReady(cluster, 1);
        return pipeline;
    }

    /** A subscriber of its own: reads the whole topic, as a new alerting consumer would. */
    private List<ConsumerRecord<String, CloudEvent>> events(List<ConsumerRecord<String, CloudEvent>> seen) {
        if (subscriber == null) {
            subscriber = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, "subscriber-" + pipelineRun.id(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class.getName()));
            subscriber.subscribe(List.of("transitions-" + pipelineRun.id()));
        }
        subscriber.poll(Duration.ofMillis(200)).forEach(seen::add);
        return seen;
    }

    private static JsonNode data(ConsumerRecord<String, CloudEvent> record) {
        try {
            return JSON.readTree(record.value().getData().toBytes());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private boolean showsReady(List<ConsumerRecord<String, CloudEvent>> events) {
        return events.stream().anyMatch(e -> e.key().equals("default/alpha") && data(e).path("transitions").toString().contains(
                "{\"type\":\"Ready\",\"from\":\"False\",\"to\":\"True\""));
    }

    @Test
    void oneEventPerStatusChangeInOrderWithIdsThatSurviveARestart() throws Exception {
        Pipeline first = startSeeingItsControlPlaneComeUp("alpha");
        pipelineRun.fleet().workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(pipelineRun.fleet().workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);
        pipelineRun.fleet().awaitReady("alpha");
        List<ConsumerRecord<String, CloudEvent>> seen = new ArrayList<>();
        await(DEADLINE, () -> showsReady(events(seen)), () -> "no event took alpha from Ready False to True: " + seen.size() + " events");
        await(DEADLINE, first.aggregator()::settled, () -> "not settled: " + first.aggregator().progress());
        // Settled says nothing of the feeds, which are sent after it on threads of their own: wait for the last change
        // to be on both (its status is sent once the broker has its event), and read the events to their end.
        awaitPublished(seen);
        List<ConsumerRecord<String, CloudEvent>> alpha = seen.stream().filter(e -> e.key().equals("default/alpha")).toList();

        // The envelope: CloudEvents binary mode, the attributes in ce_ headers.
        ConsumerRecord<String, CloudEvent> firstEvent = alpha.get(0);
        for (String header : List.of("ce_specversion", "ce_id", "ce_source", "ce_type", "ce_subject", "ce_time", "content-type")) {
            Header h = firstEvent.headers().lastHeader(header);
            assertNotNull(h, "header " + header + " on " + firstEvent);
        }
        assertEquals("1.0", new String(firstEvent.headers().lastHeader("ce_specversion").value(), StandardCharsets.UTF_8));
        assertEquals(StatusChange.CHANGED, firstEvent.value().getType());
        assertEquals("default/alpha", firstEvent.value().getSubject());
        assertTrue(data(firstEvent).path("before").isNull(), "the first event starts from nothing");

        // One event per change: each starts where the one before ended, no id twice, and the last ends where the
        // Cluster's status is now.
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < alpha.size(); i++) {
            assertTrue(ids.add(alpha.get(i).value().getId()), "id seen twice: " + alpha.get(i).value().getId());
            if (i > 0) {
                assertEquals(data(alpha.get(i - 1)).path("after"), data(alpha.get(i)).path("before"), "event " + i + " follows event " + (i - 1));
                assertTrue(data(alpha.get(i)).path("transitions").size() > 0
                        || !data(alpha.get(i)).path("before").equals(data(alpha.get(i)).path("after")), "event " + i + " changes something");
            }
        }
        JsonNode last = data(alpha.get(alpha.size() - 1));
        assertEquals("True", last.path("after").path("conditions").get(4).path("status").asText());
        assertEquals(1, last.path("progress").path("controlPlane").path("ready").asInt());
        assertEquals(1, last.path("progress").path("workers").path("desired").asInt());

        // A clean restart publishes nothing again.
        first.close();
        Pipeline second = pipelineRun.start();
        await(DEADLINE, () -> second.aggregator().settled() && second.aggregator().computations() > 0,
                () -> "restart not settled: " + second.aggregator().progress());
        int before = events(seen).size();
        assertEquals(before, seenToEnd(seen).size(), "no event after a restart that changed nothing");

        // A crash between the two sends: the last change reached the transitions topic but its status did not
        // reach the status topic. The next instance publishes that change again, under the same id.
        second.close();
        ConsumerRecord<String, CloudEvent> lastEvent = alpha.get(alpha.size() - 1);
        ObjectNode lost = JSON.createObjectNode().put("apiVersion", "anywhere.eks.amazonaws.com/v1alpha1").put("kind", "Cluster");
        lost.putObject("metadata").put("namespace", "default").put("name", "alpha");
        lost.set("status", last.path("before"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            producer.send(new ProducerRecord<>("statuses-" + pipelineRun.id(), "default/alpha", lost.toString())).get();
        }
        Pipeline third = pipelineRun.start();
        await(DEADLINE, () -> events(seen).size() > before, () -> "the lost change was not published again");
        ConsumerRecord<String, CloudEvent> again = seen.get(seen.size() - 1);
        assertEquals(lastEvent.value().getId(), again.value().getId(), "the change published again keeps its id");
        ObjectNode republished = (ObjectNode) data(again);
        republished.set("progress", last.path("progress")); // where the machines stand is read afresh
        assertEquals(last, republished, "and its content");
        await(DEADLINE, third.aggregator()::settled, () -> "not settled: " + third.aggregator().progress());
        assertEquals(before + 1, seenToEnd(seen).size(), "and only that one");

        // Deleting the Cluster ends its feed with a deletion event from its last status.
        pipelineRun.fleet().delete(ObjectKind.EKSA_CLUSTER, "default", "alpha");
        await(DEADLINE, () -> StatusChange.DELETED.equals(events(seen).get(seen.size() - 1).value().getType()),
                () -> "no deletion event: " + seen.get(seen.size() - 1).value().getType());
        JsonNode deleted = data(seen.get(seen.size() - 1));
        assertEquals(last.path("after"), deleted.path("before"));
        assertTrue(deleted.path("after").isNull());
    }

    @Test
    void aCleanShutdownRightAfterAWriteFinishesBothFeeds() throws Exception {
        Pipeline first = startSeeingItsControlPlaneComeUp("bravo");
        // The control plane's change, then the CNI observer's (it looks for the workload cluster once the control plane
        // is up, and finds no kubeconfig): the last change, so that a restart has nothing new to say.
        pipelineRun.fleet().awaitCondition("bravo", "ControlPlaneInitialized", "True", "", "");
        pipelineRun.fleet().awaitCondition("bravo", "DefaultCNIConfigured", "False", "WaitingForDefaultCNIConfigured",
                "Managed CNI state unknown: kubeconfig secret eksa-system/bravo-kubeconfig not found");
        // Stopped the moment the Cluster shows the new status: its change is still on its way to the feeds.
        first.close();

        List<ConsumerRecord<String, CloudEvent>> seen = new ArrayList<>();
        events(seen);
        seenToEnd(seen);
        JsonNode shown = JSON.valueToTree(pipelineRun.fleet().get(ObjectKind.EKSA_CLUSTER, "default", "bravo").orElseThrow()
                .getAdditionalProperties().get("status"));
        List<ConsumerRecord<String, CloudEvent>> bravo = seen.stream().filter(e -> e.key().equals("default/bravo")).toList();
        assertFalse(bravo.isEmpty(), "no event for bravo");
        assertEquals(shown, data(bravo.get(bravo.size() - 1)).path("after"), "the transitions feed ends in the status the Cluster shows");
        String status = CompactedTopic.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()), "statuses-" + pipelineRun.id(),
                Duration.ofSeconds(10)).orElseThrow().get("default/bravo");
        assertEquals(shown, JSON.readTree(status).path("status"), "the status topic holds the status the Cluster shows");

        // So the next instance has nothing to publish again.
        Pipeline second = pipelineRun.start();
        await(DEADLINE, () -> second.aggregator().settled() && second.aggregator().computations() > 0,
                () -> "restart not settled: " + second.aggregator().progress());
        int before = seen.size();
        assertEquals(before, seenToEnd(seen).size(), () -> "no event after a clean stop and start; published again: "
                + seen.subList(Math.min(before, seen.size()), seen.size()).stream().map(e -> e.value().getType() + " " + data(e)).toList()
                + "; before it: " + seen.stream().map(e -> e.value().getType() + " " + data(e)).toList());
    }

    /** Waits until the status topic holds the status alpha's last event ends in, every event read up to then. */
    private void awaitPublished(List<ConsumerRecord<String, CloudEvent>> seen) {
        Map<String, Object> broker = Map.of("bootstrap.servers", kafka.bootstrapServers());
        await(DEADLINE, () -> {
            seenToEnd(seen);
            JsonNode lastAfter = seen.stream().filter(e -> e.key().equals("default/alpha")).reduce((a, b) -> b)
                    .map(e -> data(e).path("after")).orElse(null);
            String status = CompactedTopic.latest(broker, "statuses-" + pipelineRun.id(), Duration.ofSeconds(10))
                    .map(statuses -> statuses.get("default/alpha")).orElse(null);
            try {
                return lastAfter != null && status != null && JSON.readTree(status).path("status").equals(lastAfter);
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }, () -> "alpha's last change is not on both feeds: " + seen.size() + " events read");
    }

    /** Every event up to the topic's current end: a check that nothing more is there. */
    private List<ConsumerRecord<String, CloudEvent>> seenToEnd(List<ConsumerRecord<String, CloudEvent>> seen) {
        Set<TopicPartition> assigned = subscriber.assignment();
        Map<TopicPartition, Long> ends = subscriber.endOffsets(assigned);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (assigned.stream().anyMatch(p -> subscriber.position(p) < ends.get(p)) && System.nanoTime() < deadline) {
            events(seen);
        }
        return seen;
    }
}
