package io.statusaggregator.ingest;

import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.RetriableException;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * The object states whose sends keep failing: each is re-sent every second, but warned about once, then at most
 * every {@link #WARN_EVERY}, and said sent when it is. One that the broker or the producer has refused (an error
 * Kafka does not call retriable: a record too large for the topic, a topic this user may not write) for longer than
 * {@code stuckAfter} is stuck: readiness says so until it is sent. A passing outage (a timeout, no leader) is not:
 * it is every send's, and the Kafka wellness check's to show. Times are {@link System#nanoTime} values.
 */
final class StuckSends {
    static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private final long stuckAfter;
    private final Map<ObjectStateKey, Failing> failing = new ConcurrentHashMap<>();

    /** Failing since {@code since}, {@code attempts} times, last with {@code error}; warned about at {@code warned}. */
    private record Failing(long since, long warned, int attempts, String error, boolean refused) {
    }

    StuckSends(Duration stuckAfter) {
        this.stuckAfter = stuckAfter.toNanos();
    }

    /**
     * A send of {@code key}'s state failed with {@code error}: what to warn, if it is time to (the first failure, then
     * every {@link #WARN_EVERY}).
     */
    Optional<String> failed(ObjectStateKey key, Throwable error, long now) {
        Failing before = failing.get(key);
        long since = before == null ? now : before.since();
        int attempts = before == null ? 1 : before.attempts() + 1;
        boolean warn = before == null || now - before.warned() >= WARN_EVERY.toNanos();
        failing.put(key, new Failing(since, warn ? now : before.warned(), attempts, error.toString(),
                !(error instanceof RetriableException)));
        if (!warn) {
            return Optional.empty();
        }
        return Optional.of(before == null
                ? "could not send %s (%s); it will be sent again every second".formatted(what(key), error)
                : "still could not send %s after %d attempts over %s (%s); it will be sent again every second"
                        .formatted(what(key), attempts, seconds(now - since), error));
    }

    /** A send of {@code key}'s state succeeded: what to say, if its failure was warned about. */
    Optional<String> sent(ObjectStateKey key, long now) {
        if (failing.isEmpty()) {
            return Optional.empty(); // nearly always: no map look-up per record
        }
        Failing was = failing.remove(key);
        return was == null ? Optional.empty()
                : Optional.of("sent %s after %d failed attempts over %s"
                        .formatted(what(key), was.attempts(), seconds(now - was.since())));
    }

    /** Why ingest is stuck: the oldest state refused for longer than {@code stuckAfter}; empty when none is. */
    Optional<String> stuck(long now) {
        return failing.entrySet().stream()
                .filter(e -> e.getValue().refused() && now - e.getValue().since() > stuckAfter)
                .min(Comparator.comparingLong(e -> e.getValue().since()))
                .map(e -> "%s not sent for %s (%d attempts): %s%s".formatted(what(e.getKey()),
                        seconds(now - e.getValue().since()), e.getValue().attempts(), e.getValue().error(),
                        failing.size() > 1 ? " (%d objects failing)".formatted(failing.size()) : ""));
    }

    /** This replica no longer sends (a standby): nothing of it is stuck. */
    void clear() {
        failing.clear();
    }

    private static String what(ObjectStateKey key) {
        return "the state of %s.%s %s".formatted(key.kind().kind(), key.kind().group(), key.key());
    }

    private static String seconds(long nanos) {
        return Duration.ofNanos(nanos).toSeconds() + " s";
    }
}
