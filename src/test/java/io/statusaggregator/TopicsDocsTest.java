package io.statusaggregator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.cloudevents.kafka.CloudEventSerializer;
import io.statusaggregator.cli.ComputeRunner;
import io.statusaggregator.topics.PublishedStatus;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.MalformedObject;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The example records of {@code docs/topics.md} are what the code writes: each is made here by the code that makes
 * the real one (ingest's reduction and key, the status document {@code compute} prints, a status change's CloudEvent,
 * a dead letter's error) from the demo fleet's scale-up of {@code delta}, and must stand in the document as it is.
 */
class TopicsDocsTest {
    private static final Path DOCUMENT = Path.of("docs/topics.md");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The MachineDeployment as the API server holds it; ingest keeps only what the rules read. */
    private static final String MACHINE_DEPLOYMENT = """
            apiVersion: cluster.x-k8s.io/v1beta2
            kind: MachineDeployment
            metadata:
              namespace: eksa-system
              name: delta-md-0
              uid: 3f1c2a4e-0000-4000-8000-000000000001
              generation: 2
              resourceVersion: "48213"
              creationTimestamp: "2026-11-22T01:37:05Z"
              labels: {cluster.x-k8s.io/cluster-name: delta}
              annotations: {machinedeployment.clusters.x-k8s.io/revision: "1"}
            spec:
              clusterName: delta
              replicas: 3
              template: {spec: {version: v1.31.4-eks-1-31-12}}
            status:
              observedGeneration: 2
              replicas: 3
              readyReplicas: 1
              availableReplicas: 1
              upToDateReplicas: 3
              phase: ScalingUp
              conditions:
                - {type: Available, status: "False", reason: NotAvailable, observedGeneration: 2,
                   lastTransitionTime: "2026-11-22T01:37:58Z", message: "1 available replicas, at least 3 required"}
                - {type: ScalingUp, status: "True", reason: ScalingUp, observedGeneration: 2,
                   lastTransitionTime: "2026-11-22T01:37:05Z", message: "Scaling up from 1 to 3 replicas"}
              deprecated:
                v1beta1:
                  readyReplicas: 1
                  updatedReplicas: 3
                  availableReplicas: 1
                  unavailableReplicas: 2
                  conditions:
                    - {type: Ready, status: "False", reason: WaitingForAvailableMachines, severity: Warning,
                       lastTransitionTime: "2026-11-22T01:37:58Z"}
            """;

    @Test
    void theObjectStateExampleIsWhatIngestSends() throws IOException {
        String key = new ObjectStateKey("delta", ObjectKind.MACHINE_DEPLOYMENT, new ObjectKey("eksa-system", "delta-md-0")).encode();
        assertDocumentHas("`" + key + "`");
        assertDocumentHas("partition " + ObjectStateKey.partitionOf("delta", 6) + " of 6");
        assertDocumentHasJson(ObjectReduction.reduce(ObjectKind.MACHINE_DEPLOYMENT, YAML.readTree(MACHINE_DEPLOYMENT)));
    }

    @Test
    void theStatusAndTransitionExamplesAreWhatAggregationPublishes() throws Exception {
        // delta Ready at generation 1 with one worker, then its spec asks for three (generation 2): one is ready.
        ComputeRunner.Result ready = ComputeRunner.compute(objects(1, 1, ""), Instant.parse("2026-11-22T01:37:21Z"), "eksa-system");
        JsonNode before = ready.statusOf("delta").orElseThrow();
        ComputeRunner.Result scaling = ComputeRunner.compute(objects(2, 3, "status: " + JSON.writeValueAsString(before)),
                Instant.parse("2026-11-22T01:37:58Z"), "eksa-system");
        JsonNode document = scaling.documents().get(0);
        assertDocumentHasJson(document);

        StatusChange change = new StatusChange(new ObjectKey("default", "delta"), 2,
                Optional.of(PublishedStatus.of(statusOf(cluster(1, 1, "status: " + JSON.writeValueAsString(before))))),
                Optional.of(PublishedStatus.of(statusOf(cluster(2, 3, "status: " + JSON.writeValueAsString(document.get("status")))))),
                new StatusChange.Progress(1, 1, 1, 3));
        RecordHeaders headers = new RecordHeaders();
        byte[] value;
        try (CloudEventSerializer serializer = new CloudEventSerializer()) {
            serializer.configure(Map.of(), false);
            value = serializer.serialize("cluster-transitions", headers,
                    TransitionFeed.event(change, Instant.parse("2026-11-22T01:37:59.104Z")));
        }
        headers.forEach(h -> assertDocumentHas(h.key() + ": " + new String(h.value(), StandardCharsets.UTF_8)));
        assertDocumentHasJson(JSON.readTree(value));
    }

    @Test
    void theDeadLetterErrorIsTheDecodersWords() throws Exception {
        JsonNode machine = YAML.readTree("""
                {apiVersion: cluster.x-k8s.io/v1beta1, kind: Machine,
                 metadata: {namespace: eksa-system, name: delta-md-0-7c9f4, labels: {cluster.x-k8s.io/cluster-name: delta}},
                 spec: {clusterName: delta, version: '1.x'}}
                """);
        try {
            ObjectDecoder.decode(machine);
            throw new AssertionError("the Machine decoded");
        } catch (MalformedObjectException e) {
            String error = new MalformedObject(ObjectKind.MACHINE, new ObjectKey("eksa-system", "delta-md-0-7c9f4"), e.getMessage()).describe();
            assertDocumentHas("dead-letter.error: " + error);
        }
        assertDocumentHas("`" + new ObjectStateKey("delta", ObjectKind.MACHINE, new ObjectKey("eksa-system", "delta-md-0-7c9f4")).encode() + "`");
    }

    private static io.statusaggregator.model.ClusterStatus statusOf(String clusterYaml) throws Exception {
        return ObjectDecoder.statusOf(YAML.readTree(clusterYaml));
    }

    private static String cluster(int generation, int workers, String status) {
        return """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: delta, generation: %d}
                spec:
                  kubernetesVersion: "1.31"
                  eksaVersion: v0.23.1
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [{name: md-0, count: %d}]
                  clusterNetwork: {cniConfig: {cilium: {}}}
                  managementCluster: {name: delta}
                %s
                """.formatted(generation, workers, status);
    }

    /** delta's objects with {@code workers} asked for and that many MachineDeployment replicas, one of them ready. */
    private static String objects(int generation, int workers, String status) {
        return "---\n" + cluster(generation, workers, status) + """
                ---
                apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                kind: KubeadmControlPlane
                metadata: {namespace: eksa-system, name: delta, generation: 1, labels: {cluster.x-k8s.io/cluster-name: delta}}
                status: {observedGeneration: 1, initialized: true, replicas: 1, updatedReplicas: 1, readyReplicas: 1,
                         conditions: [{type: Available, status: "True"}]}
                ---
                apiVersion: cluster.x-k8s.io/v1beta1
                kind: MachineDeployment
                metadata: {namespace: eksa-system, name: delta-md-0, generation: %d}
                spec: {clusterName: delta}
                status: {observedGeneration: %d, replicas: %d, updatedReplicas: %d, readyReplicas: 1}
                ---
                apiVersion: statusaggregator.io/v1alpha1
                kind: CNIObservation
                metadata: {namespace: eksa-system, name: delta}
                spec: {clusterName: delta, cni: cilium, version: v1.15.16-eksa.1, ready: true}
                """.formatted(generation, generation, workers, workers);
    }

    private static void assertDocumentHas(String text) {
        try {
            assertTrue(Files.readString(DOCUMENT).contains(text), () -> DOCUMENT + " should contain: " + text);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** One of the document's {@code json} code blocks is {@code expected}, as JSON (layout aside). */
    private static void assertDocumentHasJson(JsonNode expected) throws IOException {
        List<JsonNode> blocks = jsonBlocks();
        assertTrue(blocks.contains(expected), () -> DOCUMENT + " has no json block equal to:\n" + expected);
    }

    private static List<JsonNode> jsonBlocks() throws IOException {
        List<JsonNode> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (String line : Files.readAllLines(DOCUMENT)) {
            if (block == null && line.strip().equals("```json")) {
                block = new StringBuilder();
            } else if (block != null && line.strip().equals("```")) {
                blocks.add(JSON.readTree(block.toString()));
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        assertEquals(null, block, "an unclosed json block in " + DOCUMENT);
        return blocks;
    }
}
