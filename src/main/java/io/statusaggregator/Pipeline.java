package io.statusaggregator;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventSerializer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.aggregation.ClusterObserver;
import io.statusaggregator.aggregation.CompatibilityConfigMap;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.aggregation.ManagementClusterView;
import io.statusaggregator.aggregation.ObjectStateConsumer;
import io.statusaggregator.aggregation.RebuildRehearsal;
import io.statusaggregator.aggregation.WantedWriter;
import io.statusaggregator.feeds.PublishedStatus;
import io.statusaggregator.feeds.StatusFeed;
import io.statusaggregator.feeds.VersionHistoryView;
import io.statusaggregator.feeds.TransitionFeed;
import io.statusaggregator.ingest.ClusterPartitioner;
import io.statusaggregator.ingest.CniObserver;
import io.statusaggregator.ingest.IngestLeadership;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.ingest.ObjectStatePublisher;
import io.statusaggregator.ingest.ReplicaIngest;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.writeback.EventRecorder;
import io.statusaggregator.writeback.StatusWriter;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
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

    /** How long the dead-letter topic keeps a record, where this application creates it: time to look at it. */
    public static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(7);

    private final Settings settings;
    private final KubernetesClient client;
    private final Compatibility compatibility;
    private final Clock clock;
    private final List<AutoCloseable> started = new ArrayList<>();
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
        // Asked first, so that the answer is in when the aggregator would join: whether to rehearse its rebuild before.
        CompletableFuture<Boolean> othersServe =
                settings.aggregatorSettings().rehearsal().isZero()
                        ? CompletableFuture.completedFuture(false)
                        : RebuildRehearsal.othersServe(settings.kafka(), settings.groupId(), timeout);
        if (settings.createTopics()) {
            createTopics(timeout);
        }
        KafkaProducer<String, String> statuses = new KafkaProducer<>(producerProperties("statuses", Optional.empty()));
        started.add(() -> statuses.close(PRODUCER_CLOSE));
        kafkaClients.created(statuses);
        StatusFeed feed = new StatusFeed(statuses, settings.statusesTopic());
        versionHistory = new VersionHistoryView(settings.kafka(), settings.statusesTopic()).start();
        started.add(versionHistory);
        Map<String, Object> eventProducer = producerProperties("transitions", Optional.empty());
        eventProducer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, CloudEventSerializer.class.getName());
        KafkaProducer<String, CloudEvent> events = new KafkaProducer<>(eventProducer);
        started.add(() -> events.close(PRODUCER_CLOSE));
        kafkaClients.created(events);
        TransitionFeed transitions = new TransitionFeed(events, settings.transitionsTopic());
        // Read once at start, while the aggregator joins its group (the broker holds a new group's first rebalance 3 s
        // by default), and waited for by this start (the broker answers, or the start fails) and by the first
        // assignment's partitions before they go live; then read again on each later assignment of partitions.
        ExecutorService statusReader = Executors.newSingleThreadExecutor(DaemonThreads.named("status-topic"));
        CompletableFuture<Map<String, ClusterStatus>> readingAtStart = CompletableFuture.supplyAsync(() -> {
            try {
                return publishedStatuses(timeout);
            } catch (TimeoutException e) {
                throw new CompletionException(e);
            }
        }, statusReader);
        statusReader.shutdown(); // its one task still runs
        AtomicReference<CompletableFuture<Map<String, ClusterStatus>>> readAtStart =
                new AtomicReference<>(readingAtStart);
        Supplier<Map<String, ClusterStatus>> published = () -> {
            CompletableFuture<Map<String, ClusterStatus>> first = readAtStart.getAndSet(null);
            try {
                return first != null ? first.join() : publishedStatuses(timeout);
            } catch (TimeoutException | CompletionException e) {
                LOG.warnf(
                        "%s; deletions while these partitions were elsewhere may go unannounced",
                        e instanceof CompletionException && e.getCause() != null
                                ? e.getCause().getMessage()
                                : e.getMessage());
                return Map.of();
            }
        };

        Map<String, Object> consumer = ObjectStateConsumer.properties(settings.kafka(), settings.groupId());
        consumer.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "status-aggregator-" + ProcessHandle.current().pid());
        CompatibilityConfigMap compatibilityData = new CompatibilityConfigMap(compatibility);
        started.add(compatibilityData);
        settings.compatibilityConfigMap().ifPresent(name -> compatibilityData.watch(client,
                settings.ingestSettings().capiNamespace(), name, settings.ingestSettings().relistStalledAfter()));
        management = new ManagementClusterView();
        started.add(management);
        management.watch(
                client,
                settings.ingestSettings().capiNamespace(),
                settings.ingestSettings().clusterNamespaces(),
                settings.ingestSettings().relistStalledAfter());
        this.compatibilityData = compatibilityData;
        Map<String, Object> deadLetterProducer = producerProperties("dead-letters", Optional.empty());
        deadLetterProducer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        deadLetterProducer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        deadLetterProducer.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, DeadLetters.MAX_LETTER_BYTES);
        KafkaProducer<byte[], byte[]> deadLetterSender = new KafkaProducer<>(deadLetterProducer);
        kafkaClients.created(deadLetterSender);
        DeadLetters deadLetters = new DeadLetters(deadLetterSender, settings.deadLettersTopic());
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
                feed,
                transitions,
                published,
                clock);
        started.add(aggregator);
        // Kubernetes Events on each Cluster whose change this instance published (it owns the cluster's partition).
        String instance = settings.leadership().map(IngestLeadership.Settings::identity)
                .orElseGet(() -> "status-aggregator-" + ProcessHandle.current().pid());
        clusterEvents = new EventRecorder(client, instance, clock);
        started.add(clusterEvents);
        EventRecorder recorder = clusterEvents;
        // With EKS-A's controller the wanted writer, nothing goes to the Clusters' namespaces.
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
        aggregator.observedBy(clusterObserver).onStopped(aggregationStopped);
        aggregator.rehearsingFirst(othersServe::join);
        aggregator.start();
        try {
            // Longer than the read's own timeout, whose error says more.
            readingAtStart.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new TimeoutException(
                    "could not read topic " + settings.statusesTopic() + " within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TimeoutException timedOut) {
                throw timedOut;
            }
            throw e;
        }

        // The API server answers (and lets this account read) before anything waits on an election.
        management.synced().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (settings.ingest()) {
            // With an election, a standby from the start: informers listed and watching, so that taking over sends at
            // once.
            ReplicaIngest replica = new ReplicaIngest(
                    client,
                    new ReplicaIngest.Settings(
                            settings.ingestSettings(),
                            settings.cniSettings(),
                            settings.kafka(),
                            settings.objectStatesTopic(),
                            PRODUCER_CLOSE),
                    () -> {
                        KafkaProducer<String, String> producer = new KafkaProducer<>(
                                producerProperties("object-states", Optional.of(ClusterPartitioner.class)));
                        kafkaClients.created(producer);
                        return producer;
                    },
                    clock);
            ingest = replica;
            replica.start(settings.leadership(), timeout);
        }
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
        return List.of(KubernetesResources.of(ObjectKind.EKSA_CLUSTER), ManagementClusterView.RELEASES);
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

    private Map<String, Object> producerProperties(String name, Optional<Class<?>> partitioner) {
        Map<String, Object> producer = new HashMap<>(settings.kafka());
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0); // a lone change would wait the whole delay
        producer.put(
                ProducerConfig.CLIENT_ID_CONFIG,
                "status-aggregator-" + name + "-" + ProcessHandle.current().pid());
        partitioner.ifPresent(p -> producer.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, p.getName()));
        return producer;
    }

    /**
     * The status topic's last status of every cluster: what was published before this instance started, so that a
     * change whose status a crash kept from the topic is published again (with the same event id).
     */
    private Map<String, ClusterStatus> publishedStatuses(Duration timeout) throws TimeoutException {
        try {
            return StatusFeed.latest(settings.kafka(), settings.statusesTopic(), timeout)
                    .orElseThrow(() ->
                            new TimeoutException("could not read topic " + settings.statusesTopic() + " to its end"));
        } catch (KafkaException e) {
            throw new TimeoutException("could not read topic " + settings.statusesTopic() + ": " + e.getMessage());
        }
    }

    /**
     * The object-state and status topics compacted: each holds the latest state per key, which is what a rebuild
     * reads. The transitions topic keeps every event, for the time the broker's retention allows; the dead-letter
     * topic every record sent there, for {@link #DEAD_LETTER_RETENTION}.
     */
    private void createTopics(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(new HashMap<>(settings.kafka()))) {
            Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String topic : List.of(
                    settings.objectStatesTopic(),
                    settings.statusesTopic(),
                    settings.transitionsTopic(),
                    settings.deadLettersTopic())) {
                if (!existing.contains(topic)) {
                    Map<String, String> configs = topic.equals(settings.deadLettersTopic())
                            ? Map.of(
                                    TopicConfig.CLEANUP_POLICY_CONFIG,
                                    TopicConfig.CLEANUP_POLICY_DELETE,
                                    TopicConfig.RETENTION_MS_CONFIG,
                                    Long.toString(DEAD_LETTER_RETENTION.toMillis()),
                                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                                    Integer.toString(DeadLetters.MAX_LETTER_BYTES))
                            : Map.of(
                                    TopicConfig.CLEANUP_POLICY_CONFIG,
                                    topic.equals(settings.transitionsTopic())
                                            ? TopicConfig.CLEANUP_POLICY_DELETE
                                            : TopicConfig.CLEANUP_POLICY_COMPACT);
                    missing.add(
                            new NewTopic(topic, settings.partitions(), settings.replicationFactor()).configs(configs));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    LOG.infof("created topics %s", missing.stream().map(NewTopic::name).toList());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        }
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
