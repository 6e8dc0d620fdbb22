package io.statusaggregator.aggregation;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import io.statusaggregator.feeds.StatusChange;
import io.statusaggregator.feeds.StatusFeed;
import io.statusaggregator.feeds.TransitionFeed;
import io.statusaggregator.ingest.ClusterPartitioner;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.StatusWriter;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidSessionTimeoutException;
import org.jboss.logging.Logger;

/**
 * Aggregation's Kafka shell: consumes the object-state topic in a consumer group and carries out what its
 * {@link ClusterBook} decides (the clusters' state, coalescing, which status to write and publish: see there). This
 * class does the I/O: polls, rebalances, commits, dead letters, hands statuses to write-back and changes to the feeds.
 *
 * <p>On assignment, a partition is read from its beginning to the end offset it had then: the compacted topic holds
 * the latest state of every object, so this rebuilds the clusters' state. Everything runs on one thread, the
 * consumer's; write-back's outcomes and the producers' acknowledgements are handed back to it.
 *
 * <p>A record it cannot use goes to the {@link DeadLetters dead-letter topic}: a key it does not write, a value that
 * is not JSON or of no kind the rules read, and an object that cannot be read (whose cluster's status also says so,
 * see {@code rules.MalformedInputs}). The group's committed offset of a partition is how far it has been handled:
 * a rebuild reads the partition from its beginning, but dead-letters only the records at or after the offset
 * committed when the partition was assigned, so that a restart does not send the same records again. Offsets are
 * committed by this class (no auto-commit, which would commit the rebuild's position and move it back), never past
 * a record whose dead letter is still on its way.
 */
public final class Aggregator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Aggregator.class);

    /**
     * @param longestCoalescingWindow how long the coalescing window grows at most ({@link CoalescingWindow})
     * @param echoTimeout how long a written status counts as shown, from the end of its write, while the Cluster does
     *                    not show it; then its own status is trusted again (another controller may have overwritten it)
     * @param rehearsal   how long the rebuild is rehearsed at most before joining the group ({@link RebuildRehearsal})
     * @param capiNamespace where the CAPI objects are, matched to EKS-A Clusters by name
     * @param writer      who writes the Clusters' statuses; {@code stepAsideWindow}: how close two foreign writes of
     *                    one Cluster's status are, at most, for this instance to step aside ({@link StatusOwnership})
     */
    public record Settings(
            String topic,
            Duration coalescingWindow,
            Duration longestCoalescingWindow,
            Duration echoTimeout,
            Duration rehearsal,
            String capiNamespace,
            WantedWriter writer,
            Duration stepAsideWindow) {
        public Settings(String topic, Duration coalescingWindow, Duration longestCoalescingWindow, Duration echoTimeout,
                Duration rehearsal, String capiNamespace) {
            this(topic, coalescingWindow, longestCoalescingWindow, echoTimeout, rehearsal, capiNamespace,
                    WantedWriter.AUTO, StatusOwnership.WINDOW);
        }
    }

    /**
     * Replaced, on the aggregation thread, only when the broker refuses its group session (see {@link GroupSession}).
     */
    private Consumer<byte[], ByteBuffer> consumer;

    private Map<String, Object> consumerSettings;
    private final Function<Map<String, Object>, Consumer<byte[], ByteBuffer>> consumers;
    private final DeadLetters deadLetters;
    private final Settings settings;
    private final CoalescingWindow coalescing;
    private final ClusterBook book;
    private final StatusOwnership ownership;
    private final ConsumerFigures figures = new ConsumerFigures();
    private volatile int steppedAside;
    private java.util.function.Consumer<SteppedAside> onSteppedAside = aside -> { };
    private final Supplier<Compatibility> compatibility;
    /** What the management cluster holds for every cluster. */
    private final Supplier<ManagementCluster> management;
    private final StatusWriter writer;
    private final FeedPublication feeds;
    /** The status topic read on each assignment, while its partitions are read. */
    private final StatusTopicReads statusReads;
    private final Clock clock;
    private final ConsumedPartitions partitions;
    private final Queue<StatusWriter.Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("aggregation"));
    private final AtomicLong events = new AtomicLong();
    private volatile long computations;
    private volatile long computationFailures;
    private volatile long busyNanos; // written by the aggregation thread only
    private final AtomicLong submitted = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean live;
    private volatile boolean settled;
    private volatile String progress = "starting";
    private volatile int tracked;
    private Cancellable subscription;
    private RebuildRehearsal rehearsal;
    private java.util.function.Consumer<Throwable> onStopped = failure -> { };

    /**
     * @param consumerSettings as {@link ObjectStateConsumer#properties} makes them
     * @param consumers        makes the consumer from its settings: once, and again with a longer session when the
     *                         broker refuses the one asked for
     */
    public Aggregator(
            Map<String, Object> consumerSettings,
            Function<Map<String, Object>, Consumer<byte[], ByteBuffer>> consumers,
            DeadLetters deadLetters,
            Settings settings,
            Supplier<Compatibility> compatibility,
            Supplier<ManagementCluster> management,
            Function<java.util.function.Consumer<StatusWriter.Outcome>, StatusWriter> writers,
            StatusFeed feed,
            TransitionFeed transitions,
            Supplier<Map<String, ClusterStatus>> statusTopic,
            Clock clock) {
        this.statusReads = new StatusTopicReads(statusTopic);
        this.management = management;
        this.consumerSettings = Map.copyOf(consumerSettings);
        this.consumers = consumers;
        this.consumer = consumers.apply(this.consumerSettings);
        this.deadLetters = deadLetters;
        this.settings = settings;
        this.compatibility = compatibility;
        this.writer = writers.apply(outcomes::add);
        Object pollRecords = this.consumerSettings.getOrDefault(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, ConsumerConfig.DEFAULT_MAX_POLL_RECORDS);
        this.coalescing = new CoalescingWindow(settings.coalescingWindow(), settings.longestCoalescingWindow(),
                Integer.parseInt(String.valueOf(pollRecords)));
        this.book = new ClusterBook(coalescing, settings.echoTimeout(), settings.capiNamespace());
        this.ownership = new StatusOwnership(settings.writer(), settings.stepAsideWindow());
        book.ownedAs(ownership);
        book.observedBy(ownership.following(ClusterObserver.NONE));
        this.partitions = new ConsumedPartitions(settings.topic(), deadLetters, book);
        this.feeds = new FeedPublication(transitions, feed, book, clock);
        this.clock = clock;
    }

    /** Before {@link #start}: each status change, once on the transitions feed, is also given to {@code listener}. */
    public Aggregator onPublished(java.util.function.Consumer<StatusChange> listener) {
        feeds.onPublished(listener);
        return this;
    }

    /** Before {@link #start}: told, on the aggregation thread, each time this instance steps aside for a Cluster. */
    public Aggregator onSteppedAside(java.util.function.Consumer<SteppedAside> listener) {
        onSteppedAside = listener;
        return this;
    }

    /** The Clusters this instance aggregates whose status it stepped aside from: another writer keeps writing it. */
    public int steppedAside() {
        return steppedAside;
    }

    /**
     * Before {@link #start}: {@code listener} is told, on the aggregation thread, if aggregation stops on a fault
     * rather than a {@link #close}: a poll the consumer could not make (credentials or ACLs refused, a rebalance that
     * failed) or a fault in the loop itself. Nothing is aggregated after it; the consumer stays in its group until
     * closed.
     */
    public Aggregator onStopped(java.util.function.Consumer<Throwable> listener) {
        onStopped = listener;
        return this;
    }

    /**
     * Before {@link #start}: the rebuild is rehearsed before the group is joined ({@link RebuildRehearsal}, for
     * {@link Settings#rehearsal} at most) if {@code othersServe}, asked then, says the group's other members serve it.
     */
    public Aggregator rehearsingFirst(BooleanSupplier othersServe) {
        rehearsal = settings.rehearsal().isZero()
                ? null
                : new RebuildRehearsal(
                        consumerSettings,
                        settings.topic(),
                        settings.rehearsal(),
                        () -> new ClusterBook(coalescing, settings.echoTimeout(), settings.capiNamespace()),
                        compatibility,
                        management,
                        clock,
                        othersServe);
        return this;
    }

    public void start() {
        if (rehearsal != null) { // on the aggregation thread, before its first poll
            thread.execute(() -> rehearsal.beforeJoining(() -> closed, text -> progress = text));
        }
        Duration poll = settings.coalescingWindow().compareTo(Duration.ofMillis(100)) < 0
                ? settings.coalescingWindow() : Duration.ofMillis(100);
        subscription = Multi.createBy()
                .repeating()
                .supplier(() -> {
                    subscribeOnce();
                    try {
                        return consumer.poll(book.untilDue(System.nanoTime(), poll)); // woken when one is due
                    } catch (InvalidSessionTimeoutException refused) {
                        joinWithLongerSession(refused);
                        return ConsumerRecords.<byte[], ByteBuffer>empty();
                    }
                })
                .until(records -> closed)
                // In the stream, not in subscribe's callback: a fault there Mutiny would drop, stopping aggregation
                // unsaid.
                .onItem()
                .invoke(this::process)
                .runSubscriptionOn(thread)
                .subscribe()
                .with(processed -> {}, failure -> {
                    if (!closed) {
                        // Kafka's refusals say what was refused in a line; a fault of ours (a rebalance callback's,
                        // which
                        // Kafka wraps in a KafkaException) needs its trace.
                        if (failure instanceof KafkaException
                                && (failure.getCause() == null || failure.getCause() instanceof KafkaException)) {
                            LOG.errorf("aggregation stopped: %s", failure.toString());
                        } else {
                            LOG.error("aggregation stopped", failure);
                        }
                        onStopped.accept(failure);
                    }
                });
    }

    private boolean subscribed;

    /** The broker's group.min.session.timeout.ms is above the session asked for: a new consumer with a longer one. */
    private void joinWithLongerSession(InvalidSessionTimeoutException refused) {
        GroupSession refusedSession = GroupSession.of(consumerSettings);
        GroupSession longer = refusedSession.longer().orElseThrow(() -> refused);
        LOG.warnf(
                "the broker refuses a consumer group session of %d ms (its group.min.session.timeout.ms is higher):"
                    + " joining with %d ms; a replica that dies keeps its partitions that long. Let the broker take %d"
                    + " ms to fail over sooner",
                refusedSession.timeout().toMillis(),
                longer.timeout().toMillis(),
                refusedSession.timeout().toMillis());
        try {
            consumer.close(Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.debug("closing the refused consumer", e);
        }
        consumerSettings = longer.applyTo(consumerSettings);
        consumer = consumers.apply(consumerSettings);
        subscribed = false;
    }

    private void subscribeOnce() {
        if (!subscribed) {
            consumer.subscribe(List.of(settings.topic()), new Rebalance());
            subscribed = true;
        }
    }

    /**
     * True when this instance has rebuilt its partitions, computed every event it consumed, and seen every status it
     * wrote come back from the API server: nothing is left in flight.
     */
    public boolean settled() {
        return settled;
    }

    /**
     * Waits, {@code timeout} at most, until this instance is {@link #settled}; at once while it is still rebuilding.
     * For a stop: the echo of a status written just before it is on its way through ingest, and the cluster's next
     * owner computes from the Cluster's record it finds on the topic.
     */
    public boolean awaitSettled(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (live && !settled && System.nanoTime() < deadline) {
            Thread.sleep(20); // settled is updated by the aggregation thread at each poll
        }
        return settled;
    }

    /** Where this instance stands, in words, for logs and diagnostics. */
    public String progress() {
        return progress;
    }

    /** True once every partition assigned to this instance has been rebuilt. */
    public boolean live() {
        return live;
    }

    public long events() {
        return events.get();
    }

    /**
     * The aggregation thread's time on what its polls returned, not waiting in one: its share of a span is how busy it
     * was.
     */
    public Duration busy() {
        return Duration.ofNanos(busyNanos);
    }

    public long computations() {
        return computations;
    }

    /** Computations that failed on a fault, a bug (logged with the cluster and the trace); the others went on. */
    public long computationFailures() {
        return computationFailures;
    }

    /** Statuses handed to write-back. */
    public long submitted() {
        return submitted.get();
    }

    public StatusWriter writer() {
        return writer;
    }

    public int clustersTracked() {
        return tracked;
    }

    /** Records not read yet of every assigned partition. */
    public long lag() {
        return figures.lag();
    }

    /**
     * The coalescing window the live partitions' records not read yet make ({@link CoalescingWindow}): longer while
     * behind.
     */
    public Duration coalescingWindow() {
        return Duration.ofNanos(coalescing.nanos(figures.liveLag()));
    }

    /** Whether the aggregation's consumer has a connection to the brokers (read on its own thread, after each poll). */
    public boolean connected() {
        return figures.connected();
    }

    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /**
     * Tells {@code observer} what each Cluster of this instance shows, and when one leaves it; before {@link #start}.
     */
    public Aggregator observedBy(ClusterObserver observer) {
        book.observedBy(ownership.following(observer));
        return this;
    }

    private void process(ConsumerRecords<byte[], ByteBuffer> polled) {
        long start = System.nanoTime();
        figures.measure(consumer, book);
        drainOutcomes();
        feeds.handBack();
        for (ConsumerRecord<byte[], ByteBuffer> fetched : polled) {
            events.incrementAndGet();
            // A live partition's records are read within a coalescing window; a rebuilt one's may wait far longer.
            var record = book.live(fetched.partition()) ? fetched : ObjectStateConsumer.detached(fetched);
            carryOut(book.apply(
                    record.partition(), record.offset(), record.key(), record.value(), record, System.nanoTime()));
        }
        partitions.commitIfDue(consumer);
        statusReads.done((assignment, statuses) -> carryOut(book.statusesRead(assignment, statuses)));
        for (int rebuilt : partitions.readToEnd(consumer)) {
            carryOut(book.rebuilt(rebuilt));
            LOG.debugf("partition %d rebuilt: %s", rebuilt, book.progress());
        }
        carryOut(book.due(System.nanoTime(), figures.liveLag(), compatibility.get(), management.get(),
                clock.instant()));
        computations = book.computations();
        computationFailures = book.computationFailures();
        live = book.live();
        tracked = book.tracked();
        settled = book.settled();
        steppedAside = ownership.steppedAside();
        progress = book.progress();
        busyNanos += System.nanoTime() - start;
    }

    /** Write-back's outcomes, applied on this thread. */
    private void drainOutcomes() {
        StatusWriter.Outcome outcome;
        while ((outcome = outcomes.poll()) != null) {
            if (outcome instanceof StatusWriter.Written written) {
                carryOut(book.written(written.cluster(), written.status(), written.kept(), System.nanoTime()));
            } else if (outcome instanceof StatusWriter.Gone gone) {
                carryOut(book.gone(gone.cluster()));
            } else if (outcome instanceof StatusWriter.Conflicted conflict) {
                book.conflicted(conflict.cluster(), conflict.status(), conflict.basis(), System.nanoTime());
            } else {
                book.refused(outcome.cluster());
            }
        }
    }

    /** Does what the book decided. */
    private void carryOut(List<Action> actions) {
        for (int i = 0; i < actions.size(); i++) { // by index: most lists are empty, and an iterator is made per record
            Action action = actions.get(i);
            if (action instanceof Action.WriteStatus write) {
                submitted.incrementAndGet();
                writer.submit(write.cluster(), write.status(), write.basis());
            } else if (action instanceof Action.PublishChange change) {
                feeds.publish(change);
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
            } else if (action instanceof Action.ComputationFailed failed) {
                LOG.errorf(
                        failed.fault(),
                        "computing cluster %s failed (a bug; please report it with this trace): its status "
                                + "stays as it was until its next change; the other clusters are computed on",
                        failed.cluster());
            }
        }
    }

    /** The object-state topic's partitions at the last assignment: what clusters are routed over. */
    private int partitionCount = 1;

    /** Rebuild on assignment; forget what is revoked or lost. Called by the consumer on the aggregation thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            if (assigned.isEmpty()) {
                return;
            }
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
            // What the status topic holds for these partitions' clusters, read meanwhile; another instance may have
            // owned
            // them. Every status this instance sent is there first.
            feeds.settle();
            Set<Integer> numbers = new HashSet<>();
            assigned.forEach(tp -> numbers.add(tp.partition()));
            partitionCount = consumer.partitionsFor(settings.topic()).size();
            statusReads.read(book.assigned(numbers, partitionCount));
            partitions.assigned(consumer, assigned, ends);
            live = false;
            LOG.debugf("assigned %s; rebuilding to %s", assigned, ends);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            if (!revoked.isEmpty()) {
                feeds.settle(); // the next owner reads the status topic: what was sent about these clusters is there
            }
            try {
                partitions.commit(consumer, revoked.stream().map(TopicPartition::partition).toList(), true);
            } catch (RuntimeException e) {
                LOG.debugf("committing revoked partitions %s: %s", revoked, e.toString());
            }
            forget(revoked);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            forget(lost);
        }

        private void forget(Collection<TopicPartition> gone) {
            List<Integer> numbers = gone.stream().map(TopicPartition::partition).toList();
            partitions.forget(numbers);
            book.revoked(numbers);
            // Their next owner writes them: a write retried here would land over its newer status when the server
            // answers.
            int routedOver = partitionCount;
            writer.abandon(cluster -> numbers.contains(ClusterPartitioner.partitionOf(cluster.name(), routedOver)));
        }
    }

    /**
     * Stops gracefully: no more polls; the writes under way finish (for at most {@link #SHUTDOWN_GRACE}) and their
     * changes go to the feeds; then the consumer commits what it read and leaves the group, so that the partitions
     * move to the other instances at once. Whatever is left undone, the next owner's rebuild does again.
     */
    @Override
    public void close() {
        closed = true;
        if (subscription != null) {
            subscription.cancel();
        }
        writer.finish(SHUTDOWN_GRACE);
        thread.submit(() -> {
            try {
                drainOutcomes();
                feeds.settle();
            } catch (RuntimeException e) {
                LOG.debug("finishing the last outcomes", e);
            }
            feeds.close(); // what was handed to the feeds is sent before the producers close
            try {
                deadLetters.awaitSent(Duration.ofSeconds(5));
                partitions.commitAll(consumer);
            } catch (RuntimeException e) {
                LOG.debug("committing", e);
            }
            try {
                consumer.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.debug("closing the consumer", e);
            }
        });
        thread.shutdown();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        statusReads.close();
        writer.close();
    }

    /** How long a stopping instance lets its status writes under way finish. */
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);
}
