package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.aggregation.StatusOwnership.Decision;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Who writes a Cluster's status, decided without I/O: a foreign write put back once, a second within the window a
 * step aside for good; the managers the API server names as evidence; what counts as the same status.
 */
class StatusOwnershipTest {
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final long MINUTE = Duration.ofMinutes(1).toNanos();
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    private final StatusOwnership ownership = new StatusOwnership(WantedWriter.AUTO, WINDOW);
    private final StatusOwnership.Writes writes = new StatusOwnership.Writes();
    private long now = 1_000 * MINUTE;
    /** The Cluster's resourceVersion at each decision: a new state each time, unless a test says otherwise. */
    private long version = 10;

    /** The aggregator's verdict: Ready False for the workers. */
    private static final ClusterStatus OURS = status(1, "WorkersReady", "ScalingUp", "Workers expected not ready yet");
    /** EKS-A's verdict on the same Cluster: Ready False for another reason. */
    private static final ClusterStatus THEIRS = status(1, "ControlPlaneReady", "KubeadmControlPlaneNotReady",
            "not ready");

    private static ClusterStatus status(long generation, String notReady, String reason, String message) {
        List<Condition> conditions = new ArrayList<>();
        for (ConditionType type : ConditionType.values()) {
            boolean down = type.wireName().equals(notReady) || type == ConditionType.READY;
            conditions.add(down ? new Condition(type, ConditionStatus.FALSE, reason, message, Severity.INFO, T0)
                    : new Condition(type, ConditionStatus.TRUE, "", "", Severity.NONE, T0));
        }
        return new ClusterStatus(generation, Optional.empty(), Optional.empty(), conditions, List.of(),
                ClusterStatus.Versions.NONE);
    }

    private Decision decide(ClusterStatus shows, Set<String> writers, ClusterStatus verdict) {
        return ownership.beforeWrite(writes, shows, String.valueOf(version++), writers, verdict, now);
    }

    /** The aggregator wrote its verdict, then the Cluster shows {@code theirs}: it would write its own back. */
    private Decision foreignWrite(ClusterStatus theirs) {
        writes.wrote(OURS);
        return decide(theirs, Set.of(), OURS);
    }

    @Test
    void aStatusTheClusterAlreadyShowsOnTheOwnedFieldsIsWrittenWithoutCountingAForeignWrite() {
        writes.wrote(THEIRS);
        ClusterStatus laterTimes = withTimes(OURS, T0.plusSeconds(3_600));
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(Decision.Write.class, decide(laterTimes, Set.of("manager"), OURS),
                    "agreeing on the owned fields (times left out): nothing to take turns on");
        }
    }

    @Test
    void withNothingWrittenYetNoStatusCountsAsForeign() {
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(Decision.Write.class, decide(THEIRS, Set.of(), OURS));
            now += MINUTE;
        }
    }

    @Test
    void theClusterShowingWhatThisInstanceLastWroteIsNoForeignWrite() {
        writes.wrote(OURS);
        ClusterStatus newer = status(2, "WorkersReady", "ScalingUp", "Workers expected not ready yet");
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(Decision.Write.class, decide(OURS, Set.of(), newer), "a new verdict over its own");
        }
    }

    @Test
    void oneForeignWriteIsPutBackASecondWithinTheWindowStepsAsideForGood() {
        assertInstanceOf(Decision.Write.class, foreignWrite(THEIRS), "a person's edit, say: put back once");
        now += 9 * MINUTE;
        Decision second = foreignWrite(THEIRS);
        assertEquals(new Decision.StepAside(StatusOwnership.UNNAMED, true), second, "another writer keeps writing");
        assertEquals(Optional.of(StatusOwnership.UNNAMED), writes.steppedAsideFor());
        now += 60 * MINUTE;
        assertEquals(new Decision.StepAside(StatusOwnership.UNNAMED, false), decide(OURS, Set.of(), THEIRS),
                "stepped aside for good, whatever the Cluster shows");
    }

    @Test
    void theClusterStillAtTheVersionItsLastWriteWasComputedFromIsNoForeignWrite() {
        assertInstanceOf(Decision.Write.class, ownership.beforeWrite(writes, THEIRS, "41", Set.of(), OURS, now));
        writes.wrote(OURS); // computed from version 41
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(Decision.Write.class, ownership.beforeWrite(writes, THEIRS, "41", Set.of(), OURS, now),
                    "the echo of its write has not come (a broker away): the state it computed from is not foreign");
            now += MINUTE;
        }
        assertInstanceOf(Decision.Write.class, ownership.beforeWrite(writes, THEIRS, "42", Set.of(), OURS, now),
                "newer: put back");
        assertInstanceOf(Decision.StepAside.class, ownership.beforeWrite(writes, THEIRS, "43", Set.of(), OURS, now));
    }

    @Test
    void foreignWritesFartherApartThanTheWindowAreEachPutBack() {
        for (int i = 0; i < 4; i++) {
            assertInstanceOf(Decision.Write.class, foreignWrite(THEIRS), "foreign write " + (i + 1));
            now += WINDOW.toNanos() + 1;
        }
        assertInstanceOf(Decision.Write.class, foreignWrite(THEIRS));
        now += WINDOW.toNanos();
        assertInstanceOf(Decision.StepAside.class, foreignWrite(THEIRS), "the window's end included");
    }

    @Test
    void aControllerTheApiServerNamesAsWriterOfTheConditionsIsSteppedAsideForAtOnce() {
        assertEquals(new Decision.StepAside("manager", true),
                decide(THEIRS, Set.of("manager", "status-aggregator"), OURS),
                "a restarted replica, nothing written yet: no write at all");
    }

    @Test
    void severalOtherControllersAreAllNamed() {
        assertEquals(new Decision.StepAside("capi-controller, manager", true),
                decide(THEIRS, Set.of("manager", "kubectl-edit", "capi-controller"), OURS));
    }

    @ParameterizedTest
    @ValueSource(strings = {"status-aggregator", "fabric8-kubernetes-client", "kubectl-edit", "kubectl-patch",
        "kubectl"})
    void thisAggregatorsOwnManagersAndKubectlAreNoControllerEvidence(String manager) {
        assertInstanceOf(Decision.Write.class, decide(THEIRS, Set.of(manager), OURS), "nothing written yet: written");
        assertInstanceOf(Decision.Write.class, foreignWrite(THEIRS), "counted as a foreign write: put back once");
        now += MINUTE;
        Decision second = ownership.beforeWrite(writes, THEIRS, "99", Set.of(manager), OURS, now);
        String named = io.statusaggregator.kubernetes.FieldManagers.THIS_APPLICATION.contains(manager) ? "" : manager;
        assertEquals(new Decision.StepAside(named, true), second, "the second within the window");
    }

    @Test
    void aForeignWriteDifferingOnlyInTheOrderOfTheConditionsCounts() {
        List<Condition> reversed = new ArrayList<>(OURS.conditions());
        java.util.Collections.reverse(reversed);
        ClusterStatus reordered = new ClusterStatus(1, Optional.empty(), Optional.empty(), reversed, List.of(),
                ClusterStatus.Versions.NONE);
        assertInstanceOf(Decision.Write.class, foreignWrite(reordered));
        now += MINUTE;
        assertInstanceOf(Decision.StepAside.class, foreignWrite(reordered), "EKS-A orders them its own way: no turns");
    }

    @Test
    void eachOwnedFieldTellsAForeignWrite() {
        Condition r = OURS.condition(ConditionType.READY).orElseThrow();
        ConditionType ready = ConditionType.READY;
        List<ClusterStatus> others = List.of(
                with(OURS, new Condition(ready, ConditionStatus.TRUE, "", "", Severity.NONE, T0)),
                with(OURS, new Condition(ready, r.status(), "Other", r.message(), r.severity(), T0)),
                with(OURS, new Condition(ready, r.status(), r.reason(), "other", r.severity(), T0)),
                with(OURS, new Condition(ready, r.status(), r.reason(), r.message(), Severity.ERROR, T0)),
                new ClusterStatus(7, OURS.failure(), OURS.defaultCni(), OURS.conditions(), List.of(), OURS.versions()),
                new ClusterStatus(1, Optional.of(new ClusterStatus.Failure("BadDatacenterConfig", "no datacenter")),
                        OURS.defaultCni(), OURS.conditions(), List.of(), OURS.versions()));
        for (ClusterStatus other : others) {
            StatusOwnership.Writes fresh = new StatusOwnership.Writes();
            fresh.wrote(OURS);
            assertInstanceOf(Decision.Write.class, ownership.beforeWrite(fresh, other, "11", Set.of(), OURS, now));
            assertInstanceOf(Decision.StepAside.class,
                    ownership.beforeWrite(fresh, other, "12", Set.of(), OURS, now + MINUTE),
                    "foreign: " + other);
        }
    }

    @Test
    void theWantedWriterEksaNeverWritesNorStepsAsideAndComputesAgainstItsOwnVerdict() {
        StatusOwnership eksa = new StatusOwnership(WantedWriter.EKSA, WINDOW);
        TrackedCluster cluster = new TrackedCluster("test-cluster", 0);
        List<Action> actions = new ArrayList<>();
        io.statusaggregator.model.EksaCluster stored = eksaCluster(THEIRS, "manager");
        assertTrue(!eksa.writes(cluster, stored, OURS, now, actions));
        assertEquals(List.of(), actions, "nothing to say: nothing was being written");
        assertEquals(OURS, cluster.shown(THEIRS), "its own verdict counts as shown, not the Cluster's");
        assertEquals(0, eksa.steppedAside());
    }

    @Test
    void steppingAsideIsSaidOnceCountedAndEndsWhenTheClusterLeaves() {
        TrackedCluster cluster = new TrackedCluster("test-cluster", 0);
        io.statusaggregator.model.EksaCluster stored = eksaCluster(THEIRS, "manager");
        List<Action> actions = new ArrayList<>();
        assertTrue(!ownership.writes(cluster, stored, OURS, now, actions));
        assertEquals(List.of(new Action.StepAside(new SteppedAside(stored.key(), "manager", THEIRS, OURS))), actions);
        assertEquals(1, ownership.steppedAside());
        assertEquals(OURS, cluster.shown(THEIRS), "computed against its own verdict from now on");

        actions.clear();
        assertTrue(!ownership.writes(cluster, stored, status(1, "WorkersReady", "ScalingDown", "down"), now, actions));
        assertEquals(List.of(), actions, "said once");
        assertEquals(1, ownership.steppedAside());

        ownership.left(stored.key());
        assertEquals(0, ownership.steppedAside());
        assertTrue(ownership.writes(new TrackedCluster("test-cluster", 0), eksaCluster(THEIRS, ""), OURS, now, actions),
                "its next owner, or a Cluster made again, starts anew");
    }

    @Test
    void theStatusWritersAreReadFromWhatIngestFoundInTheManagedFields() {
        assertEquals(Set.of("manager", "kubectl-edit"),
                StatusOwnership.writersOf(eksaCluster(THEIRS, "manager, kubectl-edit")));
        assertEquals(Set.of(), StatusOwnership.writersOf(eksaCluster(THEIRS, "")));
    }

    private static io.statusaggregator.model.EksaCluster eksaCluster(ClusterStatus status, String writers) {
        java.util.Map<String, String> annotations = writers.isEmpty() ? java.util.Map.of()
                : java.util.Map.of(io.statusaggregator.topics.ObjectReduction.STATUS_WRITERS, writers);
        return new io.statusaggregator.model.EksaCluster(
                new io.statusaggregator.model.ObjectKey("default", "test-cluster"),
                "anywhere.eks.amazonaws.com/v1alpha1", 1, annotations, null, "", status, "7", null);
    }

    private static ClusterStatus with(ClusterStatus status, Condition replaced) {
        List<Condition> conditions = status.conditions().stream()
                .map(c -> c.type() == replaced.type() ? replaced : c).toList();
        return new ClusterStatus(status.observedGeneration(), status.failure(), status.defaultCni(), conditions,
                status.workerNodeGroups(), status.versions());
    }

    private static ClusterStatus withTimes(ClusterStatus status, Instant time) {
        List<Condition> conditions = status.conditions().stream()
                .map(c -> new Condition(c.type(), c.status(), c.reason(), c.message(), c.severity(), time)).toList();
        return new ClusterStatus(status.observedGeneration(), status.failure(), status.defaultCni(), conditions,
                status.workerNodeGroups(), status.versions());
    }
}
