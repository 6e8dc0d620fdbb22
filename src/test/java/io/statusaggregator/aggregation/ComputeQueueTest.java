package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ComputeQueueTest {
    private static final long MS = 1_000_000L;
    private static final long WINDOW = 100 * MS;

    private final ComputeQueue queue = new ComputeQueue();
    private final TrackedCluster a = new TrackedCluster("a", 0);
    private final TrackedCluster b = new TrackedCluster("b", 0);
    private final TrackedCluster c = new TrackedCluster("c", 0);

    @Test
    void aClusterIsDueOneWindowAfterItsOldestUncomputedRecord() {
        queue.record(a, 0);
        queue.record(b, 40 * MS);
        queue.record(a, 90 * MS); // a waits already: its first record counts
        assertEquals(List.of(), queue.due(99 * MS, WINDOW));
        assertEquals(List.of(a), queue.due(100 * MS, WINDOW));
        assertEquals(List.of(), queue.due(139 * MS, WINDOW));
        assertEquals(List.of(b), queue.due(140 * MS, WINDOW));
        assertTrue(queue.isEmpty());
        queue.record(a, 150 * MS);
        assertEquals(List.of(a), queue.due(250 * MS, WINDOW), "computed, then marked again by a new record");
    }

    @Test
    void aLongerWindowHoldsEveryRecordBackAndAShorterOneReleasesThemAllInOrder() {
        queue.record(a, 0);
        queue.record(b, 10 * MS);
        queue.record(c, 20 * MS);
        assertEquals(List.of(), queue.due(500 * MS, 1_000 * MS));
        assertEquals(3, queue.size());
        assertEquals(List.of(a, b), queue.due(510 * MS, 500 * MS));
        assertEquals(List.of(c), queue.due(510 * MS, WINDOW));
    }

    @Test
    void aClusterDueAtOnceIsTakenWhateverTheWindowAndBeforeTheOthers() {
        queue.record(a, 0);
        queue.atOnce(b);
        assertEquals(List.of(b), queue.due(1 * MS, 1_000 * MS));
        queue.atOnce(a); // waits already for its record: unchanged
        assertEquals(List.of(), queue.due(2 * MS, WINDOW));
        assertEquals(List.of(a), queue.due(100 * MS, WINDOW));
    }

    @Test
    void aClusterDueAtASetTimeDoesNotHoldBackTheOnesBehindIt() {
        queue.asOf(a, 900 * MS); // due at 1 s with a window of 100 ms
        queue.record(b, 0);
        assertEquals(List.of(b), queue.due(100 * MS, WINDOW));
        assertEquals(List.of(), queue.due(999 * MS, WINDOW));
        assertEquals(List.of(a), queue.due(1_000 * MS, WINDOW));
    }

    /** A cluster waiting for a later time (a refused write's, or a republication's) is due as a record makes it. */
    @Test
    void aRecordBringsForwardAClusterWaitingForALaterTime() {
        queue.asOf(a, 10_000 * MS);
        queue.asOf(b, 10_000 * MS);
        queue.record(a, 50 * MS);
        assertEquals(List.of(), queue.due(149 * MS, WINDOW));
        assertEquals(List.of(a), queue.due(150 * MS, WINDOW), "its record's window, not the time it waited for");
        assertEquals(List.of(), queue.due(9_000 * MS, WINDOW), "b still waits");
        assertEquals(List.of(b), queue.due(10_100 * MS, WINDOW));
        assertTrue(queue.isEmpty());
    }

    @Test
    void aRemovedClusterIsNotDueAndCanBeMarkedAgain() {
        queue.record(a, 0);
        queue.atOnce(b);
        queue.asOf(c, 0);
        queue.remove(a);
        queue.remove(b);
        queue.remove(c);
        queue.remove(c);
        assertTrue(queue.isEmpty());
        assertEquals(List.of(), queue.due(1_000 * MS, WINDOW));
        queue.record(a, 1_000 * MS);
        assertEquals(List.of(a), queue.due(1_100 * MS, WINDOW));
    }

    @Test
    void aRecordStampedBeforeTheLastOneKeepsTheOrder() {
        queue.record(a, 50 * MS);
        queue.record(b, 10 * MS); // a clock read on another core: counted as at 50 ms
        assertEquals(List.of(), queue.due(149 * MS, WINDOW));
        assertEquals(List.of(a, b), queue.due(150 * MS, WINDOW));
    }
}
