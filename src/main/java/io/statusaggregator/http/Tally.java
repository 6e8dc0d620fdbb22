package io.statusaggregator.http;

import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * Events counted, and told at most once an interval: the first at once, those after it together in the next line
 * once the interval has passed. A flood of refused requests so makes one log line a minute, not one each. Pure.
 */
@Pure
public final class Tally {
    private final Duration interval;
    private Instant lastTold;
    private long untold;

    public Tally(Duration interval) {
        this.interval = interval;
    }

    /** One more event at {@code now}: the count to tell now (this one and those untold before it), or none yet. */
    public synchronized OptionalLong add(Instant now) {
        untold++;
        if (lastTold != null && Duration.between(lastTold, now).compareTo(interval) < 0) {
            return OptionalLong.empty();
        }
        lastTold = now;
        long count = untold;
        untold = 0;
        return OptionalLong.of(count);
    }
}
