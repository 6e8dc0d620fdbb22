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
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 *
 * <p>This is the shell: {@link CniTargets} decides which clusters to observe, through which kubeconfig, and what each
 * observation says; this class watches the secrets and DaemonSets, makes the connections and publishes.
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
    /** What to observe: the decisions, done here. */
    private final CniTargets targets;
    private final Map<String, SecretWatch> secretWatches = new HashMap<>();
    private final Map<String, Connection> connections = new HashMap<>();
    /** On the observer's thread, so that a relisted informer's deletions arrive there like its other events. */
    private final StalledWatchGuard guard;

    /** The watch on a cluster's kubeconfig secret. */
    private record SecretWatch(long number, StalledWatchGuard.GuardedInformer<Secret> informer) {
    }

    /** A workload cluster's connection, and the watch on its CNI's DaemonSet. */
    private record Connection(
            long number, KubernetesClient client, StalledWatchGuard.GuardedInformer<DaemonSet> watch) {
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
        this.targets = new CniTargets(settings.capiNamespace(), settings.maxConnections(), settings.staleAfter());
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
                perform(targets.clusterSeen(cluster));
            } else if (o instanceof KubeadmControlPlane kcp) {
                perform(targets.controlPlaneSeen(kcp));
            }
        }));
    }

    @Override
    public void deleted(ObjectKind kind, JsonNode lastKnown) {
        if (kind != ObjectKind.EKSA_CLUSTER) {
            return;
        }
        ObjectKey key = new ObjectKey(lastKnown.path("metadata").path("namespace").asText(),
                lastKnown.path("metadata").path("name").asText());
        onLoop(() -> perform(targets.clusterDeleted(key)));
    }

    // ----- what the core decided

    private void perform(List<CniTargets.Action> actions) {
        for (CniTargets.Action action : actions) {
            if (action instanceof CniTargets.WatchSecret watch) {
                watchSecret(watch.cluster(), watch.watch());
            } else if (action instanceof CniTargets.StopWatchingSecret stop) {
                SecretWatch watch = secretWatches.get(stop.cluster());
                if (watch != null && watch.number() == stop.watch()) {
                    secretWatches.remove(stop.cluster());
                    closer.execute(watch.informer()::close);
                }
            } else if (action instanceof CniTargets.Connect connect) {
                connect(connect);
            } else if (action instanceof CniTargets.Disconnect disconnect) {
                Connection connection = connections.get(disconnect.cluster());
                if (connection != null && connection.number() == disconnect.connection()) {
                    connections.remove(disconnect.cluster());
                    closer.execute(() -> {
                        connection.watch().close();
                        connection.client().close();
                    });
                }
            } else if (action instanceof CniTargets.ReadAgain again) {
                Connection connection = connections.get(again.cluster());
                if (connection != null && connection.number() == again.connection()) {
                    observed(again.cluster(), again.connection(),
                            connection.watch().current().getStore().list().stream().findFirst().orElse(null));
                }
            } else if (action instanceof CniTargets.Publish publish) {
                publish(publish.observation());
            } else if (action instanceof CniTargets.Tombstone tombstone) {
                publisher.tombstone(observationKey(tombstone.cluster()));
            } else if (action instanceof CniTargets.LimitReached limit) {
                LOG.warnf(
                        "workload connection limit reached (%d, aggregator.cni.max-connections): the CNI of further"
                                + " clusters is not observed",
                        limit.maxConnections());
            }
        }
    }

    private void watchSecret(String cluster, long number) {
        String secret = cluster + "-kubeconfig";
        ResourceEventHandler<Secret> changes = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Secret s) {
                onLoop(() -> kubeconfigChanged(cluster, number, s));
            }

            @Override
            public void onUpdate(Secret before, Secret after) {
                onLoop(() -> kubeconfigChanged(cluster, number, after));
            }

            @Override
            public void onDelete(Secret s, boolean unknown) {
                onLoop(() -> kubeconfigChanged(cluster, number, null));
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
        secretWatches.put(cluster, new SecretWatch(number, watch));
        watch.start().whenComplete((ok, failure) -> onLoop(() -> {
            if (failure == null && watch.current().getStore().list().isEmpty()) {
                kubeconfigChanged(cluster, number, null);
            }
        }));
    }

    private void kubeconfigChanged(String cluster, long watch, Secret secret) {
        if (secret == null) {
            perform(targets.secretNotFound(cluster, watch));
        } else {
            String kubeconfig = secret.getData() == null ? null : secret.getData().get("value");
            perform(targets.secretFound(cluster, watch, kubeconfig));
        }
    }

    private void connect(CniTargets.Connect connect) {
        String cluster = connect.cluster();
        String where = targets.kubeconfigSecret(cluster);
        Config config;
        try {
            String text = new String(Base64.getDecoder().decode(connect.kubeconfig()), StandardCharsets.UTF_8);
            Optional<String> refused = WorkloadKubeconfig.refusal(text);
            if (refused.isPresent()) {
                perform(targets.kubeconfigRefused(cluster, connect.connection(), refused.get()));
                LOG.warnf("cluster %s: %s is refused: %s", cluster, where, refused.get());
                return;
            }
            config = Config.fromKubeconfig(text);
            if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
                throw new IllegalArgumentException("no server");
            }
        } catch (RuntimeException e) {
            // The parser's message may quote the content, credentials included: name the secret only.
            perform(targets.kubeconfigUnusable(cluster, connect.connection()));
            LOG.warnf("cluster %s: %s does not hold a usable kubeconfig (%s)", cluster, where,
                    e.getClass().getSimpleName());
            return;
        }
        int timeout = (int) settings.workloadRequestTimeout().toMillis();
        config.setConnectionTimeout(timeout);
        config.setRequestTimeout(timeout);
        KubernetesClient workload = new KubernetesClientBuilder().withConfig(config).build();
        long number = connect.connection();
        ResourceEventHandler<DaemonSet> changes = new ResourceEventHandler<>() {
            @Override
            public void onAdd(DaemonSet ds) {
                onLoop(() -> observed(cluster, number, ds));
            }

            @Override
            public void onUpdate(DaemonSet before, DaemonSet after) {
                onLoop(() -> observed(cluster, number, after));
            }

            @Override
            public void onDelete(DaemonSet ds, boolean unknown) {
                onLoop(() -> observed(cluster, number, null));
            }
        };
        String daemonSet = CniDaemonSet.nameOf(connect.cni());
        var watch = guard.guard(
                "daemonset " + CniDaemonSet.NAMESPACE + "/" + daemonSet + " of cluster " + cluster,
                () -> workload.apps()
                        .daemonSets()
                        .inNamespace(CniDaemonSet.NAMESPACE)
                        .withName(daemonSet)
                        .runnableInformer(0),
                changes);
        connections.put(cluster, new Connection(number, workload, watch));
        targets.connected(cluster, number, config.getMasterUrl());
        watch.start().whenComplete((ok, failure) -> onLoop(() -> {
            if (failure == null && watch.current().getStore().list().isEmpty()) {
                observed(cluster, number, null);
            }
        }));
        LOG.debugf("cluster %s: watching its CNI at %s", cluster, config.getMasterUrl());
    }

    /** @param connection the connection the observation came through */
    private void observed(String cluster, long connection, DaemonSet daemonSet) {
        perform(targets.observed(cluster, connection,
                daemonSet == null ? Optional.empty() : CniDaemonSet.version(daemonSet),
                daemonSet != null && CniDaemonSet.ready(daemonSet)));
    }

    private void checkReachability() {
        Instant now = clock.instant();
        List.copyOf(connections.entrySet()).forEach(entry -> perform(targets.checked(entry.getKey(),
                entry.getValue().number(), entry.getValue().watch().current().isWatching(), now)));
    }

    private void publish(CniTargets.Observation observation) {
        ObjectNode node = JSON.createObjectNode();
        node.put("apiVersion", ObjectKind.CNI_OBSERVATION.apiVersion());
        node.put("kind", ObjectKind.CNI_OBSERVATION.kind());
        node.putObject("metadata").put("namespace", settings.capiNamespace()).put("name", observation.cluster());
        ObjectNode spec = node.putObject("spec");
        spec.put("clusterName", observation.cluster());
        spec.put("cni", observation.cni().wireName());
        observation.version().ifPresent(v -> spec.put("version", v));
        spec.put("ready", observation.ready());
        observation.problem().ifPresent(problem -> spec.put("problem", problem));
        publisher.publish(ObjectKind.CNI_OBSERVATION, node);
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
            loop.submit(() -> perform(targets.closing())).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("stopping the CNI observer", e);
        }
        loop.shutdownNow();
        closer.shutdown();
    }
}
