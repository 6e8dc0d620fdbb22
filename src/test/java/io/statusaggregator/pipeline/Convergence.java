package io.statusaggregator.pipeline;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.cli.ComputeRunner;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The end state the fault tests demand, checked against independent readings: every EKS-A Cluster's status is what
 * the rules ({@code compute}) make of the objects the API server holds now, the status topic holds exactly those
 * statuses (none for a deleted cluster), and each cluster's last transition event ends in its status.
 */
final class Convergence {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final CapiApiVersion capi;
    private final Map<String, Object> kafka;
    private final String statusesTopic;
    private final String transitionsTopic;
    /** Read only to explain a divergence: what aggregation was told of the clusters concerned. */
    private final String objectStatesTopic;

    Convergence(KubernetesClient client, Map<String, Object> kafka, String statusesTopic, String transitionsTopic, String objectStatesTopic) {
        this(client, kafka, statusesTopic, transitionsTopic, objectStatesTopic, CapiApiVersion.V1BETA1);
    }

    /** @param capi the version the fleet's Cluster API objects are written at, read here to apply the rules to */
    Convergence(KubernetesClient client, Map<String, Object> kafka, String statusesTopic, String transitionsTopic,
            String objectStatesTopic, CapiApiVersion capi) {
        this.capi = capi;
        this.client = client;
        this.kafka = kafka;
        this.statusesTopic = statusesTopic;
        this.transitionsTopic = transitionsTopic;
        this.objectStatesTopic = objectStatesTopic;
    }

    /** The object-state topic's keys of the clusters on the status topic and not on the API server, or the reverse. */
    private String objectStates(Map<String, JsonNode> published, Map<String, JsonNode> shown) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        published.keySet().stream().filter(k -> !shown.containsKey(k)).forEach(k -> names.add(k.substring(k.indexOf('/') + 1)));
        shown.keySet().stream().filter(k -> !published.containsKey(k)).forEach(k -> names.add(k.substring(k.indexOf('/') + 1)));
        if (names.isEmpty()) {
            return "";
        }
        return CompactedTopic.latest(kafka, objectStatesTopic, Duration.ofSeconds(10)).map(states -> states.entrySet().stream()
                        .filter(e -> names.contains(e.getKey().substring(0, Math.max(0, e.getKey().indexOf('/')))))
                        .map(e -> e.getKey() + (e.getValue() == null ? " (tombstone)" : ""))
                        .collect(java.util.stream.Collectors.joining(", ", "; on the object-state topic: ", "")))
                .orElse("; the object-state topic could not be read");
    }

    /** Every way the present state differs from the converged one, one line each; empty when converged. */
    List<String> divergences() {
        List<String> found = new ArrayList<>();
        try {
            Map<String, JsonNode> shown = new TreeMap<>();
            StringBuilder objects = new StringBuilder();
            for (ObjectKind kind : ObjectKind.values()) {
                if (kind == ObjectKind.CNI_OBSERVATION) {
                    continue;
                }
                for (GenericKubernetesResource resource : client.genericKubernetesResources(Fleet.resource(kind, capi))
                        .inAnyNamespace().list().getItems()) {
                    objects.append("---\n").append(client.getKubernetesSerialization().asYaml(resource).replaceFirst("^---\n", ""));
                    if (kind == ObjectKind.EKSA_CLUSTER) {
                        shown.put(resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName(),
                                normal(JSON.valueToTree(resource.getAdditionalProperties().get("status"))));
                    }
                }
            }
            for (GenericKubernetesResource release : client.genericKubernetesResources(KubernetesResources.RELEASES).inAnyNamespace().list().getItems()) {
                objects.append("---\n").append(client.getKubernetesSerialization().asYaml(release).replaceFirst("^---\n", ""));
            }

            // 1. The rules applied to the objects as they are now: a converged status is their fixed point.
            ComputeRunner.Result computed = ComputeRunner.compute(objects.toString(), Instant.now(), Fleet.CAPI);
            if (computed.exitCode() != 0) {
                found.add("compute failed: " + computed.err());
                return found;
            }
            Map<String, JsonNode> expected = new TreeMap<>();
            for (JsonNode document : computed.documents()) {
                expected.put(document.path("metadata").path("namespace").asText() + "/" + document.path("metadata").path("name").asText(),
                        normal(document.get("status")));
            }
            shown.forEach((cluster, status) -> {
                if (!status.equals(expected.get(cluster))) {
                    found.add(cluster + ": status " + status + " but the rules give " + expected.get(cluster));
                }
            });

            // 2. The status topic: exactly the clusters that exist, each with its status.
            Optional<Map<String, String>> topic = CompactedTopic.latest(kafka, statusesTopic, Duration.ofSeconds(10));
            if (topic.isEmpty()) {
                found.add("the status topic could not be read to its end");
            } else {
                Map<String, JsonNode> published = new TreeMap<>();
                for (Map.Entry<String, String> record : topic.get().entrySet()) {
                    if (record.getValue() != null) {
                        published.put(record.getKey(), normal(JSON.readTree(record.getValue()).get("status")));
                    }
                }
                if (!published.equals(shown)) {
                    found.add("status topic " + published.keySet() + " differs from the Clusters " + shown.keySet() + ": "
                            + difference(published, shown) + objectStates(published, shown));
                }
            }

            // 3. The transitions feed: each cluster's last event ends in its status; a deleted one's in nothing.
            Map<String, JsonNode> lastAfter = lastEvents();
            shown.forEach((cluster, status) -> {
                JsonNode after = lastAfter.get(cluster);
                if (after == null || !normal(after).equals(status)) {
                    found.add(cluster + ": the last transition event ends in " + after + ", the status is " + status);
                }
            });
            lastAfter.forEach((cluster, after) -> {
                if (!shown.containsKey(cluster) && !after.isNull()) {
                    found.add(cluster + " is deleted, but its last transition event ends in " + after);
                }
            });
        } catch (IOException | RuntimeException e) {
            found.add("could not read the state: " + e);
        }
        return found;
    }

    private static String difference(Map<String, JsonNode> published, Map<String, JsonNode> shown) {
        List<String> differences = new ArrayList<>();
        published.forEach((key, status) -> {
            if (!status.equals(shown.get(key))) {
                differences.add(key + " published " + status + " shown " + shown.get(key));
            }
        });
        shown.keySet().stream().filter(key -> !published.containsKey(key)).forEach(key -> differences.add(key + " not published"));
        return String.join("; ", differences);
    }

    /** Status changes on the transitions feed (deletions not counted): each is one distinct status a cluster took. */
    long statusChanges() throws IOException {
        long[] changes = {0};
        readEvents((key, after) -> {
            if (!after.isNull()) {
                changes[0]++;
            }
        });
        return changes[0];
    }

    /** The {@code after} of each cluster's last event on the transitions topic, read from the start. */
    private Map<String, JsonNode> lastEvents() throws IOException {
        Map<String, JsonNode> last = new HashMap<>();
        readEvents(last::put);
        return last;
    }

    /** Every event on the transitions topic, in order per cluster: its key and {@code after}. */
    private void readEvents(java.util.function.BiConsumer<String, JsonNode> event) throws IOException {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(transitionsTopic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the transitions topic could not be read to its end");
                }
                for (ConsumerRecord<String, CloudEvent> record : consumer.poll(Duration.ofMillis(200))) {
                    event.accept(record.key(), JSON.readTree(record.value().getData().toBytes()).path("after"));
                }
            }
        }
    }

    /** One representation for equal JSON whatever the source (YAML, Fabric8 maps, text): numbers as written. */
    private static JsonNode normal(JsonNode node) {
        try {
            return JSON.readTree(JSON.writeValueAsString(node == null ? JSON.nullNode() : node));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
