package io.statusaggregator.writeback;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Records {@link StatusEvents} on the EKS-A Cluster as {@code events.k8s.io/v1} Events, with the series and budget
 * {@link EventSeries} decides. On a thread of its own with a bounded queue: recording never holds up a status or its
 * feeds, and when the API server falls behind, Events are dropped (and counted), never the status. Called by the
 * instance that owns the cluster's partition, once its change is on the transitions feed.
 */
public final class EventRecorder implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    /** The Events' {@code reportingController}. */
    public static final String CONTROLLER = "statusaggregator.io/status-aggregator";
    private static final int QUEUE = 1_000;
    private static final int UIDS_KEPT = 20_000;
    private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
            .withZone(ZoneOffset.UTC);

    private final KubernetesClient client;
    private final String instance;
    private final Clock clock;
    private final EventSeries series = new EventSeries();
    /** Each Cluster's uid, which {@code kubectl describe} finds its Events by; read once per Cluster. */
    private final Map<ObjectKey, String> uids = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ObjectKey, String> eldest) {
            return size() > UIDS_KEPT;
        }
    };

    private final ThreadPoolExecutor thread = new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            DaemonThreads.named("events"),
            (task, executor) -> EventRecorder.this.failed.incrementAndGet());
    /** The Clusters whose status another writer writes: no status Event of theirs is recorded. */
    private final Set<ObjectKey> steppedAside = ConcurrentHashMap.newKeySet();
    private final AtomicLong recorded = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong overBudget = new AtomicLong();
    private volatile long warnedAt;
    /** The time in the last Event's name (on the events thread). */
    private long lastNanos;

    /**
     * @param instance the Events' {@code reportingInstance}: this replica (its pod's name)
     */
    public EventRecorder(KubernetesClient client, String instance, Clock clock) {
        this.client = client;
        this.instance = instance;
        this.clock = clock;
    }

    /** The Events of a change the Cluster shows; returns at once (a full queue drops them). */
    public void record(ObjectKey cluster, Optional<ClusterStatus> before, Optional<ClusterStatus> after) {
        if (after.isEmpty()) {
            steppedAside.remove(cluster);
            // In turn with the Events queued before: those belong to the old Cluster, the ones after to a new one.
            try {
                thread.execute(() -> {
                    synchronized (uids) {
                        uids.remove(cluster);
                    }
                    series.forgetCluster(cluster);
                });
            } catch (RejectedExecutionException e) {
                // closing: nothing more is recorded
            }
            return;
        }
        List<StatusEvents.StatusEvent> events = steppedAside.contains(cluster) ? List.of()
                : StatusEvents.of(before, after);
        if (events.isEmpty() || thread.isShutdown()) {
            return;
        }
        Instant at = clock.instant();
        thread.execute(() -> events.forEach(event -> record(new EventSeries.Key(cluster, event), at)));
    }

    /**
     * The aggregator stopped writing {@code cluster}'s status, which {@code writer} keeps setting: one Warning Event
     * ({@link StatusEvents#steppedAside}), and no status Event of the Cluster's from now on (they would tell of changes
     * it does not show). Returns at once.
     */
    public void steppedAside(ObjectKey cluster, String writer, ClusterStatus stored, ClusterStatus verdict) {
        steppedAside.add(cluster);
        StatusEvents.StatusEvent event = StatusEvents.steppedAside(writer, stored, verdict);
        Instant at = clock.instant();
        try {
            thread.execute(() -> record(new EventSeries.Key(cluster, event), at));
        } catch (RejectedExecutionException e) {
            // closing: nothing more is recorded
        }
    }

    private void record(EventSeries.Key key, Instant at) {
        EventSeries.Decision decision = series.decide(key, at);
        try {
            if (decision instanceof EventSeries.Create) {
                create(key, at);
            } else if (decision instanceof EventSeries.Repeat repeat) {
                repeat(key, repeat, at);
            } else {
                overBudget.incrementAndGet();
                LOG.debugf("event %s on %s dropped: over the cluster's budget", key.event().reason(), key.cluster());
            }
        } catch (KubernetesClientException e) {
            failed.incrementAndGet();
            series.forget(key);
            long now = System.nanoTime();
            if (now - warnedAt > TimeUnit.MINUTES.toNanos(1)) {
                warnedAt = now;
                LOG.warnf(
                        "could not record an event on %s (%d %s); events are best effort, the status is written"
                                + " regardless",
                        key.cluster(),
                        e.getCode(),
                        e.getStatus() == null ? "" : e.getStatus().getReason());
            }
        }
    }

    /**
     * An Event's name: the Cluster's and the time's, as client-go names them, the Cluster's cut so that the whole stays
     * within the 253 characters of a name (a Cluster's own may have them all), ending in a letter or digit.
     */
    static String name(String cluster, long nanos) {
        String time = Long.toHexString(nanos);
        String regarded = cluster.substring(0, Math.min(cluster.length(), 252 - time.length()));
        while (!regarded.isEmpty() && !Character.isLetterOrDigit(regarded.charAt(regarded.length() - 1))) {
            regarded = regarded.substring(0, regarded.length() - 1);
        }
        return regarded + "." + time;
    }

    private void create(EventSeries.Key key, Instant at) {
        Optional<String> uid = uid(key.cluster());
        if (uid.isEmpty()) {
            series.forget(key);
            return; // the Cluster is gone: nothing to attach an Event to
        }
        // client-go's naming, the regarded object's name and a time in nanoseconds; one later than the last so that
        // the Events of one change (one time) do not collide.
        lastNanos = Math.max(at.getEpochSecond() * 1_000_000_000L + at.getNano(), lastNanos + 1);
        String name = name(key.cluster().name(), lastNanos);
        Event event = new EventBuilder()
                .withNewMetadata().withNamespace(key.cluster().namespace()).withName(name).endMetadata()
                .withEventTime(new MicroTime(MICRO_TIME.format(at.truncatedTo(ChronoUnit.MICROS))))
                .withReportingController(CONTROLLER)
                .withReportingInstance(instance)
                .withAction(StatusEvents.ACTION)
                .withType(key.event().type().name())
                .withReason(key.event().reason())
                .withNote(key.event().note())
                .withNewRegarding()
                .withApiVersion(ObjectKind.EKSA_CLUSTER.apiVersion())
                .withKind(ObjectKind.EKSA_CLUSTER.kind())
                .withNamespace(key.cluster().namespace())
                .withName(key.cluster().name())
                .withUid(uid.get())
                .endRegarding()
                .build();
        client.events().v1().events().inNamespace(key.cluster().namespace()).resource(event).create();
        series.created(key, name);
        recorded.incrementAndGet();
    }

    private void repeat(EventSeries.Key key, EventSeries.Repeat repeat, Instant at) {
        Event target = new EventBuilder()
                .withNewMetadata()
                .withNamespace(key.cluster().namespace())
                .withName(repeat.name())
                .endMetadata()
                .build();
        String patch = "{\"series\": {\"count\": %d, \"lastObservedTime\": \"%s\"}}".formatted(repeat.count(),
                MICRO_TIME.format(at.truncatedTo(ChronoUnit.MICROS)));
        try {
            client.events().v1().events().inNamespace(key.cluster().namespace()).resource(target)
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            recorded.incrementAndGet();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            // The Event expired on the API server (its TTL is an hour by default): the series starts again.
            series.forget(key);
            record(key, at);
        }
    }

    private Optional<String> uid(ObjectKey cluster) {
        synchronized (uids) {
            String known = uids.get(cluster);
            if (known != null) {
                return Optional.of(known);
            }
        }
        GenericKubernetesResource found = client.genericKubernetesResources(
                        KubernetesResources.of(ObjectKind.EKSA_CLUSTER))
                .inNamespace(cluster.namespace())
                .withName(cluster.name())
                .get();
        if (found == null || found.getMetadata().getUid() == null) {
            return Optional.empty();
        }
        synchronized (uids) {
            uids.put(cluster, found.getMetadata().getUid());
        }
        return Optional.of(found.getMetadata().getUid());
    }

    /** Event objects created or raised so far. */
    public long recorded() {
        return recorded.get();
    }

    /** Events the API server refused, and changes whose Events found the queue full. */
    public long failed() {
        return failed.get();
    }

    /** Events dropped by the per-cluster budget. */
    public long overBudget() {
        return overBudget.get();
    }

    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.shutdownNow();
    }
}
