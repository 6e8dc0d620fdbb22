package io.statusaggregator.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import io.statusaggregator.topics.StatusChange;

/**
 * Which alerts the clusters of the transitions feed call for, and which of those already sent are over. Pure: events
 * and instants in, alerts out; the bridge does the I/O.
 *
 * <ul>
 * <li>{@value #NOT_READY}: Ready has not been True for {@code notReadyFor} or longer, counted from when it last left
 * True (Ready's {@code lastTransitionTime} in the first event that shows it not True, so a restarted bridge, which
 * reads the feed again, keeps the clock running). Severity {@code warning}: a cluster may just be slow to come up or
 * upgrade.</li>
 * <li>{@value #CONDITION_ERROR}: a condition with severity Error, one alert per condition, at once. Severity
 * {@code critical}: an Error condition does not heal by waiting.</li>
 * </ul>
 *
 * <p>An alert's identity (its labels) is the cluster, the condition and the severity: the reason and the message are
 * annotations, updated in place, so a rolling upgrade whose reason moves between RollingUpgradeInProgress and
 * OutdatedInformation is one alert, not one that resolves and fires again.
 *
 * <p>Each cluster remembers what Alertmanager was last told ({@link #delivered}), so that an alert that is no longer
 * called for is resolved explicitly; a deleted cluster resolves all of its alerts.
 */
@Pure
public final class ClusterAlerts {
    public static final String NOT_READY = "ClusterNotReady";
    public static final String CONDITION_ERROR = "ClusterConditionError";

    /**
     * An alert as Alertmanager takes it; the labels are its identity there.
     *
     * @param startsAt when it started firing; stable across re-evaluations and rebuilds, so a re-post is a duplicate
     */
    public record Alert(Map<String, String> labels, Map<String, String> annotations, Instant startsAt) {
        public Alert {
            labels = Collections.unmodifiableMap(new TreeMap<>(labels));
            annotations = Collections.unmodifiableMap(new TreeMap<>(annotations));
        }

        public String cluster() {
            return labels.get("cluster");
        }
    }

    /**
     * What should fire now (every cluster evaluated, with an empty list for a quiet one), and what was firing and no
     * longer should.
     */
    public record Evaluation(Map<String, List<Alert>> firingByCluster, List<Alert> resolved) {
        public List<Alert> firing() {
            return firingByCluster.values().stream().flatMap(List::stream).toList();
        }
    }

    /** An event this bridge cannot read: bad data, or a type it does not know. */
    public static final class MalformedEvent extends Exception {
        public MalformedEvent(String message) {
            super(message);
        }
    }

    private record ConditionState(
            String type, String status, String reason, String message, String severity, Instant lastTransitionTime) {}

    private static final class ClusterState {
        final String namespace;
        final String name;
        boolean deleted;
        List<ConditionState> conditions = List.of();
        /** When each Error alert's labels were first seen, by event time: its startsAt, stable across replays. */
        Map<Map<String, String>, Instant> errorsSince = new HashMap<>();
        /** What Alertmanager was last told fires for this cluster. */
        Map<Map<String, String>, Alert> reported = new HashMap<>();
        /** When Ready last left True, while it is not True; null while it is True or unknown. */
        Instant readyLeftTrue;

        ClusterState(String namespace, String name) {
            this.namespace = namespace;
            this.name = name;
        }

        String key() {
            return namespace + "/" + name;
        }
    }

    private final Duration notReadyFor;
    private final Map<String, ClusterState> clusters = new LinkedHashMap<>();

    public ClusterAlerts(Duration notReadyFor) {
        this.notReadyFor = Objects.requireNonNull(notReadyFor);
    }

    /**
     * Takes one event of the feed.
     *
     * @param type the CloudEvents type
     * @param data the event's data
     * @param time the event's time: when an Error condition was first seen, for its startsAt
     * @return the cluster, {@code namespace/name}
     */
    public String accept(String type, JsonNode data, Instant time) throws MalformedEvent {
        boolean deleted;
        if (StatusChange.CHANGED.equals(type)) {
            deleted = false;
        } else if (StatusChange.DELETED.equals(type)) {
            deleted = true;
        } else {
            throw new MalformedEvent("unknown event type " + type);
        }
        if (data == null || !data.isObject()) {
            throw new MalformedEvent("the data is not a JSON object");
        }
        String namespace = text(data.path("cluster"), "namespace", "cluster.namespace");
        String name = text(data.path("cluster"), "name", "cluster.name");
        List<ConditionState> conditions = deleted ? List.of() : conditions(data.path("after"));

        ClusterState state = clusters.computeIfAbsent(namespace + "/" + name, k -> new ClusterState(namespace, name));
        state.deleted = deleted;
        state.conditions = conditions;
        Optional<ConditionState> ready = conditions.stream().filter(c -> "Ready".equals(c.type())).findFirst();
        if (ready.isEmpty() || "True".equals(ready.get().status())) {
            state.readyLeftTrue = null;
        } else if (state.readyLeftTrue == null) {
            state.readyLeftTrue = ready.get().lastTransitionTime();
        }
        Map<Map<String, String>, Instant> since = new HashMap<>();
        for (ConditionState condition : conditions) {
            if ("Error".equals(condition.severity())) {
                Map<String, String> labels = errorLabels(state, condition);
                since.put(labels, state.errorsSince.getOrDefault(labels, time));
            }
        }
        state.errorsSince = since;
        if (deleted && state.reported.isEmpty()) {
            clusters.remove(state.key());
        }
        return state.key();
    }

    /**
     * Records that Alertmanager already has what the cluster calls for now: for events a previous run delivered
     * (below the committed offset), replayed to rebuild the state, so that what they fired can still be resolved.
     */
    public void assumeDelivered(String cluster, Instant now) {
        ClusterState state = clusters.get(cluster);
        if (state == null) {
            return;
        }
        state.reported = byLabels(desired(state, now));
        if (state.deleted && state.reported.isEmpty()) {
            clusters.remove(cluster);
        }
    }

    /** The alerts every cluster calls for at {@code now}, and those reported firing that no longer are. */
    public Evaluation evaluate(Instant now) {
        Map<String, List<Alert>> firing = new LinkedHashMap<>();
        List<Alert> resolved = new ArrayList<>();
        for (ClusterState state : clusters.values()) {
            List<Alert> desired = desired(state, now);
            firing.put(state.key(), desired);
            Map<Map<String, String>, Alert> calledFor = byLabels(desired);
            for (Alert was : state.reported.values()) {
                if (!calledFor.containsKey(was.labels())) {
                    resolved.add(was);
                }
            }
        }
        return new Evaluation(Collections.unmodifiableMap(firing), List.copyOf(resolved));
    }

    /** Alertmanager accepted the evaluation: what it fires is now what each cluster has reported. */
    public void delivered(Evaluation evaluation) {
        evaluation.firingByCluster().forEach((cluster, alerts) -> {
            ClusterState state = clusters.get(cluster);
            if (state != null) {
                state.reported = byLabels(alerts);
                if (state.deleted && state.reported.isEmpty()) {
                    clusters.remove(cluster);
                }
            }
        });
    }

    /** Drops a cluster without resolving its alerts: another bridge instance took its partition over. */
    public void forget(String cluster) {
        clusters.remove(cluster);
    }

    /** Clusters known, deleted ones whose alerts are not resolved yet included. */
    public int clusters() {
        return clusters.size();
    }

    private List<Alert> desired(ClusterState state, Instant now) {
        if (state.deleted) {
            return List.of();
        }
        List<Alert> alerts = new ArrayList<>();
        String cluster = state.key();
        for (ConditionState condition : state.conditions) {
            if ("Ready".equals(condition.type()) && state.readyLeftTrue != null) {
                Instant firesAt = state.readyLeftTrue.plus(notReadyFor);
                if (!now.isBefore(firesAt)) {
                    Map<String, String> labels = labels(state, NOT_READY, condition, "warning");
                    alerts.add(new Alert(
                            labels,
                            annotations(
                                    condition,
                                    "Cluster " + cluster + " has not been Ready since " + state.readyLeftTrue
                                            + reasonSuffix(condition)),
                            firesAt));
                }
            }
        }
        for (ConditionState condition : state.conditions) {
            if ("Error".equals(condition.severity())) {
                Map<String, String> labels = errorLabels(state, condition);
                alerts.add(new Alert(
                        labels,
                        annotations(
                                condition,
                                "Cluster " + cluster + ": " + condition.type() + " is " + condition.status()
                                        + " with severity Error" + reasonSuffix(condition)),
                        state.errorsSince.getOrDefault(labels, now)));
            }
        }
        return alerts;
    }

    private static Map<String, String> errorLabels(ClusterState state, ConditionState condition) {
        return labels(state, CONDITION_ERROR, condition, "critical");
    }

    private static Map<String, String> labels(
            ClusterState state, String alertname, ConditionState condition, String severity) {
        Map<String, String> labels = new TreeMap<>();
        labels.put("alertname", alertname);
        labels.put("cluster", state.key());
        labels.put("namespace", state.namespace);
        labels.put("name", state.name);
        labels.put("condition", condition.type());
        labels.put("severity", severity);
        return labels;
    }

    /** What may change while the alert fires: Alertmanager updates them in place when they are posted again. */
    private static Map<String, String> annotations(ConditionState condition, String summary) {
        return Map.of(
                "summary",
                summary,
                "description",
                describe(condition),
                "reason",
                condition.reason(),
                "message",
                condition.message());
    }

    private static String reasonSuffix(ConditionState condition) {
        return condition.reason().isEmpty() ? "" : " (" + condition.reason() + ")";
    }

    private static String describe(ConditionState condition) {
        if (!condition.message().isEmpty()) {
            return condition.message();
        }
        return condition.reason().isEmpty() ? condition.type() + " is " + condition.status() : condition.reason();
    }

    private static Map<Map<String, String>, Alert> byLabels(List<Alert> alerts) {
        Map<Map<String, String>, Alert> map = new HashMap<>();
        alerts.forEach(a -> map.put(a.labels(), a));
        return map;
    }

    private static List<ConditionState> conditions(JsonNode status) throws MalformedEvent {
        if (!status.isObject()) {
            throw new MalformedEvent("after: expected the status, an object");
        }
        JsonNode list = status.path("conditions");
        if (!list.isArray()) {
            throw new MalformedEvent("after.conditions: expected an array");
        }
        List<ConditionState> conditions = new ArrayList<>();
        int i = 0;
        for (JsonNode c : list) {
            String where = "after.conditions[" + i++ + "]";
            String time = text(c, "lastTransitionTime", where + ".lastTransitionTime");
            Instant lastTransitionTime;
            try {
                lastTransitionTime = Instant.parse(time);
            } catch (DateTimeParseException e) {
                // The Ready clock runs from it: without it, a restart could not tell how long a cluster has waited.
                throw new MalformedEvent(where + ".lastTransitionTime: not an RFC 3339 time: " + time);
            }
            conditions.add(new ConditionState(
                    text(c, "type", where + ".type"),
                    text(c, "status", where + ".status"),
                    c.path("reason").asText(""),
                    c.path("message").asText(""),
                    c.path("severity").asText(""),
                    lastTransitionTime));
        }
        return List.copyOf(conditions);
    }

    private static String text(JsonNode node, String field, String where) throws MalformedEvent {
        JsonNode value = node.path(field);
        if (!value.isTextual() || value.asText().isEmpty()) {
            throw new MalformedEvent(where + ": expected a non-empty string");
        }
        return value.asText();
    }
}
