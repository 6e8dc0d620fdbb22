package io.statusaggregator.pipeline;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.Supplier;

/**
 * The system clock until {@link #breakWith} is called, then a clock whose {@code instant()} throws: a fault where a loop
 * reads the time, to test what the loop does about a fault it did not expect.
 */
public final class FaultyClock extends Clock {
    private volatile Supplier<? extends Throwable> fault;

    /** From now on {@code instant()} throws what {@code fault} makes (an unchecked exception or an error). */
    public FaultyClock breakWith(Supplier<? extends Throwable> fault) {
        this.fault = fault;
        return this;
    }

    @Override
    public Instant instant() {
        Supplier<? extends Throwable> thrown = fault;
        if (thrown != null) {
            Throwable t = thrown.get();
            if (t instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) t;
        }
        return Instant.now();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
