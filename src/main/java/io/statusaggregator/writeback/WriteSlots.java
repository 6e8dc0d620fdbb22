package io.statusaggregator.writeback;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;

/**
 * What write-back decides, pure: one slot per cluster, one write at a time in it, always of the newest status wanted;
 * retries with backoff; the precondition of each write from the chain of this writer's own versions
 * ({@link OwnVersions}). Events in (a status wanted, an attempt's turn, its result), actions out; {@link StatusWriter}
 * does them. Not thread-safe: its shell calls it under one lock.
 *
 * <p>An attempt is numbered; a result or a turn of an attempt that is no longer its slot's (the cluster abandoned, or
 * abandoned and wanted again) is ignored, so a stale timer or a late answer starts nothing.
 */
@Pure
final class WriteSlots {
    /** The result of a write, as the API server answered it. */
    sealed interface Result {
    }

    /** Written: what the Cluster holds now, and its {@code resourceVersion} then (empty: not told). */
    record Accepted(ClusterStatus kept, String resourceVersion) implements Result {
    }

    /** 409: the Cluster is not at the version the write was on condition of (or, unconditional, a conflict). */
    record Conflict(String reason) implements Result {
    }

    /** 404: the Cluster is gone. */
    record NotFound() implements Result {
    }

    /** Throttling, a server error or no answer: worth trying again. */
    record Transient(String reason) implements Result {
    }

    /** Refused for good (a bad request, RBAC): trying again would be refused again. */
    record Refusal(String reason) implements Result {
    }

    /** What the shell is to do. */
    sealed interface Action {
    }

    /** Take a writer thread for the attempt; there, {@link #patch} says what to send. */
    record Attempt(ObjectKey cluster, long attempt) implements Action {
    }

    /** Take a writer thread for the attempt at {@code at}. */
    record RetryAt(ObjectKey cluster, long attempt, Instant at) implements Action {
    }

    /** Send {@code status} on condition that the Cluster is at {@code expectedVersion} (empty: no condition). */
    record Patch(ClusterStatus status, String expectedVersion) {
    }

    /** Report: written, and what the API server kept of it. */
    record Written(ObjectKey cluster, ClusterStatus status, ClusterStatus kept) implements Action {
    }

    /** Report: the Cluster changed since {@code basis}; the status is to be computed again. */
    record Conflicted(ObjectKey cluster, ClusterStatus status, String basis) implements Action {
    }

    /** Report: the Cluster is gone. */
    record Gone(ObjectKey cluster) implements Action {
    }

    /** Report: refused for good. */
    record Refused(ObjectKey cluster, ClusterStatus status, String reason) implements Action {
    }

    /** Log only: refused, but a newer status wanted since is written now (a refusal is of the request sent). */
    record RefusedBeforeNewer(ObjectKey cluster, String reason) implements Action {
    }

    /**
     * Exponential backoff with jitter, as Mutiny's {@code withBackOff(initial, max).withJitter(jitter)} draws it: the
     * {@code n}th retry of a run waits {@code initial * 2^n}, at most {@code max}, moved by up to {@code jitter} of it
     * within {@code [initial, max]}.
     */
    record Backoff(Duration initial, Duration max, double jitter) {
        /** @param draw uniform in [0, 1) */
        Duration delay(int retry, double draw) {
            Duration next;
            try {
                next = retry >= 62 ? max : initial.multipliedBy(1L << retry);
            } catch (ArithmeticException e) {
                next = max;
            }
            if (next.compareTo(max) > 0) {
                next = max;
            }
            long offset = next.multipliedBy((long) (100 * jitter)).dividedBy(100).toMillis();
            long low = Math.max(initial.minus(next).toMillis(), -offset);
            long high = Math.min(max.minus(next).toMillis(), offset);
            return next.plusMillis(low + (long) ((high - low) * draw));
        }
    }

    private static final class Slot {
        /** The newest status wanted, and the Cluster's version it was computed from (empty: unknown). */
        ClusterStatus latest;
        String basis = "";
        /** What the attempt under way sent, or the last sent (null before the first): what a refusal refused. */
        ClusterStatus attempted;
        String attemptedBasis = "";
        String attemptedExpected = "";
        final OwnVersions own = new OwnVersions();
        /** The attempt under way or waiting for its retry; 0 when none. */
        long attempt;
        /** Retries of the attempt so far, for its backoff. */
        int retries;
    }

    private final Map<ObjectKey, Slot> slots = new HashMap<>();
    private final Backoff backoff;
    private final DoubleSupplier draws;
    private long attempts;

    /** @param draws uniform in [0, 1), for the backoff's jitter */
    WriteSlots(Backoff backoff, DoubleSupplier draws) {
        this.backoff = backoff;
        this.draws = draws;
    }

    /** {@code status}, computed from the Cluster at {@code basis} (empty: unknown), is to be written. */
    List<Action> wanted(ObjectKey cluster, ClusterStatus status, String basis) {
        Slot slot = slots.computeIfAbsent(cluster, k -> new Slot());
        slot.latest = status;
        slot.basis = basis;
        if (slot.attempt != 0) {
            return List.of(); // the write under way, or its retry, takes the newest
        }
        return List.of(begin(cluster, slot));
    }

    /**
     * The attempt's writer thread is ready: what to send, the newest status wanted (empty when the attempt is no
     * longer its slot's).
     */
    Optional<Patch> patch(ObjectKey cluster, long attempt) {
        Slot slot = current(cluster, attempt);
        if (slot == null) {
            return Optional.empty();
        }
        slot.attempted = slot.latest;
        slot.attemptedBasis = slot.basis;
        slot.attemptedExpected = slot.own.expected(slot.basis);
        return Optional.of(new Patch(slot.attempted, slot.attemptedExpected));
    }

    /** What the API server answered the attempt; {@code now} for a retry's time. */
    List<Action> answered(ObjectKey cluster, long attempt, Result result, Instant now) {
        Slot slot = current(cluster, attempt);
        if (slot == null || slot.attempted == null) {
            return List.of(); // abandoned meanwhile: its next owner writes it
        }
        ClusterStatus sent = slot.attempted;
        if (result instanceof Accepted stored) {
            slot.own.wrote(slot.attemptedExpected, stored.resourceVersion());
            return afterwards(cluster, slot, new Written(cluster, sent, stored.kept()));
        }
        if (result instanceof Conflict && !slot.attemptedExpected.isEmpty() && slot.latest == sent) {
            // Computing it again is the cure, not writing it again. (A newer status wanted meanwhile is retried.)
            return afterwards(cluster, slot, new Conflicted(cluster, sent, slot.attemptedBasis));
        }
        if (result instanceof NotFound) {
            slots.remove(cluster);
            return List.of(new Gone(cluster));
        }
        if (result instanceof Refusal refusal) {
            if (slot.latest != sent) {
                return List.of(new RefusedBeforeNewer(cluster, refusal.reason()), begin(cluster, slot));
            }
            slots.remove(cluster);
            return List.of(new Refused(cluster, sent, refusal.reason()));
        }
        return List.of(retry(cluster, slot, now)); // transient, or a conflict a retry may get past
    }

    /** The attempt could not take a writer thread (the writer is stopping): its cluster is left to its next owner. */
    void stopped(ObjectKey cluster, long attempt) {
        if (current(cluster, attempt) != null) {
            slots.remove(cluster);
        }
    }

    /**
     * Forgets the clusters {@code gone} matches, without an outcome: another instance computes and writes them from
     * now on. Their attempts under way and their retries come to nothing.
     */
    void abandon(Predicate<ObjectKey> gone) {
        slots.keySet().removeIf(gone);
    }

    /** The clusters with a slot: a write under way or waiting, or a chain of own versions kept. */
    int size() {
        return slots.size();
    }

    /** A report, and the newest status wanted meanwhile written next. */
    private List<Action> afterwards(ObjectKey cluster, Slot slot, Action report) {
        if (slot.latest != slot.attempted) {
            return List.of(report, begin(cluster, slot));
        }
        slot.attempt = 0;
        return List.of(report);
    }

    private Action begin(ObjectKey cluster, Slot slot) {
        slot.attempt = ++attempts;
        slot.retries = 0;
        return new Attempt(cluster, slot.attempt);
    }

    private Action retry(ObjectKey cluster, Slot slot, Instant now) {
        return new RetryAt(cluster, slot.attempt, now.plus(backoff.delay(slot.retries++, draws.getAsDouble())));
    }

    private Slot current(ObjectKey cluster, long attempt) {
        Slot slot = slots.get(cluster);
        return slot != null && slot.attempt == attempt && attempt != 0 ? slot : null;
    }
}
