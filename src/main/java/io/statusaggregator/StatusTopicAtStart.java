package io.statusaggregator;

import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import org.jboss.logging.Logger;

/**
 * The status topic's last status of every cluster: what was published before this instance started, so that a change
 * whose status a crash kept from the topic is published again (with the same event id). Read once at start, while
 * the aggregator joins its group (the broker holds a new group's first rebalance 3 s by default), and waited for by
 * the start (the broker answers, or the start fails) and by the first assignment's partitions before they go live;
 * then read again on each later assignment of partitions.
 */
final class StatusTopicAtStart implements Supplier<Map<String, ClusterStatus>> {
    private static final Logger LOG = Logger.getLogger(StatusTopicAtStart.class);

    private final Map<String, Object> kafka;
    private final String topic;
    private final Duration timeout;
    private final CompletableFuture<Map<String, ClusterStatus>> readingAtStart;
    /** The read at start until the first assignment takes it; then null, and each assignment reads anew. */
    private final AtomicReference<CompletableFuture<Map<String, ClusterStatus>>> readAtStart;

    private StatusTopicAtStart(Map<String, Object> kafka, String topic, Duration timeout) {
        this.kafka = kafka;
        this.topic = topic;
        this.timeout = timeout;
        ExecutorService reader = Executors.newSingleThreadExecutor(DaemonThreads.named("status-topic"));
        this.readingAtStart = CompletableFuture.supplyAsync(() -> {
            try {
                return read();
            } catch (TimeoutException e) {
                throw new CompletionException(e);
            }
        }, reader);
        reader.shutdown(); // its one task still runs, and the thread ends with it
        this.readAtStart = new AtomicReference<>(readingAtStart);
    }

    /** Starts reading {@code topic} to its end, each read given {@code timeout}. */
    static StatusTopicAtStart read(Map<String, Object> kafka, String topic, Duration timeout) {
        return new StatusTopicAtStart(kafka, topic, timeout);
    }

    /** For an assignment of partitions: the read at start for the first, a fresh read for each later one. */
    @Override
    public Map<String, ClusterStatus> get() {
        CompletableFuture<Map<String, ClusterStatus>> first = readAtStart.getAndSet(null);
        try {
            return first != null ? first.join() : read();
        } catch (TimeoutException | CompletionException e) {
            LOG.warnf(
                    "%s; deletions while these partitions were elsewhere may go unannounced",
                    e instanceof CompletionException && e.getCause() != null
                            ? e.getCause().getMessage()
                            : e.getMessage());
            return Map.of();
        }
    }

    /** Waits for the read at start: the broker answers, or the start fails with the read's own error. */
    void awaitFirstRead() throws InterruptedException, ExecutionException, TimeoutException {
        try {
            // Longer than the read's own timeout, whose error says more.
            readingAtStart.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new TimeoutException("could not read topic " + topic + " within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TimeoutException timedOut) {
                throw timedOut;
            }
            throw e;
        }
    }

    private Map<String, ClusterStatus> read() throws TimeoutException {
        try {
            Optional<Map<String, ClusterStatus>> latest = StatusFeed.latest(kafka, topic, timeout);
            return latest.orElseThrow(() -> new TimeoutException("could not read topic " + topic + " to its end"));
        } catch (KafkaException e) {
            throw new TimeoutException("could not read topic " + topic + ": " + e.getMessage());
        }
    }
}
