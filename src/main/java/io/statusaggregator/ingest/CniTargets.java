package io.statusaggregator.ingest;

import io.statusaggregator.model.Cni;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the CNI observer decides, pure: which workload clusters to observe (those whose control plane is initialized,
 * up to the connection limit), through which kubeconfig, when to connect, disconnect and watch again, and what each
 * observation says. Events in (a Cluster or control plane seen, a Cluster deleted, a kubeconfig secret seen, a
 * DaemonSet seen, a reachability check), actions out; {@link CniObserver} does them. Not thread-safe: its shell calls
 * it on one thread.
 *
 * <p>Each secret watch and workload connection is numbered: an event of one replaced meanwhile is ignored.
 */
@Pure
final class CniTargets {
    /** What the shell is to do. */
    sealed interface Action {
    }

    /** Watch the cluster's kubeconfig secret; its events come back as {@link #secretFound}/{@link #secretNotFound}. */
    record WatchSecret(String cluster, long watch) implements Action {
    }

    record StopWatchingSecret(String cluster, long watch) implements Action {
    }

    /**
     * Connect with {@code kubeconfig} (base64, as the secret holds it) and watch {@code cni}'s DaemonSet; say how it
     * went with {@link #connected}, {@link #kubeconfigRefused} or {@link #kubeconfigUnusable}.
     */
    record Connect(String cluster, long connection, String kubeconfig, Cni cni) implements Action {
    }

    record Disconnect(String cluster, long connection) implements Action {
    }

    /** Read the connection's DaemonSet again ({@link #observed}): its API answers again. */
    record ReadAgain(String cluster, long connection) implements Action {
    }

    /** Publish the observation (one that differs from the last published of its cluster). */
    record Publish(Observation observation) implements Action {
    }

    /** The cluster is gone: its observation is removed from the topic. */
    record Tombstone(String cluster) implements Action {
    }

    /** The connection limit is reached, told once. */
    record LimitReached(int maxConnections) implements Action {
    }

    /** A cluster's CNI as observed: its version and readiness, or the problem that keeps it from being observed. */
    record Observation(String cluster, Cni cni, Optional<String> version, boolean ready, Optional<String> problem) {
    }

    private static final class Target {
        final String cluster;
        Cni cni;
        /**
         * The EKS-A Clusters of this name: in several namespaces, the one created first holds the name and its CAPI
         * objects (status-rules.md), so its CNI is the one observed, and the observation lasts while any is left.
         */
        final Map<ObjectKey, EksaCluster> clusters = new HashMap<>();
        boolean exists;
        boolean initialized;
        /** The secret watch and the workload connection; 0 when none. */
        long secretWatch;
        long connection;
        String masterUrl;
        String kubeconfigSeen;
        Instant unreachableSince;
        boolean overLimit;
        Observation lastPublished;
        Optional<String> lastVersion = Optional.empty();
        boolean lastReady;

        Target(String cluster) {
            this.cluster = cluster;
        }

        boolean wanted() {
            return exists && initialized;
        }
    }

    private final String capiNamespace;
    private final int maxConnections;
    private final Duration staleAfter;
    private final Map<String, Target> targets = new HashMap<>();
    private int connections;
    private boolean limitReported;
    private boolean closing;
    private long numbers;

    CniTargets(String capiNamespace, int maxConnections, Duration staleAfter) {
        this.capiNamespace = capiNamespace;
        this.maxConnections = maxConnections;
        this.staleAfter = staleAfter;
    }

    /** The secret a cluster's kubeconfig is read from, as problems name it (never what it holds). */
    String kubeconfigSecret(String cluster) {
        return "kubeconfig secret " + capiNamespace + "/" + cluster + "-kubeconfig";
    }

    // ----- what ingest sees of the management cluster

    List<Action> clusterSeen(EksaCluster cluster) {
        List<Action> actions = new ArrayList<>();
        Target target = targets.computeIfAbsent(cluster.key().name(), Target::new);
        target.exists = true;
        target.clusters.put(cluster.key(), cluster);
        followHolder(target, actions);
        return actions;
    }

    List<Action> controlPlaneSeen(KubeadmControlPlane kcp) {
        List<Action> actions = new ArrayList<>();
        if (!kcp.key().namespace().equals(capiNamespace)) {
            return actions;
        }
        Target target = targets.computeIfAbsent(kcp.clusterName(), Target::new);
        // Like the ControlPlaneInitialized latch: once initialized, the workload API exists.
        target.initialized |= kcp.initialized() || kcp.conditions().isTrue(KubeadmControlPlane.AVAILABLE);
        reconcile(target, actions);
        return actions;
    }

    List<Action> clusterDeleted(ObjectKey key) {
        List<Action> actions = new ArrayList<>();
        Target target = targets.get(key.name());
        if (target == null) {
            return actions;
        }
        target.clusters.remove(key);
        if (target.clusters.isEmpty()) {
            targets.remove(key.name());
            stop(target, actions);
            actions.add(new Tombstone(key.name()));
        } else {
            followHolder(target, actions); // another namespace's Cluster of this name holds it now
        }
        return actions;
    }

    // ----- what the shell sees of secrets and workload clusters

    /** @param kubeconfig the secret's key {@code value}, base64; null when it has none */
    List<Action> secretFound(String cluster, long watch, String kubeconfig) {
        return kubeconfigChanged(cluster, watch, true, kubeconfig);
    }

    List<Action> secretNotFound(String cluster, long watch) {
        return kubeconfigChanged(cluster, watch, false, null);
    }

    /** The connection is made: its DaemonSet's events come back through {@link #observed}. */
    void connected(String cluster, long connection, String masterUrl) {
        Target target = targets.get(cluster);
        if (target != null && target.connection == connection) {
            target.masterUrl = masterUrl;
            target.unreachableSince = null;
        }
    }

    /** The kubeconfig asks for what is not allowed ({@link WorkloadKubeconfig}): {@code reason} names fields only. */
    List<Action> kubeconfigRefused(String cluster, long connection, String reason) {
        return unusable(cluster, connection, kubeconfigSecret(cluster) + " is refused: " + reason);
    }

    /** The kubeconfig cannot be read, or names no server. */
    List<Action> kubeconfigUnusable(String cluster, long connection) {
        return unusable(cluster, connection, kubeconfigSecret(cluster) + " does not hold a usable kubeconfig");
    }

    /** The CNI's DaemonSet as the connection sees it: its version, and whether it is ready; absent: none. */
    List<Action> observed(String cluster, long connection, Optional<String> version, boolean ready) {
        List<Action> actions = new ArrayList<>();
        Target target = targets.get(cluster);
        if (target == null || target.connection != connection || connection == 0) {
            return actions; // an event of a connection replaced meanwhile
        }
        target.unreachableSince = null;
        target.lastVersion = version;
        target.lastReady = ready;
        publish(target, null, actions);
        return actions;
    }

    /**
     * The periodic check of a connection: whether its DaemonSet watch runs. A workload API that has not answered for
     * {@code staleAfter} makes its cluster's observation say so; when it answers again, the DaemonSet is read again.
     */
    List<Action> checked(String cluster, long connection, boolean watching, Instant now) {
        List<Action> actions = new ArrayList<>();
        Target target = targets.get(cluster);
        if (target == null || target.connection != connection || connection == 0) {
            return actions;
        }
        if (watching) {
            if (target.unreachableSince != null) {
                target.unreachableSince = null;
                actions.add(new ReadAgain(cluster, connection));
            }
            return actions;
        }
        if (target.unreachableSince == null) {
            target.unreachableSince = now;
        }
        if (Duration.between(target.unreachableSince, now).compareTo(staleAfter) >= 0) {
            publish(target, "workload cluster API " + target.masterUrl + " not answering since "
                    + target.unreachableSince.truncatedTo(ChronoUnit.SECONDS), actions);
        }
        return actions;
    }

    /** The observer stops: every watch and connection closed, no cluster given a freed connection. */
    List<Action> closing() {
        List<Action> actions = new ArrayList<>();
        closing = true;
        targets.values().forEach(target -> stop(target, actions));
        return actions;
    }

    // ----- per cluster

    /** Observes the CNI of the Cluster that holds the target's name. */
    private void followHolder(Target target, List<Action> actions) {
        Cni holderCni = target.clusters.values().stream().min(EksaCluster.HOLDS_NAME_FIRST).orElseThrow()
                .spec().cni().cni();
        if (target.cni != holderCni) {
            target.cni = holderCni;
            disconnect(target, actions); // another CNI: another DaemonSet to watch
        }
        reconcile(target, actions);
    }

    private void reconcile(Target target, List<Action> actions) {
        if (!target.wanted()) {
            if (target.secretWatch != 0) {
                stop(target, actions);
            }
            return;
        }
        if (target.secretWatch != 0 || target.overLimit && connections >= maxConnections) {
            return;
        }
        if (connections >= maxConnections) {
            target.overLimit = true;
            if (!limitReported) {
                actions.add(new LimitReached(maxConnections));
                limitReported = true;
            }
            publish(target, "not observed: the aggregator's limit of " + maxConnections
                    + " workload cluster connections is reached", actions);
            return;
        }
        target.overLimit = false;
        connections++;
        target.secretWatch = ++numbers;
        actions.add(new WatchSecret(target.cluster, target.secretWatch));
    }

    private List<Action> kubeconfigChanged(String cluster, long watch, boolean found, String kubeconfig) {
        List<Action> actions = new ArrayList<>();
        Target target = targets.get(cluster);
        if (target == null || target.secretWatch != watch || watch == 0) {
            return actions; // stopped meanwhile
        }
        if (Objects.equals(kubeconfig, target.kubeconfigSeen) && target.connection != 0) {
            return actions;
        }
        disconnect(target, actions);
        target.kubeconfigSeen = kubeconfig;
        if (!found) {
            publish(target, kubeconfigSecret(cluster) + " not found", actions);
        } else if (kubeconfig == null) {
            publish(target, kubeconfigSecret(cluster) + " has no key \"value\"", actions);
        } else {
            target.connection = ++numbers;
            target.masterUrl = null;
            actions.add(new Connect(cluster, target.connection, kubeconfig, target.cni));
        }
        return actions;
    }

    private List<Action> unusable(String cluster, long connection, String problem) {
        List<Action> actions = new ArrayList<>();
        Target target = targets.get(cluster);
        if (target == null || target.connection != connection || connection == 0) {
            return actions;
        }
        target.connection = 0; // nothing to close: it was never made
        publish(target, problem, actions);
        return actions;
    }

    private void publish(Target target, String problem, List<Action> actions) {
        Observation observation = new Observation(target.cluster, target.cni == null ? Cni.CILIUM : target.cni,
                target.lastVersion, target.lastReady, Optional.ofNullable(problem));
        if (!observation.equals(target.lastPublished)) {
            target.lastPublished = observation;
            actions.add(new Publish(observation));
        }
    }

    private void stop(Target target, List<Action> actions) {
        disconnect(target, actions);
        if (target.secretWatch != 0) {
            actions.add(new StopWatchingSecret(target.cluster, target.secretWatch));
            target.secretWatch = 0;
            connections--;
        }
        target.kubeconfigSeen = null;
        target.overLimit = false;
        if (!closing) {
            // A freed connection goes to a cluster that waits for one.
            targets.values().stream().filter(t -> t.overLimit && t.wanted()).findFirst()
                    .ifPresent(t -> reconcile(t, actions));
        }
    }

    private void disconnect(Target target, List<Action> actions) {
        if (target.connection != 0) {
            actions.add(new Disconnect(target.cluster, target.connection));
            target.connection = 0;
            target.masterUrl = null;
        }
        target.unreachableSince = null;
    }
}
