package io.statusaggregator.cli;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventSerializer;
import io.statusaggregator.aggregation.ClusterState;
import io.statusaggregator.topics.PublishedStatus;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.rules.StatusRules;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One cluster's changes on the transitions topic as a running aggregator publishes them, for the commands that read
 * the feed. Each stage of the cluster's objects (YAML, as the API server holds them) takes aggregation's steps: decoded,
 * gathered in a {@link ClusterState}, computed by {@link StatusRules} with the Cluster showing the status published
 * before, and the change, with its progress, sent by the {@link TransitionFeed}.
 */
final class ClusterStory implements AutoCloseable {
    private final KafkaProducer<String, CloudEvent> producer;
    private final TransitionFeed feed;
    private Optional<ClusterStatus> published = Optional.empty();

    ClusterStory(String bootstrapServers, String topic) {
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class.getName()));
        feed = new TransitionFeed(producer, topic);
    }

    /**
     * Cluster {@code default/delta}, one control-plane node and one worker on EKS-A v0.23.2 with Cilium, as it comes up:
     * how many of each are ready, and whether Cilium runs in it (the observation the aggregator makes of the workload
     * cluster). With everything ready it is the README example's {@code prod}, in small.
     */
    static String delta(int controlPlaneReady, int workersReady, boolean ciliumRunning) {
        String objects = """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: delta, generation: 1}
                spec:
                  kubernetesVersion: "1.31"
                  eksaVersion: v0.23.2
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations:
                    - {name: md-0, count: 1}
                  clusterNetwork:
                    cniConfig: {cilium: {}}
                ---
                apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                kind: KubeadmControlPlane
                metadata:
                  namespace: eksa-system
                  name: delta
                  generation: 1
                  labels: {cluster.x-k8s.io/cluster-name: delta}
                status:
                  observedGeneration: 1
                  initialized: %1$s
                  replicas: 1
                  readyReplicas: %2$d
                  updatedReplicas: 1
                  conditions:
                    - {type: Available, status: "%3$s"}
                    - {type: ControlPlaneComponentsHealthy, status: "%3$s"}
                ---
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {namespace: eksa-system, name: delta-md-0, generation: 1}
                spec: {clusterName: delta}
                status:
                  observedGeneration: 1
                  replicas: %4$d
                  readyReplicas: %5$d
                  updatedReplicas: %4$d
                  conditions:
                    - {type: Ready, status: "%6$s"}
                """.formatted(controlPlaneReady > 0, controlPlaneReady, controlPlaneReady > 0 ? "True" : "False",
                controlPlaneReady > 0 ? 1 : 0, workersReady, workersReady > 0 ? "True" : "False");
        return objects + (ciliumRunning ? """
                ---
                apiVersion: statusaggregator.io/v1alpha1
                kind: CNIObservation
                metadata: {namespace: eksa-system, name: delta}
                spec: {clusterName: delta, cni: cilium, version: v1.15.16-eksa.1, ready: true}
                """ : "");
    }

    /**
     * Computes the cluster's status from its objects at {@code at}, as aggregation does, and publishes the change
     * once the broker has it.
     */
    StatusChange publish(String objects, Instant at) throws Exception {
        ClusterState state = null;
        for (YamlDocuments.Document document : YamlDocuments.read(new ByteArrayInputStream(objects.getBytes(StandardCharsets.UTF_8)))) {
            KubernetesObject object = ObjectDecoder.decode(document.node()).orElseThrow();
            if (state == null) {
                state = new ClusterState(((EksaCluster) object).key().name()); // the EKS-A Cluster comes first
            }
            state.put(object);
        }
        ClusterSnapshot computed = state.snapshot(CompatibilityReader.builtIn(), new ManagementCluster(Optional.empty(), Map.of()))
                .orElseThrow();
        ClusterSnapshot snapshot = computed.showing(published.orElse(computed.cluster().status()));
        ClusterStatus status = StatusRules.compute(snapshot, at);
        StatusChange change = new StatusChange(snapshot.cluster().key(), snapshot.cluster().generation(),
                published.map(PublishedStatus::of), Optional.of(PublishedStatus.of(status)), StatusChange.Progress.of(snapshot, status));
        CompletableFuture<Void> sent = new CompletableFuture<>();
        feed.send(change, at, error -> {
            if (error == null) {
                sent.complete(null);
            } else {
                sent.completeExceptionally(error);
            }
        });
        sent.get(30, TimeUnit.SECONDS);
        published = Optional.of(status);
        return change;
    }

    @Override
    public void close() {
        producer.close();
    }
}
