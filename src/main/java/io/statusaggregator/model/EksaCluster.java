package io.statusaggregator.model;

import java.util.Map;

/**
 * The user-facing EKS Anywhere {@code Cluster}: its spec, its generation, and the status it shows now (written
 * by this aggregator or by another controller), which is an input of the rules.
 *
 * @param specHash the hash of the whole spec as stored, for the version history (see {@code model.json.SpecHash})
 * @param resourceVersion the API server's version of this state, opaque: a status computed from it is written on
 *                        condition that the Cluster is still at it; empty when the record has none
 */
public record EksaCluster(ObjectKey key, String apiVersion, long generation, Map<String, String> annotations,
        EksaClusterSpec spec, String specHash, ClusterStatus status, String resourceVersion) implements KubernetesObject {
    public EksaCluster {
        annotations = Map.copyOf(annotations);
        resourceVersion = resourceVersion == null ? "" : resourceVersion;
    }

    /** The same Cluster as if it showed {@code shown} as its status. */
    public EksaCluster withStatus(ClusterStatus shown) {
        return new EksaCluster(key, apiVersion, generation, annotations, spec, specHash, shown, resourceVersion);
    }

    /** Whether this Cluster manages itself, as a management cluster does (a spec naming no manager counts as one). */
    public boolean isManagement() {
        return spec.managementCluster().map(key.name()::equals).orElse(true);
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.EKSA_CLUSTER;
    }
}
