package io.statusaggregator.model;

import java.util.Optional;

/** What was observed of the CNI running in a workload cluster. */
public record CniObservation(ObjectKey key, String clusterName, Cni cni, Optional<String> version, boolean ready)
        implements ClusterMember {
    @Override
    public ObjectKind kind() {
        return ObjectKind.CNI_OBSERVATION;
    }
}
