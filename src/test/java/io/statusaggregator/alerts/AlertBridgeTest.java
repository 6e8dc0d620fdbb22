package io.statusaggregator.alerts;

import static io.statusaggregator.alerts.ClusterAlertsTest.change;
import static io.statusaggregator.alerts.ClusterAlertsTest.condition;
import static io.statusaggregator.alerts.ClusterAlertsTest.notReady;
import static io.statusaggregator.alerts.ClusterAlertsTest.ready;
import static io.statusaggregator.alerts.ClusterAlertsTest.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.CloudEventSerializer;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.Severity;
import io.statusaggregator.pipeline.FaultyClock;
import io.statusaggregator.pipeline.Waiting;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.TransitionFeed;

/**
 * The alert bridge between a real Kafka broker (in process) and a real Alertmanager (the Debian package
 * {@code prometheus-alertmanager}, started here on loopback): alerts fire and resolve with the cluster, condition
 * as labels and the reason as an annotation, and the consumer group's offsets move only once Alertmanager has taken the alerts.
 */
class AlertBridgeTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    private static Admin admin;

    private Alertmanager alertmanager;
    private AlertBridge bridge;
    private KafkaProducer<String, CloudEvent> events;
    private KafkaProducer<String, String> raw;
    private String topic;
    private String group;

    @BeforeAll
    static void admin() throws Exception {
        admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    @AfterAll
    static void closeAdmin() throws Exception {
        admin.close();
    }

    @BeforeEach
    void start() throws Exception {
        alertmanager = Alertmanager.start();
        String run = UUID.randomUUID().toString().substring(0, 8);
        topic = "transitions-" + run;
        group = "alerts-" + run;
        admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
        Map<String, Object> producer = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class.getName());
        events = new KafkaProducer<>(producer);
        Map<String, Object> plain = new HashMap<>(producer);
        plain.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        raw = new KafkaProducer<>(plain);
    }

    @AfterEach
    void stop() {
        for (AutoCloseable started : new AutoCloseable[] {bridge, events, raw, alertmanager}) {
            try {
                if (started != null) {
                    started.close();
                }
            } catch (Exception e) {
                // Closing the rest matters more.
            }
        }
    }

    private AlertBridge bridge(Duration notReadyFor, Duration resendInterval) {
        bridge = new AlertBridge(new AlertBridge.Settings(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, group,
                alertmanager.url(), notReadyFor, resendInterval, Duration.ofMillis(200)), Clock.systemUTC());
        bridge.start();
        return bridge;
    }

    @Test
    void anErrorThatWouldEndTheLoopIsToldSoThatTheProcessCanExit() throws Exception {
        FaultyClock clock = new FaultyClock();
        BlockingQueue<Throwable> stopped = new LinkedBlockingQueue<>();
        bridge = new AlertBridge(new AlertBridge.Settings(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, group,
                alertmanager.url(), Duration.ofMinutes(10), Duration.ofSeconds(30), Duration.ofMillis(200)), clock).onStopped(stopped::add);
        bridge.start();
        Waiting.until(DEADLINE, bridge::caughtUp, () -> "the bridge did not join its group and read the topic");

        clock.breakWith(() -> new NoClassDefFoundError("io/example/Missing"));

        Throwable fault = stopped.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertInstanceOf(NoClassDefFoundError.class, fault, "the Error that ended the loop is told");
    }

    /** Publishes as the aggregator does, through the transitions feed. */
    private void publish(StatusChange change) throws Exception {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        new TransitionFeed(events, topic).send(change, Instant.now(), error -> {
            if (error == null) {
                sent.complete(null);
            } else {
                sent.completeExceptionally(error);
            }
        });
        sent.get(30, TimeUnit.SECONDS);
    }

    @Test
    void anAlertFiresAfterNotReadyForAndResolvesWhenTheClusterRecovers() throws Exception {
        Duration notReadyFor = Duration.ofSeconds(3);
        bridge(notReadyFor, Duration.ofSeconds(30));
        // Caught up first, so that the alert must come from the periodic evaluation: no event arrives when it is due.
        Waiting.until(DEADLINE, bridge::caughtUp, () -> "the bridge did not join its group and read the topic");
        Instant since = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        publish(change("alpha", status(notReady("WaitingForControlPlaneReady", "Control plane not ready yet", since))));
        Waiting.until(DEADLINE, () -> bridge.eventsRead() == 1, () -> "the event was not read");
        long deliveries = bridge.deliveries();
        Waiting.until(DEADLINE, () -> bridge.deliveries() > deliveries, () -> "nothing evaluated after the event");
        // Listed first, then the time read: an alert that came between a time read first and the listing would be due.
        List<JsonNode> early = alerts("default/alpha");
        if (Instant.now().isBefore(since.plus(notReadyFor))) {
            assertEquals(List.of(), early, "fired before Ready had been False for " + notReadyFor);
        }

        JsonNode alert = alertmanager.awaitAlert("default/alpha", "ClusterNotReady");
        assertFalse(Instant.now().isBefore(since.plus(notReadyFor)), "fired before Ready had been False for " + notReadyFor);
        assertEquals(Map.of("alertname", "ClusterNotReady", "cluster", "default/alpha", "namespace", "default", "name", "alpha",
                "condition", "Ready", "severity", "warning"), Alertmanager.labels(alert));
        assertEquals(since.plus(notReadyFor), Instant.parse(alert.path("startsAt").asText()));
        assertEquals("Control plane not ready yet", alert.path("annotations").path("description").asText());
        assertEquals("WaitingForControlPlaneReady", alert.path("annotations").path("reason").asText());
        assertEquals("active", alert.path("status").path("state").asText());

        // Ready stays False with another reason: the same alert, its reason updated in place (not resolved and fired anew).
        publish(change("alpha", status(notReady("RollingUpgradeInProgress", "Control plane nodes not up-to-date yet", since))));
        Waiting.until(DEADLINE, () -> alerts("default/alpha").stream().anyMatch(a -> a.path("annotations").path("reason").asText()
                .equals("RollingUpgradeInProgress")), () -> "the reason was not updated: " + alerts("default/alpha"));
        List<JsonNode> notReady = alerts("default/alpha").stream().filter(a -> Alertmanager.labels(a).get("alertname").equals("ClusterNotReady")).toList();
        assertEquals(1, notReady.size(), "one ClusterNotReady: " + notReady);
        assertEquals(since.plus(notReadyFor), Instant.parse(notReady.get(0).path("startsAt").asText()), "the same alert, the same start");

        // An Error condition fires at once.
        publish(change("alpha", status(
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentFailed", "md-0: 1 machine failed",
                        Severity.ERROR, since),
                notReady("WaitingForControlPlaneReady", "Control plane not ready yet", since))));
        JsonNode error = alertmanager.awaitAlert("default/alpha", "ClusterConditionError");
        assertEquals(Map.of("alertname", "ClusterConditionError", "cluster", "default/alpha", "namespace", "default", "name", "alpha",
                "condition", "WorkersReady", "severity", "critical"), Alertmanager.labels(error));
        assertEquals("MachineDeploymentFailed", error.path("annotations").path("reason").asText());

        // Events the bridge cannot read, on alpha's partition before its recovery: skipped, and the loop goes on.
        raw.send(new ProducerRecord<>(topic, "default/alpha", "not a CloudEvent")).get();
        events.send(new ProducerRecord<>(topic, "default/alpha", CloudEventBuilder.v1().withId("bad-json").withSource(TransitionFeed.SOURCE)
                .withType(StatusChange.CHANGED).withData("application/json", "{not json".getBytes(StandardCharsets.UTF_8)).build())).get();
        events.send(new ProducerRecord<>(topic, "default/alpha", CloudEventBuilder.v1().withId("other").withSource(TransitionFeed.SOURCE)
                .withType("com.example.something.else").withData("application/json", "{}".getBytes(StandardCharsets.UTF_8)).build())).get();

        Instant recovered = Instant.now();
        publish(change("alpha", status(
                condition(ConditionType.WORKERS_READY, ConditionStatus.TRUE, "", "", Severity.NONE, recovered), ready(recovered))));
        Waiting.until(DEADLINE, () -> alerts("default/alpha").isEmpty(), () -> "alpha's alerts are still active: " + alerts("default/alpha"));
        assertEquals(3, bridge.eventsSkipped());
        awaitAllCommitted();
    }

    @Test
    void offsetsAreCommittedOnlyAfterAlertmanagerTookTheAlerts() throws Exception {
        bridge(Duration.ofMinutes(10), Duration.ofSeconds(2));
        publish(change("bravo", status(
                condition(ConditionType.CONTROL_PLANE_READY, ConditionStatus.FALSE, "ControlPlaneComponentsUnhealthy", "etcd is down",
                        Severity.ERROR, Instant.now()))));
        alertmanager.awaitAlert("default/bravo", "ClusterConditionError");
        awaitAllCommitted();
        Map<TopicPartition, Long> before = committed();

        alertmanager.stop();
        long read = bridge.eventsRead();
        publish(change("charlie", status(
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentFailed", "md-0 failed", Severity.ERROR,
                        Instant.now()))));
        Waiting.until(DEADLINE, () -> bridge.eventsRead() > read, () -> "charlie's event was not read");
        long failures = bridge.failedDeliveries();
        // A delivery attempted after the event was read has failed: it was not taken, so nothing may be committed.
        Waiting.until(DEADLINE, () -> bridge.failedDeliveries() > failures, () -> "no delivery was attempted");
        assertEquals(before, committed(), "offsets committed while Alertmanager was down");
        assertTrue(endOffsets().entrySet().stream().anyMatch(e -> e.getValue() > before.getOrDefault(e.getKey(), 0L)),
                "charlie's event is past the committed offsets");

        alertmanager.launch();
        JsonNode charlie = alertmanager.awaitAlert("default/charlie", "ClusterConditionError");
        assertEquals("MachineDeploymentFailed", charlie.path("annotations").path("reason").asText());
        awaitAllCommitted();
        // Alertmanager keeps alerts in memory only: bravo's comes back with the next resend.
        alertmanager.awaitAlert("default/bravo", "ClusterConditionError");
    }

    @Test
    void aRestartedBridgeResolvesWhatItsPredecessorFired() throws Exception {
        // A long resend interval: the alert would outlive the deadline below unless it is resolved explicitly.
        bridge(Duration.ofMinutes(10), Duration.ofMinutes(1));
        publish(change("delta", status(
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentFailed", "md-0 failed", Severity.ERROR,
                        Instant.now()))));
        alertmanager.awaitAlert("default/delta", "ClusterConditionError");
        awaitAllCommitted();
        bridge.close();

        // Recovered while no bridge ran: the next one rebuilds from the topic, knows from the committed offset that
        // Alertmanager holds delta's alert, and resolves it.
        Instant recovered = Instant.now();
        publish(change("delta", status(condition(ConditionType.WORKERS_READY, ConditionStatus.TRUE, "", "", Severity.NONE, recovered),
                ready(recovered))));
        bridge(Duration.ofMinutes(10), Duration.ofMinutes(1));
        Waiting.until(DEADLINE, () -> alerts("default/delta").isEmpty(), () -> "delta's alert is still active: " + alerts("default/delta"));
        awaitAllCommitted();
    }

    /** The active alerts of a cluster, as Alertmanager's API v2 lists them. */
    private List<JsonNode> alerts(String cluster) {
        return alertmanager.alerts(Alertmanager.clusterMatcher(cluster));
    }

    private Map<TopicPartition, Long> committed() {
        try {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).entrySet().stream()
                    .filter(e -> e.getValue() != null)
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        } catch (Exception e) {
            throw new AssertionError("cannot read the committed offsets of " + group, e);
        }
    }

    private Map<TopicPartition, Long> endOffsets() {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try {
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        } catch (Exception e) {
            throw new AssertionError("cannot read the end offsets of " + topic, e);
        }
    }

    /** Every event on the topic, the unreadable ones included, is committed. */
    private void awaitAllCommitted() {
        Waiting.until(DEADLINE, () -> {
            Map<TopicPartition, Long> committed = committed();
            return endOffsets().entrySet().stream().allMatch(e -> e.getValue() == 0 || e.getValue().equals(committed.get(e.getKey())));
        }, () -> "committed " + committed() + ", end offsets " + endOffsets());
    }
}
