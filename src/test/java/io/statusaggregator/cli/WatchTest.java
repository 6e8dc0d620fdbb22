package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.CloudEventSerializer;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.TransitionFeed;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code watch} on a real broker: the view it prints and its exit code for Ready, a failure, and a timeout. */
class WatchTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private record Run(int exit, String out) {
    }

    private static Run watch(String topic, String cluster, String until, Duration timeout) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = WatchCommand.watch(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, cluster, until, timeout,
                new PrintStream(out, true, StandardCharsets.UTF_8), false, () -> false);
        return new Run(exit, out.toString(StandardCharsets.UTF_8));
    }

    /** An event as the aggregator sends it, with the conditions given as type=status[:reason]. */
    private static CloudEvent event(String cluster, long generation, long observed, String failure, int ready, int desired, String... conditions) {
        StringBuilder list = new StringBuilder();
        for (String condition : conditions) {
            String[] typeStatus = condition.split("=");
            String[] statusReason = typeStatus[1].split(":");
            list.append(list.length() == 0 ? "" : ",").append("{\"type\":\"").append(typeStatus[0]).append("\",\"status\":\"")
                    .append(statusReason[0]).append('"').append(statusReason.length > 1 ? ",\"reason\":\"" + statusReason[1] + "\",\"message\":\"waiting\"" : "")
                    .append(",\"lastTransitionTime\":\"2026-11-22T03:00:00Z\"}");
        }
        String data = ("{\"cluster\":{\"namespace\":\"default\",\"name\":\"%s\"},\"generation\":%d,\"observedGeneration\":%d,\"before\":null,"
                + "\"after\":{\"observedGeneration\":%d%s,\"conditions\":[%s]},\"transitions\":[],"
                + "\"progress\":{\"controlPlane\":{\"ready\":%d,\"desired\":%d},\"workers\":{\"ready\":0,\"desired\":2}}}")
                .formatted(cluster.substring(cluster.indexOf('/') + 1), generation, observed, observed,
                        failure.isEmpty() ? "" : ",\"failureReason\":\"" + failure + "\",\"failureMessage\":\"bad\"", list, ready, desired);
        return CloudEventBuilder.v1().withId(UUID.randomUUID().toString()).withSource(TransitionFeed.SOURCE).withType(StatusChange.CHANGED)
                .withSubject(cluster).withDataContentType("application/json").withData(data.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static String topic(CloudEvent... events) throws Exception {
        String topic = "transitions-" + UUID.randomUUID();
        try (KafkaProducer<String, CloudEvent> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class.getName()))) {
            for (CloudEvent event : events) {
                producer.send(new ProducerRecord<>(topic, event.getSubject(), event)).get();
            }
        }
        return topic;
    }

    @Test
    void readyAtTheClustersGenerationEndsTheWatchWithZero() throws Exception {
        String topic = topic(
                event("default/alpha", 1, 1, "", 0, 3, "ControlPlaneReady=False:ScalingUp", "Ready=False:ScalingUp"),
                event("default/other", 1, 1, "", 3, 3, "Ready=True"),
                event("default/alpha", 1, 1, "", 3, 3, "ControlPlaneReady=True", "Ready=True"));
        Run run = watch(topic, "default/alpha", "Ready", Duration.ofSeconds(30));
        assertEquals(0, run.exit(), run.out());
        assertTrue(run.out().contains("control plane [########################] 3/3"), run.out());
        assertTrue(run.out().contains("default/alpha: Ready is True"), run.out());
    }

    @Test
    void aFailureReasonEndsTheWatchWithOne() throws Exception {
        String topic = topic(event("default/alpha", 2, 2, "KubernetesVersionInvalid", 1, 1, "Ready=False:KubernetesVersionInvalid"));
        Run run = watch(topic, "default/alpha", "Ready", Duration.ofSeconds(30));
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains("failure: KubernetesVersionInvalid: bad"), run.out());
    }

    @Test
    void noReadyWithinTheTimeoutEndsWithThreeAndAnOldReadyDoesNotCount() throws Exception {
        // Ready at generation 1, then the spec changed: generation 2 is not observed yet.
        String topic = topic(
                event("default/alpha", 1, 1, "", 1, 1, "Ready=True"),
                event("default/alpha", 2, 1, "", 1, 1, "Ready=True"));
        Run run = watch(topic, "default/alpha", "Ready", Duration.ofSeconds(2));
        assertEquals(3, run.exit(), run.out());
        assertTrue(run.out().contains("timed out after 2s waiting for Ready"), run.out());
        Run noTopic = watch("no-such-topic-" + UUID.randomUUID(), "default/alpha", "Ready", Duration.ofSeconds(5));
        assertEquals(2, noTopic.exit(), "a broker without the feed is a usage error, not a failed cluster");
        Run unknown = watch(topic, "default/nosuch", "Ready", Duration.ofSeconds(1));
        assertEquals(3, unknown.exit());
        assertTrue(unknown.out().contains("(no event of this cluster on the feed)"), unknown.out());
    }

    @Test
    void untilAnotherConditionAndAPoisonRecordOnTheWay() throws Exception {
        String topic = topic(event("default/alpha", 1, 1, "", 1, 1, "ControlPlaneReady=True", "Ready=False:WaitingForWorkers"));
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            producer.send(new ProducerRecord<>(topic, "default/alpha", "not a cloud event".getBytes(StandardCharsets.UTF_8))).get();
        }
        Run run = watch(topic, "default/alpha", "ControlPlaneReady", Duration.ofSeconds(30));
        assertEquals(0, run.exit(), run.out());
        assertTrue(run.out().contains("Ready                   False  WaitingForWorkers: waiting"), run.out());
    }
}
