package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ClusterStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Read-your-own-writes on its own: what counts as shown, when an echo ends it, when its wait times out. */
class PendingWritesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final ClusterStatus FIRST = generation(1);
    private static final ClusterStatus SECOND_STATUS = generation(2);

    private final PendingWrites<String> pending = new PendingWrites<>(Duration.ofSeconds(10));

    private static ClusterStatus generation(long observed) {
        return new ClusterStatus(observed, ClusterStatus.NONE.failure(), ClusterStatus.NONE.defaultCni(), ClusterStatus.NONE.conditions(),
                ClusterStatus.NONE.workerNodeGroups(), ClusterStatus.NONE.versions());
    }

    @Test
    void aSubmittedStatusCountsAsShownUntilItsEcho() {
        pending.submitted("a", FIRST);
        assertEquals(Optional.of(FIRST), pending.pending("a"));
        pending.shown("a", ClusterStatus.NONE); // an older state of the Cluster
        assertEquals(Optional.of(FIRST), pending.pending("a"), "an older status is no echo");
        pending.written("a", FIRST, FIRST, false, 0);
        assertEquals(1, pending.awaitingEcho());
        pending.shown("a", FIRST);
        assertEquals(Optional.empty(), pending.pending("a"));
        assertTrue(pending.isEmpty());
    }

    @Test
    void aWriteOfWhatTheClusterShowsAlreadyAwaitsNoEcho() {
        pending.submitted("a", FIRST);
        pending.written("a", FIRST, FIRST, true, 0);
        assertTrue(pending.isEmpty());
    }

    @Test
    void theWriteOfAReplacedStatusLeavesTheNewerOneBeingWritten() {
        pending.submitted("a", FIRST);
        pending.submitted("a", SECOND_STATUS);
        pending.written("a", FIRST, FIRST, false, 0);
        assertEquals(Optional.of(SECOND_STATUS), pending.pending("a"));
        assertEquals(1, pending.beingWritten());
        assertEquals(0, pending.awaitingEcho());
    }

    @Test
    void echoesExpireOldestFirstFromTheEndOfTheirWriteNotFromTheirSubmission() {
        pending.submitted("a", FIRST);
        pending.submitted("b", FIRST);
        pending.written("a", FIRST, FIRST, false, 5 * SECOND); // queued 5 s behind other writes
        pending.written("b", FIRST, FIRST, false, 7 * SECOND);
        assertEquals(List.of(), pending.expire(15 * SECOND), "10 s after a's write, not more");
        assertEquals(List.of("a"), pending.expire(15 * SECOND + 1));
        assertEquals(List.of("b"), pending.expire(30 * SECOND));
        assertTrue(pending.isEmpty());
    }

    @Test
    void aNewSubmissionStopsWaitingForTheEchoOfTheOneBefore() {
        pending.submitted("a", FIRST);
        pending.written("a", FIRST, FIRST, false, 0);
        pending.submitted("a", SECOND_STATUS);
        assertEquals(List.of(), pending.expire(60 * SECOND), "the second is being written: no echo awaited yet");
        pending.shown("a", FIRST);
        assertEquals(Optional.of(SECOND_STATUS), pending.pending("a"), "the first one's echo does not end the second");
        pending.forget("a");
        assertTrue(pending.isEmpty());
    }
}
