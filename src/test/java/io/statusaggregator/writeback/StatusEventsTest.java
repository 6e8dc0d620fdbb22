package io.statusaggregator.writeback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.Severity;
import io.statusaggregator.writeback.StatusEvents.StatusEvent;
import io.statusaggregator.writeback.StatusEvents.Type;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StatusEventsTest {
    private static final Instant T = Instant.parse("2026-11-25T10:00:00Z");

    private static Condition condition(ConditionType type, ConditionStatus status, String reason, String message, Severity severity) {
        return new Condition(type, status, reason, message, severity, T);
    }

    private static Condition isTrue(ConditionType type) {
        return condition(type, ConditionStatus.TRUE, "", "", Severity.NONE);
    }

    private static Optional<ClusterStatus> status(Optional<ClusterStatus.Failure> failure, Condition... conditions) {
        return Optional.of(new ClusterStatus(1, failure, Optional.empty(), List.of(conditions), List.of(), ClusterStatus.Versions.NONE));
    }

    private static Optional<ClusterStatus> status(Condition... conditions) {
        return status(Optional.empty(), conditions);
    }

    private static final Condition ROLLING = condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "RollingUpgradeInProgress",
            "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)", Severity.INFO);
    private static final Condition NOT_READY = condition(ConditionType.READY, ConditionStatus.FALSE, "RollingUpgradeInProgress",
            "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)", Severity.INFO);

    @Test
    void aClustersFirstStatusTellsEveryConditionInTheContractsOrder() {
        assertEquals(List.of(
                new StatusEvent(Type.Normal, "ControlPlaneReady", "ControlPlaneReady is True"),
                new StatusEvent(Type.Normal, "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)"),
                new StatusEvent(Type.Normal, "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)")),
                StatusEvents.of(Optional.empty(), status(NOT_READY, ROLLING, isTrue(ConditionType.CONTROL_PLANE_READY))));
    }

    @Test
    void onlyWhatMovedIsTold() {
        Optional<ClusterStatus> before = status(isTrue(ConditionType.CONTROL_PLANE_READY), ROLLING, NOT_READY);
        assertEquals(List.of(), StatusEvents.of(before, before));
        Condition lessToGo = condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "RollingUpgradeInProgress",
                "Worker nodes not up-to-date yet, 1 upgrading (2 up to date)", Severity.INFO);
        assertEquals(List.of(new StatusEvent(Type.Normal, "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 1 upgrading (2 up to date)")),
                StatusEvents.of(before, status(isTrue(ConditionType.CONTROL_PLANE_READY), lessToGo, NOT_READY)),
                "a new message is a new Event; Ready, unchanged, is not told again");
        assertEquals(List.of(new StatusEvent(Type.Normal, "WorkersReady", "WorkersReady is True"), new StatusEvent(Type.Normal, "Ready", "Ready is True")),
                StatusEvents.of(before, status(isTrue(ConditionType.CONTROL_PLANE_READY), isTrue(ConditionType.WORKERS_READY),
                        isTrue(ConditionType.READY))));
    }

    @Test
    void warningAndErrorSeveritiesAreWarningsInfoAndNoneAreNormal() {
        Condition failed = condition(ConditionType.WORKERS_READY, ConditionStatus.FALSE, "MachineDeploymentNotReady",
                "Machine deployment alpha-md-0 not ready yet", Severity.ERROR);
        Condition warned = condition(ConditionType.CONTROL_PLANE_READY, ConditionStatus.FALSE, "ExternalEtcdNotAvailable",
                "", Severity.WARNING);
        Condition unknown = condition(ConditionType.DEFAULT_CNI_CONFIGURED, ConditionStatus.UNKNOWN, "", "", Severity.NONE);
        assertEquals(List.of(
                new StatusEvent(Type.Warning, "ExternalEtcdNotAvailable", "ControlPlaneReady is False"),
                new StatusEvent(Type.Warning, "MachineDeploymentNotReady", "Machine deployment alpha-md-0 not ready yet"),
                new StatusEvent(Type.Normal, "DefaultCNIConfigured", "DefaultCNIConfigured is Unknown")),
                StatusEvents.of(Optional.empty(), status(failed, warned, unknown)), "no message: the note says the condition's state");
    }

    @Test
    void aFailureSetIsAWarningAndItsClearingNormal() {
        ClusterStatus.Failure failure = new ClusterStatus.Failure("InvalidSpec", "spec.kubernetesVersion 1.99 is not supported");
        Optional<ClusterStatus> ok = status(isTrue(ConditionType.READY));
        Optional<ClusterStatus> failing = status(Optional.of(failure), isTrue(ConditionType.READY));
        assertEquals(List.of(new StatusEvent(Type.Warning, "InvalidSpec", "spec.kubernetesVersion 1.99 is not supported")),
                StatusEvents.of(ok, failing));
        assertEquals(List.of(), StatusEvents.of(failing, failing));
        assertEquals(List.of(new StatusEvent(Type.Normal, StatusEvents.FAILURE_CLEARED, "failureReason InvalidSpec cleared")),
                StatusEvents.of(failing, ok));
    }

    @Test
    void aDeletedClusterHasNoEvents() {
        assertEquals(List.of(), StatusEvents.of(status(NOT_READY), Optional.empty()));
    }

    @Test
    void aNoteIsCutToTheApiServersKibibyteOnACharacterBoundary() {
        String longMessage = "ü".repeat(2_000);
        Condition loud = condition(ConditionType.READY, ConditionStatus.FALSE, "R", longMessage, Severity.INFO);
        String note = StatusEvents.of(Optional.empty(), status(loud)).get(0).note();
        assertTrue(note.getBytes(StandardCharsets.UTF_8).length <= StatusEvents.NOTE_LIMIT, "at most 1 KiB");
        assertTrue(note.getBytes(StandardCharsets.UTF_8).length > StatusEvents.NOTE_LIMIT - 8, "no more cut than needed");
        assertTrue(note.endsWith("ü (cut)"), note.substring(note.length() - 12));
    }

    /** Another controller's failure reason has no limit; an Event's reason has 128 characters, and a longer one is refused. */
    @Test
    void aReasonIsCutToTheApisLimit() {
        ClusterStatus.Failure failure = new ClusterStatus.Failure("R".repeat(300), "a long reason");
        StatusEvent event = StatusEvents.of(status(isTrue(ConditionType.READY)), status(Optional.of(failure), isTrue(ConditionType.READY))).get(0);
        assertEquals("R".repeat(128), event.reason());
    }

    /** An Event's name is the Cluster's and a time: within a name's 253 characters, ending in a letter or digit, whatever the Cluster's. */
    @Test
    void anEventsNameIsAValidNameForTheLongestClusterName() {
        long nanos = 1_795_000_000_000_000_000L;
        assertEquals("bravo." + Long.toHexString(nanos), EventRecorder.name("bravo", nanos));
        String longest = "a".repeat(235) + "-" + "b".repeat(17); // cut just after the dash
        String name = EventRecorder.name(longest, nanos);
        assertTrue(name.length() <= 253, name.length() + ": " + name);
        assertTrue(name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?") && !name.contains("-.") && !name.contains(".."), name);
        assertEquals("a".repeat(235) + "." + Long.toHexString(nanos), name);
    }
}
