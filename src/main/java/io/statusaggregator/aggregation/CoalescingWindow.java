package io.statusaggregator.aggregation;

import io.statusaggregator.model.Pure;
import java.time.Duration;

/**
 * How long a cluster's records are gathered into one computation: {@code window} while aggregation keeps up, longer
 * while it is behind. When the consumer has more records waiting than one poll takes ({@code pollRecords}), the window
 * grows in proportion to that backlog, up to {@code longest}. A cluster whose next records are still in the backlog
 * would be computed, written and published again as soon as they are read, so its statuses in between are work
 * nobody sees: gathering longer lets a catch-up (a burst, a restart, a slow API server) finish sooner, where computing
 * every record would make it fall further behind. Kept up, it is {@code window}: freshness is unchanged.
 *
 * @param longest a value shorter than {@code window} counts as {@code window}: the window never grows
 */
@Pure
public record CoalescingWindow(Duration window, Duration longest, int pollRecords) {
    /**
     * How long the window grows at most unless configured (aggregator.coalescing-window-max). It binds only in a
     * catch-up that lasts longer: the window follows the backlog down as it is read. At 1 s a catch-up computed every
     * cluster about once a second, one and a half to two times the computations made at 3 s, for statuses replaced
     * within seconds (BENCHMARKS.md, "Choices the figures support").
     */
    public static final Duration DEFAULT_LONGEST = Duration.ofSeconds(3);

    public CoalescingWindow {
        if (window.isNegative() || pollRecords < 1) {
            throw new IllegalArgumentException(
                    "a coalescing window of " + window + " over polls of " + pollRecords + " records");
        }
        if (longest.compareTo(window) < 0) {
            longest = window;
        }
    }

    /** The window, in nanoseconds, when {@code backlog} records wait to be read. */
    long nanos(long backlog) {
        long base = window.toNanos();
        if (backlog <= pollRecords) {
            return base;
        }
        double grown = (double) base * backlog / pollRecords;
        return (long) Math.min(longest.toNanos(), grown);
    }
}
