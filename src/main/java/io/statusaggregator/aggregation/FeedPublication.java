package io.statusaggregator.aggregation;

import io.statusaggregator.topics.PublishedStatus;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * How aggregation's changes reach the feeds, in order: a status change's event on the transitions feed and, once the
 * broker has that, the status on the status topic; a deletion's event, then the tombstone of its status. That order
 * lets an instance starting after a crash find a change whose status never reached the status topic, and publish it
 * again under the same event id. What the broker refuses is tried again (a change through the {@link ClusterBook}
 * ({@link BookEvent.Unpublished}), which computes its cluster again; an announcement a second later).
 *
 * <p>The records are built and sent on a thread of their own ({@code feeds}: encoding a change's statuses, its event
 * id and data was most of the aggregation thread's work per change), in the order the aggregation thread decided
 * them. Bounded: when the feeds fall behind, aggregation waits for them rather than piling changes up in memory.
 * The producers' acknowledgements are handed back to the aggregation thread ({@link #handBack}), which alone touches
 * the book.
 */
final class FeedPublication implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FeedPublication.class);
    private static final int BACKLOG = 1_000;
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    /** How long a stopping instance, or one whose partitions move, lets the feeds' last records reach the broker. */
    static final Duration GRACE = Duration.ofSeconds(5);

    private final TransitionFeed transitions;
    private final StatusFeed statuses;
    /** Where a refused change goes: to the book, on the aggregation thread. */
    private final Consumer<BookEvent> book;
    /** Whether a cluster has a published status again (a deletion's acknowledgement finds it back). */
    private final Predicate<ObjectKey> isPublished;
    private final Clock clock;
    private final ExecutorService feeds = new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(BACKLOG),
            DaemonThreads.named("feeds"),
            (task, executor) -> {
                try {
                    if (!executor.isShutdown()) {
                        executor.getQueue().put(task);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
    /** Work that the producers' acknowledgements hand back to the aggregation thread. */
    private final Queue<Runnable> acknowledged = new ConcurrentLinkedQueue<>();
    /**
     * Told of each change once the transitions feed has it, a deletion included (its {@code after} empty): Kubernetes
     * Events; on the aggregation thread: must not block.
     */
    private volatile Consumer<StatusChange> published = change -> { };
    /** Announcements the broker did not take, tried again a second later: when (System.nanoTime) and what. */
    private final Queue<Map.Entry<Long, Runnable>> retries = new ArrayDeque<>();

    FeedPublication(TransitionFeed transitions, StatusFeed statuses, Consumer<BookEvent> book,
            Predicate<ObjectKey> isPublished, Clock clock) {
        this.transitions = transitions;
        this.statuses = statuses;
        this.book = book;
        this.isPublished = isPublished;
        this.clock = clock;
    }

    /** A status the Cluster shows: its change event, then its status record. */
    void publish(Action.PublishChange publication) {
        ObjectKey key = publication.cluster().key();
        // Encoded once, for the event and the status record; not kept (memory per cluster).
        PublishedStatus after = PublishedStatus.of(publication.after());
        StatusChange change = new StatusChange(
                key,
                publication.cluster().generation(),
                publication.before().map(PublishedStatus::of),
                Optional.of(after),
                publication.progress());
        Instant time = clock.instant();
        feeds.execute(() -> transitions.send(change, time, error -> acknowledged.add(() -> {
            if (error == null) {
                published.accept(change);
                feeds.execute(() -> statuses.publish(publication.cluster(), after, feedError -> {
                    if (feedError != null) {
                        acknowledged.add(() -> unpublished(publication, feedError));
                    }
                }));
            } else {
                unpublished(publication, error);
            }
        })));
    }

    /** Before the first change: who is told of each change the transitions feed took. */
    void onPublished(Consumer<StatusChange> listener) {
        published = listener;
    }

    private void unpublished(Action.PublishChange publication, Exception error) {
        book.accept(new BookEvent.Unpublished(publication.cluster().key(), publication.before(), publication.after(),
                error.toString(), System.nanoTime()));
    }

    /**
     * A deleted Cluster: its deletion event, then the tombstone of its status; tried until taken, unless it is back.
     */
    void announce(Action.AnnounceDeletion deletion) {
        sendDeletion(deletion.cluster(), new StatusChange(deletion.cluster(), deletion.generation(),
                Optional.of(PublishedStatus.of(deletion.last())), Optional.empty(), StatusChange.Progress.UNKNOWN));
    }

    private void sendDeletion(ObjectKey cluster, StatusChange deleted) {
        Instant time = clock.instant();
        feeds.execute(() -> transitions.send(deleted, time, error -> acknowledged.add(() -> {
            if (isPublished.test(cluster)) {
                return; // the Cluster is back: its new status follows this event
            }
            if (error != null) {
                LOG.warnf("could not publish the deletion of %s (%s); trying again", cluster, error.toString());
                retry(() -> sendDeletion(cluster, deleted));
            } else {
                published.accept(deleted);
                sendTombstone(cluster);
            }
        })));
    }

    private void sendTombstone(ObjectKey cluster) {
        feeds.execute(() -> statuses.tombstone(cluster, error -> {
            if (error != null) {
                acknowledged.add(() -> retry(() -> {
                    if (!isPublished.test(cluster)) {
                        sendTombstone(cluster);
                    }
                }));
            }
        }));
    }

    private void retry(Runnable announcement) {
        retries.add(Map.entry(System.nanoTime() + RETRY_AFTER.toNanos(), announcement));
    }

    /** On the aggregation thread: what the acknowledgements handed back, and the retries that are due. */
    void handBack() {
        Runnable acknowledgement;
        while ((acknowledgement = acknowledged.poll()) != null) {
            acknowledgement.run();
        }
        while (!retries.isEmpty() && System.nanoTime() - retries.peek().getKey() >= 0) {
            retries.poll().getValue().run();
        }
    }

    /**
     * Waits until the broker has what the feeds were handed, and what its acknowledgements hand on in turn (a change's
     * status record follows its event, a tombstone its deletion event); for at most {@link #GRACE}. Before a stop and
     * before partitions change hands, in both directions: an owner reads the status topic when it is assigned
     * partitions, and a status record still on its way then is one it never learns of: a change published again, or,
     * for a cluster deleted meanwhile, a status left on the topic with no deletion announced.
     */
    void settle() {
        if (feeds.isShutdown()) {
            return;
        }
        long deadline = System.nanoTime() + GRACE.toNanos();
        boolean handedOn = true;
        while (handedOn) {
            Future<?> flushed = feeds.submit(() -> {
                transitions.flush();
                statuses.flush();
            });
            try {
                flushed.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                LOG.infof(
                        "the feeds did not finish within %s (%s); the next owner of their clusters publishes what is"
                                + " left",
                        GRACE, e.toString());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            handedOn = false;
            Runnable acknowledgement;
            while ((acknowledgement = acknowledged.poll()) != null) {
                acknowledgement.run();
                handedOn = true;
            }
        }
    }

    /** Sends what was handed to the feeds (for at most {@link #GRACE}), then stops. */
    @Override
    public void close() {
        feeds.shutdown();
        try {
            feeds.awaitTermination(GRACE.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
