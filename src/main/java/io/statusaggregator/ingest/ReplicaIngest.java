package io.statusaggregator.ingest;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.jboss.logging.Logger;

/**
 * This replica's part in ingest. Every replica that may ingest keeps informers listing and watching the API server,
 * as controller-runtime starts its caches on every replica, but only the one that leads sends what they see (and
 * runs the CNI observer): the holder of the {@link IngestLeadership Lease}, or this replica unconditionally when no
 * election is set. A replica taking the Lease over sends what it holds at once.
 */
public final class ReplicaIngest implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReplicaIngest.class);

    /**
     * @param kafka         Kafka client properties, for the checks of the topic against the informers
     * @param topic         the object-state topic
     * @param producerClose how long a stop waits for the producer's records in flight
     */
    public record Settings(
            ObjectIngest.Settings objects,
            CniObserver.Settings cni,
            Map<String, Object> kafka,
            String topic,
            Duration producerClose) {}

    private final KubernetesClient client;
    private final Settings settings;
    /** Makes the object-state topic's producer, once per start of the informers. */
    private final Supplier<Producer<String, String>> producers;
    private final Clock clock;
    /** Starts and stops of ingest, one at a time, off the election's thread. */
    private final ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("ingest-leadership"));
    /** The informers while this replica sends what they see; else null. */
    private volatile ObjectIngest ingest;
    /** The informers, standing by or leading, and their producer, in the order they stop; guarded by this. */
    private volatile ObjectIngest informers;
    private List<AutoCloseable> informerParts = List.of();
    private CompletableFuture<Void> informersListed;
    /** The CNI observer, while this replica leads. */
    private CniObserver cni;
    private IngestLeadership leadership;
    private volatile boolean closed;
    /** Whether ingest should run here: always without an election, while holding the lease with one. */
    private volatile boolean leading;

    public ReplicaIngest(
            KubernetesClient client, Settings settings, Supplier<Producer<String, String>> producers, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.producers = producers;
        this.clock = clock;
    }

    /**
     * With {@code leadership}, starts the informers as a standby and takes part in the election, without waiting for
     * its outcome; without, ingests at once and returns once the informers have listed the API server.
     */
    public void start(Optional<IngestLeadership.Settings> leadership, Duration timeout) throws TimeoutException {
        if (leadership.isPresent()) {
            startInformers();
            this.leadership = new IngestLeadership(client, leadership.get(),
                    () -> {
                        leading = true;
                        thread.execute(() -> startIngest(timeout));
                    },
                    () -> {
                        leading = false;
                        thread.execute(this::stopIngest);
                    });
            this.leadership.start();
        } else {
            leading = true;
            startIngest(timeout);
            if (ingest == null) {
                throw new TimeoutException("ingest did not list the API server within " + timeout);
            }
        }
    }

    /** Whether ingest runs where it should: nowhere to wait for when another replica holds the lease. */
    public boolean synced() {
        return !leading || ingest != null;
    }

    /** Why this replica's ingest is stuck: an object's state refused for too long; empty when it is not. */
    public Optional<String> stuck() {
        return Optional.ofNullable(ingest).flatMap(objects -> objects.publisher().stuck());
    }

    /** The API version each Cluster API kind is read at; empty while no informers run. */
    public Map<ObjectKind, String> readVersions() {
        ObjectIngest running = informers;
        return running == null ? Map.of() : running.readVersions();
    }

    /** Why a Cluster API kind cannot be read at the version it should be; empty while every one can. */
    public Optional<String> versionProblem() {
        ObjectIngest running = informers;
        return running == null ? Optional.empty() : running.versionProblem();
    }

    /** Whether this replica feeds the object-state topic now. */
    public boolean ingesting() {
        return ingest != null;
    }

    /** The publisher of the informers while they send, for other sources of observations. */
    public Optional<ObjectStatePublisher> publisher() {
        return Optional.ofNullable(ingest).map(ObjectIngest::publisher);
    }

    /** The informers as a standby: they list and watch the API server but send nothing until {@link #startIngest}. */
    private synchronized void startInformers() {
        Producer<String, String> producer = producers.get();
        ObjectIngest objects = new ObjectIngest(client, settings.objects(),
                onFailure -> new ObjectStatePublisher(producer, settings.topic(), settings.kafka(),
                        settings.objects().stuckSendAfter(), onFailure));
        objects.standBy();
        informers = objects;
        informerParts = List.of(objects, () -> producer.close(settings.producerClose()));
        informersListed = objects.start();
    }

    /**
     * This replica ingests: its informers send what they hold and every change from now on, and the CNI observer
     * starts; returns once the informers have listed the API server and the topic has been checked against them.
     */
    private synchronized void startIngest(Duration timeout) {
        if (closed) {
            return;
        }
        if (informers == null) {
            startInformers(); // no election, or a start that failed before
        }
        ObjectIngest objects = informers;
        CniObserver observer = new CniObserver(client, settings.cni(), settings.objects().relistStalledAfter(),
                objects.publisher(), clock);
        try {
            informersListed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            objects.addListener(observer);
            cni = observer;
            observer.start();
            objects.lead(() -> objects.tombstoneVanished(settings.kafka(), settings.topic(), timeout));
            objects.reconcilePeriodically(settings.kafka(), settings.topic(), timeout);
            ingest = objects;
            LOG.infof(
                    "ingest synced: watching EKS-A Clusters in %s and CAPI objects in %s",
                    settings.objects().clusterNamespaces().isEmpty()
                            ? "every namespace"
                            : settings.objects().clusterNamespaces(),
                    settings.objects().capiNamespace());
        } catch (Exception e) {
            LOG.errorf("ingest could not start: %s", e.toString());
            stopIngest();
            closeInformers(); // the next start lists again
        }
    }

    /** Back to standby: the informers stay current but send nothing, and the CNI observer stops. */
    private synchronized void stopIngest() {
        ingest = null;
        if (informers != null) {
            informers.standBy();
        }
        if (cni != null) {
            if (informers != null) {
                informers.removeListener(cni);
            }
            cni.close();
            cni = null;
        }
    }

    private synchronized void closeInformers() {
        for (AutoCloseable part : informerParts) {
            try {
                part.close();
            } catch (Exception e) {
                LOG.debug("stopping ingest", e);
            }
        }
        informerParts = List.of();
        informers = null;
    }

    /** Gives the lease up first, so that another replica takes over at once; then stops the informers. */
    @Override
    public void close() {
        closed = true;
        if (leadership != null) {
            leadership.close();
        }
        thread.shutdown();
        stopIngest();
        closeInformers();
    }
}
