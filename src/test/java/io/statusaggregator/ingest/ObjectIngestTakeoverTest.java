package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.pipeline.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A standby's informers keep what they see; when it takes over, what it saw goes to the topic, and so does every
 * change from then on, those that come while it takes over included (on the embedded API server, to a mock producer).
 */
class ObjectIngestTakeoverTest {
    private static final String CAPI = "eksa-system";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private EmbeddedKubernetes kubernetes;
    private KubernetesClient client;
    private final MockProducer<String, String> topic = new MockProducer<>(true, null, new StringSerializer(), new StringSerializer());

    @BeforeEach
    void apiServer() {
        kubernetes = EmbeddedKubernetes.start(0);
        client = kubernetes.newClient();
    }

    @AfterEach
    void close() {
        client.close();
        kubernetes.close();
    }

    @Test
    void whatAStandbySawAndWhatChangesWhileItTakesOverAllReachTheTopic() throws Exception {
        ObjectIngest ingest = new ObjectIngest(client, new ObjectIngest.Settings(CAPI, List.of(), Duration.ofSeconds(30)),
                failed -> new ObjectStatePublisher(topic, "object-states", failed));
        try (ingest) {
            ingest.standBy();
            createControlPlane("seen-as-standby");
            ingest.start().get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(sent().isEmpty(), "a standby sends nothing: " + sent());

            // Control planes created on another thread while this one takes over: each is sent at the takeover or by its
            // handler, whichever sees it.
            Set<String> during = IntStream.range(0, 40).mapToObj(i -> "during-" + i).collect(Collectors.toCollection(TreeSet::new));
            Thread creating = new Thread(() -> during.forEach(this::createControlPlane));
            creating.start();
            ingest.lead(() -> { });
            creating.join(DEADLINE.toMillis());
            createControlPlane("after");

            Set<String> expected = new TreeSet<>(Set.of("seen-as-standby"));
            expected.addAll(during);
            expected.add("after");
            Waiting.until(DEADLINE, () -> sent().containsAll(expected), () -> "every control plane on the topic; sent: " + sent());
            assertEquals(expected, sent());
        }
    }

    private void createControlPlane(String name) {
        client.genericKubernetesResources(KubernetesResources.of(ObjectKind.KUBEADM_CONTROL_PLANE)).inNamespace(CAPI)
                .resource(client.getKubernetesSerialization().unmarshal("""
                        apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                        kind: KubeadmControlPlane
                        metadata: {namespace: %s, name: %s, labels: {cluster.x-k8s.io/cluster-name: %s}}
                        spec: {replicas: 1}
                        """.formatted(CAPI, name, name), GenericKubernetesResource.class)).create();
    }

    /** The names of the control planes whose records the topic got. */
    private Set<String> sent() {
        return topic.history().stream().map(r -> r.key().substring(r.key().lastIndexOf('/') + 1)).collect(Collectors.toCollection(TreeSet::new));
    }
}
