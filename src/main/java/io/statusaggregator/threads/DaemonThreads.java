package io.statusaggregator.threads;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Threads of the application's own loops: named for what they do, and daemons, so that they never hold up exit. */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Threads named {@code name}, or {@code name-1}, {@code name-2}, … when the factory makes several. */
    public static ThreadFactory named(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            int n = count.incrementAndGet();
            Thread t = new Thread(r, n == 1 ? name : name + "-" + n);
            t.setDaemon(true);
            return t;
        };
    }
}
