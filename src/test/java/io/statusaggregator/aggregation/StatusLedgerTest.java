package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The per-cluster status ledger on its own, with rules that always find one verdict: what it writes, publishes and
 * tells the observer, and what write-back's and the broker's refusals make of a cluster.
 */
class StatusLedgerTest extends BookTestBase {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final ObjectKey KEY = CLUSTER;
    private static final ClusterStatus SHOWN = status(ConditionStatus.FALSE);
    private static final ClusterStatus VERDICT = status(ConditionStatus.TRUE);

    private final ComputeSchedule schedule = new ComputeSchedule(
            new CoalescingWindow(Duration.ofMillis(100), Duration.ofSeconds(1), 2_000), Duration.ofSeconds(10));
    private final StatusLedger ledger = new StatusLedger((snapshot, instant) -> VERDICT, schedule,
            new PendingWrites<>(Duration.ofSeconds(10)), new PublishedStatuses());
    private final TrackedCluster cluster = new TrackedCluster("test-cluster", 0);
    /** The proposal's example Cluster, as read from its record. */
    private EksaCluster read;

    @BeforeEach
    void aClusterShowingAnotherStatus() throws Exception {
        read = (EksaCluster) ObjectDecoder.decode(object("Cluster", "anywhere.eks.amazonaws.com/v1alpha1")).orElseThrow();
        cluster.state.put(eksa(SHOWN, "7"));
        ledger.inForce(CompatibilityReader.builtIn(), ManagementCluster.UNKNOWN);
    }

    @Test
    void aVerdictTheClusterDoesNotShowIsWrittenAndTheObserverToldWhatItShows() {
        List<Action> actions = new ArrayList<>();
        Action write = ledger.compute(cluster, T0, now, actions).orElseThrow();

        assertEquals(new Action.WriteStatus(KEY, VERDICT, "7"), write);
        Action.Shows shows = assertInstanceOf(Action.Shows.class, actions.get(0));
        assertEquals(SHOWN, shows.cluster().status(), "what the Cluster shows, not what is being written");
        assertEquals(1, ledger.computations());

        assertEquals(Optional.empty(), ledger.compute(cluster, T0, now, new ArrayList<>()), "being written already");
    }

    @Test
    void aStatusWrittenIsPublishedOnceAndShown() {
        ledger.compute(cluster, T0, now, new ArrayList<>());
        List<Action> actions = new ArrayList<>();

        ledger.written(cluster, KEY, VERDICT, VERDICT, now, actions);

        assertEquals(VERDICT, assertInstanceOf(Action.Shows.class, actions.get(0)).cluster().status());
        Action.PublishChange change = assertInstanceOf(Action.PublishChange.class, actions.get(1));
        assertEquals(Optional.empty(), change.before());
        assertEquals(VERDICT, change.after());
        assertTrue(ledger.isPublished(KEY));
        assertTrue(!ledger.settled(), "its echo awaited");
    }

    @Test
    void aChangeTheBrokerRefusedIsTakenBackAndItsClusterComputedASecondLater() {
        ledger.compute(cluster, T0, now, new ArrayList<>());
        ledger.written(cluster, KEY, VERDICT, VERDICT, now, new ArrayList<>());

        List<Action> actions = ledger.unpublished(
                new BookEvent.Unpublished(KEY, Optional.empty(), VERDICT, "timed out", now), cluster);

        assertEquals(List.of(new Action.PublishAgain(KEY, "timed out")), actions);
        assertTrue(!ledger.isPublished(KEY), "the feeds have nothing of it again");
        assertEquals(List.of(), schedule.due(now + 999 * MS, 0));
        assertEquals(List.of(cluster), schedule.due(now + ClusterBook.REPUBLISH_AFTER.toNanos(), 0));
    }

    @Test
    void aRefusalOfAChangeSinceReplacedTakesNothingBack() {
        ledger.compute(cluster, T0, now, new ArrayList<>());
        ledger.written(cluster, KEY, VERDICT, VERDICT, now, new ArrayList<>());

        List<Action> actions = ledger.unpublished(
                new BookEvent.Unpublished(KEY, Optional.empty(), SHOWN, "timed out", now), cluster);

        assertEquals(List.of(), actions, "a newer status went out since");
        assertTrue(ledger.isPublished(KEY));
    }

    @Test
    void aConflictWithANewerStateHereComputesAtOnceElseAnEchoTimeoutLater() {
        ledger.compute(cluster, T0, now, new ArrayList<>());
        ledger.conflicted(cluster, VERDICT, "7", now);
        assertEquals(List.of(), schedule.due(now + 100 * MS, 0), "nothing newer than what it was computed from");
        assertEquals(List.of(cluster), schedule.due(now + 10_000 * MS, 0));

        now += 20_000 * MS;
        ledger.compute(cluster, T0, now, new ArrayList<>());
        cluster.state.put(eksa(SHOWN, "8"));
        ledger.conflicted(cluster, VERDICT, "7", now);
        assertEquals(List.of(cluster), schedule.due(now, 0), "a newer state is here");
    }

    @Test
    void aClusterThatLeavesIsToldToTheObserver() {
        List<Action> actions = new ArrayList<>();
        ledger.left(KEY, actions);
        assertEquals(List.of(new Action.Left(KEY)), actions);
    }

    private static ClusterStatus status(ConditionStatus ready) {
        List<Condition> conditions = new ArrayList<>();
        for (ConditionType type : ConditionType.values()) {
            conditions.add(new Condition(type, ready, "", "", Severity.NONE, T0));
        }
        return new ClusterStatus(1, Optional.empty(), Optional.empty(), conditions, List.of(),
                ClusterStatus.Versions.NONE);
    }

    /** The example Cluster showing {@code status} at {@code resourceVersion}. */
    private EksaCluster eksa(ClusterStatus status, String resourceVersion) {
        return new EksaCluster(read.key(), read.apiVersion(), read.generation(), Map.of(), read.spec(), read.specHash(),
                status, resourceVersion, read.created());
    }
}
