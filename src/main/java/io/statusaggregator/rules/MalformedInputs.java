package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.MalformedObject;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.Severity;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Objects of the cluster that exist but cannot be read. Computing without them would say something false (a
 * MachineDeployment left out reads as "actual 0"), so the condition that reads such an object says it cannot, by
 * name and field, with reason {@value #REASON} and severity Error; Ready follows as for any condition. An EKS-A
 * Cluster whose own spec cannot be read has nothing to compute from: it shows that failure (see
 * {@link #unreadableCluster}).
 */
public final class MalformedInputs {
    /** The reason of a condition, and of the failure pair, that an unreadable object holds back. */
    public static final String REASON = "MalformedObject";

    private MalformedInputs() {
    }

    /** The condition that reads objects of {@code kind}. */
    static ConditionType readBy(ObjectKind kind) {
        return switch (kind) {
            case KUBEADM_CONTROL_PLANE, CAPI_CLUSTER, ETCDADM_CLUSTER -> ConditionType.CONTROL_PLANE_READY;
            case MACHINE_DEPLOYMENT, MACHINE -> ConditionType.WORKERS_READY;
            case CNI_OBSERVATION -> ConditionType.DEFAULT_CNI_CONFIGURED;
            case EKSA_CLUSTER -> ConditionType.READY;
        };
    }

    /** False for {@code condition} when an object it reads cannot be read; empty otherwise. */
    static Optional<Verdict> holdingBack(ClusterSnapshot snapshot, ConditionType condition) {
        List<MalformedObject> unreadable = snapshot.malformed().stream()
                .filter(m -> readBy(m.kind()) == condition
                        || condition == ConditionType.CONTROL_PLANE_INITIALIZED
                                && m.kind() == ObjectKind.KUBEADM_CONTROL_PLANE)
                .toList();
        if (unreadable.isEmpty()) {
            return Optional.empty();
        }
        String more = unreadable.size() > 1 ? " (and %d more)".formatted(unreadable.size() - 1) : "";
        return Optional.of(Verdict.notMet(REASON, unreadable.get(0).describe() + more, Severity.ERROR));
    }

    /** The EKS-A Cluster's own problem, when its spec cannot be read. */
    static Optional<MalformedObject> ofCluster(ClusterSnapshot snapshot) {
        return snapshot.malformed().stream().filter(m -> m.kind() == ObjectKind.EKSA_CLUSTER).findFirst();
    }

    /** Whether this aggregator raised {@code failure}: it clears it once the Cluster can be read again. */
    static boolean raises(Failure failure) {
        return failure.reason().equals(REASON);
    }

    /**
     * The status of a Cluster whose spec cannot be read: {@code failureReason}/{@code failureMessage} say why (the spec
     * cannot be realised), Ready is False with them, severity Error; the three conditions computed from the spec are
     * Unknown, saying why; ControlPlaneInitialized keeps its latch; the counts, CNI and versions shown are kept.
     */
    static ClusterStatus unreadableCluster(ClusterSnapshot snapshot, MalformedObject problem, Instant stamp) {
        ClusterStatus previous = snapshot.cluster().status();
        Verdict unknown = new Verdict(
                ConditionStatus.UNKNOWN, REASON, "Cannot be computed: " + problem.describe(), Severity.WARNING);
        boolean initialized = previous.condition(ConditionType.CONTROL_PLANE_INITIALIZED)
                .filter(c -> c.status() == ConditionStatus.TRUE).isPresent();
        Verdict ready = Verdict.notMet(REASON, problem.describe(), Severity.ERROR);
        return new ClusterStatus(
                snapshot.cluster().generation(),
                Optional.of(new Failure(REASON, problem.describe())),
                previous.defaultCni(),
                List.of(
                        StatusRules.stamped(
                                ConditionType.CONTROL_PLANE_INITIALIZED,
                                initialized ? Verdict.TRUE : unknown,
                                previous,
                                stamp),
                        StatusRules.stamped(ConditionType.CONTROL_PLANE_READY, unknown, previous, stamp),
                        StatusRules.stamped(ConditionType.WORKERS_READY, unknown, previous, stamp),
                        StatusRules.stamped(ConditionType.DEFAULT_CNI_CONFIGURED, unknown, previous, stamp),
                        StatusRules.stamped(ConditionType.READY, ready, previous, stamp)),
                previous.workerNodeGroups(),
                previous.versions());
    }
}
