package io.statusaggregator;

import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * What a pipeline's start has started, stopped in the reverse order: each part stops before those it uses (the
 * aggregator before the producers it sends with). A part that fails to stop does not keep the others running.
 */
final class StartedStages implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StartedStages.class);

    private final List<AutoCloseable> started = new ArrayList<>();

    /** {@code part} has started: it stops before every part started so far. */
    void add(AutoCloseable part) {
        started.add(part);
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                LOG.debug("closing", e);
            }
        }
        started.clear();
    }
}
