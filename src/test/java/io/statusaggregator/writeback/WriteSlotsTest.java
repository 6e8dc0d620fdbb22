package io.statusaggregator.writeback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.writeback.WriteSlots.Accepted;
import io.statusaggregator.writeback.WriteSlots.Action;
import io.statusaggregator.writeback.WriteSlots.Attempt;
import io.statusaggregator.writeback.WriteSlots.Conflict;
import io.statusaggregator.writeback.WriteSlots.Conflicted;
import io.statusaggregator.writeback.WriteSlots.Gone;
import io.statusaggregator.writeback.WriteSlots.NotFound;
import io.statusaggregator.writeback.WriteSlots.Patch;
import io.statusaggregator.writeback.WriteSlots.Refusal;
import io.statusaggregator.writeback.WriteSlots.Refused;
import io.statusaggregator.writeback.WriteSlots.RefusedBeforeNewer;
import io.statusaggregator.writeback.WriteSlots.RetryAt;
import io.statusaggregator.writeback.WriteSlots.Transient;
import io.statusaggregator.writeback.WriteSlots.Written;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What write-back decides, without an API server or threads: each event in, the actions out. */
class WriteSlotsTest {
    private static final ObjectKey A = new ObjectKey("default", "a");
    private static final ObjectKey B = new ObjectKey("default", "b");
    private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");
    private static final WriteSlots.Backoff BACKOFF =
            new WriteSlots.Backoff(Duration.ofMillis(100), Duration.ofSeconds(2), 0.2);

    /** No jitter: each retry waits its backoff exactly. */
    private final WriteSlots slots = new WriteSlots(new WriteSlots.Backoff(Duration.ofMillis(100),
            Duration.ofSeconds(2), 0), () -> 0.5);

    private static ClusterStatus status(long generation) {
        return new ClusterStatus(generation, Optional.empty(), Optional.empty(), List.of(), List.of(),
                ClusterStatus.Versions.NONE);
    }

    /** The attempt the actions start (fails when they start none). */
    private static long attemptIn(List<Action> actions) {
        return actions.stream().filter(Attempt.class::isInstance).map(a -> ((Attempt) a).attempt()).findFirst()
                .orElseThrow(() -> new AssertionError("no attempt in " + actions));
    }

    /** Wants {@code status} of an idle cluster and takes the attempt's turn: the patch sent. */
    private Patch send(ObjectKey cluster, ClusterStatus status, String basis, long[] attempt) {
        attempt[0] = attemptIn(slots.wanted(cluster, status, basis));
        return slots.patch(cluster, attempt[0]).orElseThrow();
    }

    @Test
    void aStatusWantedOfAnIdleClusterIsAttemptedAndSentOnConditionOfItsBasis() {
        List<Action> actions = slots.wanted(A, status(1), "41");
        assertEquals(1, actions.size(), actions.toString());
        long attempt = attemptIn(actions);
        assertEquals(Optional.of(new Patch(status(1), "41")), slots.patch(A, attempt));
    }

    @Test
    void aStatusWantedWhileAWriteIsUnderWayWaitsAndTheNewestIsWrittenNext() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        assertEquals(List.of(), slots.wanted(A, status(2), ""), "one write at a time per cluster");
        assertEquals(List.of(), slots.wanted(A, status(3), ""));
        List<Action> after = slots.answered(A, attempt[0], new Accepted(status(1), "5"), NOW);
        assertEquals(new Written(A, status(1), status(1)), after.get(0), "the write made is reported first");
        long next = attemptIn(after);
        assertEquals(status(3), slots.patch(A, next).orElseThrow().status(), "the newest, not each in turn");
        assertEquals(List.of(new Written(A, status(3), status(3))),
                slots.answered(A, next, new Accepted(status(3), "6"), NOW));
    }

    @Test
    void anotherClusterIsNotHeldUpByAWriteUnderWay() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        assertEquals(1, slots.wanted(B, status(1), "").size(), "B's write starts while A's is under way");
    }

    @Test
    void whatTheApiServerKeptIsReported() {
        long[] attempt = new long[1];
        send(A, status(2), "", attempt);
        assertEquals(List.of(new Written(A, status(2), status(1))),
                slots.answered(A, attempt[0], new Accepted(status(1), "9"), NOW));
    }

    @Test
    void aStatusComputedFromAChangedClusterIsReportedConflictedAndNotRetried() {
        long[] attempt = new long[1];
        send(A, status(1), "41", attempt);
        assertEquals(List.of(new Conflicted(A, status(1), "41")),
                slots.answered(A, attempt[0], new Conflict("409"), NOW));
        assertEquals(Optional.empty(), slots.patch(A, attempt[0]), "no retry of it");
        assertEquals(1, slots.wanted(A, status(2), "43").size(), "the next status wanted is written at once");
    }

    @Test
    void aConflictOfAStatusOvertakenByANewerOneIsRetriedWithTheNewer() {
        long[] attempt = new long[1];
        send(A, status(1), "41", attempt);
        slots.wanted(A, status(2), "42");
        List<Action> actions = slots.answered(A, attempt[0], new Conflict("409"), NOW);
        assertEquals(List.of(new RetryAt(A, attempt[0], NOW.plusMillis(100))), actions);
        assertEquals(new Patch(status(2), "42"), slots.patch(A, attempt[0]).orElseThrow());
    }

    @Test
    void aConflictOfAWriteWithoutConditionIsRetried() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        assertEquals(List.of(new RetryAt(A, attempt[0], NOW.plusMillis(100))),
                slots.answered(A, attempt[0], new Conflict("409"), NOW));
        assertEquals(new Patch(status(1), ""), slots.patch(A, attempt[0]).orElseThrow());
    }

    @Test
    void transientFailuresAreRetriedWithGrowingBackoffUpToItsMostAndTheRetryWritesTheNewest() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        List<Long> waits = new java.util.ArrayList<>();
        for (int i = 0; i < 7; i++) {
            List<Action> actions = slots.answered(A, attempt[0], new Transient("503"), NOW);
            waits.add(Duration.between(NOW, ((RetryAt) actions.get(0)).at()).toMillis());
            if (i == 3) {
                slots.wanted(A, status(2), "");
            }
            slots.patch(A, attempt[0]).orElseThrow();
        }
        assertEquals(List.of(100L, 200L, 400L, 800L, 1600L, 2000L, 2000L), waits);
        assertEquals(status(2), slots.patch(A, attempt[0]).orElseThrow().status());
        List<Action> written = slots.answered(A, attempt[0], new Accepted(status(2), "7"), NOW);
        assertEquals(List.of(new Written(A, status(2), status(2))), written);
        send(A, status(3), "", attempt);
        assertEquals(List.of(new RetryAt(A, attempt[0], NOW.plusMillis(100))),
                slots.answered(A, attempt[0], new Transient(""), NOW), "a new run's backoff starts over");
    }

    @Test
    void aGoneClusterIsReportedOnceAndForgotten() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        slots.wanted(A, status(2), ""); // not written: the Cluster is gone
        assertEquals(List.of(new Gone(A)), slots.answered(A, attempt[0], new NotFound(), NOW));
        assertEquals(0, slots.size());
    }

    @Test
    void aRefusalWithNothingNewerIsReportedWithTheStatusItRefused() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        assertEquals(List.of(new Refused(A, status(1), "422: invalid")),
                slots.answered(A, attempt[0], new Refusal("422: invalid"), NOW));
        assertEquals(0, slots.size());
    }

    @Test
    void aStatusWantedWhileAnotherIsRefusedIsWrittenNotReportedRefused() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        slots.wanted(A, status(2), "");
        List<Action> actions = slots.answered(A, attempt[0], new Refusal("422"), NOW);
        assertEquals(new RefusedBeforeNewer(A, "422"), actions.get(0));
        assertEquals(new Patch(status(2), ""), slots.patch(A, attemptIn(actions)).orElseThrow());
    }

    @Test
    void ownWritesChainThePrecondition() {
        long[] attempt = new long[1];
        send(A, status(1), "41", attempt);
        slots.answered(A, attempt[0], new Accepted(status(1), "42"), NOW);
        assertEquals("42", send(A, status(2), "41", attempt).expectedVersion(), "computed before its echo");
        slots.answered(A, attempt[0], new Accepted(status(2), "43"), NOW);
        assertEquals("43", send(A, status(3), "42", attempt).expectedVersion(), "computed from the first's echo");
        slots.answered(A, attempt[0], new Accepted(status(3), "44"), NOW);
        assertEquals("45", send(A, status(4), "45", attempt).expectedVersion(), "another writer's version");
    }

    @Test
    void aConflictKeepsTheChainOfOwnVersions() {
        long[] attempt = new long[1];
        send(A, status(1), "41", attempt);
        slots.answered(A, attempt[0], new Accepted(status(1), "42"), NOW);
        send(A, status(2), "41", attempt);
        slots.answered(A, attempt[0], new Conflict("409"), NOW);
        assertEquals("42", send(A, status(3), "41", attempt).expectedVersion());
    }

    @Test
    void anAbandonedClustersAttemptsAndRetriesComeToNothing() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        long retried = ((RetryAt) slots.answered(A, attempt[0], new Transient(""), NOW).get(0)).attempt();
        slots.abandon(A::equals);
        assertEquals(Optional.empty(), slots.patch(A, retried), "the retry's turn sends nothing");
        assertEquals(List.of(), slots.answered(A, retried, new Accepted(status(1), "1"), NOW), "no outcome");
        long again = attemptIn(slots.wanted(A, status(2), ""));
        assertTrue(again != retried, "wanted again: a new attempt");
        assertEquals(Optional.empty(), slots.patch(A, retried), "a stale timer of the old one starts nothing");
        assertEquals(status(2), slots.patch(A, again).orElseThrow().status());
    }

    @Test
    void anAbandonedClusterForgetsItsChain() {
        long[] attempt = new long[1];
        send(A, status(1), "41", attempt);
        slots.answered(A, attempt[0], new Accepted(status(1), "42"), NOW);
        slots.abandon(k -> true);
        assertEquals("41", send(A, status(2), "41", attempt).expectedVersion());
    }

    @Test
    void anAttemptThatCannotRunLeavesItsClusterToTheNextOwner() {
        long[] attempt = new long[1];
        attempt[0] = attemptIn(slots.wanted(A, status(1), ""));
        slots.stopped(A, attempt[0]);
        assertEquals(0, slots.size());
        assertEquals(1, slots.wanted(A, status(2), "").size());
    }

    @Test
    void aStaleAttemptStoppingLeavesTheCurrentOneAlone() {
        long[] attempt = new long[1];
        send(A, status(1), "", attempt);
        slots.abandon(A::equals);
        long current = attemptIn(slots.wanted(A, status(2), ""));
        slots.stopped(A, attempt[0]);
        assertTrue(slots.patch(A, current).isPresent());
    }

    @Test
    void theBackoffDrawsItsJitterWithinTheFirstAndTheMostWait() {
        assertEquals(Duration.ofMillis(100), BACKOFF.delay(0, 0.0), "the first wait is never shortened");
        assertEquals(Duration.ofMillis(119), BACKOFF.delay(0, 0.999));
        assertEquals(Duration.ofMillis(160), BACKOFF.delay(1, 0.0), "a fifth of it either way");
        assertEquals(Duration.ofMillis(239), BACKOFF.delay(1, 0.999));
        assertEquals(Duration.ofMillis(1600), BACKOFF.delay(10, 0.0), "at the most, shortened only");
        assertEquals(Duration.ofMillis(1999), BACKOFF.delay(10, 0.999), "never over the most");
        assertEquals(Duration.ofMillis(1999), BACKOFF.delay(200, 0.999), "nor overflowing");
    }
}
