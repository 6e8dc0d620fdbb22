package io.statusaggregator.writeback;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.statusaggregator.kubernetes.FieldManagers;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
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
 *
 * <p>This is the shell: {@link WriteSlots} decides what to write when (slots, retries, preconditions); this class does
 * the writes on its writer threads, waits for the retries and tells the outcomes.
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
    private final ExecutorService pool;
    /** When retries are due: Mutiny's worker pool, where its own backoff waits too. */
    private final ScheduledExecutorService timers = Infrastructure.getDefaultWorkerPool();
    private final Clock clock = Clock.systemUTC();
    /** What to write when: the decisions, under this lock, done here outside it. */
    private final WriteSlots slots;
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
        this.outcomes = outcomes;
        this.slots = new WriteSlots(
                new WriteSlots.Backoff(settings.initialBackoff(), settings.maxBackoff(), 0.2),
                () -> ThreadLocalRandom.current().nextDouble());
        this.pool = Executors.newFixedThreadPool(settings.concurrency(), DaemonThreads.named("status-writer"));
    }

    /**
     * Writes {@code status} to the Cluster, or the newer one submitted before the write starts, on condition that the
     * Cluster is at {@code basis} (its {@code resourceVersion} the status was computed from; empty for no condition).
     */
    public void submit(ObjectKey cluster, ClusterStatus status, String basis) {
        List<WriteSlots.Action> actions;
        synchronized (slots) {
            actions = slots.wanted(cluster, status, basis);
        }
        perform(actions);
    }

    /**
     * Stops writing the clusters {@code gone} matches, without an outcome: their partitions went to another instance,
     * which computes and writes them from now on. A write retried here through an API server's outage would otherwise
     * land over that instance's newer status when the server answers again. A request already sent still completes.
     */
    public void abandon(Predicate<ObjectKey> gone) {
        synchronized (slots) {
            slots.abandon(gone);
        }
    }

    /** Status writes that succeeded. */
    public long writes() {
        return writes.get();
    }

    /** Write attempts that failed (each retry counts). */
    public long failures() {
        return failures.get();
    }

    private void perform(List<WriteSlots.Action> actions) {
        for (WriteSlots.Action action : actions) {
            if (action instanceof WriteSlots.Attempt attempt) {
                run(attempt.cluster(), attempt.attempt());
            } else if (action instanceof WriteSlots.RetryAt retry) {
                long delay = Math.max(0, Duration.between(clock.instant(), retry.at()).toMillis());
                try {
                    timers.schedule(() -> run(retry.cluster(), retry.attempt()), delay, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    stopped(retry.cluster(), retry.attempt());
                }
            } else {
                report(action);
            }
        }
    }

    private void report(WriteSlots.Action action) {
        if (action instanceof WriteSlots.Written written) {
            outcomes.accept(new Written(written.cluster(), written.status(), written.kept()));
        } else if (action instanceof WriteSlots.Conflicted conflicted) {
            LOG.debugf("cluster %s changed since version %s; its status is computed again",
                    conflicted.cluster(), conflicted.basis());
            outcomes.accept(new Conflicted(conflicted.cluster(), conflicted.status(), conflicted.basis()));
        } else if (action instanceof WriteSlots.Gone gone) {
            LOG.debugf("cluster %s is gone; its status is not written", gone.cluster());
            outcomes.accept(new Gone(gone.cluster()));
        } else if (action instanceof WriteSlots.Refused refused) {
            LOG.errorf("the API server refused the status of cluster %s: %s", refused.cluster(), refused.reason());
            outcomes.accept(new Refused(refused.cluster(), refused.status(), refused.reason()));
        } else if (action instanceof WriteSlots.RefusedBeforeNewer refused) {
            LOG.errorf(
                    "the API server refused the status of cluster %s: %s; writing the newer one submitted since",
                    refused.cluster(), refused.reason());
        }
    }

    /** The attempt on a writer thread; the writer stopping leaves its cluster to the cluster's next owner. */
    private void run(ObjectKey cluster, long attempt) {
        try {
            pool.execute(() -> attempt(cluster, attempt));
        } catch (RejectedExecutionException e) {
            stopped(cluster, attempt);
        }
    }

    private void stopped(ObjectKey cluster, long attempt) {
        synchronized (slots) {
            slots.stopped(cluster, attempt);
        }
        LOG.debugf("stopping: the status write of %s is left to the cluster's next owner", cluster);
    }

    private void attempt(ObjectKey cluster, long attempt) {
        Optional<WriteSlots.Patch> patch;
        synchronized (slots) {
            patch = slots.patch(cluster, attempt);
        }
        if (patch.isEmpty()) {
            return; // abandoned meanwhile
        }
        long started = System.nanoTime();
        WriteSlots.Result result = write(cluster, patch.get());
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        List<WriteSlots.Action> actions;
        synchronized (slots) {
            actions = slots.answered(cluster, attempt, result, clock.instant());
        }
        observer.attempted(label(result, actions), took);
        if (!(result instanceof WriteSlots.Accepted)) {
            failures.incrementAndGet();
        }
        if (actions.stream().anyMatch(WriteSlots.RetryAt.class::isInstance)) {
            LOG.debugf("status write of %s failed, retrying: %s", cluster, reason(result));
        }
        perform(actions);
    }

    /** The API server's answer, the failures told apart by their HTTP code as the API client throws them. */
    private WriteSlots.Result write(ObjectKey cluster, WriteSlots.Patch patch) {
        Stored stored;
        try {
            stored = destination.write(cluster, patch.status(), patch.expectedVersion());
        } catch (KubernetesClientException e) {
            String reason = String.valueOf(e.getMessage());
            int code = e.getCode();
            if (code == 404) {
                return new WriteSlots.NotFound();
            } else if (code == 409) {
                return new WriteSlots.Conflict(reason);
            } else if (code == 0 || code == 429 || code >= 500) {
                return new WriteSlots.Transient(reason);
            }
            return new WriteSlots.Refusal(reason);
        } catch (IllegalArgumentException e) {
            return new WriteSlots.Refusal(String.valueOf(e.getMessage())); // the request's fault
        } catch (RuntimeException e) {
            return new WriteSlots.Transient(String.valueOf(e.getMessage()));
        }
        writes.incrementAndGet();
        if (!stored.status().equals(patch.status())) {
            pruned(cluster, patch.status(), stored.status());
        }
        return new WriteSlots.Accepted(stored.status(), stored.resourceVersion());
    }

    /** The attempt's outcome as {@link Observer} names it. */
    private static String label(WriteSlots.Result result, List<WriteSlots.Action> actions) {
        if (result instanceof WriteSlots.Accepted) {
            return "written";
        } else if (actions.stream().anyMatch(WriteSlots.Conflicted.class::isInstance)) {
            return "conflicted";
        } else if (result instanceof WriteSlots.NotFound) {
            return "gone";
        } else if (result instanceof WriteSlots.Refusal) {
            return "refused";
        }
        return "retried";
    }

    private static String reason(WriteSlots.Result result) {
        if (result instanceof WriteSlots.Conflict conflict) {
            return conflict.reason();
        }
        return result instanceof WriteSlots.Transient failure ? failure.reason() : "";
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
        abandon(cluster -> true);
        pool.shutdown();
        destination.close();
    }
}
