package io.statusaggregator.model;

import java.util.List;
import java.util.Optional;

/**
 * The status of an EKS-A Cluster as far as this aggregator owns it: computed by the rules, or read back from the
 * Cluster (where any part may be missing).
 */
public record ClusterStatus(long observedGeneration, Optional<Failure> failure, Optional<DefaultCni> defaultCni,
        List<Condition> conditions, List<WorkerNodeGroupStatus> workerNodeGroups, Versions versions) {
    public static final ClusterStatus NONE =
            new ClusterStatus(0, Optional.empty(), Optional.empty(), List.of(), List.of(), Versions.NONE);

    public ClusterStatus {
        conditions = List.copyOf(conditions);
        workerNodeGroups = List.copyOf(workerNodeGroups);
    }

    /**
     * {@code status.workerNodeGroups[]}: where each worker node group stands, so that a modular upgrade shows which
     * group is behind.
     *
     * @param kubernetesVersion the group's desired version (its own, else the cluster's); empty when neither is set
     */
    public record WorkerNodeGroupStatus(String name, Optional<KubernetesVersion> kubernetesVersion,
            int replicas, int readyReplicas, int upToDateReplicas) {
    }

    /**
     * {@code status.versions}: {@code <release>#<spec hash>} of the spec being rolled out ({@code next}), of the
     * last one the cluster reached ({@code current}) and of the one before it ({@code last}, the rollback target).
     *
     * @param currentKubernetes the Kubernetes versions of the spec {@code current} names (this aggregator's addition to
     *                          versions.md: the change rules compare with them, and a hash cannot be read back)
     */
    public record Versions(Optional<String> next, Optional<String> current, Optional<String> last,
            Optional<KubernetesVersions> currentKubernetes) {
        public static final Versions NONE =
                new Versions(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

        /** A value without exactly one {@code #} counts as empty. */
        public Versions {
            next = next.filter(Versions::wellFormed);
            current = current.filter(Versions::wellFormed);
            last = last.filter(Versions::wellFormed);
        }

        private static boolean wellFormed(String value) {
            return value.indexOf('#') >= 0 && value.indexOf('#') == value.lastIndexOf('#');
        }
    }

    public Optional<Condition> condition(ConditionType type) {
        for (Condition condition : conditions) { // a loop: the rules and the feeds ask this for every computation
            if (condition.type() == type) {
                return Optional.of(condition);
            }
        }
        return Optional.empty();
    }

    /** {@code failureReason} and {@code failureMessage}, always set and cleared together. */
    public record Failure(String reason, String message) {
    }

    /** {@code defaultCNI}: the configured CNI, the version observed (empty if unknown), and whether it is applied. */
    public record DefaultCni(Cni name, String version, CniState status) {
    }

    public enum CniState {
        APPLIED("Applied"),
        NOT_APPLIED("NotApplied");

        private final String wireName;

        CniState(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }
}
