package io.statusaggregator.cli;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.ArrayDeque;
import java.util.Deque;
import org.jboss.logging.Logger;

/**
 * What {@code run} (or {@code alerts}) started, closed once, newest first: when the command returns (on SIGTERM too,
 * see {@link StopSignal}), or when Quarkus stops on a signal the JVM handles (Ctrl-C), whichever comes first. Then
 * Quarkus waits for its {@link ShutdownEvent} observers, not for the command's own thread, so a graceful stop (the
 * Lease given up, the feeds flushed, the consumer group left, the embedded default's files removed) must happen here.
 */
@Singleton
public class StartedParts {
    private static final Logger LOG = Logger.getLogger(StartedParts.class);
    private final Deque<AutoCloseable> parts = new ArrayDeque<>();

    public synchronized void add(AutoCloseable part) {
        parts.push(part);
    }

    /** Closes every part, newest first; a second caller waits for the first and finds nothing left. */
    public synchronized void closeAll() {
        while (!parts.isEmpty()) {
            try {
                parts.pop().close();
            } catch (Exception e) {
                LOG.debug("stopping", e);
            }
        }
    }

    void onStop(@Observes ShutdownEvent stopping) {
        closeAll();
    }
}
