package io.statusaggregator.pipeline;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A fleet of any size as the fleet page reads it: status documents (the shape docs/topics.md gives for
 * {@code cluster-statuses}) published straight to a status topic on a real broker, without the aggregator. Seeded by
 * index, so a test knows what each cluster shows: most Ready, some scaling up or rolling (Ready False, Info), some
 * failed (Ready False, Error, with a failure) and some just created (no Ready yet); namespaces and Ready's transition
 * times spread so that neither follows the names.
 */
final class PublishedFleet implements AutoCloseable {
    static final List<String> NAMESPACES = List.of("team-a", "team-b", "team-c", "team-d", "team-e");
    static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

    /** What a cluster shows. */
    enum Shows { READY, SCALING_UP, ROLLING, FAILED, CREATING }

    record Cluster(String namespace, String name, Shows shows, Instant readySince) {
        String key() {
            return namespace + "/" + name;
        }
    }

    final String statuses;
    final String transitions;
    private final KafkaProducer<String, String> producer;

    /** Creates the two topics of a run (named after it) and a producer for them. */
    PublishedFleet(String bootstrapServers, String run) throws Exception {
        this.statuses = "statuses-" + run;
        this.transitions = "transitions-" + run;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(statuses, 3, (short) 1).configs(Map.of("cleanup.policy", "compact")),
                    new NewTopic(transitions, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // A partition's first produce before its leader is known is refused and retried; wait for the leaders.
            Fleet.await(Fleet.DEADLINE, () -> leadersKnown(admin), () -> "leaders of " + statuses + " and " + transitions);
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // Idempotence is not what these tests are about, and a fresh partition's leader change can leave an idempotent
        // producer retrying OUT_OF_ORDER_SEQUENCE_NUMBER for good; one request in flight keeps each key's order.
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private boolean leadersKnown(Admin admin) {
        try {
            return admin.describeTopics(List.of(statuses, transitions)).allTopicNames().get(10, TimeUnit.SECONDS).values().stream()
                    .allMatch(topic -> topic.partitions().size() == 3 && topic.partitions().stream().allMatch(p -> p.leader() != null));
        } catch (Exception e) {
            return false;
        }
    }

    static List<Cluster> of(int size) {
        List<Cluster> clusters = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            Shows shows = i % 50 == 7 ? Shows.CREATING : i % 25 == 3 ? Shows.FAILED : i % 10 == 1 ? Shows.SCALING_UP
                    : i % 10 == 6 ? Shows.ROLLING : Shows.READY;
            // 37 and 1,000 share no factor: every cluster has its own minute, in an order unlike the names'.
            clusters.add(new Cluster(NAMESPACES.get((i / 7) % NAMESPACES.size()), "c-%04d".formatted(i), shows,
                    NOW.minus(Duration.ofMinutes((i * 37L) % 1_000 + 1))));
        }
        return clusters;
    }

    /** Publishes every cluster's status and waits until the broker has them all. */
    void publish(List<Cluster> clusters) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>(clusters.size());
        for (Cluster cluster : clusters) {
            sent.add(producer.send(new ProducerRecord<>(statuses, cluster.key(), document(cluster).toString())));
        }
        producer.flush();
        for (java.util.concurrent.Future<?> each : sent) {
            each.get(30, TimeUnit.SECONDS); // a record the broker refused fails the test here, not as a count short later
        }
    }

    void publish(Cluster cluster) throws Exception {
        producer.send(new ProducerRecord<>(statuses, cluster.key(), document(cluster).toString())).get(10, TimeUnit.SECONDS);
    }

    void tombstone(Cluster cluster) throws Exception {
        producer.send(new ProducerRecord<>(statuses, cluster.key(), null)).get(10, TimeUnit.SECONDS);
    }

    static ObjectNode document(Cluster cluster) {
        ObjectNode document = JsonNodeFactory.instance.objectNode()
                .put("apiVersion", "anywhere.eks.amazonaws.com/v1alpha1").put("kind", "Cluster");
        document.putObject("metadata").put("namespace", cluster.namespace()).put("name", cluster.name()).put("generation", 1);
        ObjectNode status = document.putObject("status").put("observedGeneration", 1);
        ArrayNode conditions = status.putArray("conditions");
        String since = cluster.readySince().toString();
        switch (cluster.shows()) {
            case CREATING -> condition(conditions, "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "Info",
                    "control plane not initialized yet", since);
            case READY -> {
                for (String type : List.of("ControlPlaneInitialized", "ControlPlaneReady", "WorkersReady", "DefaultCNIConfigured", "Ready")) {
                    condition(conditions, type, "True", null, null, null, since);
                }
            }
            case SCALING_UP -> {
                trueConditions(conditions, since, "ControlPlaneInitialized", "ControlPlaneReady");
                condition(conditions, "WorkersReady", "False", "ScalingUp", "Info", "Workers expected not ready yet, 3 replicas (actual 1)", since);
                trueConditions(conditions, since, "DefaultCNIConfigured");
                condition(conditions, "Ready", "False", "ScalingUp", "Info", "Workers expected not ready yet, 3 replicas (actual 1)", since);
            }
            case ROLLING -> {
                trueConditions(conditions, since, "ControlPlaneInitialized");
                condition(conditions, "ControlPlaneReady", "False", "RollingUpgradeInProgress", "Info",
                        "Rolling upgrade in progress, 1 of 3 control plane machines up to date", since);
                trueConditions(conditions, since, "WorkersReady", "DefaultCNIConfigured");
                condition(conditions, "Ready", "False", "RollingUpgradeInProgress", "Info",
                        "Rolling upgrade in progress, 1 of 3 control plane machines up to date", since);
            }
            case FAILED -> {
                trueConditions(conditions, since, "ControlPlaneInitialized", "ControlPlaneReady", "WorkersReady", "DefaultCNIConfigured");
                condition(conditions, "Ready", "False", "EksaVersionInvalid", "Error", "no EKS-A release v0.99.0 in the management cluster", since);
                status.put("failureReason", "EksaVersionInvalid").put("failureMessage", "no EKS-A release v0.99.0 in the management cluster");
            }
        }
        return document;
    }

    private static void trueConditions(ArrayNode conditions, String since, String... types) {
        for (String type : types) {
            condition(conditions, type, "True", null, null, null, since);
        }
    }

    private static void condition(ArrayNode conditions, String type, String status, String reason, String severity, String message,
            String since) {
        ObjectNode condition = conditions.addObject().put("type", type).put("status", status);
        if (reason != null) {
            condition.put("reason", reason).put("message", message).put("severity", severity);
        }
        condition.put("lastTransitionTime", since);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
