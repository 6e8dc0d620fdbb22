package io.statusaggregator.aggregation;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.StatusWriter;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * Aggregation's Kafka shell: consumes the object-state topic in a consumer group and carries out what its
 * {@link ClusterBook} decides (the clusters' state, coalescing, which status to write and publish: see there). This
 * class does the I/O: it turns what happens into the book's {@link BookEvent}s (each poll's records, the partitions
 * moving, write-back's outcomes, the feeds' refusals, the time) and has the {@link ActionExecutor} carry out the
 * {@link Action}s the book returns (hand statuses to write-back and changes to the feeds, dead-letter records).
 *
 * <p>On assignment, a partition is read from its beginning to the end offset it had then ({@link GroupConsumer}): the
 * compacted topic holds the latest state of every object, so this rebuilds the clusters' state. Everything runs on one
 * thread, the consumer's; write-back's outcomes and the producers' acknowledgements are handed back to it.
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
    /** How long a stopping instance lets its status writes under way finish. */
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);

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

    private final Settings settings;
    private final Map<String, Object> consumerSettings;
    private final CoalescingWindow coalescing;
    private final ClusterBook book;
    private final StatusOwnership ownership;
    private final Supplier<Compatibility> compatibility;
    /** What the management cluster holds for every cluster. */
    private final Supplier<ManagementCluster> management;
    private final Clock clock;
    private final StatusWriter writer;
    private final FeedPublication feeds;
    /** The status topic read on each assignment, while its partitions are read. */
    private final StatusTopicReads statusReads;
    private final DeadLetters deadLetters;
    private final ConsumedPartitions partitions;
    private final ActionExecutor executor;
    private final GroupConsumer consumer;
    private final ConsumerFigures figures = new ConsumerFigures();
    /** What write-back hands back to the aggregation thread: its outcomes, as the book takes them. */
    private final Queue<BookEvent> handedBack = new ConcurrentLinkedQueue<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("aggregation"));
    private RebuildRehearsal rehearsal;
    private Cancellable subscription;
    private java.util.function.Consumer<Throwable> onStopped = failure -> { };

    /** What the aggregation thread says of the book after each poll, for the other threads. */
    private final BookFigures bookFigures = new BookFigures();
    private volatile boolean closed;

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
        this.settings = settings;
        this.consumerSettings = Map.copyOf(consumerSettings);
        this.compatibility = compatibility;
        this.management = management;
        this.clock = clock;
        this.statusReads = new StatusTopicReads(statusTopic);
        this.deadLetters = deadLetters;
        this.writer = writers.apply(outcome -> handedBack.add(ActionExecutor.event(outcome, System.nanoTime())));
        Object pollRecords = this.consumerSettings.getOrDefault(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, ConsumerConfig.DEFAULT_MAX_POLL_RECORDS);
        this.coalescing = new CoalescingWindow(settings.coalescingWindow(), settings.longestCoalescingWindow(),
                Integer.parseInt(String.valueOf(pollRecords)));
        this.book = new ClusterBook(coalescing, settings.echoTimeout(), settings.capiNamespace());
        this.ownership = new StatusOwnership(settings.writer(), settings.stepAsideWindow());
        book.ownedAs(ownership);
        this.partitions = new ConsumedPartitions(settings.topic(), deadLetters, book);
        // A change the broker refused goes back to the book on the aggregation thread, where the feeds hand it back.
        this.feeds = new FeedPublication(
                transitions, feed, event -> executor().handle(event), book::isPublished, clock);
        this.executor = new ActionExecutor(book, writer, feeds, partitions, statusReads);
        AggregationRebalance rebalance = new AggregationRebalance(settings.topic(), () -> consumer().consumer(),
                executor, partitions, feeds, writer, bookFigures::assigned);
        this.consumer = new GroupConsumer(this.consumerSettings, consumers, settings.topic(), rebalance);
    }

    private ActionExecutor executor() {
        return executor;
    }

    private GroupConsumer consumer() {
        return consumer;
    }


    /** Before {@link #start}: each status change, once on the transitions feed, is also given to {@code listener}. */
    public Aggregator onPublished(java.util.function.Consumer<StatusChange> listener) {
        feeds.onPublished(listener);
        return this;
    }

    /** Before {@link #start}: told, on the aggregation thread, each time this instance steps aside for a Cluster. */
    public Aggregator onSteppedAside(java.util.function.Consumer<SteppedAside> listener) {
        executor.onSteppedAside(listener);
        return this;
    }

    /** The Clusters this instance aggregates whose status it stepped aside from: another writer keeps writing it. */
    public int steppedAside() {
        return bookFigures.steppedAside();
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
            thread.execute(() -> rehearsal.beforeJoining(() -> closed, bookFigures::rehearsing));
        }
        Duration poll = settings.coalescingWindow().compareTo(Duration.ofMillis(100)) < 0
                ? settings.coalescingWindow() : Duration.ofMillis(100);
        subscription = Multi.createBy()
                .repeating()
                .supplier(() -> consumer.poll(book.untilDue(System.nanoTime(), poll))) // woken when one is due
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

    /**
     * True when this instance has rebuilt its partitions, computed every event it consumed, and seen every status it
     * wrote come back from the API server: nothing is left in flight.
     */
    public boolean settled() {
        return bookFigures.settled();
    }

    /**
     * Waits, {@code timeout} at most, until this instance is {@link #settled}; at once while it is still rebuilding.
     * For a stop: the echo of a status written just before it is on its way through ingest, and the cluster's next
     * owner computes from the Cluster's record it finds on the topic.
     */
    public boolean awaitSettled(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (bookFigures.live() && !bookFigures.settled() && System.nanoTime() < deadline) {
            Thread.sleep(20); // settled is updated by the aggregation thread at each poll
        }
        return bookFigures.settled();
    }

    /** Where this instance stands, in words, for logs and diagnostics. */
    public String progress() {
        return bookFigures.progress();
    }

    /** True once every partition assigned to this instance has been rebuilt. */
    public boolean live() {
        return bookFigures.live();
    }

    public long events() {
        return bookFigures.events();
    }

    /**
     * The aggregation thread's time on what its polls returned, not waiting in one: its share of a span is how busy it
     * was.
     */
    public Duration busy() {
        return bookFigures.busy();
    }

    public long computations() {
        return bookFigures.computations();
    }

    /** Computations that failed on a fault, a bug (logged with the cluster and the trace); the others went on. */
    public long computationFailures() {
        return bookFigures.computationFailures();
    }

    /** Statuses handed to write-back. */
    public long submitted() {
        return executor.submitted();
    }

    public StatusWriter writer() {
        return writer;
    }

    public int clustersTracked() {
        return bookFigures.tracked();
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
        executor.observedBy(observer);
        return this;
    }

    /** One poll's records, and what is handed back and due meanwhile; on the aggregation thread. */
    private void process(ConsumerRecords<byte[], ByteBuffer> polled) {
        long start = System.nanoTime();
        Consumer<byte[], ByteBuffer> kafka = consumer.consumer();
        figures.measure(kafka, book);
        handBack();
        feeds.handBack();
        for (ConsumerRecord<byte[], ByteBuffer> fetched : polled) {
            // A live partition's records are read within a coalescing window; a rebuilt one's may wait far longer.
            SourceRecord record = ObjectStateConsumer.source(fetched, !book.live(fetched.partition()));
            executor.handle(new BookEvent.RecordRead(record, System.nanoTime()));
        }
        partitions.commitIfDue(kafka);
        statusReads.done((assignment, statuses) -> executor.handle(new BookEvent.StatusesRead(assignment, statuses)));
        for (TopicPartition rebuilt : consumer.readToEnd()) {
            executor.handle(new BookEvent.Rebuilt(rebuilt.partition()));
            LOG.debugf("partition %d rebuilt: %s", rebuilt.partition(), book.progress());
        }
        executor.handle(new BookEvent.TimePassed(System.nanoTime(), figures.liveLag(), compatibility.get(),
                management.get(), clock.instant()));
        bookFigures.update(book, ownership, consumer.assigning(), polled.count(),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** Write-back's outcomes, to the book on this thread. */
    private void handBack() {
        BookEvent event;
        while ((event = handedBack.poll()) != null) {
            executor.handle(event);
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
                handBack();
                feeds.settle();
            } catch (RuntimeException e) {
                LOG.debug("finishing the last outcomes", e);
            }
            feeds.close(); // what was handed to the feeds is sent before the producers close
            try {
                deadLetters.awaitSent(Duration.ofSeconds(5));
                partitions.commitAll(consumer.consumer());
            } catch (RuntimeException e) {
                LOG.debug("committing", e);
            }
            try {
                consumer.consumer().close(Duration.ofSeconds(5));
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
}
