package io.statusaggregator.aggregation;

import io.statusaggregator.writeback.StatusWriter;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Carries out what the {@link ClusterBook} decides, on the aggregation thread: hands statuses to write-back, changes
 * and deletions to the feeds, records to the dead-letter topic, asks for the status topic, and tells the
 * {@link ClusterObserver} and the step-aside listener. Every event goes to the book through {@link #handle};
 * write-back's outcomes become events by {@link #event}.
 */
final class ActionExecutor {
    private static final Logger LOG = Logger.getLogger(Aggregator.class);

    private final ClusterBook book;
    private final StatusWriter writer;
    private final FeedPublication feeds;
    private final ConsumedPartitions partitions;
    private final StatusTopicReads statusReads;
    private final AtomicLong submitted = new AtomicLong();
    private ClusterObserver observer = ClusterObserver.NONE;
    private Consumer<SteppedAside> onSteppedAside = aside -> { };

    ActionExecutor(ClusterBook book, StatusWriter writer, FeedPublication feeds, ConsumedPartitions partitions,
            StatusTopicReads statusReads) {
        this.book = book;
        this.writer = writer;
        this.feeds = feeds;
        this.partitions = partitions;
        this.statusReads = statusReads;
    }

    /** Before the first event: told what each Cluster shows, and when one leaves. */
    void observedBy(ClusterObserver observer) {
        this.observer = observer;
    }

    /** Before the first event: told each time this instance steps aside for a Cluster. */
    void onSteppedAside(Consumer<SteppedAside> listener) {
        this.onSteppedAside = listener;
    }

    /** {@code event} to the book, and what it decides carried out. */
    void handle(BookEvent event) {
        carryOut(book.on(event));
    }

    /** Write-back's {@code outcome}, at {@code now}, as the book takes it. */
    static BookEvent event(StatusWriter.Outcome outcome, long now) {
        if (outcome instanceof StatusWriter.Written written) {
            return new BookEvent.Written(written.cluster(), written.status(), written.kept(), now);
        } else if (outcome instanceof StatusWriter.Gone gone) {
            return new BookEvent.Gone(gone.cluster());
        } else if (outcome instanceof StatusWriter.Conflicted conflict) {
            return new BookEvent.Conflicted(conflict.cluster(), conflict.status(), conflict.basis(), now);
        }
        return new BookEvent.Refused(outcome.cluster());
    }

    /** Statuses handed to write-back. */
    long submitted() {
        return submitted.get();
    }

    private void carryOut(List<Action> actions) {
        for (int i = 0; i < actions.size(); i++) { // by index: most lists are empty, and an iterator is made per record
            Action action = actions.get(i);
            if (action instanceof Action.Shows shows) { // the most frequent first
                observer.shows(shows.cluster());
            } else if (action instanceof Action.WriteStatus write) {
                submitted.incrementAndGet();
                writer.submit(write.cluster(), write.status(), write.basis());
            } else if (action instanceof Action.PublishChange change) {
                feeds.publish(change);
            } else if (action instanceof Action.PublishAgain again) {
                LOG.warnf("could not publish the status change of %s (%s); trying again", again.cluster(),
                        again.error());
            } else if (action instanceof Action.Left left) {
                observer.left(left.cluster());
            } else if (action instanceof Action.StepAside aside) {
                SteppedAside told = aside.told();
                LOG.warnf("another writer%s keeps setting the status of cluster %s: this instance stops writing it and "
                        + "publishes its own verdict only (see docs/deploy.md, aggregator.status.writer)",
                        told.writer().isEmpty() ? "" : " (" + told.writer() + ")", told.cluster());
                onSteppedAside.accept(told);
            } else if (action instanceof Action.AnnounceDeletion deletion) {
                feeds.announce(deletion);
            } else if (action instanceof Action.DeadLetter letter) {
                partitions.deadLetter(letter);
            } else if (action instanceof Action.ReadStatuses read) {
                statusReads.read(read.assignment());
            } else if (action instanceof Action.ComputationFailed failed) {
                LOG.errorf(
                        failed.fault(),
                        "computing cluster %s failed (a bug; please report it with this trace): its status "
                                + "stays as it was until its next change; the other clusters are computed on",
                        failed.cluster());
            }
        }
    }
}
