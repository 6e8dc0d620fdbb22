package io.statusaggregator.writeback;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.statusaggregator.kubernetes.FieldManagers;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * Write-back: a JSON merge patch of the EKS-A Cluster's status subresource. Writes of one cluster run one at a
 * time, and a retry always writes the newest status submitted for it; a transient failure retries with backoff on
 * its own cluster's slot, so a slow or failing cluster holds up no other. A Cluster that is gone (404) is reported
 * and not retried.
 *
 * <p>Each status is written on condition that the Cluster is still at the version it was computed from (its
 * {@code resourceVersion} in the patch, an optimistic lock): a status computed from a Cluster another writer has
 * changed since would undo that writer's change (a failure it set, say). Such a write is refused with 409 and
 * reported {@link Conflicted}: the status is computed again from the Cluster's newer state. This writer's own writes
 * move the version too; a status computed from the version this writer last wrote over is written on condition of the
 * version that write made.
 */
public final class StatusWriter implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StatusWriter.class);

    /** What became of a submitted status; reported on a writer thread. */
    public sealed interface Outcome {
        ObjectKey cluster();
    }

    /**
     * @param kept what the API server kept of {@code status}: all of it, unless the Cluster CRD's status schema lacks
     *             some of its fields (they are pruned)
     */
    public record Written(ObjectKey cluster, ClusterStatus status, ClusterStatus kept) implements Outcome {
    }

    public record Gone(ObjectKey cluster) implements Outcome {
    }

    /**
     * The Cluster changed since {@code basis}, the version {@code status} was computed from (409 to the write's
     * precondition): not written, not retried; it is to be computed again from the Cluster's newer state.
     */
    public record Conflicted(ObjectKey cluster, ClusterStatus status, String basis) implements Outcome {
    }

    /** The API server refused the write for good (a bad request, or RBAC): logged, not retried. */
    public record Refused(ObjectKey cluster, ClusterStatus status, String reason) implements Outcome {
    }

    public record Settings(int concurrency, Duration initialBackoff, Duration maxBackoff) {
    }

    /**
     * The manager the API server records this writer's status writes under ({@code metadata.managedFields}): how
     * another writer of the same fields is told from this one.
     */
    public static final String FIELD_MANAGER = FieldManagers.OWN;

    /**
     * Where statuses go: the EKS-A Cluster's status subresource. A failure is thrown as the API client throws it
     * ({@link KubernetesClientException} with the HTTP code), so that retries and outcomes stay this class's. The
     * benchmarks put a counting destination here, to measure aggregation without an API server.
     */
    public interface Destination extends AutoCloseable {
        /**
         * @param expectedVersion the {@code resourceVersion} the Cluster must be at for the write to be made (else
         * 409);
         *                        empty for no condition
         * @return the status the Cluster holds after the write ({@code status} when that cannot be told) and its
         * version
         *         then (empty when it cannot be told)
         */
        Stored write(ObjectKey cluster, ClusterStatus status, String expectedVersion);

        @Override
        default void close() {
        }
    }

    private final Destination destination;
    private final Consumer<Outcome> outcomes;
    private final Settings settings;
    private final ExecutorService pool;
    private final Map<ObjectKey, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    /**
     * The fields the API server was found to prune, each told once: clusters whose statuses differ drop different ones.
     */
    private final Set<String> prunedTold = ConcurrentHashMap.newKeySet();

    /**
     * What a Cluster holds after a write: the status the API server kept, and the Cluster's {@code resourceVersion}.
     */
    public record Stored(ClusterStatus status, String resourceVersion) {}

    /** A status written, and what the API server kept of it. */
    private record Write(ClusterStatus status, ClusterStatus kept) {
    }

    private static final class Slot {
        /** The newest status submitted, and the Cluster's version it was computed from (empty: unknown). */
        ClusterStatus latest;
        String basis = "";
        /** The status of the write under way or last made (null before the first): what a refusal refused. */
        ClusterStatus attempted;
        /**
         * The versions the Cluster went through by this writer's writes alone, up to the one its last write made
         * ({@link #lastVersion}): each write was conditional, so nothing else changed the Cluster between them.
         */
        final Set<String> ownChain = new java.util.HashSet<>();
        String lastVersion = "";
        boolean running;
        Cancellable attempt;

        /**
         * The version to write on condition of: the version this writer's last write made, when the status was
         * computed from a version this writer's own writes led to it from (their echoes not read yet); else the basis.
         */
        String expectedVersion() {
            return !basis.isEmpty() && ownChain.contains(basis) && !lastVersion.isEmpty() ? lastVersion : basis;
        }

        /** A write on condition of {@code expected} made {@code version}. */
        void wrote(String expected, String version) {
            lastVersion = version;
            if (version.isEmpty()) {
                ownChain.clear(); // the answer named no version: nothing to chain from
                return;
            }
            if (!ownChain.contains(expected) || ownChain.size() >= OWN_CHAIN_KEPT) {
                ownChain.clear();
                if (!expected.isEmpty()) {
                    ownChain.add(expected);
                }
            }
            ownChain.add(version);
        }
    }

    /** The versions of one cluster's chain of own writes kept: more come only when writes outpace their echoes. */
    private static final int OWN_CHAIN_KEPT = 16;

    /** A status whose precondition failed, and was still the newest submitted: reported {@link Conflicted}. */
    private static final class StaleBasis extends RuntimeException {
        final ClusterStatus status;
        final String basis;

        StaleBasis(ClusterStatus status, String basis) {
            super("the Cluster changed since version " + basis, null, false, false);
            this.status = status;
            this.basis = basis;
        }
    }

    /** Told of every write attempt, for metrics: its outcome and how long it took. */
    public interface Observer {
        Observer NONE = (outcome, took) -> { };

        /**
         * @param outcome {@code written}, {@code conflicted} (the Cluster changed since the status was computed),
         *                {@code retried} (throttling, 5xx or no answer), {@code gone} or {@code refused}
         */
        void attempted(String outcome, Duration took);
    }

    private Observer observer = Observer.NONE;

    public StatusWriter observedBy(Observer observer) {
        this.observer = observer;
        return this;
    }

    public StatusWriter(KubernetesClient client, Settings settings, Consumer<Outcome> outcomes) {
        this(new StatusSubresource(client), settings, outcomes);
    }

    public StatusWriter(Destination destination, Settings settings, Consumer<Outcome> outcomes) {
        this.destination = destination;
        this.settings = settings;
        this.outcomes = outcomes;
        this.pool = Executors.newFixedThreadPool(settings.concurrency(), DaemonThreads.named("status-writer"));
    }

    /**
     * Writes {@code status} to the Cluster, or the newer one submitted before the write starts, on condition that the
     * Cluster is at {@code basis} (its {@code resourceVersion} the status was computed from; empty for no condition).
     */
    public void submit(ObjectKey cluster, ClusterStatus status, String basis) {
        Slot slot = slots.computeIfAbsent(cluster, k -> new Slot());
        synchronized (slot) {
            slot.latest = status;
            slot.basis = basis;
            if (slot.running) {
                return;
            }
            slot.running = true;
        }
        start(cluster, slot);
    }

    /**
     * Stops writing the clusters {@code gone} matches, without an outcome: their partitions went to another instance,
     * which computes and writes them from now on. A write retried here through an API server's outage would otherwise
     * land over that instance's newer status when the server answers again. A request already sent still completes.
     */
    public void abandon(Predicate<ObjectKey> gone) {
        slots.entrySet().removeIf(entry -> {
            if (!gone.test(entry.getKey())) {
                return false;
            }
            synchronized (entry.getValue()) {
                if (entry.getValue().attempt != null) {
                    entry.getValue().attempt.cancel();
                }
            }
            return true;
        });
    }

    /** Status writes that succeeded. */
    public long writes() {
        return writes.get();
    }

    /** Write attempts that failed (each retry counts). */
    public long failures() {
        return failures.get();
    }

    private void start(ObjectKey cluster, Slot slot) {
        Cancellable attempt = Uni.createFrom()
                .item(() -> write(cluster, slot))
                .runSubscriptionOn(pool)
                .onFailure(StatusWriter::retryable)
                .invoke(e -> {
                    failures.incrementAndGet();
                    LOG.debugf("status write of %s failed, retrying: %s", cluster, e.getMessage());
                })
                .onFailure(StatusWriter::retryable)
                .retry()
                .withBackOff(settings.initialBackoff(), settings.maxBackoff())
                .withJitter(0.2)
                .indefinitely()
                .subscribe()
                .with(written -> finished(cluster, slot, written), failure -> refused(cluster, slot, failure));
        synchronized (slot) {
            slot.attempt = attempt;
        }
    }

    private Write write(ObjectKey cluster, Slot slot) {
        long started = System.nanoTime();
        try {
            Write written = patch(cluster, slot);
            observer.attempted("written", Duration.ofNanos(System.nanoTime() - started));
            return written;
        } catch (RuntimeException e) {
            boolean gone = e instanceof KubernetesClientException k && k.getCode() == 404;
            observer.attempted(
                    e instanceof StaleBasis ? "conflicted" : retryable(e) ? "retried" : gone ? "gone" : "refused",
                    Duration.ofNanos(System.nanoTime() - started));
            throw e;
        }
    }

    private Write patch(ObjectKey cluster, Slot slot) {
        ClusterStatus status;
        String basis;
        String expected;
        synchronized (slot) {
            status = slot.latest;
            basis = slot.basis;
            expected = slot.expectedVersion();
            slot.attempted = status;
        }
        Stored stored;
        try {
            stored = destination.write(cluster, status, expected);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409 && !expected.isEmpty()) {
                synchronized (slot) {
                    if (slot.latest == status) {
                        throw new StaleBasis(status, basis); // computing it again is the cure, not writing it again
                    }
                }
            }
            throw e; // a newer status was submitted meanwhile: retried with it
        }
        writes.incrementAndGet();
        synchronized (slot) {
            slot.wrote(expected, stored.resourceVersion());
        }
        if (!stored.status().equals(status)) {
            pruned(cluster, status, stored.status());
        }
        return new Write(status, stored.status());
    }

    /**
     * The API server dropped fields of the status written: the Cluster CRD's status schema lacks them (EKS-A's own CRD
     * has no {@code defaultCNI}, {@code workerNodeGroups} or {@code versions}). Told when a field is found pruned
     * first.
     */
    private void pruned(ObjectKey cluster, ClusterStatus status, ClusterStatus kept) {
        ObjectNode sent = StatusEncoder.encode(status);
        ObjectNode held = StatusEncoder.encode(kept);
        Set<String> dropped = new TreeSet<>();
        sent.fieldNames().forEachRemaining(field -> {
            if (!sent.get(field).equals(held.get(field))) {
                dropped.add(field);
            }
        });
        if (prunedTold.addAll(dropped)) {
            LOG.warnf(
                    "the API server did not keep status.%s of cluster %s as written: the Cluster CRD's status schema"
                            + " lacks them (see docs/deploy.md). They are not written again while the Cluster shows the"
                            + " rest; kubectl does not show them; the version history is kept on the status topic",
                    String.join(", status.", dropped), cluster);
        }
    }

    private void finished(ObjectKey cluster, Slot slot, Write written) {
        boolean again;
        synchronized (slot) {
            again = slot.latest != written.status();
            slot.running = again;
        }
        outcomes.accept(new Written(cluster, written.status(), written.kept()));
        if (again) {
            start(cluster, slot);
        }
    }

    private void refused(ObjectKey cluster, Slot slot, Throwable failure) {
        failures.incrementAndGet();
        if (failure instanceof StaleBasis stale) {
            conflicted(cluster, slot, stale);
            return;
        }
        boolean stopping = failure instanceof RejectedExecutionException;
        boolean gone = failure instanceof KubernetesClientException e && e.getCode() == 404;
        ClusterStatus status;
        boolean again;
        synchronized (slot) {
            status = slot.attempted == null ? slot.latest : slot.attempted;
            // A newer status submitted while this one was refused may well be taken (a refusal is of the request).
            again = !stopping && !gone && slot.latest != status;
            slot.running = again;
        }
        if (!again) {
            slots.remove(cluster, slot);
        }
        if (stopping) {
            LOG.debugf("stopping: the status write of %s is left to the cluster's next owner", cluster);
        } else if (gone) {
            LOG.debugf("cluster %s is gone; its status is not written", cluster);
            outcomes.accept(new Gone(cluster));
        } else if (again) {
            LOG.errorf(
                    "the API server refused the status of cluster %s: %s; writing the newer one submitted since",
                    cluster, failure.getMessage());
            start(cluster, slot);
        } else {
            LOG.errorf("the API server refused the status of cluster %s: %s", cluster, failure.getMessage());
            outcomes.accept(new Refused(cluster, status, String.valueOf(failure.getMessage())));
        }
    }

    /**
     * The Cluster changed since the status was computed: reported, the slot kept (it knows this writer's last write).
     * A status submitted while this write was under way is written now.
     */
    private void conflicted(ObjectKey cluster, Slot slot, StaleBasis stale) {
        boolean again;
        synchronized (slot) {
            again = slot.latest != stale.status;
            slot.running = again;
        }
        LOG.debugf("cluster %s changed since version %s; its status is computed again", cluster, stale.basis);
        outcomes.accept(new Conflicted(cluster, stale.status, stale.basis));
        if (again) {
            start(cluster, slot);
        }
    }

    /**
     * Conflicts (of a write with no precondition), throttling, server errors and connection failures pass; a status
     * computed from a Cluster that changed since does not; anything else is the request's fault.
     */
    static boolean retryable(Throwable failure) {
        if (failure instanceof StaleBasis) {
            return false;
        }
        if (failure instanceof KubernetesClientException e) {
            int code = e.getCode();
            return code == 0 || code == 409 || code == 429 || code >= 500;
        }
        return !(failure instanceof IllegalArgumentException);
    }

    /**
     * Stops taking writes and lets those under way finish, for at most {@code grace}; a write still waiting for a
     * retry then is left to the next owner of the cluster, which computes and writes it again.
     */
    public void finish(Duration grace) {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.infof("status writes still under way after %s are left to the next owner of their clusters", grace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        slots.values().forEach(slot -> {
            synchronized (slot) {
                if (slot.attempt != null) {
                    slot.attempt.cancel();
                }
            }
        });
        pool.shutdown();
        destination.close();
    }
}
