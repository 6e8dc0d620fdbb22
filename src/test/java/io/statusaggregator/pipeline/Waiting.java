package io.statusaggregator.pipeline;

import java.time.Duration;
import java.util.function.Supplier;

/** Waiting on a condition with a deadline, for tests in any package. */
public final class Waiting {
    private Waiting() {
    }

    public static void until(Duration deadline, Supplier<Boolean> condition, Supplier<String> what) {
        Fleet.await(deadline, condition, what);
    }
}
