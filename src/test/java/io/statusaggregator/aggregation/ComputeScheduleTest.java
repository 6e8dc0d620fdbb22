package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the book computes a cluster: a quiet one at once, a burst's rest when it ends, or after a delay. */
class ComputeScheduleTest {
    private static final long MS = 1_000_000L;
    private final ComputeSchedule schedule = new ComputeSchedule(
            new CoalescingWindow(Duration.ofMillis(100), Duration.ofSeconds(1), 2_000), Duration.ofSeconds(10));
    private final TrackedCluster cluster = new TrackedCluster("alpha", 0);
    private final long now = 5_000 * MS;

    @Test
    void aQuietClusterIsDueAtOnceAndTheRestOfItsBurstTogetherWhenItEnds() {
        schedule.record(cluster, now);
        assertEquals(List.of(cluster), schedule.due(now, 0), "quiet: at once");
        schedule.record(cluster, now + 20 * MS);
        schedule.record(cluster, now + 25 * MS);
        assertEquals(List.of(), schedule.due(now + 34 * MS, 0), "the burst goes on");
        assertEquals(List.of(cluster), schedule.due(now + 35 * MS, 0), "10 ms without a record: the burst's rest");
        assertTrue(schedule.isEmpty());
    }

    @Test
    void whileBehindARecordWaitsTheWidenedWindow() {
        long backlog = 10 * 2_000;
        schedule.due(now - MS, backlog);
        schedule.record(cluster, now);
        assertEquals(List.of(), schedule.due(now + 100 * MS, backlog), "behind: nothing at once, the window is longer");
        assertEquals(List.of(cluster), schedule.due(now + 1_000 * MS, backlog));
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
