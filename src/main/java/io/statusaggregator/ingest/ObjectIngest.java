package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.kubernetes.ApiVersionChoice;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jboss.logging.Logger;
import io.statusaggregator.kubernetes.StalledWatchGuard;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * Ingest: shared informers on the EKS-A Clusters and their CAPI objects, every add, update and delete sent to the
 * object-state topic. Fabric8's informers relist when a watch breaks or expires (410) and report the deletions
 * missed meanwhile, so the topic converges on the API server's state. The informers are {@link ObjectInformers};
 * what a standby saw and did not send, {@link UnsentChanges}.
 */
public final class ObjectIngest implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ObjectIngest.class);
    /** The kinds ingest watches in the CAPI namespace; the EKS-A Cluster is watched where the settings say. */
    public static final List<ObjectKind> CAPI_KINDS = List.of(ObjectKind.CAPI_CLUSTER, ObjectKind.KUBEADM_CONTROL_PLANE,
            ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE, ObjectKind.ETCDADM_CLUSTER);

    /**
     * @param clusterNamespaces  where to watch EKS-A Clusters; empty for every namespace
     * @param relistStalledAfter how long an informer may go without a running watch before ingest lists again itself
     */
    /**
     * @param reconcileEvery how often the object-state topic is checked against what the informers list: a key whose
     *                       object the API server does not have (a deletion missed, a record written by anything but
     *                       ingest) gets its tombstone within this time; checked after every relist too
     * @param stuckSendAfter how long an object's state may be refused by the broker or the producer before ingest is
     *                       stuck (readiness DOWN until it is sent)
     * @param capiVersion    the Cluster API version to read ({@code aggregator.capi.api-version}; see
     *                       {@link ReadVersions})
     * @param versionCheckEvery how often discovery is asked which Cluster API versions the API server serves
     */
    public record Settings(String capiNamespace, List<String> clusterNamespaces, Duration relistStalledAfter,
            Duration reconcileEvery, Duration stuckSendAfter, ApiVersionChoice.Setting capiVersion,
            Duration versionCheckEvery) {
        public static final Duration RECONCILE_EVERY = Duration.ofMinutes(5);
        public static final Duration STUCK_SEND_AFTER = Duration.ofMinutes(1);
        public static final Duration VERSION_CHECK_EVERY = Duration.ofMinutes(1);

        public Settings(String capiNamespace, List<String> clusterNamespaces, Duration relistStalledAfter) {
            this(capiNamespace, clusterNamespaces, relistStalledAfter, RECONCILE_EVERY);
        }

        public Settings(String capiNamespace, List<String> clusterNamespaces, Duration relistStalledAfter,
                Duration reconcileEvery) {
            this(capiNamespace, clusterNamespaces, relistStalledAfter, reconcileEvery, STUCK_SEND_AFTER);
        }

        public Settings(String capiNamespace, List<String> clusterNamespaces, Duration relistStalledAfter,
                Duration reconcileEvery, Duration stuckSendAfter) {
            this(capiNamespace, clusterNamespaces, relistStalledAfter, reconcileEvery, stuckSendAfter,
                    ApiVersionChoice.Setting.AUTO, VERSION_CHECK_EVERY);
        }
    }

    private final KubernetesClient client;
    private final Settings settings;
    private final ObjectStatePublisher publisher;
    private final ObjectInformers informers;
    private final Set<ObjectStateKey> failed = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService resender =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("ingest-resend"));
    private final StalledWatchGuard guard;
    private final ReadVersions versions;
    /** How long after an informer's relist the topic is checked, so that others relisting with it are included. */
    static final Duration RELIST_GATHERING = Duration.ofSeconds(2);
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    private final AtomicBoolean reconcileScheduled = new AtomicBoolean();
    private final TopicReconciliation reconciliation = new TopicReconciliation();

    /** Told of every object ingest sees, after it went to the topic: for sources that follow the management cluster. */
    public interface Listener {
        void changed(ObjectKind kind, JsonNode object);

        /**
         * {@code lastKnown} may come from the informer's store: then it holds only {@link ObjectReduction}'s fields.
         */
        void deleted(ObjectKind kind, JsonNode lastKnown);
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    /**
     * Whether what the informers see goes to the topic and the listeners. A standby (a replica without the Lease)
     * keeps its informers listed and watching but sends nothing: when it takes over it sends what its stores hold
     * ({@link #lead}) at once, instead of listing the API server first.
     */
    private volatile boolean leading = true;
    /** How far back a standby taking over sends what it saw first (see {@link UnsentChanges}). */
    static final Duration RECENT = UnsentChanges.RECENT;
    /** When a standby taking over sends every object, after what changed recently. */
    static final Duration FULL_REPLAY_AFTER = Duration.ofSeconds(5);
    private final UnsentChanges unsent = new UnsentChanges();
    /**
     * Held while a state is read and sent, by the informers' handlers and by every send from a store (see sendCurrent).
     */
    private final Object sending = new Object();

    private volatile long startedAt;

    public ObjectIngest(KubernetesClient client, Settings settings, ObjectStatePublisherFactory publishers) {
        this.client = client;
        this.settings = settings;
        this.publisher = publishers.create(failed::add);
        // On ingest's own thread: a tombstone's send may wait for the broker, which must not hold the client's event
        // loop.
        this.guard = new StalledWatchGuard(settings.relistStalledAfter(), resender);
        this.versions = new ReadVersions(client, settings.capiVersion(), settings.versionCheckEvery(), CAPI_KINDS);
        this.informers = new ObjectInformers(client, guard, versions, this::seen);
    }

    /** The API version each Cluster API kind is read at now. */
    public Map<ObjectKind, String> readVersions() {
        return versions.current();
    }

    /** Why a Cluster API kind cannot be read at the version it should be; empty while every one can. */
    public Optional<String> versionProblem() {
        return versions.problem();
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    /** Informers kept current, nothing sent; before {@link #start} for a replica that starts as a standby. */
    public void standBy() {
        leading = false;
        failed.clear();
        publisher.standBy();
    }

    /**
     * A standby takes over: from now on every change is sent, and first what changed in the last {@link #RECENT},
     * newest first, which the replica that led before may not have sent (it is gone, or lost the Lease). Then,
     * {@link #FULL_REPLAY_AFTER} later so that those go first, every object the informers hold, as if just listed, in
     * case the one before lost sends it never knew of; and {@code thenFully} (the topic checked against the informers).
     * When the informers started within {@link #RECENT}, what changed recently is every object: no second round.
     */
    public void lead(Runnable thenFully) {
        long now = System.nanoTime();
        boolean complete = now - startedAt < RECENT.toNanos();
        List<UnsentChanges.Change> first;
        // As the handlers decide (seen): each change seen as a standby is in first, or sent by its handler.
        synchronized (sending) {
            leading = true;
            first = unsent.takeAll();
        }
        // The newest first: what changed while no replica ingested is shown before what the one before sent already.
        first.sort(Comparator.comparingLong(UnsentChanges.Change::at).reversed());
        for (UnsentChanges.Change change : first) {
            if (now - change.at() <= RECENT.toNanos()) {
                sendCurrent(change.kind(), change.key(), change.deleted());
            }
        }
        if (complete) {
            thenFully.run();
            return;
        }
        resender.schedule(() -> {
            if (!leading) {
                return;
            }
            informers.forEachKey((kind, key) -> sendCurrent(kind, key, null));
            thenFully.run();
        }, FULL_REPLAY_AFTER.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Sends the object's state as its informer's store holds it now, or, when the store no longer has it and
     * {@code lastKnown} is given, its tombstone. Under {@link #sending}, as the informers' own sends are: a store is
     * updated before its handler runs, so a state read here is never older than one a handler has sent, and the topic
     * cannot end on a stale state of an object that changed while this ran.
     */
    private void sendCurrent(ObjectKind kind, String key, JsonNode lastKnown) {
        synchronized (sending) {
            GenericKubernetesResource current = informers.current(kind, key);
            if (current != null) {
                changed(kind, json(current));
            } else if (lastKnown != null && leading) {
                publisher.delete(kind, lastKnown);
                listeners.forEach(l -> l.deleted(kind, lastKnown));
            }
        }
    }

    /**
     * What an informer saw: sent when leading, else kept for {@link #lead}. Decided under {@link #sending}, as lead
     * takes over under it: a change seen the moment a standby takes over is either kept before lead drains what was
     * kept, or sent here, never kept after the drain (where nothing would send it).
     */
    private void seen(ObjectKind kind, GenericKubernetesResource object, boolean deleted) {
        // Converted before the lock when it will be used, as the informers' handlers did before: they convert in
        // parallel.
        JsonNode converted = leading || deleted ? json(object) : null;
        synchronized (sending) {
            if (!leading) {
                String key = ObjectInformers.storeKey(
                        object.getMetadata().getNamespace(), object.getMetadata().getName());
                unsent.keep(kind, key, deleted ? converted : null, System.nanoTime());
                return;
            }
            JsonNode state = converted != null ? converted : json(object); // it took over since the handler looked
            if (deleted) {
                publisher.delete(kind, state);
                listeners.forEach(l -> l.deleted(kind, state));
            } else {
                changed(kind, state);
            }
        }
    }

    /** Makes the publisher once the failure callback exists. */
    public interface ObjectStatePublisherFactory {
        ObjectStatePublisher create(ObjectStatePublisher.FailedSend onFailure);
    }

    public ObjectStatePublisher publisher() {
        return publisher;
    }

    /** Starts the informers; the future completes when every one has listed its objects. */
    public CompletableFuture<Void> start() {
        versions.decide();
        List<String> clusterNamespaces = settings.clusterNamespaces().isEmpty() ? Collections.singletonList(null)
                : settings.clusterNamespaces();
        informers.make(clusterNamespaces, CAPI_KINDS, settings.capiNamespace());
        resender.scheduleWithFixedDelay(this::resendFailed, 1, 1, TimeUnit.SECONDS);
        resender.scheduleWithFixedDelay(() -> unsent.forgetOld(System.nanoTime()), 10, 10, TimeUnit.SECONDS);
        startedAt = System.nanoTime();
        return informers.start();
    }

    /** After the informers have listed the API server: tombstones for what was deleted while ingest did not run. */
    public int tombstoneVanished(Map<String, Object> kafka, String topic, Duration timeout) {
        // What the informers hold was all sent just now (lead): no record of it is missing, only perhaps in flight.
        return tombstoneVanished(kafka, topic, timeout, true, false);
    }

    /**
     * As above, of the whole topic or only of what was written since the last check ({@link TopicReconciliation});
     * {@code missing}: on a whole check, the objects the informers hold with no record on the topic are sent too.
     */
    private int tombstoneVanished(Map<String, Object> kafka, String topic, Duration timeout, boolean whole,
            boolean missing) {
        // A CNI observation exists as long as its cluster's EKS-A Cluster does.
        Set<String> clusters = informers.clusterNames();
        return reconciliation.tombstoneVanished(kafka, topic, key -> key.kind() == ObjectKind.CNI_OBSERVATION
                ? clusters.contains(key.clusterName())
                : informers.current(key.kind(), ObjectInformers.storeKey(key.key().namespace(), key.key().name()))
                        != null,
                publisher, key -> {
                    if (key.kind() == ObjectKind.CNI_OBSERVATION) {
                        return false; // its observer's to send, at its next observation
                    }
                    failed.add(key); // sent again within a second, as the store has it then
                    return true;
                }, whole && missing ? heldKeys() : List.of(), timeout, whole);
    }

    /** The keys of the objects the informers hold, once what was sent before is on the topic. */
    private List<ObjectStateKey> heldKeys() {
        publisher.flush(); // a state still in flight is not missing
        List<ObjectStateKey> keys = new ArrayList<>();
        informers.forEachObject((kind, object) -> publisher.routedKeyOf(kind, json(object)).ifPresent(keys::add));
        return keys;
    }

    /**
     * Checks the topic against the informers every {@code Settings.reconcileEvery} (what was written since the last
     * check), and the whole topic after every relist, from now until closed (see {@link #tombstoneVanished}); on the
     * thread that re-sends failed sends.
     */
    public void reconcilePeriodically(Map<String, Object> kafka, String topic, Duration timeout) {
        if (!reconcileScheduled.compareAndSet(false, true)) {
            return; // a standby that leads again: already scheduled, and idle while it did not lead
        }
        long every = settings.reconcileEvery().toMillis();
        Consumer<Boolean> reconcile = whole -> {
            if (!leading) {
                return;
            }
            try {
                tombstoneVanished(kafka, topic, timeout, whole, whole);
            } catch (RuntimeException e) {
                LOG.warnf(
                        "checking %s against the API server failed, again in %s: %s",
                        topic, settings.reconcileEvery(), e.toString());
            }
        };
        resender.scheduleWithFixedDelay(() -> reconcile.accept(false), every, every, TimeUnit.MILLISECONDS);
        // And after every relist the guard sees: what a broken watch missed is checked at once, not at the next period.
        // Informers relisting together (an API server restarted) make one check, RELIST_GATHERING after the first.
        guard.onRelist(what -> {
            if (reconcileQueued.compareAndSet(false, true)) {
                LOG.debugf("%s listed again; checking %s against the API server", what, topic);
                resender.schedule(() -> {
                    reconcileQueued.set(false);
                    reconcile.accept(true);
                }, RELIST_GATHERING.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    private void changed(ObjectKind kind, JsonNode object) {
        if (!leading) {
            return;
        }
        synchronized (sending) {
            publisher.publish(kind, object);
            listeners.forEach(l -> l.changed(kind, object));
        }
    }

    /** Sends again the current state (or the tombstone) of each object whose last send failed. */
    private void resendFailed() {
        if (!leading) {
            return;
        }
        for (ObjectStateKey f : List.copyOf(failed)) {
            failed.remove(f);
            synchronized (sending) {
                GenericKubernetesResource current =
                        informers.current(f.kind(), ObjectInformers.storeKey(f.key().namespace(), f.key().name()));
                if (current != null) {
                    publisher.publish(f.kind(), json(current));
                } else {
                    publisher.tombstone(f);
                }
            }
        }
    }

    private JsonNode json(GenericKubernetesResource object) {
        return client.getKubernetesSerialization().convertValue(object, JsonNode.class);
    }

    @Override
    public void close() {
        resender.shutdownNow();
        versions.close();
        informers.close();
        LOG.debug("ingest stopped");
    }
}
