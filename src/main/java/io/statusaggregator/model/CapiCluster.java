package io.statusaggregator.model;

import java.util.Optional;

/**
 * The Cluster API {@code Cluster}, read at its own API version: the references that name its control plane and
 * external etcd, and its conditions (the v1beta2 {@code RemoteConnectionProbe} says whether the management cluster
 * reaches the workload cluster's API).
 *
 * @param controlPlaneInitialized at v1beta2, {@code status.initialization.controlPlaneInitialized} or the condition
 *                                {@code ControlPlaneInitialized} True; always false at v1beta1, where the rules read
 *                                the KubeadmControlPlane alone
 */
public record CapiCluster(ObjectKey key, CapiApiVersion apiVersion, Optional<String> controlPlaneRef,
        Optional<String> managedExternalEtcdRef, boolean controlPlaneInitialized, ObservedConditions conditions)
        implements ClusterMember {
    public static final String CONTROL_PLANE_INITIALIZED = "ControlPlaneInitialized";
    public static final String REMOTE_CONNECTION_PROBE = "RemoteConnectionProbe";
    public static final String DELETING = "Deleting";

    @Override
    public ObjectKind kind() {
        return ObjectKind.CAPI_CLUSTER;
    }

    @Override
    public String clusterName() {
        return key.name();
    }

    /**
     * Whether the management cluster reaches the workload cluster's API, where this Cluster says so: its
     * {@code RemoteConnectionProbe} when True or False, at v1beta2, once the control plane is initialized and while the
     * Cluster is not being deleted. Empty otherwise: before the first connection CAPI reports it False ("Remote
     * connection not established yet") for as long as a new control plane takes to come up, and a Cluster being
     * deleted loses its API on purpose; v1beta1 has no such condition.
     */
    public Optional<ObservedCondition> remoteConnection() {
        if (apiVersion != CapiApiVersion.V1BETA2 || !controlPlaneInitialized || conditions.isTrue(DELETING)) {
            return Optional.empty();
        }
        return conditions.get(REMOTE_CONNECTION_PROBE).filter(c -> c.isTrue() || c.isFalse());
    }
}
