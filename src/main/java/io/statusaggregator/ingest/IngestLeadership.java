package io.statusaggregator.ingest;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Which replica ingests: the holder of a Kubernetes Lease. Every replica aggregates (the consumer group shares the
 * partitions), but one feeds the topic, so that the API server is watched once and each change is sent once. A
 * replica that loses the lease stops ingesting at once; when the holder dies without releasing it, another takes it
 * over once it expires.
 */
public final class IngestLeadership implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(IngestLeadership.class);

    /**
     * @param namespace     where the Lease lives (the application's own namespace)
     * @param identity      this replica's name in the Lease (its pod name)
     * @param leaseDuration how long a lease holds without renewal: how long a dead holder keeps the others waiting
     */
    public record Settings(
            String namespace,
            String leaseName,
            String identity,
            Duration leaseDuration,
            Duration renewDeadline,
            Duration retryPeriod) {}

    private final KubernetesClient client;
    private final Settings settings;
    private final Runnable startLeading;
    private final Runnable stopLeading;
    private volatile CompletableFuture<?> running;
    private volatile boolean closed;

    /**
     * @param startLeading run when this replica takes the lease
     * @param stopLeading  run when it loses or gives it up
     */
    public IngestLeadership(KubernetesClient client, Settings settings, Runnable startLeading, Runnable stopLeading) {
        this.client = client;
        this.settings = settings;
        this.startLeading = startLeading;
        this.stopLeading = stopLeading;
    }

    /** Takes part in the election, without waiting for its outcome. */
    public void start() {
        campaign();
    }

    /**
     * One elector campaigns until it loses the lease (a missed renewal: a long pause, a slow API server); Fabric8's
     * elector runs once, so a new one campaigns again, or this replica would never ingest again.
     */
    private void campaign() {
        if (closed) {
            return;
        }
        LeaderElector elector = client.leaderElector()
                .withConfig(new LeaderElectionConfigBuilder()
                        .withName(settings.leaseName())
                        .withLock(new LeaseLock(settings.namespace(), settings.leaseName(), settings.identity()))
                        .withLeaseDuration(settings.leaseDuration())
                        .withRenewDeadline(settings.renewDeadline())
                        .withRetryPeriod(settings.retryPeriod())
                        .withReleaseOnCancel(true)
                        .withLeaderCallbacks(new LeaderCallbacks(
                                () -> {
                                    LOG.infof(
                                            "%s holds lease %s/%s: this replica ingests",
                                            settings.identity(), settings.namespace(), settings.leaseName());
                                    startLeading.run();
                                },
                                () -> {
                                    LOG.infof(
                                            "%s no longer holds lease %s/%s: this replica stops ingesting",
                                            settings.identity(), settings.namespace(), settings.leaseName());
                                    stopLeading.run();
                                },
                                leader -> LOG.debugf(
                                        "lease %s/%s held by %s", settings.namespace(), settings.leaseName(), leader)))
                        .build())
                .build();
        CompletableFuture<?> campaign = elector.start();
        running = campaign;
        campaign.whenComplete((done, failure) -> {
            if (!closed) {
                LOG.debugf(
                        "election for lease %s/%s ended (%s); campaigning again",
                        settings.namespace(),
                        settings.leaseName(),
                        failure == null ? "lease lost" : failure.toString());
                CompletableFuture.runAsync(
                        this::campaign,
                        CompletableFuture.delayedExecutor(settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS));
            }
        });
    }

    /** Leaves the election, releasing the lease if held, so that another replica takes over at once. */
    @Override
    public void close() {
        closed = true;
        CompletableFuture<?> campaign = running;
        if (campaign != null) {
            campaign.cancel(true);
        }
    }

    public Settings settings() {
        return settings;
    }
}
