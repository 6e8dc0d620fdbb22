package io.statusaggregator.describe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.rules.ClusterNameConflict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what {@link ClusterTree} draws from the Kubernetes API: the EKS-A Cluster and the CAPI objects of its cluster
 * in the CAPI namespace. {@code describe} and the fleet page's cluster view both read through this, with the same
 * verbs: {@code get} on the EKS-A Cluster, {@code list} on the CAPI kinds (the application's Role lists them and gets
 * none, and {@code describe} may run with it in a pod).
 */
public final class ClusterObjects {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ObjectKind> CAPI_KINDS = List.of(
            ObjectKind.CAPI_CLUSTER,
            ObjectKind.KUBEADM_CONTROL_PLANE,
            ObjectKind.MACHINE_DEPLOYMENT,
            ObjectKind.MACHINE,
            ObjectKind.ETCDADM_CLUSTER);
    /** The names EKS-A gives a cluster's one-of-a-kind objects: the cluster's name and this. */
    private static final Map<ObjectKind, String> NAMED = Map.of(ObjectKind.CAPI_CLUSTER, "",
            ObjectKind.KUBEADM_CONTROL_PLANE, "", ObjectKind.ETCDADM_CLUSTER, "-etcd");

    /** A cluster's objects as the API serves them: the EKS-A Cluster, and its CAPI objects in any order. */
    public record Found(JsonNode cluster, List<JsonNode> capi) {
        public List<ClusterTree.Line> tree(ClusterTree.Options options, Instant now) {
            return ClusterTree.of(cluster, capi, options, now);
        }

        /** The tree, and where {@code verdict}, the aggregator's status of the cluster, differs from the stored one. */
        public List<ClusterTree.Line> tree(Optional<JsonNode> verdict, ClusterTree.Options options, Instant now) {
            return ClusterTree.of(cluster, capi, verdict, options, now);
        }
    }

    private final KubernetesClient api;
    private final String capiNamespace;

    public ClusterObjects(KubernetesClient api, String capiNamespace) {
        this.api = api;
        this.capiNamespace = capiNamespace;
    }

    /** Where the objects are read from, for error messages. */
    public String apiServer() {
        return String.valueOf(api.getConfiguration().getMasterUrl());
    }

    /**
     * The cluster's objects, or empty when there is no such EKS-A Cluster.
     *
     * @throws KubernetesClientException when the API server cannot be reached or refuses
     */
    public Optional<Found> read(ObjectKey key) {
        GenericKubernetesResource found = api.genericKubernetesResources(
                        KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                .inNamespace(key.namespace())
                .withName(key.name())
                .get();
        if (found == null) {
            return Optional.empty();
        }
        List<JsonNode> capi = new ArrayList<>();
        JsonNode cluster = JSON.valueToTree(found);
        if (ClusterNameConflict.REASON.equals(cluster.path("status").path("failureReason").asText())) {
            return Optional.of(new Found(cluster, capi)); // the name's CAPI objects are another namespace's Cluster's
        }
        for (ObjectKind kind : CAPI_KINDS) {
            List<GenericKubernetesResource> labelled = newest(kind, true, key.name());
            labelled.forEach(o -> capi.add(JSON.valueToTree(o)));
            if (labelled.isEmpty() && NAMED.containsKey(kind)) {
                // Objects EKS-A names after the cluster need not carry the label: listed and picked by name.
                newest(kind, false, key.name()).stream()
                        .filter(o -> o.getMetadata().getName().equals(key.name() + NAMED.get(kind)))
                        .forEach(o -> capi.add(JSON.valueToTree(o)));
            }
        }
        return Optional.of(new Found(cluster, capi));
    }

    /**
     * The objects of {@code kind} in the CAPI namespace ({@code labelled}: those of cluster {@code name}), at the
     * newest of its versions that has them: CAPI v1.11 on serves v1beta2 beside v1beta1, and a v1beta2 object says
     * more (its counters, its conditions). A version the API server does not serve answers 404: the next is asked
     * (CAPI v1.16 on serves no v1beta1: an empty v1beta2 answer stands). A real API server lists the same objects at
     * each version it serves, so an empty newer list costs one more list only; the embedded and mock API servers keep
     * each version's objects apart, which this also reads.
     */
    private List<GenericKubernetesResource> newest(ObjectKind kind, boolean labelled, String name) {
        List<String> versions = kind.versions();
        Optional<List<GenericKubernetesResource>> answered = Optional.empty();
        for (int i = 0; i < versions.size(); i++) {
            var resources = api.genericKubernetesResources(KubernetesResources.of(kind, versions.get(i)))
                    .inNamespace(capiNamespace);
            try {
                List<GenericKubernetesResource> items = (labelled
                        ? resources.withLabel(ObjectDecoder.CLUSTER_NAME_LABEL, name) : resources).list().getItems();
                if (!items.isEmpty()) {
                    return items;
                }
                answered = Optional.of(items);
            } catch (KubernetesClientException e) {
                // Not served at this version: the next; at none, the API server's answer (CAPI not installed).
                if (e.getCode() != 404 || answered.isEmpty() && i == versions.size() - 1) {
                    throw e;
                }
            }
        }
        return answered.orElseThrow(); // a version answered, empty; or the loop threw
    }
}
