package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the book computes a cluster: a coalescing window after its oldest record, at once, or after a delay. */
class ComputeScheduleTest {
    private static final long MS = 1_000_000L;
    private final ComputeSchedule schedule = new ComputeSchedule(
            new CoalescingWindow(Duration.ofMillis(100), Duration.ofSeconds(1), 2_000), Duration.ofSeconds(10));
    private final TrackedCluster cluster = new TrackedCluster("alpha", 0);
    private final long now = 5_000 * MS;

    @Test
    void aRecordMakesItsClusterDueOneWindowLaterAndABurstMakesOneComputation() {
        schedule.record(cluster, now);
        schedule.record(cluster, now + 50 * MS);
        assertEquals(List.of(), schedule.due(now + 99 * MS, 0));
        assertEquals(List.of(cluster), schedule.due(now + 100 * MS, 0), "from its oldest record");
        assertTrue(schedule.isEmpty());
    }

    @Test
    void aBacklogLongerThanAPollWidensTheWindow() {
        schedule.record(cluster, now);
        assertEquals(List.of(), schedule.due(now + 100 * MS, 10 * 2_000), "behind: the window is longer");
    }

    @Test
    void atOnceIsDueAtTheNextLook() {
        schedule.atOnce(cluster);
        assertEquals(List.of(cluster), schedule.due(now, 0));
    }

    @Test
    void aConflictWithNothingNewerWaitsAnEchoTimeout() {
        schedule.afterEchoTimeout(cluster, now);
        assertEquals(List.of(), schedule.due(now + 9_999 * MS, 0));
        assertEquals(List.of(cluster), schedule.due(now + 10_000 * MS, 0));
    }

    @Test
    void aDelayIsCountedFromNow() {
        schedule.after(cluster, now, Duration.ofSeconds(1));
        assertEquals(1, schedule.size());
        assertEquals(List.of(), schedule.due(now + 999 * MS, 0));
        assertEquals(List.of(cluster), schedule.due(now + 1_000 * MS, 0));
    }

    @Test
    void aClusterRemovedIsNotDue() {
        schedule.record(cluster, now);
        schedule.remove(cluster);
        assertEquals(List.of(), schedule.due(now + 1_000 * MS, 0));
        assertTrue(schedule.isEmpty());
    }
}
