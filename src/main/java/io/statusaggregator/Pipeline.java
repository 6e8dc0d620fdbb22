package io.statusaggregator;

import io.cloudevents.CloudEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.aggregation.ClusterObserver;
import io.statusaggregator.management.CompatibilityConfigMap;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.management.ManagementClusterView;
import io.statusaggregator.aggregation.ObjectStateConsumer;
import io.statusaggregator.aggregation.RebuildRehearsal;
import io.statusaggregator.aggregation.WantedWriter;
import io.statusaggregator.topics.PublishedStatus;
import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.watch.VersionHistoryView;
import io.statusaggregator.topics.TransitionFeed;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.ingest.CniObserver;
import io.statusaggregator.ingest.IngestLeadership;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.ingest.ObjectStatePublisher;
import io.statusaggregator.ingest.ReplicaIngest;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.EventRecorder;
import io.statusaggregator.writeback.StatusWriter;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.jboss.logging.Logger;

/**
 * The whole journey, wired: ingest (informers → object-state topic), aggregation (topic → per-cluster state →
 * rules), write-back (status subresource) and the status topic. One instance of the application runs one pipeline;
 * several instances share the aggregation work through the consumer group.
 */
public final class Pipeline implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Pipeline.class);

    /**
     * @param kafka        Kafka client properties shared by every client (bootstrap servers, security)
     * @param ingest       whether this instance may run ingest (one instance feeds the topic; all aggregate)
     * @param leadership   the Lease that decides which instance ingests; empty: this one does, unconditionally
     * @param compatibilityConfigMap the ConfigMap in the CAPI namespace whose compatibility data, while it exists,
     *                               replaces the built-in data
     */
    public record Settings(
            Map<String, Object> kafka,
            String objectStatesTopic,
            String statusesTopic,
            String transitionsTopic,
            String deadLettersTopic,
            boolean createTopics,
            int partitions,
            short replicationFactor,
            String groupId,
            boolean ingest,
            ObjectIngest.Settings ingestSettings,
            Aggregator.Settings aggregatorSettings,
            StatusWriter.Settings writerSettings,
            CniObserver.Settings cniSettings,
            Optional<String> compatibilityConfigMap,
            Optional<IngestLeadership.Settings> leadership) {
    }

    private final Settings settings;
    private final KubernetesClient client;
    private final Compatibility compatibility;
    private final Clock clock;
    private final StartedStages started = new StartedStages();
    /** This replica's part in ingest, when it may ingest; else null. */
    private volatile ReplicaIngest ingest;
    private StatusWriter.Observer writeObserver = StatusWriter.Observer.NONE;
    private KafkaClients kafkaClients = KafkaClients.NONE;
    private ClusterObserver clusterObserver = ClusterObserver.NONE;
    private java.util.function.Consumer<Throwable> aggregationStopped = failure -> { };
    private Aggregator aggregator;
    /** How long a stop waits for the statuses just written to come back before it stops ingest. */
    static final Duration ECHO_GRACE = Duration.ofSeconds(2);
    /**
     * How long a stop waits for a producer's records in flight: a batch the broker kept refusing held a stop past the
     * pod's 30 s grace. The next instance sends what is left (ingest lists every object; a change missing from the
     * status topic is published again).
     */
    static final Duration PRODUCER_CLOSE = Duration.ofSeconds(5);
    private EventRecorder clusterEvents;
    private ManagementClusterView management;
    private CompatibilityConfigMap compatibilityData;
    private VersionHistoryView versionHistory;

    public Pipeline(Settings settings, KubernetesClient client, Compatibility compatibility, Clock clock) {
        this.settings = settings;
        this.client = client;
        this.compatibility = compatibility;
        this.clock = clock;
    }

    /** Starts every stage; returns when the topics exist, and ingest (if it runs here) has listed the objects. */
    public void start(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<Boolean> othersServe = askWhetherOthersServe(timeout);
        if (settings.createTopics()) {
            PipelineTopics.createMissing(settings, timeout);
        }
        PipelineProducers producers = new PipelineProducers(settings.kafka(), kafkaClients);
        Feeds feeds = startFeeds(producers);
        StatusTopicAtStart published = StatusTopicAtStart.read(settings.kafka(), settings.statusesTopic(), timeout);
        followManagementCluster();
        wireAggregation(producers, feeds, published);
        recordClusterEvents();
        startAggregation(othersServe);
        published.awaitFirstRead();
        awaitManagementCluster(timeout);
        if (settings.ingest()) {
            startIngest(producers, timeout);
        }
    }

    /**
     * Whether other members serve the aggregator's group, asked first so that the answer is in when the aggregator
     * would join: whether to rehearse its rebuild before.
     */
    private CompletableFuture<Boolean> askWhetherOthersServe(Duration timeout) {
        return settings.aggregatorSettings().rehearsal().isZero()
                ? CompletableFuture.completedFuture(false)
                : RebuildRehearsal.othersServe(settings.kafka(), settings.groupId(), timeout);
    }

    /** Where aggregation publishes: the status topic and the transitions topic. */
    private record Feeds(StatusFeed statuses, TransitionFeed transitions) {
    }

    /** The feeds' producers, and the view of every cluster's version history the status topic holds. */
    private Feeds startFeeds(PipelineProducers producers) {
        KafkaProducer<String, String> statuses = producers.statuses();
        started.add(() -> statuses.close(PRODUCER_CLOSE));
        StatusFeed feed = new StatusFeed(statuses, settings.statusesTopic());
        versionHistory = new VersionHistoryView(settings.kafka(), settings.statusesTopic()).start();
        started.add(versionHistory);
        KafkaProducer<String, CloudEvent> events = producers.transitions();
        started.add(() -> events.close(PRODUCER_CLOSE));
        return new Feeds(feed, new TransitionFeed(events, settings.transitionsTopic()));
    }

    /** The reference objects, followed without waiting: the compatibility ConfigMap, EKS-A releases and Clusters. */
    private void followManagementCluster() {
        management = new ManagementClusterView();
        compatibilityData = new CompatibilityConfigMap(compatibility);
        started.add(compatibilityData);
        ObjectIngest.Settings ingestSettings = settings.ingestSettings();
        // Guarded on the view's thread: a look a second at one informer needs no thread of its own.
        settings.compatibilityConfigMap().ifPresent(name -> compatibilityData.watch(client,
                ingestSettings.capiNamespace(), name, ingestSettings.relistStalledAfter(), management.guardThread()));
        started.add(management);
        management.watch(client, ingestSettings.capiNamespace(), ingestSettings.clusterNamespaces(),
                ingestSettings.relistStalledAfter());
    }

    /** The aggregator with its dead letters and status writer, not started yet. */
    private void wireAggregation(PipelineProducers producers, Feeds feeds, StatusTopicAtStart published) {
        Map<String, Object> consumer = ObjectStateConsumer.properties(settings.kafka(), settings.groupId());
        consumer.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "status-aggregator-" + ProcessHandle.current().pid());
        DeadLetters deadLetters = new DeadLetters(producers.deadLetters(), settings.deadLettersTopic());
        started.add(deadLetters);
        aggregator = new Aggregator(
                consumer,
                properties -> {
                    KafkaConsumer<byte[], ByteBuffer> objectStates = new KafkaConsumer<>(properties);
                    kafkaClients.created(objectStates);
                    return objectStates;
                },
                deadLetters,
                settings.aggregatorSettings(),
                compatibilityData,
                management,
                outcomes -> new StatusWriter(client, settings.writerSettings(), outcomes).observedBy(writeObserver),
                feeds.statuses(),
                feeds.transitions(),
                published,
                clock);
        started.add(aggregator);
    }

    /** The aggregator joins its consumer group, after a rehearsal of its rebuild where others serve the group. */
    private void startAggregation(CompletableFuture<Boolean> othersServe) {
        aggregator.observedBy(clusterObserver).onStopped(aggregationStopped);
        aggregator.rehearsingFirst(othersServe::join);
        aggregator.start();
    }

    /**
     * Kubernetes Events on each Cluster whose change this instance published (it owns the cluster's partition); with
     * EKS-A's controller the wanted writer, nothing goes to the Clusters' namespaces.
     */
    private void recordClusterEvents() {
        String instance = settings.leadership().map(IngestLeadership.Settings::identity)
                .orElseGet(() -> "status-aggregator-" + ProcessHandle.current().pid());
        clusterEvents = new EventRecorder(client, instance, clock);
        started.add(clusterEvents);
        EventRecorder recorder = clusterEvents;
        if (settings.aggregatorSettings().writer() == WantedWriter.AUTO) {
            aggregator.onPublished(change -> recorder.record(
                    change.cluster(),
                    change.before().map(PublishedStatus::status),
                    change.after().map(PublishedStatus::status)));
            aggregator.onSteppedAside(aside -> recorder.steppedAside(aside.cluster(), aside.writer(), aside.stored(),
                    aside.verdict()));
        } else {
            LOG.info("EKS-A's controller writes the Clusters' statuses (aggregator.status.writer=eksa): they and their "
                    + "Events are left alone; statuses go to the status topic and the change feeds only");
        }
    }

    /** The API server answers (and lets this account read) before anything waits on an election. */
    private void awaitManagementCluster(Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        management.synced().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * This replica's part in ingest. With an election, a standby from the start: informers listed and watching, so
     * that taking over sends at once.
     */
    private void startIngest(PipelineProducers producers, Duration timeout) throws TimeoutException {
        ReplicaIngest replica = new ReplicaIngest(
                client,
                new ReplicaIngest.Settings(
                        settings.ingestSettings(),
                        settings.cniSettings(),
                        settings.kafka(),
                        settings.objectStatesTopic(),
                        PRODUCER_CLOSE),
                producers::objectStates,
                clock);
        ingest = replica;
        replica.start(settings.leadership(), timeout);
    }

    /** Tells {@code observer} of every status write (for metrics); before {@link #start}. */
    public Pipeline observedBy(StatusWriter.Observer observer) {
        this.writeObserver = observer;
        return this;
    }

    /**
     * Told of each long-lived Kafka client the pipeline makes, so that its metrics can be published. The clients
     * made and closed at once (topic creation, reading a compacted topic to its end) are not told.
     */
    public interface KafkaClients {
        KafkaClients NONE = new KafkaClients() {
            @Override
            public void created(Producer<?, ?> producer) {
            }

            @Override
            public void created(Consumer<?, ?> consumer) {
            }
        };

        void created(Producer<?, ?> producer);

        void created(Consumer<?, ?> consumer);
    }

    /** Tells {@code observer} of every long-lived Kafka client; before {@link #start}. */
    public Pipeline observedBy(KafkaClients observer) {
        this.kafkaClients = observer;
        return this;
    }

    /**
     * Tells {@code observer} what each Cluster this instance aggregates shows, and when one leaves it; before
     * {@link #start}.
     */
    public Pipeline observedBy(ClusterObserver observer) {
        this.clusterObserver = observer;
        return this;
    }

    /** Tells {@code listener} if aggregation stops on a fault ({@link Aggregator#onStopped}); before {@link #start}. */
    public Pipeline onAggregationStopped(java.util.function.Consumer<Throwable> listener) {
        this.aggregationStopped = listener;
        return this;
    }

    /**
     * The API resources a pipeline reads at one version: the EKS-A Clusters and releases (the management view,
     * write-back). Where ingest runs, the CAPI kinds too, each at a version decided from what the API server serves
     * ({@link io.statusaggregator.kubernetes.ServedResources} asks for them all at start).
     */
    public static List<ResourceDefinitionContext> resourcesRead() {
        return List.of(KubernetesResources.of(ObjectKind.EKSA_CLUSTER), KubernetesResources.RELEASES);
    }

    /** The API version each Cluster API kind is read at by this replica's ingest; empty where it runs no ingest. */
    public Map<ObjectKind, String> capiVersions() {
        return ingest == null ? Map.of() : ingest.readVersions();
    }

    /** Why ingest cannot read a Cluster API kind at the version it should (a forced one not served); else empty. */
    public Optional<String> capiVersionProblem() {
        return ingest == null ? Optional.empty() : ingest.versionProblem();
    }

    /** The API server this pipeline reads and writes. */
    public KubernetesClient client() {
        return client;
    }

    /** Where the CAPI objects of the clusters are. */
    public String capiNamespace() {
        return settings.ingestSettings().capiNamespace();
    }

    /** Whether the management cluster's reference objects have been listed: the API server answers. */
    public boolean apiSynced() {
        return management != null && management.synced().isDone() && !management.synced().isCompletedExceptionally();
    }

    /** Why ingest is stuck (a state refused beyond {@code aggregator.ingest.stuck-send-after}); else empty. */
    public Optional<String> ingestStuck() {
        return ingest == null ? Optional.empty() : ingest.stuck();
    }

    /** Whether ingest runs where it should: nowhere to wait for when another replica holds the lease. */
    public boolean ingestSynced() {
        return ingest == null || ingest.synced();
    }

    /** Whether this instance feeds the object-state topic now. */
    public boolean ingesting() {
        return ingest != null && ingest.ingesting();
    }

    public Aggregator aggregator() {
        return aggregator;
    }

    /** The Kubernetes Events this instance records on its Clusters. */
    public EventRecorder events() {
        return clusterEvents;
    }

    /** What this instance knows of the management cluster (releases, management Clusters), for the preflight checks. */
    public Supplier<ManagementCluster> management() {
        return management;
    }

    /** Every cluster's version history as the status topic holds it, for the admission webhook. */
    public VersionHistoryView versionHistory() {
        return versionHistory;
    }

    /** The compatibility data in force (the built-in document, or the ConfigMap's while it exists). */
    public Supplier<Compatibility> compatibility() {
        return compatibilityData;
    }

    /** Ingest's publisher, for other sources of observations; empty when this instance does not ingest. */
    public Optional<ObjectStatePublisher> publisher() {
        return ingest == null ? Optional.empty() : ingest.publisher();
    }

    @Override
    public void close() {
        if (aggregator != null) {
            // Ingest still runs: the echo of a status written just before the stop reaches the topic, or the cluster's
            // next owner would compute from the record before it (and stamp new transition times, publish again).
            try {
                aggregator.awaitSettled(ECHO_GRACE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (ingest != null) {
            ingest.close(); // gives the lease up first, so that another replica takes over at once
        }
        started.close();
    }
}
