package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.EksaReleaseName;
import io.statusaggregator.model.ObjectKind;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

/**
 * The management cluster's API as the demo fleet's simulated controllers write it: objects created, specs replaced
 * (the generation goes up), statuses written through the status subresource when they change, objects deleted.
 */
final class ManagementClusterApi {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String capiNamespace;
    private final Clock clock;
    /** The version the Cluster API kinds are written at; the other kinds have one version. */
    private final CapiApiVersion capiVersion;
    /** The status last written to each CAPI object, by kind/namespace/name: only a change is written. */
    private final Map<String, ObjectNode> writtenStatus = new HashMap<>();

    ManagementClusterApi(KubernetesClient client, String capiNamespace, Clock clock, CapiApiVersion capiVersion) {
        this.client = client;
        this.capiNamespace = capiNamespace;
        this.clock = clock;
        this.capiVersion = capiVersion;
    }

    /**
     * Writes an object's status through the status subresource, if it changed since the last write. A condition whose
     * status is unchanged keeps its {@code lastTransitionTime}.
     */
    void writeStatus(ObjectKind kind, String name, Map<String, Object> computed) {
        String key = kind.qualifiedName() + "/" + capiNamespace + "/" + name;
        ObjectNode status = JSON.valueToTree(computed);
        ObjectNode previous = writtenStatus.get(key);
        stampTransitions(status, previous);
        if (status.equals(previous)) {
            return;
        }
        resources(kind).inNamespace(capiNamespace).withName(name).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), replace("/status", status));
        writtenStatus.put(key, status);
    }

    /**
     * Stamps each condition's {@code lastTransitionTime}: now, or when its status last changed. The v1beta1 conditions
     * a v1beta2 status keeps under {@code deprecated.v1beta1} are stamped alike.
     */
    private void stampTransitions(ObjectNode status, ObjectNode previous) {
        String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        stamp(status.path("conditions"), previous == null ? null : previous.path("conditions"), now);
        stamp(status.path("deprecated").path("v1beta1").path("conditions"),
                previous == null ? null : previous.path("deprecated").path("v1beta1").path("conditions"), now);
    }

    private static void stamp(JsonNode conditions, JsonNode previous, String now) {
        for (JsonNode condition : conditions) {
            String since = now;
            if (previous != null) {
                for (JsonNode before : previous) {
                    if (before.path("type").equals(condition.path("type"))
                            && before.path("status").equals(condition.path("status"))) {
                        since = before.path("lastTransitionTime").asText(now);
                    }
                }
            }
            ((ObjectNode) condition).put("lastTransitionTime", since);
        }
    }

    long generationOf(ObjectKind kind, String name) {
        GenericKubernetesResource object = resources(kind).inNamespace(capiNamespace).withName(name).get();
        if (object == null || object.getMetadata().getGeneration() == null) {
            return 1;
        }
        return object.getMetadata().getGeneration();
    }

    private MixedOperation<
                    GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            resources(ObjectKind kind) {
        return client.genericKubernetesResources(resource(kind, capiVersion));
    }

    /** The resource of {@code kind} at {@code capiVersion} where it has that version, else at its one version. */
    static ResourceDefinitionContext resource(ObjectKind kind, CapiApiVersion capiVersion) {
        return kind.versions().contains(capiVersion.version())
                ? KubernetesResources.of(kind, capiVersion.version()) : KubernetesResources.of(kind);
    }

    void create(ObjectKind kind, Map<String, Object> object) {
        GenericKubernetesResource resource =
                client.getKubernetesSerialization().convertValue(object, GenericKubernetesResource.class);
        resources(kind).inNamespace(resource.getMetadata().getNamespace()).resource(resource).create();
    }

    /** Replaces the spec: the generation goes up. */
    void patchSpec(ObjectKind kind, String name, Map<String, Object> spec) {
        resources(kind).inNamespace(capiNamespace).withName(name)
                .patch(PatchContext.of(PatchType.JSON), replace("/spec", JSON.valueToTree(spec)));
    }

    void patchEksaSpec(SimulatedCluster cluster) {
        resources(ObjectKind.EKSA_CLUSTER)
                .inNamespace(FleetSimulator.CLUSTER_NAMESPACE)
                .withName(cluster.name)
                .patch(
                        PatchContext.of(PatchType.JSON),
                        replace("/spec", JSON.valueToTree(CapiObjects.eksaClusterSpec(cluster))));
    }

    /**
     * A JSON Patch (RFC 6902) that sets one field whole ({@code add} replaces a member that exists). Not a merge patch:
     * the embedded API server (Fabric8's mock) merges the lists of a JSON merge patch into the stored ones instead of
     * replacing them, so conditions and worker node groups would pile up; a JSON Patch it applies as a real server
     * does.
     */
    static String replace(String path, JsonNode value) {
        ObjectNode operation = JSON.createObjectNode();
        operation.put("op", "add");
        operation.put("path", path);
        operation.set("value", value);
        return JSON.createArrayNode().add(operation).toString();
    }

    void delete(ObjectKind kind, String namespace, String name) {
        resources(kind).inNamespace(namespace).withName(name).delete();
        writtenStatus.remove(kind.qualifiedName() + "/" + namespace + "/" + name);
    }

    /**
     * The EKSARelease objects, as the EKS-A installation puts them in the management cluster: the fleet's own, and
     * newer ones it could upgrade to (what {@code upgrade-check} plans with).
     */
    void ensureRelease() {
        var releases = client.genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(capiNamespace);
        int bundles = 1;
        for (String version : FleetSimulator.AVAILABLE_RELEASES) {
            String name = EksaReleaseName.of(version);
            if (releases.withName(name).get() == null) {
                releases.resource(client.getKubernetesSerialization()
                                .unmarshal(
                                        """
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: EKSARelease
                        metadata: {name: %s, namespace: %s}
                        spec: {version: %s, bundlesRef: {name: bundles-%d, namespace: eksa-system}}
                        """
                                                .formatted(name, capiNamespace, version, bundles),
                                        GenericKubernetesResource.class))
                        .create();
            }
            bundles++;
        }
    }

    void ensureNamespace(String name) {
        if (client.namespaces().withName(name).get() == null) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .endMetadata()
                            .build())
                    .create();
        }
    }
}
