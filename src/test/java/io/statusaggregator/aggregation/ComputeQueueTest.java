package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ComputeQueueTest {
    private static final long MS = 1_000_000L;
    private static final long WINDOW = 100 * MS;
    private static final long GROWN = 1_000 * MS;
    private static final Duration POLL = Duration.ofMillis(100);

    private final ComputeQueue queue = new ComputeQueue(Duration.ofNanos(WINDOW));
    private final TrackedCluster a = new TrackedCluster("a", 0);
    private final TrackedCluster b = new TrackedCluster("b", 0);
    private final TrackedCluster c = new TrackedCluster("c", 0);

    // --- kept up: a lone change at once, a burst's first at once and the rest together

    @Test
    void aLoneChangeToAQuietClusterIsDueAtOnce() {
        queue.record(a, 0);
        assertEquals(Duration.ZERO, queue.untilDue(0, POLL), "the poll does not wait");
        assertEquals(List.of(a), queue.due(0, WINDOW), "never computed: quiet");
        queue.record(a, 100 * MS);
        assertEquals(List.of(a), queue.due(100 * MS, WINDOW), "a window after its last computation: quiet again");
        assertTrue(queue.isEmpty());
    }

    @Test
    void aBurstsFirstChangeIsDueAtOnceAndTheRestTogetherWhenItEnds() {
        queue.record(a, 0);
        assertEquals(List.of(a), queue.due(0, WINDOW), "the first of the burst");
        queue.record(a, 2 * MS);
        queue.record(a, 4 * MS);
        queue.record(a, 7 * MS);
        assertEquals(List.of(), queue.due(16 * MS, WINDOW), "the rest wait for the burst's end");
        assertEquals(Duration.ofMillis(1), queue.untilDue(16 * MS, POLL),
                "a tenth of the window after its last record");
        assertEquals(List.of(a), queue.due(17 * MS, WINDOW), "the rest, together");
        assertTrue(queue.isEmpty());
        queue.record(a, 50 * MS);
        assertEquals(List.of(), queue.due(50 * MS, WINDOW), "computed 33 ms ago: not quiet, a burst again");
        assertEquals(List.of(a), queue.due(60 * MS, WINDOW));
    }

    @Test
    void aBurstThatGoesOnIsComputedAWindowAfterItsFirstComputation() {
        queue.record(a, 0);
        assertEquals(List.of(a), queue.due(0, WINDOW));
        for (long at = 5 * MS; at < WINDOW; at += 5 * MS) {
            queue.record(a, at);
            assertEquals(List.of(), queue.due(at, WINDOW), "records every 5 ms: the burst goes on");
        }
        assertEquals(List.of(a), queue.due(WINDOW, WINDOW), "a window after the first computation");
        queue.record(a, WINDOW + 5 * MS);
        assertEquals(List.of(), queue.due(WINDOW + 5 * MS, WINDOW), "computed 5 ms ago: the burst goes on");
    }

    @Test
    void eachClusterHasItsOwnBurst() {
        queue.record(a, 0);
        assertEquals(List.of(a), queue.due(0, WINDOW));
        queue.record(a, 5 * MS);
        queue.record(b, 8 * MS); // quiet: its own first change
        assertEquals(List.of(b), queue.due(8 * MS, WINDOW));
        queue.record(b, 9 * MS);
        queue.record(a, 12 * MS);
        assertEquals(List.of(), queue.due(18 * MS, WINDOW));
        assertEquals(List.of(b), queue.due(19 * MS, WINDOW), "b's burst ended first");
        assertEquals(List.of(a), queue.due(22 * MS, WINDOW));
    }

    // --- behind: every record waits a grown window

    @Test
    void behindEveryRecordWaitsTheGrownWindowFromTheOldestAndAShorterOneReleasesThemInOrder() {
        queue.due(0, GROWN); // the consumer is behind
        queue.record(a, 0);
        queue.record(b, 10 * MS);
        queue.record(c, 20 * MS);
        queue.record(a, 15 * MS); // a waits already: its first record counts
        assertEquals(List.of(), queue.due(500 * MS, GROWN), "nothing at once while behind");
        assertEquals(3, queue.size());
        assertEquals(List.of(a, b), queue.due(510 * MS, 500 * MS));
        assertEquals(List.of(c), queue.due(510 * MS, WINDOW));
    }

    @Test
    void behindABurstWaitsTheGrownWindow() {
        queue.record(a, 0);
        assertEquals(List.of(a), queue.due(0, WINDOW));
        queue.record(a, 5 * MS);
        assertEquals(List.of(), queue.due(50 * MS, GROWN), "behind: its burst's end does not count");
        assertEquals(List.of(a), queue.due(1_000 * MS, GROWN), "a grown window after its last computation");
    }

    @Test
    void caughtUpAQuietClusterIsDueAtOnceAgain() {
        queue.due(0, GROWN);
        queue.record(a, 0);
        assertEquals(List.of(), queue.due(10 * MS, WINDOW), "caught up: its record, marked while behind, waits on");
        assertEquals(List.of(a), queue.due(100 * MS, WINDOW));
        queue.record(b, 110 * MS);
        assertEquals(List.of(b), queue.due(110 * MS, WINDOW));
    }

    // --- marked otherwise

    @Test
    void aClusterDueAtOnceIsTakenWhateverTheWindowAndBeforeTheOthers() {
        burstUnderWay(a);
        queue.atOnce(b);
        assertEquals(List.of(b), queue.due(1 * MS, GROWN));
        queue.atOnce(a); // waits already for its record: unchanged
        assertEquals(List.of(), queue.due(2 * MS, WINDOW));
        assertEquals(List.of(a), queue.due(100 * MS, WINDOW));
    }

    @Test
    void aClusterDueAtASetTimeDoesNotHoldBackTheOnesBehindIt() {
        queue.asOf(a, 900 * MS); // due at 1 s with a window of 100 ms
        burstUnderWay(b);
        assertEquals(Duration.ofMillis(20), queue.untilDue(0, Duration.ofSeconds(2)), "b's turn first: its burst ends");
        assertEquals(List.of(b), queue.due(20 * MS, WINDOW));
        assertEquals(Duration.ofMillis(980), queue.untilDue(20 * MS, Duration.ofSeconds(2)), "then a's");
        assertEquals(List.of(), queue.due(999 * MS, WINDOW));
        assertEquals(List.of(a), queue.due(1_000 * MS, WINDOW));
        assertEquals(POLL, queue.untilDue(1_000 * MS, POLL), "none waits: the longest poll");
    }

    /** A cluster waiting for a later time (a refused write's, or a republication's) is due as a record makes it. */
    @Test
    void aRecordBringsForwardAClusterWaitingForALaterTime() {
        queue.asOf(a, 10_000 * MS);
        queue.asOf(b, 10_000 * MS);
        queue.record(a, 50 * MS);
        assertEquals(List.of(a), queue.due(50 * MS, WINDOW), "quiet: its record's turn, at once");
        assertEquals(List.of(), queue.due(9_000 * MS, WINDOW), "b still waits");
        assertEquals(List.of(b), queue.due(10_100 * MS, WINDOW));
        assertTrue(queue.isEmpty());
    }

    @Test
    void aRemovedClusterIsNotDueAndCanBeMarkedAgain() {
        burstUnderWay(a);
        queue.atOnce(b);
        queue.asOf(c, 0);
        queue.remove(a);
        queue.remove(b);
        queue.remove(c);
        queue.remove(c);
        assertTrue(queue.isEmpty());
        assertEquals(List.of(), queue.due(1_000 * MS, WINDOW));
        queue.record(a, 1_000 * MS);
        assertEquals(List.of(a), queue.due(1_000 * MS, WINDOW));
    }

    @Test
    void aRecordStampedBeforeTheLastOneKeepsTheOrder() {
        queue.due(0, GROWN);
        queue.record(a, 50 * MS);
        queue.record(b, 10 * MS); // a clock read on another core: counted as at 50 ms
        assertEquals(List.of(), queue.due(1_049 * MS, GROWN));
        assertEquals(List.of(a, b), queue.due(1_050 * MS, GROWN));
    }

    /** {@code cluster} computed at 0 and marked again by a record at 10 ms: due at 20 ms, its burst's end. */
    private void burstUnderWay(TrackedCluster cluster) {
        queue.record(cluster, 0);
        assertEquals(List.of(cluster), queue.due(0, WINDOW));
        queue.record(cluster, 10 * MS);
    }
}
