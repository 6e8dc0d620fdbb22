package io.statusaggregator.aggregation;

import java.time.Duration;

/**
 * What the aggregation thread says of its book after each poll, for the other threads (health, metrics, a stop):
 * written by that thread only, read by any.
 */
final class BookFigures {
    private volatile long events;
    private volatile long computations;
    private volatile long computationFailures;
    private volatile long busyNanos;
    private volatile int steppedAside;
    private volatile boolean live;
    private volatile boolean settled;
    private volatile String progress = "starting";
    private volatile int tracked;

    /**
     * After a poll that brought {@code events} records and took the thread {@code busy}: where {@code book} stands.
     * {@code assigning}: partitions assigned in the poll are told to the book before the next one, not live meanwhile.
     */
    void update(ClusterBook book, StatusOwnership ownership, boolean assigning, int events, Duration busy) {
        this.events += events;
        computations = book.computations();
        computationFailures = book.computationFailures();
        live = book.live() && !assigning;
        tracked = book.tracked();
        settled = live && book.settled();
        steppedAside = ownership.steppedAside();
        progress = book.progress();
        busyNanos += busy.toNanos();
    }

    /** An assignment: rebuilding again. */
    void assigned() {
        live = false;
    }

    /** Where the rehearsal before joining the group is, in words. */
    void rehearsing(String progress) {
        this.progress = progress;
    }

    long events() {
        return events;
    }

    long computations() {
        return computations;
    }

    long computationFailures() {
        return computationFailures;
    }

    Duration busy() {
        return Duration.ofNanos(busyNanos);
    }

    int steppedAside() {
        return steppedAside;
    }

    boolean live() {
        return live;
    }

    boolean settled() {
        return settled;
    }

    String progress() {
        return progress;
    }

    int tracked() {
        return tracked;
    }
}
