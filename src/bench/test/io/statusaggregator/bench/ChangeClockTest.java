package io.statusaggregator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.statusaggregator.model.ClusterStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Freshness as the harness measures it: what counts as a change shown, and what as a change undone. Runs with -Pbench only. */
class ChangeClockTest {
    private static final long MS = 1_000_000L;

    private static ClusterStatus status(long generation) {
        return new ClusterStatus(generation, Optional.empty(), Optional.empty(), List.of(), List.of(), ClusterStatus.Versions.NONE);
    }

    @Test
    void aChangeIsMeasuredFromItsWriteToTheStatusThatReflectsIt() {
        ChangeClock clock = new ChangeClock(Map.of("c1", status(1)));
        clock.changed("c1", status(2), 0);
        clock.shown("c1", status(1), 50 * MS); // another write of what it showed: not this change
        clock.shown("c1", status(2), 120 * MS);
        assertEquals(List.of(120.0), clock.latencies());
        assertEquals(0, clock.waiting());
    }

    @Test
    void aStatusReflectsTheEarlierChangesOfItsClusterToo() {
        ChangeClock clock = new ChangeClock(Map.of("c1", status(1)));
        clock.changed("c1", status(2), 0);
        clock.changed("c1", status(3), 10 * MS);
        clock.shown("c1", status(3), 110 * MS);
        assertEquals(List.of(110.0, 100.0), clock.latencies());
    }

    @Test
    void aChangeBackToTheStatusShownUndoesTheChangesWaitingInsteadOfWaitingForTheNextStatus() {
        // A node group's new spec (its status out of date), then its status (back to what the cluster shows): the
        // aggregator computes both at once and rightly writes nothing; the next step's status must not count them.
        ChangeClock clock = new ChangeClock(Map.of("c1", status(1)));
        clock.changed("c1", status(2), 0);
        clock.changed("c1", status(1), 10 * MS);
        assertEquals(0, clock.waiting());
        clock.changed("c1", status(4), 4_000 * MS);
        clock.shown("c1", status(4), 4_100 * MS);
        assertEquals(List.of(100.0), clock.latencies());
        assertEquals(List.of(), clock.slowChanges());
        assertEquals(2, clock.undone(Map.of("c1", "4")));
    }

    @Test
    void whatAClusterShowsIsLearntFromWhatItShows() {
        ChangeClock clock = new ChangeClock();
        clock.changed("c1", status(1), 0); // nothing known of c1 yet: it waits
        assertEquals(1, clock.waiting());
        clock.shown("c1", status(1), 80 * MS);
        clock.changed("c1", status(2), 100 * MS);
        clock.changed("c1", status(1), 110 * MS);
        assertEquals(0, clock.waiting());
        assertEquals(List.of(80.0), clock.latencies());
    }

    @Test
    void changesStillWaitingWhoseLastIsShownAtTheEndAreUndone() {
        ChangeClock clock = new ChangeClock();
        clock.changed("c1", status(2), 0);
        clock.changed("c1", status(3), 10 * MS);
        assertEquals(2, clock.undone(Map.of("c1", "3")));
        assertEquals(0, clock.waiting());
    }
}
