package io.statusaggregator.model;

import java.util.Optional;

/**
 * What was observed of the CNI running in a workload cluster.
 *
 * @param problem why the CNI cannot be observed now (the workload cluster unreachable, its kubeconfig unusable);
 *                {@code version} and {@code ready} are then the last ones seen, if any
 */
public record CniObservation(ObjectKey key, String clusterName, Cni cni, Optional<String> version, boolean ready,
        Optional<String> problem) implements ClusterMember {
    @Override
    public ObjectKind kind() {
        return ObjectKind.CNI_OBSERVATION;
    }
}
