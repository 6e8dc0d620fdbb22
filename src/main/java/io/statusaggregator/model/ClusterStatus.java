package io.statusaggregator.model;

import java.util.List;
import java.util.Optional;

/**
 * The status of an EKS-A Cluster as far as this aggregator owns it: computed by the rules, or read back from the
 * Cluster (where any part may be missing).
 */
public record ClusterStatus(long observedGeneration, Optional<Failure> failure, Optional<DefaultCni> defaultCni,
        List<Condition> conditions) {
    public static final ClusterStatus NONE = new ClusterStatus(0, Optional.empty(), Optional.empty(), List.of());

    public ClusterStatus {
        conditions = List.copyOf(conditions);
    }

    public Optional<Condition> condition(ConditionType type) {
        return conditions.stream().filter(c -> c.type() == type).findFirst();
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
