package io.statusaggregator.model.json;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.CniState;
import io.statusaggregator.model.ClusterStatus.DefaultCni;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.ClusterStatus.WorkerNodeGroupStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.Severity;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The status an EKS-A Cluster shows, read from its tree for {@link ObjectDecoder} (the status documents' and the
 * Clusters'); {@link ClusterStatusReader} reads it the same from the bytes.
 */
final class ClusterStatusDecoder {
    private ClusterStatusDecoder() {
    }

    /**
     * The status an EKS-A Cluster shows. Conditions of types this aggregator does not own, and ones without a
     * transition time, say nothing the rules use and are skipped.
     */
    static ClusterStatus status(JsonFields status) throws MalformedObjectException {
        Optional<String> reason = status.string("failureReason").filter(r -> !r.isEmpty());
        Optional<String> message = status.string("failureMessage").filter(m -> !m.isEmpty());
        Optional<Failure> failure = reason.isPresent() || message.isPresent()
                ? Optional.of(new Failure(reason.orElse(""), message.orElse("")))
                : Optional.empty();
        Optional<DefaultCni> defaultCni = Optional.empty();
        if (status.has("defaultCNI")) {
            JsonFields cni = status.object("defaultCNI");
            Optional<Cni> name = cni.string("name").flatMap(Cni::of);
            if (name.isPresent()) {
                CniState state =
                        "Applied".equals(cni.string("status").orElse("")) ? CniState.APPLIED : CniState.NOT_APPLIED;
                defaultCni = Optional.of(new DefaultCni(name.get(), cni.string("version").orElse(""), state));
            }
        }
        List<Condition> conditions = new ArrayList<>();
        for (JsonFields condition : status.objects("conditions")) {
            Optional<ConditionType> type = condition.string("type").flatMap(ConditionType::of);
            Optional<ConditionStatus> conditionStatus = condition.string("status").flatMap(ConditionStatus::of);
            Optional<String> since = condition.string("lastTransitionTime");
            if (type.isEmpty() || conditionStatus.isEmpty() || since.isEmpty()) {
                continue;
            }
            Instant lastTransitionTime;
            try {
                lastTransitionTime = TransitionTimes.parse(since.get());
            } catch (DateTimeParseException e) {
                throw new MalformedObjectException(condition.pathOf("lastTransitionTime"),
                        "not an RFC 3339 time (like 2023-06-05T21:58:57Z): " + KubernetesNames.shown(since.get()));
            }
            conditions.add(new Condition(type.get(), conditionStatus.get(), condition.string("reason").orElse(""),
                    condition.string("message").orElse(""),
                    condition.string("severity").flatMap(Severity::of).orElse(Severity.NONE), lastTransitionTime));
        }
        List<WorkerNodeGroupStatus> groups = new ArrayList<>();
        for (JsonFields group : status.objects("workerNodeGroups")) {
            Optional<String> name = group.string("name");
            if (name.isPresent()) {
                groups.add(new WorkerNodeGroupStatus(
                        name.get(),
                        group.string("kubernetesVersion").flatMap(KubernetesVersion::parseSpec),
                        group.countOrZero("replicas"),
                        group.countOrZero("readyReplicas"),
                        group.countOrZero("upToDateReplicas")));
            }
        }
        JsonFields versions = status.object("versions");
        return new ClusterStatus(
                status.generation("observedGeneration").orElse(0L),
                failure,
                defaultCni,
                conditions,
                groups,
                new Versions(
                        versions.string("next"),
                        versions.string("current"),
                        versions.string("last"),
                        kubernetesVersions(versions)));
    }

    /** {@code status.versions.currentKubernetes}, written by this aggregator; unreadable parts count as not written. */
    private static Optional<KubernetesVersions> kubernetesVersions(JsonFields versions)
            throws MalformedObjectException {
        if (!versions.has("currentKubernetes")) {
            return Optional.empty();
        }
        JsonFields recorded = versions.object("currentKubernetes");
        List<KubernetesVersions.Group> groups = new ArrayList<>();
        for (JsonFields group : recorded.objects("workerNodeGroups")) {
            Optional<String> name = group.string("name");
            if (name.isEmpty()) {
                return Optional.empty();
            }
            groups.add(new KubernetesVersions.Group(
                    name.get(), group.string("kubernetesVersion").flatMap(KubernetesVersion::parseSpec)));
        }
        return Optional.of(new KubernetesVersions(
                recorded.string("kubernetesVersion").flatMap(KubernetesVersion::parseSpec), groups));
    }
}
