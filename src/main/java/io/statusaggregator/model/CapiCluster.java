package io.statusaggregator.model;

import java.util.Optional;

/** The Cluster API {@code Cluster}: only the references that name its control plane and external etcd. */
public record CapiCluster(ObjectKey key, Optional<String> controlPlaneRef, Optional<String> managedExternalEtcdRef)
        implements ClusterMember {
    @Override
    public ObjectKind kind() {
        return ObjectKind.CAPI_CLUSTER;
    }

    @Override
    public String clusterName() {
        return key.name();
    }
}
