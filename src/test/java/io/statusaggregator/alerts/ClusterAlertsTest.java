package io.statusaggregator.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import io.statusaggregator.topics.PublishedStatus;
import io.statusaggregator.topics.StatusChange;

/** The alert rules on events built as the aggregator publishes them ({@link StatusChange#data()}). */
class ClusterAlertsTest {
    private static final Duration NOT_READY_FOR = Duration.ofMinutes(10);
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private final ClusterAlerts alerts = new ClusterAlerts(NOT_READY_FOR);

    static Condition condition(ConditionType type, ConditionStatus status, String reason, String message, Severity severity, Instant since) {
        return new Condition(type, status, reason, message, severity, since);
    }

    static Condition ready(Instant since) {
        return condition(ConditionType.READY, ConditionStatus.TRUE, "", "", Severity.NONE, since);
    }

    static Condition notReady(String reason, String message, Instant since) {
        return condition(ConditionType.READY, ConditionStatus.FALSE, reason, message, Severity.INFO, since);
    }

    static ClusterStatus status(Condition... conditions) {
        return new ClusterStatus(1, Optional.empty(), Optional.empty(), List.of(conditions), List.of(), ClusterStatus.Versions.NONE);
    }

    static StatusChange change(String name, ClusterStatus after) {
        return new StatusChange(new ObjectKey("default", name), 1, Optional.empty(), Optional.ofNullable(after).map(PublishedStatus::of), StatusChange.Progress.UNKNOWN);
    }

    /** The event's data as the bridge reads it off the topic. */
    static JsonNode data(StatusChange change) {
        try {
            return new ObjectMapper().readTree(change.data());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private String accept(StatusChange change, Instant time) throws ClusterAlerts.MalformedEvent {
        return alerts.accept(change.type(), data(change), time);
    }

    private static List<String> names(List<ClusterAlerts.Alert> list) {
        return list.stream().map(a -> a.labels().get("alertname") + " " + a.cluster() + " " + a.labels().get("condition")).sorted().toList();
    }

    @Test
    void readyFalseFiresOnceItHasLastedNotReadyForAndNotBefore() throws Exception {
        assertEquals("default/alpha", accept(change("alpha", status(notReady("ScalingUp", "Scaling up control plane", T0))), T0));

        assertEquals(List.of(), alerts.evaluate(T0.plus(NOT_READY_FOR).minusMillis(1)).firing(), "not before notReadyFor");
        ClusterAlerts.Evaluation due = alerts.evaluate(T0.plus(NOT_READY_FOR));
        assertEquals(1, due.firing().size());
        ClusterAlerts.Alert alert = due.firing().get(0);
        assertEquals(Map.of("alertname", "ClusterNotReady", "cluster", "default/alpha", "namespace", "default", "name", "alpha",
                "condition", "Ready", "severity", "warning"), alert.labels());
        assertEquals("ScalingUp", alert.annotations().get("reason"));
        assertEquals("Scaling up control plane", alert.annotations().get("description"));
        assertTrue(alert.annotations().get("summary").contains("default/alpha"), alert.annotations().toString());
        assertEquals(T0.plus(NOT_READY_FOR), alert.startsAt(), "it started firing when notReadyFor had passed");
        assertEquals(List.of(), due.resolved());
        // The same alert later on: the same labels and start, so a re-post is a duplicate for Alertmanager.
        assertEquals(alert, alerts.evaluate(T0.plus(NOT_READY_FOR).plusSeconds(90)).firing().get(0));
    }

    @Test
    void readyTrueResolvesWhatWasDelivered() throws Exception {
        accept(change("alpha", status(notReady("ScalingUp", "", T0))), T0);
        ClusterAlerts.Evaluation firing = alerts.evaluate(T0.plus(NOT_READY_FOR));
        alerts.delivered(firing);

        Instant later = T0.plus(NOT_READY_FOR).plusSeconds(30);
        accept(change("alpha", status(ready(later))), later);
        ClusterAlerts.Evaluation recovered = alerts.evaluate(later);
        assertEquals(List.of(), recovered.firing());
        assertEquals(firing.firing(), recovered.resolved());
        alerts.delivered(recovered);
        assertEquals(List.of(), alerts.evaluate(later.plusSeconds(1)).resolved(), "resolved once");
    }

    @Test
    void aResolutionNotYetDeliveredIsOfferedAgain() throws Exception {
        accept(change("alpha", status(notReady("ScalingUp", "", T0))), T0);
        alerts.delivered(alerts.evaluate(T0.plus(NOT_READY_FOR)));
        Instant later = T0.plus(NOT_READY_FOR).plusSeconds(30);
        accept(change("alpha", status(ready(later))), later);
        assertEquals(1, alerts.evaluate(later).resolved().size());
        // Alertmanager did not take it (no delivered()): the next evaluation resolves it again.
        assertEquals(1, alerts.evaluate(later.plusSeconds(5)).resolved().size());
    }

    @Test
    void aNewReadyReasonUpdatesTheAlertInPlace() throws Exception {
        accept(change("alpha", status(notReady("RollingUpgradeInProgress", "", T0))), T0);
        ClusterAlerts.Evaluation first = alerts.evaluate(T0.plus(NOT_READY_FOR));
        alerts.delivered(first);
        Instant later = T0.plus(NOT_READY_FOR).plusSeconds(10);
        // A rolling upgrade: Ready stays False while its reason moves.
        accept(change("alpha", status(notReady("OutdatedInformation", "Control plane status not up to date yet", T0))), later);
        ClusterAlerts.Evaluation second = alerts.evaluate(later);
        assertEquals(List.of(), second.resolved(), "nothing resolves while Ready is not True");
        assertEquals(1, second.firing().size());
        ClusterAlerts.Alert alert = second.firing().get(0);
        assertEquals(first.firing().get(0).labels(), alert.labels(), "the same alert");
        assertEquals(first.firing().get(0).startsAt(), alert.startsAt(), "the same start");
        assertEquals("OutdatedInformation", alert.annotations().get("reason"));
        assertEquals("Control plane status not up to date yet", alert.annotations().get("message"));
    }

    @Test
    void theNotReadyClockRunsFromWhenReadyLastLeftTrue() throws Exception {
        accept(change("alpha", status(notReady("ScalingUp", "", T0))), T0);
        // Ready moves on to Unknown, then False again: each a new lastTransitionTime, but it never was True meanwhile.
        Instant unknownAt = T0.plusSeconds(30);
        accept(change("alpha", status(condition(ConditionType.READY, ConditionStatus.UNKNOWN, "", "", Severity.NONE, unknownAt))), unknownAt);
        Instant falseAgain = T0.plusSeconds(60);
        accept(change("alpha", status(notReady("RollingUpgradeInProgress", "", falseAgain))), falseAgain);
        ClusterAlerts.Evaluation due = alerts.evaluate(T0.plus(NOT_READY_FOR));
        assertEquals(1, due.firing().size(), "due notReadyFor after Ready left True, not after its last transition");
        assertEquals(T0.plus(NOT_READY_FOR), due.firing().get(0).startsAt());

        // True resets it: the next time Ready leaves True, the clock starts again.
        Instant readyAt = T0.plus(NOT_READY_FOR).plusSeconds(5);
        accept(change("alpha", status(ready(readyAt))), readyAt);
        Instant leftAgain = readyAt.plusSeconds(5);
        accept(change("alpha", status(notReady("ScalingUp", "", leftAgain))), leftAgain);
        assertEquals(List.of(), alerts.evaluate(leftAgain.plus(NOT_READY_FOR).minusMillis(1)).firing());
        assertEquals(1, alerts.evaluate(leftAgain.plus(NOT_READY_FOR)).firing().size());
    }

    @Test
    void anErrorConditionFiresAtOnceOneAlertPerCondition() throws Exception {
        Instant at = T0.plusSeconds(5);
        accept(change("bravo", status(
                condition(ConditionType.CONTROL_PLANE_READY, ConditionStatus.FALSE, "ControlPlaneComponentsUnhealthy", "etcd is down", Severity.ERROR, T0),
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentFailed", "md-0 failed", Severity.ERROR, T0),
                notReady("ControlPlaneComponentsUnhealthy", "etcd is down", T0))), at);
        ClusterAlerts.Evaluation now = alerts.evaluate(at);
        assertEquals(List.of("ClusterConditionError default/bravo ControlPlaneReady", "ClusterConditionError default/bravo WorkersReady"),
                names(now.firing()), "Ready is False too, but for less than notReadyFor");
        ClusterAlerts.Alert workers = now.firing().stream().filter(a -> a.labels().get("condition").equals("WorkersReady")).findFirst().orElseThrow();
        assertEquals(Map.of("alertname", "ClusterConditionError", "cluster", "default/bravo", "namespace", "default", "name", "bravo",
                "condition", "WorkersReady", "severity", "critical"), workers.labels());
        assertEquals("MachineDeploymentFailed", workers.annotations().get("reason"));
        assertEquals("md-0 failed", workers.annotations().get("description"));
        assertEquals(at, workers.startsAt(), "it starts with the event that showed it");
        alerts.delivered(now);

        // The control plane recovers: its alert resolves, the workers' keeps its start.
        Instant later = at.plusSeconds(60);
        accept(change("bravo", status(
                condition(ConditionType.CONTROL_PLANE_READY, ConditionStatus.TRUE, "", "", Severity.NONE, later),
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentFailed", "md-0 failed", Severity.ERROR, T0),
                notReady("MachineDeploymentFailed", "md-0 failed", T0))), later);
        ClusterAlerts.Evaluation after = alerts.evaluate(later);
        assertEquals(List.of("ClusterConditionError default/bravo WorkersReady"), names(after.firing()));
        assertEquals(at, after.firing().get(0).startsAt());
        assertEquals(List.of("ClusterConditionError default/bravo ControlPlaneReady"), names(after.resolved()));
    }

    @Test
    void warningSeverityDoesNotFire() throws Exception {
        accept(change("charlie", status(
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "ScalingUp", "", Severity.WARNING, T0), ready(T0))), T0);
        assertEquals(List.of(), alerts.evaluate(T0.plus(Duration.ofHours(1))).firing());
    }

    @Test
    void aDeletedClusterResolvesAllItsAlertsAndIsForgotten() throws Exception {
        accept(change("delta", status(
                condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentFailed", "", Severity.ERROR, T0),
                notReady("MachineDeploymentFailed", "", T0))), T0);
        ClusterAlerts.Evaluation firing = alerts.evaluate(T0.plus(NOT_READY_FOR));
        assertEquals(2, firing.firing().size());
        alerts.delivered(firing);

        Instant later = T0.plus(NOT_READY_FOR).plusSeconds(1);
        assertEquals("default/delta", accept(change("delta", null), later));
        ClusterAlerts.Evaluation deleted = alerts.evaluate(later);
        assertEquals(List.of(), deleted.firing());
        assertEquals(names(firing.firing()), names(deleted.resolved()));
        alerts.delivered(deleted);
        assertEquals(0, alerts.clusters(), "nothing is kept of a deleted cluster once its alerts are resolved");
    }

    @Test
    void aRestartedBridgeCountsFromReadysLastTransitionTime() throws Exception {
        // The bridge restarts at T0 + 9m and replays the one event (published at T0): 1 minute to go, not 10.
        ClusterAlerts restarted = new ClusterAlerts(NOT_READY_FOR);
        StatusChange event = change("alpha", status(notReady("WaitingForWorkers", "", T0)));
        restarted.accept(event.type(), data(event), T0);
        assertEquals(List.of(), restarted.evaluate(T0.plus(Duration.ofMinutes(9))).firing());
        assertEquals(1, restarted.evaluate(T0.plus(NOT_READY_FOR)).firing().size());
        assertEquals(T0.plus(NOT_READY_FOR), restarted.evaluate(T0.plus(Duration.ofMinutes(30))).firing().get(0).startsAt());
    }

    @Test
    void eventsAlreadyDeliveredStillResolveWhatTheyFired() throws Exception {
        // Replaying below the committed offset: Alertmanager already has alpha's alert from the previous run.
        StatusChange down = change("alpha", status(notReady("ScalingUp", "", T0)));
        Instant now = T0.plus(Duration.ofMinutes(30));
        alerts.accept(down.type(), data(down), T0);
        alerts.assumeDelivered("default/alpha", now);
        // Past the committed offset: it recovered; the fresh instance still resolves the alert it never posted.
        accept(change("alpha", status(ready(now))), now);
        assertEquals(List.of("ClusterNotReady default/alpha Ready"), names(alerts.evaluate(now).resolved()));
    }

    @Test
    void malformedEventsAreRefusedAndChangeNothing() throws Exception {
        ObjectMapper json = new ObjectMapper();
        accept(change("alpha", status(notReady("ScalingUp", "", T0))), T0);
        JsonNode good = data(change("alpha", status(ready(T0))));
        assertThrows(ClusterAlerts.MalformedEvent.class, () -> alerts.accept("com.example.other", good, T0));
        assertThrows(ClusterAlerts.MalformedEvent.class, () -> alerts.accept(StatusChange.CHANGED, null, T0));
        assertThrows(ClusterAlerts.MalformedEvent.class, () -> alerts.accept(StatusChange.CHANGED, json.readTree("[1]"), T0));
        assertThrows(ClusterAlerts.MalformedEvent.class, () -> alerts.accept(StatusChange.CHANGED,
                json.readTree("{\"cluster\":{\"namespace\":\"default\",\"name\":\"alpha\"},\"after\":{\"conditions\":"
                        + "[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"yesterday\"}]}}"), T0));
        assertThrows(ClusterAlerts.MalformedEvent.class, () -> alerts.accept(StatusChange.CHANGED,
                json.readTree("{\"cluster\":{\"name\":\"alpha\"},\"after\":{\"conditions\":[]}}"), T0));
        assertEquals(1, alerts.evaluate(T0.plus(NOT_READY_FOR)).firing().size(), "alpha is still not Ready");
    }
}
