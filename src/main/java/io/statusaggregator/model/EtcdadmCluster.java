package io.statusaggregator.model;

/** The external etcd cluster ({@code etcdcluster.cluster.x-k8s.io} {@code EtcdadmCluster}); available when ready. */
public record EtcdadmCluster(ObjectKey key, String clusterName, boolean ready) implements ClusterMember {
    @Override
    public ObjectKind kind() {
        return ObjectKind.ETCDADM_CLUSTER;
    }
}
