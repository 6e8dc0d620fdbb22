package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ClusterStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The status topic read for each assignment off the aggregation thread: handed over in order, a failure as nothing read. */
class StatusTopicReadsTest {
    private static final Map<String, ClusterStatus> PUBLISHED = Map.of("default/alpha", ClusterStatus.NONE);

    record Handed(long assignment, Map<String, ClusterStatus> statuses) {
    }

    private final List<Handed> handed = new ArrayList<>();

    /** Calls {@code done} as the aggregation loop does, until {@code count} reads were handed over (5 s at most). */
    private void awaitHanded(StatusTopicReads reads, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (handed.size() < count && System.nanoTime() < deadline) {
            reads.done((assignment, statuses) -> handed.add(new Handed(assignment, statuses)));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertEquals(count, handed.size(), "reads handed over: " + handed);
    }

    @Test
    void aReadThatFailsIsHandedOverAsNothingPublishedAndTheNextOneStillComes() {
        AtomicInteger calls = new AtomicInteger();
        try (StatusTopicReads reads = new StatusTopicReads(() -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("could not read topic cluster-statuses within 30 s");
            }
            return PUBLISHED;
        })) {
            reads.read(1);
            reads.read(2);
            awaitHanded(reads, 2);
            assertEquals(List.of(new Handed(1, Map.of()), new Handed(2, PUBLISHED)), handed);
        }
    }

    @Test
    void aReadNotDoneHoldsBackTheOnesStartedAfterIt() throws InterruptedException {
        CountDownLatch firstMayFinish = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        try (StatusTopicReads reads = new StatusTopicReads(() -> {
            if (calls.incrementAndGet() == 1) {
                try {
                    assertTrue(firstMayFinish.await(5, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Map.of();
            }
            return PUBLISHED;
        })) {
            reads.read(1);
            reads.read(2);
            reads.done((assignment, statuses) -> handed.add(new Handed(assignment, statuses)));
            assertEquals(List.of(), handed, "the first read is not done: nothing is handed over");
            firstMayFinish.countDown();
            awaitHanded(reads, 2);
            assertEquals(List.of(new Handed(1, Map.of()), new Handed(2, PUBLISHED)), handed);
        }
    }
}
