package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.threads.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;
import io.statusaggregator.kubernetes.StalledWatchGuard;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * Observes the CNI in each workload cluster, the way Cluster API reaches workload clusters: for every cluster whose
 * control plane is initialized, a client from the CAPI kubeconfig secret ({@code C-kubeconfig}, key {@code value})
 * and a watch on the CNI DaemonSet in {@code kube-system}. Each observation goes onto the object-state topic like
 * any other input (kind {@code CNIObservation}), so aggregation stays the only place that computes status.
 *
 * <p>One connection per workload cluster, at most {@code maxConnections} in all; closed when the cluster is
 * deleted, its control plane is no longer known, or its secret changes. A workload API that stops answering marks
 * its own cluster after {@code staleAfter}; nothing here waits on a workload cluster, so none holds up another.
 * The kubeconfig's content is never logged: problems name the secret, not what it holds.
 */
public final class CniObserver implements ObjectIngest.Listener, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CniObserver.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    public record Settings(String capiNamespace, int maxConnections, Duration staleAfter, Duration checkInterval,
            Duration workloadRequestTimeout) {
    }

    private final KubernetesClient management;
    private final Settings settings;
    private final ObjectStatePublisher publisher;
    private final Clock clock;
    /** All state is touched on this one thread. */
    private final ScheduledExecutorService loop =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("cni-observer"));
    /** Closing a client may wait on its connections: never on the observer's thread. */
    private final ExecutorService closer = Executors.newCachedThreadPool(DaemonThreads.named("cni-observer-close"));
    private final Map<String, Target> targets = new HashMap<>();
    /** On the observer's thread, so that a relisted informer's deletions arrive there like its other events. */
    private final StalledWatchGuard guard;
    private int connections;
    private boolean limitReported;
    private boolean closing;

    /** A cluster as far as the observer cares: which CNI it runs, and whether its control plane is initialized. */
    private final class Target {
        final String cluster;
        Cni cni;
        /**
         * The EKS-A Clusters of this name: in several namespaces, the one created first holds the name and its CAPI
         * objects (status-rules.md), so its CNI is the one observed, and the observation lasts while any is left.
         */
        final Map<ObjectKey, EksaCluster> clusters = new HashMap<>();
        boolean exists;
        boolean initialized;
        StalledWatchGuard.GuardedInformer<Secret> secretWatch;
        KubernetesClient workload;
        StalledWatchGuard.GuardedInformer<DaemonSet> daemonSetWatch;
        String kubeconfigSeen;
        Instant unreachableSince;
        boolean overLimit;
        String lastPublished;
        Optional<String> lastVersion = Optional.empty();
        boolean lastReady;

        Target(String cluster) {
            this.cluster = cluster;
        }

        boolean wanted() {
            return exists && initialized;
        }
    }

    /**
     * @param relistStalledAfter how long an informer, of a secret or a DaemonSet, may go without a running watch before
     *                           it is replaced (see {@link StalledWatchGuard})
     */
    public CniObserver(
            KubernetesClient management,
            Settings settings,
            Duration relistStalledAfter,
            ObjectStatePublisher publisher,
            Clock clock) {
        this.management = management;
        this.settings = settings;
        this.publisher = publisher;
        this.clock = clock;
        this.guard = new StalledWatchGuard(relistStalledAfter, loop);
    }

    public void start() {
        long every = settings.checkInterval().toMillis();
        loop.scheduleWithFixedDelay(this::checkReachability, every, every, TimeUnit.MILLISECONDS);
    }

    // ----- what ingest sees of the management cluster

    @Override
    public void changed(ObjectKind kind, JsonNode object) {
        if (kind != ObjectKind.EKSA_CLUSTER && kind != ObjectKind.KUBEADM_CONTROL_PLANE) {
            return;
        }
        Optional<KubernetesObject> decoded;
        try {
            decoded = ObjectDecoder.decode(object);
        } catch (MalformedObjectException e) {
            return; // aggregation reports it on the cluster's status
        }
        decoded.ifPresent(o -> onLoop(() -> {
            if (o instanceof EksaCluster cluster) {
                Target target = targets.computeIfAbsent(cluster.key().name(), Target::new);
                target.exists = true;
                target.clusters.put(cluster.key(), cluster);
                followHolder(target);
            } else if (o instanceof KubeadmControlPlane kcp && kcp.key().namespace().equals(settings.capiNamespace())) {
                Target target = targets.computeIfAbsent(kcp.clusterName(), Target::new);
                // Like the ControlPlaneInitialized latch: once initialized, the workload API exists.
                target.initialized |= kcp.initialized() || kcp.conditions().isTrue(KubeadmControlPlane.AVAILABLE);
                reconcile(target);
            }
        }));
    }

    @Override
    public void deleted(ObjectKind kind, JsonNode lastKnown) {
        if (kind != ObjectKind.EKSA_CLUSTER) {
            return;
        }
        String name = lastKnown.path("metadata").path("name").asText();
        ObjectKey key = new ObjectKey(lastKnown.path("metadata").path("namespace").asText(), name);
        onLoop(() -> {
            Target target = targets.get(name);
            if (target == null) {
                return;
            }
            target.clusters.remove(key);
            if (target.clusters.isEmpty()) {
                targets.remove(name);
                stop(target);
                publisher.tombstone(observationKey(name));
            } else {
                followHolder(target); // another namespace's Cluster of this name holds it now
            }
        });
    }

    /** Observes the CNI of the Cluster that holds the target's name. */
    private void followHolder(Target target) {
        Cni holderCni = target.clusters.values().stream().min(EksaCluster.HOLDS_NAME_FIRST).orElseThrow()
                .spec().cni().cni();
        if (target.cni != holderCni) {
            target.cni = holderCni;
            disconnect(target); // another CNI: another DaemonSet to watch
        }
        reconcile(target);
    }

    // ----- per cluster

    private void reconcile(Target target) {
        if (!target.wanted()) {
            if (target.secretWatch != null) {
                stop(target);
            }
            return;
        }
        if (target.secretWatch != null || target.overLimit && connections >= settings.maxConnections()) {
            return;
        }
        if (connections >= settings.maxConnections()) {
            target.overLimit = true;
            if (!limitReported) {
                LOG.warnf(
                        "workload connection limit reached (%d, aggregator.cni.max-connections): the CNI of further"
                                + " clusters is not observed",
                        settings.maxConnections());
                limitReported = true;
            }
            publish(target, "not observed: the aggregator's limit of " + settings.maxConnections()
                    + " workload cluster connections is reached");
            return;
        }
        target.overLimit = false;
        connections++;
        String secret = target.cluster + "-kubeconfig";
        ResourceEventHandler<Secret> changes = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Secret s) {
                onLoop(() -> kubeconfigChanged(target, s));
            }

            @Override
            public void onUpdate(Secret before, Secret after) {
                onLoop(() -> kubeconfigChanged(target, after));
            }

            @Override
            public void onDelete(Secret s, boolean unknown) {
                onLoop(() -> kubeconfigChanged(target, null));
            }
        };
        var watch = guard.guard(
                "secret " + settings.capiNamespace() + "/" + secret,
                () -> management
                        .secrets()
                        .inNamespace(settings.capiNamespace())
                        .withName(secret)
                        .runnableInformer(0),
                changes);
        target.secretWatch = watch;
        watch.start().whenComplete((ok, failure) -> onLoop(() -> {
            if (target.secretWatch == watch && failure == null && watch.current().getStore().list().isEmpty()) {
                kubeconfigChanged(target, null);
            }
        }));
    }

    private void kubeconfigChanged(Target target, Secret secret) {
        if (target.secretWatch == null) {
            return; // stopped meanwhile
        }
        String where = "kubeconfig secret " + settings.capiNamespace() + "/" + target.cluster + "-kubeconfig";
        String kubeconfig = secret == null || secret.getData() == null ? null : secret.getData().get("value");
        if (Objects.equals(kubeconfig, target.kubeconfigSeen) && target.workload != null) {
            return;
        }
        disconnect(target);
        target.kubeconfigSeen = kubeconfig;
        if (secret == null) {
            publish(target, where + " not found");
            return;
        }
        if (kubeconfig == null) {
            publish(target, where + " has no key \"value\"");
            return;
        }
        Config config;
        try {
            String text = new String(Base64.getDecoder().decode(kubeconfig), StandardCharsets.UTF_8);
            Optional<String> refused = WorkloadKubeconfig.refusal(text);
            if (refused.isPresent()) {
                publish(target, where + " is refused: " + refused.get());
                LOG.warnf("cluster %s: %s is refused: %s", target.cluster, where, refused.get());
                return;
            }
            config = Config.fromKubeconfig(text);
            if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
                throw new IllegalArgumentException("no server");
            }
        } catch (RuntimeException e) {
            // The parser's message may quote the content, credentials included: name the secret only.
            publish(target, where + " does not hold a usable kubeconfig");
            LOG.warnf(
                    "cluster %s: %s does not hold a usable kubeconfig (%s)",
                    target.cluster, where, e.getClass().getSimpleName());
            return;
        }
        int timeout = (int) settings.workloadRequestTimeout().toMillis();
        config.setConnectionTimeout(timeout);
        config.setRequestTimeout(timeout);
        KubernetesClient workload = new KubernetesClientBuilder().withConfig(config).build();
        ResourceEventHandler<DaemonSet> changes = new ResourceEventHandler<>() {
            @Override
            public void onAdd(DaemonSet ds) {
                onLoop(() -> observed(target, workload, ds));
            }

            @Override
            public void onUpdate(DaemonSet before, DaemonSet after) {
                onLoop(() -> observed(target, workload, after));
            }

            @Override
            public void onDelete(DaemonSet ds, boolean unknown) {
                onLoop(() -> observed(target, workload, null));
            }
        };
        String daemonSet = CniDaemonSet.nameOf(target.cni);
        var watch = guard.guard(
                "daemonset " + CniDaemonSet.NAMESPACE + "/" + daemonSet + " of cluster " + target.cluster,
                () -> workload.apps()
                        .daemonSets()
                        .inNamespace(CniDaemonSet.NAMESPACE)
                        .withName(daemonSet)
                        .runnableInformer(0),
                changes);
        target.workload = workload;
        target.daemonSetWatch = watch;
        target.unreachableSince = null;
        watch.start().whenComplete((ok, failure) -> onLoop(() -> {
            if (target.daemonSetWatch == watch && failure == null && watch.current().getStore().list().isEmpty()) {
                observed(target, workload, null);
            }
        }));
        LOG.debugf("cluster %s: watching its CNI at %s", target.cluster, config.getMasterUrl());
    }

    /** @param workload the connection the observation came through */
    private void observed(Target target, KubernetesClient workload, DaemonSet daemonSet) {
        if (target.workload != workload) {
            return; // an event of a connection replaced meanwhile
        }
        target.unreachableSince = null;
        target.lastVersion = daemonSet == null ? Optional.empty() : CniDaemonSet.version(daemonSet);
        target.lastReady = daemonSet != null && CniDaemonSet.ready(daemonSet);
        publish(target, null);
    }

    /** A workload API that has not answered for {@code staleAfter} makes its cluster's observation say so. */
    private void checkReachability() {
        Instant now = clock.instant();
        for (Target target : targets.values()) {
            var watch = target.daemonSetWatch;
            if (watch == null) {
                continue;
            }
            if (watch.current().isWatching()) {
                if (target.unreachableSince != null) {
                    target.unreachableSince = null;
                    DaemonSet current = watch.current().getStore().list().stream().findFirst().orElse(null);
                    observed(target, target.workload, current);
                }
                continue;
            }
            if (target.unreachableSince == null) {
                target.unreachableSince = now;
            }
            if (Duration.between(target.unreachableSince, now).compareTo(settings.staleAfter()) >= 0) {
                publish(target, "workload cluster API " + target.workload.getConfiguration().getMasterUrl()
                        + " not answering since " + target.unreachableSince.truncatedTo(ChronoUnit.SECONDS));
            }
        }
    }

    private void publish(Target target, String problem) {
        ObjectNode node = JSON.createObjectNode();
        node.put("apiVersion", ObjectKind.CNI_OBSERVATION.apiVersion());
        node.put("kind", ObjectKind.CNI_OBSERVATION.kind());
        node.putObject("metadata").put("namespace", settings.capiNamespace()).put("name", target.cluster);
        ObjectNode spec = node.putObject("spec");
        spec.put("clusterName", target.cluster);
        spec.put("cni", (target.cni == null ? Cni.CILIUM : target.cni).wireName());
        target.lastVersion.ifPresent(v -> spec.put("version", v));
        spec.put("ready", target.lastReady);
        if (problem != null) {
            spec.put("problem", problem);
        }
        String json = node.toString();
        if (!json.equals(target.lastPublished)) {
            target.lastPublished = json;
            publisher.publish(ObjectKind.CNI_OBSERVATION, node);
        }
    }

    private void stop(Target target) {
        disconnect(target);
        if (target.secretWatch != null) {
            var watch = target.secretWatch;
            target.secretWatch = null;
            closer.execute(watch::close);
            connections--;
        }
        target.kubeconfigSeen = null;
        if (target.overLimit) {
            target.overLimit = false;
        }
        if (!closing) {
            // A freed connection goes to a cluster that waits for one.
            targets.values().stream().filter(t -> t.overLimit && t.wanted()).findFirst().ifPresent(this::reconcile);
        }
    }

    private void disconnect(Target target) {
        if (target.daemonSetWatch != null) {
            var watch = target.daemonSetWatch;
            KubernetesClient workload = target.workload;
            target.daemonSetWatch = null;
            target.workload = null;
            closer.execute(() -> {
                watch.close();
                workload.close();
            });
        }
        target.unreachableSince = null;
    }

    private ObjectStateKey observationKey(String cluster) {
        return new ObjectStateKey(
                cluster, ObjectKind.CNI_OBSERVATION, new ObjectKey(settings.capiNamespace(), cluster));
    }

    /**
     * On the observer's thread. An event that arrives once the observer has stopped is dropped: nothing is observed any
     * more.
     */
    private void onLoop(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("an event after the CNI observer stopped is dropped");
        }
    }

    @Override
    public void close() {
        try {
            loop.submit(() -> {
                closing = true;
                targets.values().forEach(this::stop);
            }).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("stopping the CNI observer", e);
        }
        loop.shutdownNow();
        closer.shutdown();
    }
}
