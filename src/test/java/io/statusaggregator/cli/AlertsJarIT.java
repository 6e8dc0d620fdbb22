package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.alerts.Alertmanager;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.pipeline.Waiting;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code alerts} as the docs run it ({@code alerts --alertmanager URL --not-ready-for ...}), in its own process between a
 * real broker and a real Alertmanager (Debian's {@code prometheus-alertmanager}): a cluster's changes, published as a
 * running aggregator publishes them, fire ClusterNotReady in Alertmanager and resolve it; a SIGTERM then stops the
 * bridge cleanly, with exit status 0, having left its consumer group.
 */
class AlertsJarIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String TRANSITIONS = "cluster-transitions";
    private static final String GROUP = "status-aggregator-alerts";
    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Test
    void alertsFromTheFeedReachAlertmanagerAndSigtermStopsCleanly() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
                Alertmanager alertmanager = Alertmanager.start()) {
            admin.createTopics(List.of(new NewTopic(TRANSITIONS, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // Checked every second rather than every 10 s, so that the alert is due soon after --not-ready-for.
            Map<String, String> environment = Map.of("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
                    "AGGREGATOR_ALERTS_EVALUATION_INTERVAL", "1s");
            try (JarProcess alerts = JarProcess.start(environment, "alerts", "--alertmanager", alertmanager.url().toString(),
                    "--not-ready-for", "2s");
                    ClusterStory story = new ClusterStory(kafka.bootstrapServers(), TRANSITIONS)) {
                // In its group with the partitions assigned, so that what follows is news to it, not history.
                Waiting.until(DEADLINE, () -> {
                    Optional<ConsumerGroupDescription> group = group(admin);
                    return group.isPresent() && group.get().groupState() == GroupState.STABLE && group.get().members().size() == 1
                            && group.get().members().iterator().next().assignment().topicPartitions().size() == PARTITIONS;
                }, () -> "alerts did not join group " + GROUP + ": " + group(admin) + "\n" + alerts.err());

                StatusChange comingUp = story.publish(ClusterStory.delta(0, 0, false), Instant.now());
                Condition notReady = comingUp.after().orElseThrow().status().condition(ConditionType.READY).orElseThrow();
                assertEquals(ConditionStatus.FALSE, notReady.status());
                JsonNode alert = alertmanager.awaitAlert("default/delta", "ClusterNotReady");
                assertEquals(Map.of("alertname", "ClusterNotReady", "cluster", "default/delta", "namespace", "default", "name", "delta",
                        "condition", "Ready", "severity", "warning"), Alertmanager.labels(alert));
                assertEquals(notReady.reason(), alert.path("annotations").path("reason").asText());
                assertEquals(notReady.message(), alert.path("annotations").path("description").asText());

                StatusChange up = story.publish(ClusterStory.delta(1, 1, true), Instant.now());
                assertEquals(ConditionStatus.TRUE, up.after().orElseThrow().status().condition(ConditionType.READY).orElseThrow().status());
                Waiting.until(DEADLINE, () -> alertmanager.alerts(Alertmanager.clusterMatcher("default/delta")).isEmpty(),
                        () -> "delta's alert did not resolve: " + alertmanager.alerts(Alertmanager.clusterMatcher("default/delta")));
                Waiting.until(DEADLINE, () -> committed(admin).equals(endOffsets(admin)),
                        () -> "committed " + committed(admin) + ", end offsets " + endOffsets(admin));

                int exit = alerts.stop();
                assertEquals(0, exit, "a SIGTERM'd alerts stops cleanly; standard error:\n" + alerts.err());
                // Clean: it left its group on the way out, rather than leaving the broker to time it out.
                assertTrue(group(admin).orElseThrow().members().isEmpty(), "still in the group: " + group(admin));
                assertEquals("", String.join("\n", alerts.out()), "alerts prints nothing on standard output");
            }
        }
    }

    /** The bridge's consumer group; empty until it first joins. */
    private static Optional<ConsumerGroupDescription> group(Admin admin) {
        try {
            return Optional.of(admin.describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP).get(30, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Optional.empty();
            }
            throw new AssertionError("cannot describe group " + GROUP, e);
        } catch (Exception e) {
            throw new AssertionError("cannot describe group " + GROUP, e);
        }
    }

    private static Map<TopicPartition, Long> committed(Admin admin) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> committed = new java.util.HashMap<>();
            endOffsets(admin).keySet().forEach(p -> committed.put(p, offsets.get(p) == null ? 0L : offsets.get(p).offset()));
            return committed;
        } catch (Exception e) {
            throw new AssertionError("cannot read the committed offsets of " + GROUP, e);
        }
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin) {
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(TRANSITIONS, p), OffsetSpec.latest());
        }
        try {
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
            ends.forEach((partition, info) -> offsets.put(partition, info.offset()));
            return offsets;
        } catch (Exception e) {
            throw new AssertionError("cannot read the end offsets of " + TRANSITIONS, e);
        }
    }
}
