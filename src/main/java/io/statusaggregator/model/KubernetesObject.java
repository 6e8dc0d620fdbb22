package io.statusaggregator.model;

/** An object the status rules read, reduced to the fields they need. */
public sealed interface KubernetesObject
        permits EksaCluster, ClusterMember {
    ObjectKind kind();

    ObjectKey key();
}
