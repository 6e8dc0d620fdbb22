package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.kubernetes.ApiVersionChoice.Setting;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cluster API upgraded under a running aggregator: ingest follows what the API server serves, from {@code v1beta1}
 * only (CAPI v1.10) to both (v1.11 to v1.15) to {@code v1beta2} only (v1.16), or stays at a version forced.
 *
 * <p>Where the mock API server differs from a real one: a real API server keeps one object and converts it to the
 * version asked for (CAPI's conversion webhook); the mock keeps objects per version path and converts nothing. So
 * "upgrading Cluster API" here is the test writing each CAPI object again at {@code v1beta2}, in its v1beta2 shape,
 * and then changing what the API server serves ({@code serveCapiVersions}, which accepts the writes at a version
 * before it is served). A real API server also ends the open
 * watches of a version its CRD stops serving; the mock keeps them open, so the test restarts it to end them.
 *
 * <p>The v1beta2 objects written here also carry the v1beta1 names of the counters the rules read
 * ({@code updatedReplicas}), so that the decoder of v1beta1 fields reads them as the v1beta2 decoder does: the status
 * computed from them is the same either way, and a switch that only changes the version read must write nothing.
 */
class CapiVersionSwitchTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The object-state keys of the KubeadmControlPlane and MachineDeployment of Fleet's cluster alpha. */
    private static final String KCP = "alpha/KubeadmControlPlane.controlplane.cluster.x-k8s.io/" + CAPI + "/alpha";
    private static final String MD = "alpha/MachineDeployment.cluster.x-k8s.io/" + CAPI + "/alpha-md-0";
    /** The kinds whose version follows the setting; EtcdadmCluster stays at v1beta1. */
    private static final List<ObjectKind> FOLLOWING = ObjectIngest.CAPI_KINDS.stream()
            .filter(kind -> kind.versions().contains("v1beta2")).toList();

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());

    /** This run's settings, ingest reading Cluster API at {@code setting}, discovery asked every {@code every}. */
    private Pipeline.Settings settings(Setting setting, Duration every) {
        Pipeline.Settings s = pipelineRun.settings();
        ObjectIngest.Settings ingest = s.ingestSettings();
        return new Pipeline.Settings(s.kafka(), s.objectStatesTopic(), s.statusesTopic(), s.transitionsTopic(),
                s.deadLettersTopic(), s.createTopics(), s.partitions(), s.replicationFactor(), s.groupId(), s.ingest(),
                new ObjectIngest.Settings(ingest.capiNamespace(), ingest.clusterNamespaces(),
                        ingest.relistStalledAfter(), ingest.reconcileEvery(), ingest.stuckSendAfter(), setting, every),
                s.aggregatorSettings(), s.writerSettings(), s.cniSettings(), s.compatibilityConfigMap(),
                s.leadership());
    }

    @Test
    void ingestFollowsClusterApiFromV1beta1ToBothToV1beta2OnlyAndTheSwitchAloneWritesNothing() throws Exception {
        Pipeline pipeline = pipelineRun.start(settings(Setting.AUTO, Duration.ofMillis(500)));
        Fleet fleet = pipelineRun.fleet();
        assertEquals(readingAll("v1beta1"), pipeline.capiVersions(), "CAPI v1.10 serves v1beta1 only");
        fleet.createReady("alpha");
        await(DEADLINE, pipeline.aggregator()::settled, pipeline.aggregator()::progress);
        long writes = pipelineRun.writes();
        Object readySince = fleet.condition("default", "alpha", "Ready").get("lastTransitionTime");
        assertEquals("controlplane.cluster.x-k8s.io/v1beta1", apiVersion(KCP));
        List<ObjectStateRecord> before = objectStates();

        // CAPI v1.11: its objects at v1beta2 too (written here, see above), then served at both versions.
        pipelineRun.kubernetes().serveCapiVersions(List.of("v1beta2", "v1beta1"), () -> writeAtV1beta2("alpha"));
        await(DEADLINE, () -> pipeline.capiVersions().equals(readingAll("v1beta2")),
                () -> "read at " + pipeline.capiVersions());
        await(DEADLINE, () -> "controlplane.cluster.x-k8s.io/v1beta2".equals(apiVersion(KCP))
                && "cluster.x-k8s.io/v1beta2".equals(apiVersion(MD)), () -> "alpha's CAPI objects' records at v1beta2");
        await(DEADLINE, pipeline.aggregator()::settled, pipeline.aggregator()::progress);

        List<ObjectStateRecord> after = objectStates();
        assertTrue(after.size() > before.size(), "alpha's CAPI objects sent again");
        assertEquals(tombstones(before), tombstones(after), "no tombstone: the keys carry no version");
        assertEquals(writes, pipelineRun.writes(), "the same status computed from either version: nothing written");
        assertEquals(readySince, fleet.condition("default", "alpha", "Ready").get("lastTransitionTime"));
        assertEquals("True", fleet.condition("default", "alpha", "Ready").get("status"));

        // CAPI v1.16: v1beta2 only. Ingest already reads it; a watch at v1beta1 would now be answered 404.
        pipelineRun.kubernetes().serveCapiVersions(List.of("v1beta2"));
        pipelineRun.kubernetes().restart(); // ends the open watches, as a real server ends those of a version removed
        patchStatusAtV1beta2(ObjectKind.MACHINE_DEPLOYMENT, "alpha-md-0", """
                {"status": {"readyReplicas": 0, "availableReplicas": 0}}""");
        fleet.awaitCondition("alpha", "WorkersReady", "False", "ScalingUp",
                "Workers expected not ready yet, 1 replicas (actual 0)");
        assertEquals(readingAll("v1beta2"), pipeline.capiVersions());
        assertEquals(Optional.empty(), pipeline.capiVersionProblem());
    }

    @Test
    void aWatchAnswered404SwitchesAtOnceWithoutWaitingForThePeriodicCheck() throws Exception {
        Pipeline pipeline = pipelineRun.start(settings(Setting.AUTO, Duration.ofHours(1)));
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");
        await(DEADLINE, pipeline.aggregator()::settled, pipeline.aggregator()::progress);
        long writes = pipelineRun.writes();

        // From CAPI v1.10 straight to v1.16: v1beta1 no longer served, the next check an hour away.
        pipelineRun.kubernetes().serveCapiVersions(List.of("v1beta2"), () -> writeAtV1beta2("alpha"));
        pipelineRun.kubernetes().restart(); // the watches at v1beta1 end and are answered 404 when made again
        await(DEADLINE, () -> pipeline.capiVersions().equals(readingAll("v1beta2")),
                () -> "read at " + pipeline.capiVersions());
        await(DEADLINE, () -> "cluster.x-k8s.io/v1beta2".equals(apiVersion(MD)),
                () -> "the record of alpha's MachineDeployment at v1beta2");
        await(DEADLINE, pipeline.aggregator()::settled, pipeline.aggregator()::progress);
        assertEquals(writes, pipelineRun.writes(), "nothing written for the switch");
        assertEquals("True", fleet.condition("default", "alpha", "Ready").get("status"));
    }

    @Test
    void aForcedVersionIsKeptWhileServedAndReportedWhenNot() throws Exception {
        pipelineRun.kubernetes().serveCapiVersions(List.of("v1beta2", "v1beta1"));
        Pipeline pipeline = pipelineRun.start(settings(Setting.V1BETA1, Duration.ofMillis(500)));
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha"); // at v1beta1, which the setting forces though v1beta2 is served
        assertEquals(readingAll("v1beta1"), pipeline.capiVersions());

        pipelineRun.kubernetes().serveCapiVersions(List.of("v1beta2"));
        await(DEADLINE, () -> pipeline.capiVersionProblem().isPresent(), () -> "no problem reported");
        assertEquals(readingAll("v1beta1"), pipeline.capiVersions(), "forced: never another version");
        String problem = pipeline.capiVersionProblem().get();
        assertTrue(problem.contains("aggregator.capi.api-version is v1beta1, but the API server "
                + "serves machines.cluster.x-k8s.io at v1beta2 only"), problem);

        pipelineRun.kubernetes().serveCapiVersions(List.of("v1beta2", "v1beta1"));
        await(DEADLINE, () -> pipeline.capiVersionProblem().isEmpty(), () -> "still " + pipeline.capiVersionProblem());
    }

    private static Map<ObjectKind, String> readingAll(String version) {
        Map<ObjectKind, String> reading = new HashMap<>();
        ObjectIngest.CAPI_KINDS.forEach(kind -> reading.put(kind, FOLLOWING.contains(kind) ? version : "v1beta1"));
        return reading;
    }

    /** Fleet's cluster's KubeadmControlPlane and MachineDeployment written again at v1beta2, Ready as before. */
    private void writeAtV1beta2(String name) {
        KubernetesClient client = pipelineRun.kubernetes().client();
        atV1beta2(client, ObjectKind.KUBEADM_CONTROL_PLANE).inNamespace(CAPI).resource(object("""
                apiVersion: controlplane.cluster.x-k8s.io/v1beta2
                kind: KubeadmControlPlane
                metadata: {namespace: %s, name: %s, labels: {cluster.x-k8s.io/cluster-name: %s}}
                spec: {replicas: 1}
                """.formatted(CAPI, name, name))).create();
        patchStatusAtV1beta2(ObjectKind.KUBEADM_CONTROL_PLANE, name, """
                {"status": {"observedGeneration": 1, "initialization": {"controlPlaneInitialized": true}, "replicas": 1,
                 "upToDateReplicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
                 "conditions": [{"type": "Available", "status": "True", "reason": "Available", "message": "",
                   "lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": 1}],
                 "deprecated": {"v1beta1": {"readyReplicas": 1, "updatedReplicas": 1, "unavailableReplicas": 0,
                   "conditions": [{"type": "Ready", "status": "True",
                     "lastTransitionTime": "2026-12-01T00:00:00Z"}]}}}}""");
        atV1beta2(client, ObjectKind.MACHINE_DEPLOYMENT).inNamespace(CAPI).resource(object("""
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: MachineDeployment
                metadata: {namespace: %s, name: %s-md-0}
                spec: {clusterName: %s, replicas: 1}
                """.formatted(CAPI, name, name))).create();
        patchStatusAtV1beta2(ObjectKind.MACHINE_DEPLOYMENT, name + "-md-0", """
                {"status": {"observedGeneration": 1, "replicas": 1, "upToDateReplicas": 1, "updatedReplicas": 1,
                 "readyReplicas": 1, "availableReplicas": 1,
                 "conditions": [{"type": "Available", "status": "True", "reason": "Available", "message": "",
                   "lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": 1}],
                 "deprecated": {"v1beta1": {"readyReplicas": 1, "updatedReplicas": 1, "availableReplicas": 1}}}}""");
    }

    private void patchStatusAtV1beta2(ObjectKind kind, String name, String json) {
        atV1beta2(pipelineRun.kubernetes().client(), kind).inNamespace(CAPI).withName(name).subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }

    private static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>> atV1beta2(KubernetesClient client, ObjectKind kind) {
        return client.genericKubernetesResources(KubernetesResources.of(kind, "v1beta2"));
    }

    private GenericKubernetesResource object(String yaml) {
        return pipelineRun.kubernetes().client().getKubernetesSerialization()
                .unmarshal(yaml, GenericKubernetesResource.class);
    }

    /** One record of the object-state topic; {@code value} null for a tombstone. */
    private record ObjectStateRecord(String key, String value) {
    }

    /** Every record of the object-state topic, in each partition's order, partitions one after the other. */
    private List<ObjectStateRecord> objectStates() {
        Map<String, Object> properties = new HashMap<>(Map.of("bootstrap.servers", kafka.bootstrapServers()));
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        String topic = pipelineRun.settings().objectStatesTopic();
        List<ObjectStateRecord> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .sorted((a, b) -> a.partition() - b.partition()).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            for (TopicPartition partition : partitions) {
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                long deadline = System.nanoTime() + DEADLINE.toNanos();
                while (consumer.position(partition) < ends.get(partition) && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        records.add(new ObjectStateRecord(r.key(), r.value()));
                    }
                }
            }
        }
        return records;
    }

    /** The latest state on the object-state topic under {@code key}, or a missing node. */
    private JsonNode objectState(String key) {
        List<ObjectStateRecord> records = objectStates();
        for (int i = records.size() - 1; i >= 0; i--) {
            if (records.get(i).key().equals(key)) {
                try {
                    return records.get(i).value() == null ? JSON.missingNode() : JSON.readTree(records.get(i).value());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return JSON.missingNode();
    }

    private static List<String> tombstones(List<ObjectStateRecord> records) {
        return records.stream().filter(r -> r.value() == null).map(ObjectStateRecord::key).toList();
    }

    private String apiVersion(String key) {
        return objectState(key).path("apiVersion").asText();
    }
}
