package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.threads.DaemonThreads;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The status topic read for each assignment of partitions, on a thread of its own: the partitions are read from the
 * object-state topic meanwhile, and a partition goes live only once both are done ({@link BookEvent.StatusesRead}).
 * Waiting for the read in the consumer's assignment callback held every record of a restarted instance back by the
 * time the read took (in a fresh JVM, about a second for 10,000 statuses), and a surviving instance's live partitions
 * too when it took some over. Used on the aggregation thread only, but for the reads themselves.
 */
final class StatusTopicReads implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StatusTopicReads.class);

    private record Reading(long assignment, CompletableFuture<Map<String, ClusterStatus>> statuses) {
    }

    private final Supplier<Map<String, ClusterStatus>> statusTopic;
    private final ExecutorService reader =
            Executors.newSingleThreadExecutor(DaemonThreads.named("aggregation-status-reads"));
    private final List<Reading> readings = new ArrayList<>();

    /** @param statusTopic reads the status topic's last status of each cluster (namespace/name) */
    StatusTopicReads(Supplier<Map<String, ClusterStatus>> statusTopic) {
        this.statusTopic = statusTopic;
    }

    /** Starts reading the topic for assignment {@code assignment} (as {@link Action.ReadStatuses} names it). */
    void read(long assignment) {
        readings.add(new Reading(assignment, CompletableFuture.supplyAsync(statusTopic, reader)));
    }

    /** Hands each read done since the last call to {@code done}, in the order they were started. */
    void done(BiConsumer<Long, Map<String, ClusterStatus>> done) {
        for (Iterator<Reading> it = readings.iterator(); it.hasNext(); ) {
            Reading reading = it.next();
            if (!reading.statuses().isDone()) {
                return; // the reader reads one at a time: the later ones are not done either
            }
            it.remove();
            Map<String, ClusterStatus> statuses;
            try {
                statuses = reading.statuses().join();
            } catch (RuntimeException e) {
                LOG.warnf(
                        "could not read the status topic (%s); deletions while these partitions were elsewhere may go "
                                + "unannounced",
                        e.getCause() != null ? e.getCause().toString() : e.toString());
                statuses = Map.of();
            }
            done.accept(reading.assignment(), statuses);
        }
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }
}
