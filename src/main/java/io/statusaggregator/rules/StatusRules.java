package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.MalformedObject;
import io.statusaggregator.versions.VersionHistory;
import io.statusaggregator.versions.VersionRules;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/** The whole status of one cluster from its snapshot: every condition, the failure pair and {@code defaultCNI}. */
public final class StatusRules {
    private StatusRules() {
    }

    /**
     * @param now the time a condition whose status changes is stamped with (Kubernetes keeps whole seconds)
     */
    public static ClusterStatus compute(ClusterSnapshot snapshot, Instant now) {
        ClusterStatus previous = snapshot.cluster().status();
        Instant stamp = now.truncatedTo(ChronoUnit.SECONDS);
        Optional<MalformedObject> unreadableSpec = MalformedInputs.ofCluster(snapshot);
        if (unreadableSpec.isPresent()) {
            return MalformedInputs.unreadableCluster(snapshot, unreadableSpec.get(), stamp);
        }
        Verdict initialized = ControlPlaneInitialized.evaluate(snapshot);
        if (!initialized.isTrue()) {
            initialized = MalformedInputs.holdingBack(snapshot, ConditionType.CONTROL_PLANE_INITIALIZED)
                    .orElse(initialized);
        }
        Verdict controlPlane = MalformedInputs.holdingBack(snapshot, ConditionType.CONTROL_PLANE_READY)
                .orElseGet(() -> ControlPlaneReady.evaluate(snapshot));
        boolean controlPlaneInitialized = initialized.isTrue();
        Verdict workers = MalformedInputs.holdingBack(snapshot, ConditionType.WORKERS_READY)
                .orElseGet(() -> WorkersReady.evaluate(snapshot, controlPlaneInitialized));
        Verdict cni = MalformedInputs.holdingBack(snapshot, ConditionType.DEFAULT_CNI_CONFIGURED)
                .orElseGet(() -> DefaultCniConfigured.evaluate(snapshot));
        Optional<Failure> raised = ClusterNameConflict.check(snapshot).or(() -> VersionRules.check(snapshot.cluster(),
                snapshot.management(), snapshot.supportedKubernetes()));
        Optional<Failure> failure = FailureState.resolve(raised, previous);
        Verdict ready = Ready.evaluate(controlPlane, workers, cni, failure);

        List<Condition> conditions = List.of(
                stamped(ConditionType.CONTROL_PLANE_INITIALIZED, initialized, previous, stamp),
                stamped(ConditionType.CONTROL_PLANE_READY, controlPlane, previous, stamp),
                stamped(ConditionType.WORKERS_READY, workers, previous, stamp),
                stamped(ConditionType.DEFAULT_CNI_CONFIGURED, cni, previous, stamp),
                stamped(ConditionType.READY, ready, previous, stamp));
        return new ClusterStatus(
                snapshot.cluster().generation(),
                failure.map(f -> new Failure(f.reason(), bounded(f.message()))),
                Optional.of(DefaultCniConfigured.summary(snapshot, cni)),
                conditions,
                WorkerNodeGroups.summarize(snapshot),
                VersionHistory.advance(snapshot.cluster(), ready.isTrue()));
    }

    /** {@code lastTransitionTime} moves only when the condition's status changes. */
    static Condition stamped(ConditionType type, Verdict verdict, ClusterStatus previous, Instant now) {
        Instant since = previous.condition(type)
                .filter(c -> c.status() == verdict.status())
                .map(Condition::lastTransitionTime)
                .orElse(now);
        return new Condition(
                type, verdict.status(), verdict.reason(), bounded(verdict.message()), verdict.severity(), since);
    }

    /**
     * The most characters a condition's message or the failure message carries: the EKS-A Cluster CRD's limit for a
     * condition message. Some are copied from other objects (a KubeadmControlPlane's condition, often several lines at
     * v1beta2; a failure another writer set), whose text has no limit there: cut to this, the status stays one the
     * API server takes, and five of them stay far below what Kafka takes (a record of 1 MiB by default).
     */
    static final int LONGEST_MESSAGE = 10_240;

    static String bounded(String message) {
        if (message.length() <= LONGEST_MESSAGE) {
            return message;
        }
        int cut = LONGEST_MESSAGE - 3;
        return message.substring(0, Character.isHighSurrogate(message.charAt(cut - 1)) ? cut - 1 : cut) + "...";
    }
}
