package io.statusaggregator.writeback;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.StatusEncoder;

/**
 * Where {@link StatusWriter} writes: the EKS-A Cluster's status subresource on the API server, by a JSON merge patch
 * ({@link #mergePatch}) on condition of the Cluster's version, answered with the Cluster as stored.
 */
final class StatusSubresource implements StatusWriter.Destination {
    private final KubernetesClient client;

    StatusSubresource(KubernetesClient client) {
        // Retries are the writer's, per cluster: the client's own (which would hold a writer thread through its
        // backoff on a 5xx or a connection failure) are switched off.
        this.client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build())
                .build();
    }

    @Override
    public StatusWriter.Stored write(ObjectKey cluster, ClusterStatus status, String expectedVersion) {
        // Patching through a named resource makes Fabric8 GET it first; through an item it sends the PATCH alone.
        GenericKubernetesResource target = new GenericKubernetesResourceBuilder()
                .withApiVersion(ObjectKind.EKSA_CLUSTER.apiVersion())
                .withKind(ObjectKind.EKSA_CLUSTER.kind())
                .withNewMetadata().withNamespace(cluster.namespace()).withName(cluster.name()).endMetadata()
                .build();
        GenericKubernetesResource stored = client.genericKubernetesResources(
                        KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                .inNamespace(cluster.namespace())
                .resource(target)
                .subresource("status")
                .patch(
                        new PatchContext.Builder()
                                .withPatchType(PatchType.JSON_MERGE)
                                .withFieldManager(StatusWriter.FIELD_MANAGER)
                                .build(),
                        mergePatch(status, expectedVersion));
        if (stored == null) {
            return new StatusWriter.Stored(status, "");
        }
        String version = stored.getMetadata() == null || stored.getMetadata().getResourceVersion() == null ? ""
                : stored.getMetadata().getResourceVersion();
        try {
            return new StatusWriter.Stored(
                    ObjectDecoder.statusOf(client.getKubernetesSerialization().convertValue(stored, JsonNode.class)),
                    version);
        } catch (MalformedObjectException | IllegalArgumentException e) {
            return new StatusWriter.Stored(status, version); // its next state on the topic says what is wrong with it
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** The fields this aggregator owns that the encoding leaves out when empty; a merge patch must null them. */
    private static final String[] CLEARED_WHEN_EMPTY = {
        "failureReason",
        "failureMessage",
        "defaultCNI.version",
        "workerNodeGroups",
        "versions.next",
        "versions.current",
        "versions.last",
        "versions.currentKubernetes"
    };

    /**
     * The merge patch: every field this aggregator owns, with an explicit null for each one that is empty now (a
     * merge patch leaves alone what it does not name). Lists ({@code conditions}, {@code workerNodeGroups}) are
     * replaced whole. With {@code expectedVersion} (not empty) as {@code metadata.resourceVersion}: the API server then
     * makes the write only if the Cluster is at that version, and answers 409 otherwise.
     */
    static String mergePatch(ClusterStatus status, String expectedVersion) {
        ObjectNode encoded = StatusEncoder.encode(status);
        for (String path : CLEARED_WHEN_EMPTY) {
            ObjectNode parent = encoded;
            String[] steps = path.split("\\.");
            for (int i = 0; i < steps.length - 1; i++) {
                parent = parent.has(steps[i]) ? (ObjectNode) parent.get(steps[i]) : parent.putObject(steps[i]);
            }
            if (!parent.has(steps[steps.length - 1])) {
                parent.putNull(steps[steps.length - 1]);
            }
        }
        JsonNode recorded = encoded.path("versions").path("currentKubernetes");
        if (recorded.isObject() && !recorded.has("kubernetesVersion")) {
            ((ObjectNode) recorded).putNull("kubernetesVersion"); // an object is merged, not replaced
        }
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        if (!expectedVersion.isEmpty()) {
            patch.putObject("metadata").put("resourceVersion", expectedVersion);
        }
        patch.set("status", encoded);
        return patch.toString();
    }
}
