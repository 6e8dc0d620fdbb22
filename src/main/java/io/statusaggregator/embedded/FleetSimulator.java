package io.statusaggregator.embedded;

import io.statusaggregator.embedded.SimulatedCluster.Group;
import io.statusaggregator.embedded.SimulatedCluster.Lifecycle;
import io.statusaggregator.embedded.SimulatedCluster.MachineSet;
import io.statusaggregator.embedded.SimulatedCluster.SimMachine;
import io.statusaggregator.threads.DaemonThreads;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The demo fleet of the embedded default mode: plays EKS Anywhere's controller, Cluster API and the workload
 * clusters against the embedded API server, one realistic step per tick, so that the statuses the aggregator
 * computes change before a newcomer's eyes. It writes the specs of the EKS-A Clusters (as a user would) and the
 * specs and statuses of the CAPI objects (as EKS-A and CAPI would); it never writes an EKS-A Cluster's status, which
 * is the aggregator's job. This class runs the ticks and the script; the controllers are
 * {@link SimulatedControllers}.
 *
 * <p>The management cluster is a Cluster API v1.13 one by default: the CAPI objects at {@code v1beta2}, as CAPI
 * writes them there, the deprecated {@code v1beta1} fields and conditions under {@code status.deprecated.v1beta1}
 * included; or, set so, a CAPI v1.10 one, the objects at {@code v1beta1} ({@link CapiShapes}).
 *
 * <p>Each workload cluster is an API server of its own in this process ({@link WorkloadCluster}), started when the
 * cluster is created and stopped when it is deleted. When the cluster's control plane is initialized, the simulator
 * does what CAPI and the CNI installation do: the management API gets the secret {@code C-kubeconfig} in the CAPI
 * namespace (type {@value #CAPI_SECRET_TYPE}, the kubeconfig of the workload API in {@code data.value}), and the
 * workload API the DaemonSet {@code kube-system/cilium} (container {@code cilium-agent}, image tag
 * {@value #CILIUM_VERSION}), not ready. It is ready {@value #CNI_READY_AFTER} ticks later, and its status follows
 * the cluster's ready nodes from then on, so it stays ready through scale-ups and rolling upgrades. What the CNI
 * reports reaches the aggregator through its own observer of the workload clusters, as on a real fleet.
 *
 * <p>The script, deterministic:
 * <ul>
 * <li>tick 1, 4, 7, 10: clusters {@code alpha} (1 control plane node, md-0 ×2), {@code bravo} (3 control plane
 * nodes, md-0 ×2 pinned at Kubernetes 1.31, md-1 ×1), {@code charlie} (1, md-0 ×1) and {@code delta} (1, md-0 ×1)
 * are created, on Kubernetes 1.31. Each control plane grows by one machine a tick, a machine is ready the tick after
 * it was created, the workers start the tick after the control plane is initialized, and Cilium is ready
 * {@value #CNI_READY_AFTER} ticks after initialization. The whole fleet is ready at tick 15.</li>
 * <li>tick {@value #DELTA_SCALE_UP_TICK}: delta's md-0 is scaled to 3 workers (EKS-A spec, then the next tick the
 * MachineDeployment's {@code spec.replicas}).</li>
 * <li>tick {@value #BRAVO_UPGRADE_TICK}: bravo is upgraded to Kubernetes 1.32 with md-0 pinned at 1.31: the next
 * tick EKS-A moves the KubeadmControlPlane to 1.32, which rolls its machines one at a time (a new machine first,
 * the old one deleted once the new one is ready); once the control plane is done, md-1 rolls the same way. Workers
 * follow the control plane, never the other way round: a kubelet may not be newer than its API server.</li>
 * <li>tick {@value #CHARLIE_DELETE_TICK}: charlie is deleted, all its objects at once.</li>
 * <li>tick {@value #SETTLED_TICK}: bravo's md-1 rollout is done; nothing changes after that.</li>
 * </ul>
 *
 * <p>Deviations from a real management cluster, to keep it small: no infrastructure objects (DockerMachine, …), no
 * owner references (the API server here has no garbage collector, so deletion deletes every object itself), no
 * Nodes; a workload cluster's API holds nothing but the Cilium DaemonSet and its namespace, and its kubeconfig
 * points at plain HTTP with a token nobody checks. The embedded API server of a v1.13 management cluster serves
 * {@code v1beta1} beside {@code v1beta2} but converts nothing between them (no conversion webhook): the objects are
 * only found at {@code v1beta2}. A spec change made in one tick is first observed by the CAPI
 * controllers the tick after, so the objects briefly show a stale {@code observedGeneration}, as on a real server.
 */
public final class FleetSimulator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FleetSimulator.class);

    /** Where the EKS-A Clusters live. */
    static final String CLUSTER_NAMESPACE = ObjectDecoder.DEFAULT_NAMESPACE;
    static final String KUBERNETES_VERSION = "1.31";
    static final String UPGRADE_KUBERNETES_VERSION = "1.32";
    static final String EKSA_VERSION = "v0.23.1";
    static final List<String> AVAILABLE_RELEASES = List.of(EKSA_VERSION, "v0.24.2", "v0.25.0");
    /** The Cilium build EKS-A v0.23 ships. */
    static final String CILIUM_VERSION = "v1.15.16-eksa.1";
    static final String CONTROL_PLANE_LABEL = ObjectDecoder.CONTROL_PLANE_LABEL;
    /** The type CAPI gives the secrets it makes for a cluster, its kubeconfig among them. */
    static final String CAPI_SECRET_TYPE = "cluster.x-k8s.io/secret";

    static final int CNI_READY_AFTER = 3;
    static final int DELTA_SCALE_UP_TICK = 20;
    static final int DELTA_SCALED_WORKERS = 3;
    static final int BRAVO_UPGRADE_TICK = 25;
    static final int CHARLIE_DELETE_TICK = 30;
    /** The tick from which on the fleet does not change any more. */
    static final int SETTLED_TICK = 36;

    private final KubernetesClient client;
    private final String capiNamespace;
    private final Duration tick;
    private final Clock clock;
    private final List<SimulatedCluster> fleet = SimulatedCluster.fleet();
    private final CapiObjects objects;
    private final ManagementClusterApi api;
    private final SimulatedControllers controllers;
    private ScheduledExecutorService scheduler;
    private int ticks;

    /**
     * @param capiVersion the version the Cluster API objects are written at: {@code v1beta2} as CAPI v1.13 writes
     *                    them, {@code v1beta1} as CAPI v1.10 does; the API server serves at least that one
     *                    ({@link #capiVersionsServed})
     */
    public FleetSimulator(KubernetesClient client, String capiNamespace, Duration tick, CapiApiVersion capiVersion) {
        this(client, capiNamespace, tick, capiVersion, Clock.systemUTC());
    }

    FleetSimulator(KubernetesClient client, String capiNamespace, Duration tick, CapiApiVersion capiVersion,
            Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.capiNamespace = Objects.requireNonNull(capiNamespace, "capiNamespace");
        this.objects = new CapiObjects(capiNamespace, capiVersion);
        this.api = new ManagementClusterApi(client, capiNamespace, clock, capiVersion);
        this.controllers = new SimulatedControllers(client, capiNamespace, objects, api);
        if (tick.isZero() || tick.isNegative()) {
            throw new IllegalArgumentException("tick must be positive, got " + tick);
        }
        this.tick = tick;
        this.clock = clock;
    }

    /**
     * The Cluster API versions a management cluster whose CAPI writes at {@code written} serves, newest first: CAPI
     * v1.13 serves {@code v1beta2} (stored) and the deprecated {@code v1beta1}; CAPI v1.10 {@code v1beta1} only.
     */
    public static List<String> capiVersionsServed(CapiApiVersion written) {
        return written == CapiApiVersion.V1BETA2
                ? List.of(CapiApiVersion.V1BETA2.version(), CapiApiVersion.V1BETA1.version())
                : List.of(CapiApiVersion.V1BETA1.version());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Running

    /** Runs one tick every {@code tick} on a daemon thread of its own, the first one now. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("fleet-simulator"));
        scheduler.scheduleWithFixedDelay(this::stepLogged, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
        LOG.infof("fleet simulator started: one step every %s, Cluster API objects at %s in namespace %s", tick,
                objects.version().version(), capiNamespace);
    }

    private void stepLogged() {
        try {
            step();
        } catch (RuntimeException e) {
            // The next tick tries again from the model's state; a failed write is written again then.
            LOG.warnf("fleet simulator: tick %d failed: %s", ticks, e.toString());
        }
    }

    /**
     * Runs one tick now, on the caller's thread: every live cluster moves one step (CAPI and the workload clusters),
     * EKS-A carries spec changes down to the CAPI objects, then the script's events of this tick happen.
     *
     * @return the number of the tick just run, from 1
     */
    public synchronized int step() {
        int now = ++ticks;
        if (now == 1) {
            api.ensureNamespace(CLUSTER_NAMESPACE);
            api.ensureNamespace(capiNamespace);
            api.ensureRelease();
        }
        for (SimulatedCluster cluster : fleet) {
            if (cluster.lifecycle == Lifecycle.LIVE) {
                controllers.step(cluster, now);
            }
        }
        for (SimulatedCluster cluster : fleet) {
            if (cluster.lifecycle == Lifecycle.LIVE) {
                controllers.reconcileCapiSpecs(cluster, now);
            }
        }
        runScript(now);
        return now;
    }

    /** Ticks run so far. */
    public synchronized int ticks() {
        return ticks;
    }

    /** The script is over and every cluster of the fleet is ready: nothing changes any more. */
    public synchronized boolean settled() {
        return ticks >= CHARLIE_DELETE_TICK
                && fleet.stream().allMatch(c -> c.lifecycle == Lifecycle.DELETED || SimulatedControllers.ready(c));
    }

    /** The API client of a cluster's workload API, while the cluster exists. The simulator closes it. */
    synchronized Optional<KubernetesClient> workloadClient(String cluster) {
        return workload(cluster).map(WorkloadCluster::client);
    }

    /** The URL of a cluster's workload API, while the cluster exists. */
    synchronized Optional<String> workloadUrl(String cluster) {
        return workload(cluster).map(WorkloadCluster::url);
    }

    private Optional<WorkloadCluster> workload(String cluster) {
        return fleet.stream().filter(c -> c.name.equals(cluster)).findFirst().map(c -> c.workload);
    }

    /** Stops the ticks and every workload API still running; the management API keeps what was written. */
    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
        for (SimulatedCluster cluster : fleet) {
            SimulatedControllers.stopWorkload(cluster);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The script: what a user does to the fleet.

    private void runScript(int now) {
        for (SimulatedCluster cluster : fleet) {
            if (cluster.createAt == now) {
                create(cluster, now);
            }
        }
        if (now == DELTA_SCALE_UP_TICK) {
            scaleWorkers(cluster("delta"), "md-0", DELTA_SCALED_WORKERS, now);
        }
        if (now == BRAVO_UPGRADE_TICK) {
            upgradeKubernetes(cluster("bravo"), UPGRADE_KUBERNETES_VERSION, now);
        }
        if (now == CHARLIE_DELETE_TICK) {
            delete(cluster("charlie"), now);
        }
    }

    private SimulatedCluster cluster(String name) {
        return fleet.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
    }

    /** {@code eksctl anywhere create cluster}: the EKS-A Cluster, and the CAPI objects EKS-A makes of it. */
    private void create(SimulatedCluster cluster, int now) {
        cluster.controlPlane.replicas = cluster.controlPlaneCount;
        cluster.controlPlane.version = CapiObjects.nodeVersion(cluster.kubernetesVersion);
        for (Group group : cluster.groups) {
            group.machines = new MachineSet(cluster.name, cluster.name + "-" + group.name, false);
            group.machines.replicas = group.count;
            group.machines.version = CapiObjects.nodeVersion(cluster.versionOf(group));
        }
        cluster.workload = WorkloadCluster.start(cluster.name);
        api.create(ObjectKind.EKSA_CLUSTER, objects.eksaCluster(cluster));
        api.create(ObjectKind.CAPI_CLUSTER, objects.capiCluster(cluster));
        api.create(ObjectKind.KUBEADM_CONTROL_PLANE, objects.kubeadmControlPlane(cluster));
        for (Group group : cluster.groups) {
            api.create(ObjectKind.MACHINE_DEPLOYMENT, objects.machineDeployment(cluster, group));
        }
        cluster.lifecycle = Lifecycle.LIVE;
        LOG.infof(
                "tick %d: cluster %s created: Kubernetes %s, %d control plane node(s), workers %s; its API at %s",
                now,
                cluster.name,
                cluster.kubernetesVersion,
                cluster.controlPlaneCount,
                describeGroups(cluster),
                cluster.workload.url());
    }

    /** A user raises a worker node group's count in the EKS-A spec (its generation goes up). */
    private void scaleWorkers(SimulatedCluster cluster, String groupName, int count, int now) {
        Group group = cluster.groups.stream().filter(g -> g.name.equals(groupName)).findFirst().orElseThrow();
        int before = group.count;
        group.count = count;
        api.patchEksaSpec(cluster);
        cluster.reportedReady = false;
        LOG.infof("tick %d: cluster %s: worker node group %s scaled from %d to %d nodes", now, cluster.name, groupName,
                before, count);
    }

    /** A user raises the cluster's Kubernetes version; groups with a version of their own stay where they are. */
    private void upgradeKubernetes(SimulatedCluster cluster, String version, int now) {
        String before = cluster.kubernetesVersion;
        cluster.kubernetesVersion = version;
        api.patchEksaSpec(cluster);
        cluster.reportedReady = false;
        LOG.infof("tick %d: cluster %s: Kubernetes upgrade from %s to %s requested (workers %s)", now, cluster.name,
                before, version, describeGroups(cluster));
    }

    /** {@code eksctl anywhere delete cluster}: every object of the cluster goes, its kubeconfig secret and its API. */
    private void delete(SimulatedCluster cluster, int now) {
        if (cluster.lifecycle != Lifecycle.LIVE) {
            return;
        }
        api.delete(ObjectKind.EKSA_CLUSTER, CLUSTER_NAMESPACE, cluster.name);
        for (Group group : cluster.groups) {
            for (SimMachine machine : List.copyOf(group.machines.machines)) {
                controllers.deleteMachine(group.machines, machine);
            }
            api.delete(ObjectKind.MACHINE_DEPLOYMENT, capiNamespace, group.machines.objectName);
        }
        for (SimMachine machine : List.copyOf(cluster.controlPlane.machines)) {
            controllers.deleteMachine(cluster.controlPlane, machine);
        }
        api.delete(ObjectKind.KUBEADM_CONTROL_PLANE, capiNamespace, cluster.name);
        api.delete(ObjectKind.CAPI_CLUSTER, capiNamespace, cluster.name);
        client.secrets().inNamespace(capiNamespace).withName(SimulatedControllers.kubeconfigSecretName(cluster))
                .delete();
        SimulatedControllers.stopWorkload(cluster);
        cluster.lifecycle = Lifecycle.DELETED;
        LOG.infof("tick %d: cluster %s deleted with all its objects", now, cluster.name);
    }

    private static String describeGroups(SimulatedCluster cluster) {
        List<String> groups = new ArrayList<>();
        for (Group group : cluster.groups) {
            groups.add(group.name + " x" + group.count
                    + (group.kubernetesVersion != null ? " at " + group.kubernetesVersion : ""));
        }
        return String.join(", ", groups);
    }
}
