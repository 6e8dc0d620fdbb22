package io.statusaggregator.operations;

import io.statusaggregator.model.Pure;
import java.util.ArrayList;
import java.util.List;

/**
 * The per-cluster metrics: each one's Prometheus name, help text and labels, in order. Every one is a gauge, labelled
 * first by the EKS-A Cluster's {@code namespace} and {@code name}. docs/deploy.md lists them with their cardinality.
 */
@Pure
public enum ClusterMetric {
    CONDITION("eksa_cluster_status_condition",
            "The EKS-A Cluster's status conditions: 1 for the condition's current status, 0 for the other two",
            "type", "status"),
    CONDITION_LAST_TRANSITION("eksa_cluster_status_condition_last_transition_time_seconds",
            "When the EKS-A Cluster's condition last changed status (lastTransitionTime), in seconds since the epoch",
            "type", "status"),
    CONDITION_SEVERITY("eksa_cluster_status_condition_severity",
            "The severity of the EKS-A Cluster's conditions: 1 for a condition's current severity, 0 for the other two"
                    + " (all 0 while it is True)",
            "type", "severity"),
    INFO("eksa_cluster_info",
            "The EKS-A Cluster's spec: its Kubernetes and EKS-A versions and its default CNI; always 1",
            "kubernetes_version", "eksa_version", "cni"),
    GENERATION("eksa_cluster_generation", "The EKS-A Cluster's metadata.generation"),
    OBSERVED_GENERATION("eksa_cluster_observed_generation",
            "The generation of the EKS-A Cluster its status was computed from (status.observedGeneration)"),
    WORKER_GROUP_READY("eksa_cluster_worker_group_replicas_ready",
            "Ready nodes of the worker node group (status.workerNodeGroups[].readyReplicas)", "worker_group"),
    WORKER_GROUP_DESIRED(
            "eksa_cluster_worker_group_replicas_desired",
            "Nodes the worker node group asks for (spec.workerNodeGroupConfigurations[].count); not for autoscaled"
                    + " groups",
            "worker_group"),
    REMOTE_CONNECTION("eksa_cluster_remote_connection_up",
            "Whether the management cluster reaches the workload cluster's API: 1 while the CAPI Cluster's"
                    + " RemoteConnectionProbe is True, 0 while False; only from a v1beta2 CAPI Cluster whose control"
                    + " plane is initialized and that is not being deleted");

    private final String metricName;
    private final String help;
    private final List<String> labels;

    ClusterMetric(String metricName, String help, String... ownLabels) {
        this.metricName = metricName;
        this.help = help;
        ArrayList<String> all = new ArrayList<>(List.of("namespace", "name"));
        all.addAll(List.of(ownLabels));
        this.labels = List.copyOf(all);
    }

    /** The name Prometheus shows. */
    public String metricName() {
        return metricName;
    }

    public String help() {
        return help;
    }

    /** The label names, in the order a series of this metric gives their values. */
    public List<String> labels() {
        return labels;
    }
}
