package io.statusaggregator.embedded;

import io.statusaggregator.DaemonThreads;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.aggregation.ManagementClusterView;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.model.EksaReleaseName;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * is the aggregator's job.
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
 * points at plain HTTP with a token nobody checks. A spec change made in one tick is first observed by the CAPI
 * controllers the tick after, so the objects briefly show a stale {@code observedGeneration}, as on a real server.
 */
public final class FleetSimulator implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FleetSimulator.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where the EKS-A Clusters live. */
    static final String CLUSTER_NAMESPACE = ObjectDecoder.DEFAULT_NAMESPACE;
    static final String KUBERNETES_VERSION = "1.31";
    static final String UPGRADE_KUBERNETES_VERSION = "1.32";
    static final String EKSA_VERSION = "v0.23.1";
    static final List<String> AVAILABLE_RELEASES = List.of(EKSA_VERSION, "v0.24.2", "v0.25.0");
    /** The Cilium build EKS-A v0.23 ships. */
    static final String CILIUM_VERSION = "v1.15.16-eksa.1";
    /** The EKS Distro build the nodes of each Kubernetes minor run. */
    private static final Map<String, String> NODE_VERSIONS = Map.of(
            "1.31", "v1.31.2-eks-1-31-9",
            "1.32", "v1.32.3-eks-1-32-10");
    static final String CONTROL_PLANE_LABEL = "cluster.x-k8s.io/control-plane";
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
    private final List<SimCluster> fleet = fleet();
    /** The status last written to each CAPI object, by kind/namespace/name: only a change is written. */
    private final Map<String, ObjectNode> writtenStatus = new HashMap<>();
    private ScheduledExecutorService scheduler;
    private int ticks;

    public FleetSimulator(KubernetesClient client, String capiNamespace, Duration tick) {
        this(client, capiNamespace, tick, Clock.systemUTC());
    }

    FleetSimulator(KubernetesClient client, String capiNamespace, Duration tick, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.capiNamespace = Objects.requireNonNull(capiNamespace, "capiNamespace");
        if (tick.isZero() || tick.isNegative()) {
            throw new IllegalArgumentException("tick must be positive, got " + tick);
        }
        this.tick = tick;
        this.clock = clock;
    }

    // ---------------------------------------------------------------------------------------------------------
    // The fleet: a small model of each cluster, the spec a user wrote and the machines CAPI made of it.

    private enum Lifecycle { PLANNED, LIVE, DELETED }

    /** One cluster: its EKS-A spec, its control plane and worker groups, and where it is in its life. */
    private static final class SimCluster {
        final String name;
        final int createAt;
        final int controlPlaneCount;
        String kubernetesVersion = KUBERNETES_VERSION;
        final List<Group> groups;
        final MachineSet controlPlane;
        Lifecycle lifecycle = Lifecycle.PLANNED;
        /** The tick the first control plane node was ready; 0 while not initialized. */
        int initializedAt;
        boolean cniReady;
        boolean reportedReady;
        /** The cluster's own API server, from its creation to its deletion; null outside that. */
        WorkloadCluster workload;

        SimCluster(String name, int createAt, int controlPlaneCount, List<Group> groups) {
            this.name = name;
            this.createAt = createAt;
            this.controlPlaneCount = controlPlaneCount;
            this.groups = groups;
            this.controlPlane = new MachineSet(name, name, true);
        }

        boolean initialized() {
            return initializedAt > 0;
        }

        /** The nodes of the workload cluster: a machine has a node once it is ready (its nodeRef is set then). */
        int nodes() {
            return controlPlane.ready() + groups.stream().mapToInt(g -> g.machines.ready()).sum();
        }

        /** The Kubernetes version a worker node group's nodes should run: its own, else the cluster's. */
        String versionOf(Group group) {
            return group.kubernetesVersion != null ? group.kubernetesVersion : kubernetesVersion;
        }
    }

    /** A worker node group of the EKS-A spec and the MachineDeployment {@code C-G} that realises it. */
    private static final class Group {
        final String name;
        int count;
        /** The group's own {@code kubernetesVersion}, null when it follows the cluster's. */
        final String kubernetesVersion;
        MachineSet machines;

        Group(String name, int count, String kubernetesVersion) {
            this.name = name;
            this.count = count;
            this.kubernetesVersion = kubernetesVersion;
        }
    }

    /**
     * The machines of a KubeadmControlPlane or a MachineDeployment, and what its spec asks for. Both roll the way CAPI
     * does by default (max surge 1, max unavailable 0): one new machine at a time, an old one deleted once its
     * replacement is ready.
     */
    private static final class MachineSet {
        final String clusterName;
        final String objectName;
        final boolean controlPlane;
        /** {@code spec.replicas} */
        int replicas;
        /** {@code spec.version} of the KCP, {@code spec.template.spec.version} of the MachineDeployment */
        String version;
        final List<SimMachine> machines = new ArrayList<>();
        int created;

        MachineSet(String clusterName, String objectName, boolean controlPlane) {
            this.clusterName = clusterName;
            this.objectName = objectName;
            this.controlPlane = controlPlane;
        }

        int ready() {
            return (int) machines.stream().filter(m -> m.ready).count();
        }

        int updated() {
            return (int) machines.stream().filter(m -> m.version.equals(version)).count();
        }

        boolean hasOutdated() {
            return machines.stream().anyMatch(m -> !m.version.equals(version));
        }

        /** Every machine there should be, on the version asked for, and ready. */
        boolean done() {
            return machines.size() == replicas && updated() == replicas && ready() == replicas;
        }
    }

    private static final class SimMachine {
        final String name;
        final String version;
        boolean ready;

        SimMachine(String name, String version) {
            this.name = name;
            this.version = version;
        }
    }

    private static List<SimCluster> fleet() {
        return List.of(
                new SimCluster("alpha", 1, 1, List.of(new Group("md-0", 2, null))),
                new SimCluster("bravo", 4, 3, List.of(new Group("md-0", 2, KUBERNETES_VERSION), new Group("md-1", 1, null))),
                new SimCluster("charlie", 7, 1, List.of(new Group("md-0", 1, null))),
                new SimCluster("delta", 10, 1, List.of(new Group("md-0", 1, null))));
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
        LOG.infof("fleet simulator started: one step every %s, CAPI objects in namespace %s", tick, capiNamespace);
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
            ensureNamespace(CLUSTER_NAMESPACE);
            ensureNamespace(capiNamespace);
            ensureRelease();
        }
        for (SimCluster cluster : fleet) {
            if (cluster.lifecycle == Lifecycle.LIVE) {
                stepControlPlane(cluster, now);
                stepWorkers(cluster, now);
                stepCni(cluster, now);
                writeStatuses(cluster);
                reportReadiness(cluster, now);
            }
        }
        for (SimCluster cluster : fleet) {
            if (cluster.lifecycle == Lifecycle.LIVE) {
                reconcileCapiSpecs(cluster, now);
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
        return ticks >= CHARLIE_DELETE_TICK && fleet.stream().allMatch(c -> c.lifecycle == Lifecycle.DELETED || ready(c));
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
        for (SimCluster cluster : fleet) {
            stopWorkload(cluster);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The script: what a user does to the fleet.

    private void runScript(int now) {
        for (SimCluster cluster : fleet) {
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

    private SimCluster cluster(String name) {
        return fleet.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
    }

    /** {@code eksctl anywhere create cluster}: the EKS-A Cluster, and the CAPI objects EKS-A makes of it. */
    private void create(SimCluster cluster, int now) {
        cluster.controlPlane.replicas = cluster.controlPlaneCount;
        cluster.controlPlane.version = nodeVersion(cluster.kubernetesVersion);
        for (Group group : cluster.groups) {
            group.machines = new MachineSet(cluster.name, cluster.name + "-" + group.name, false);
            group.machines.replicas = group.count;
            group.machines.version = nodeVersion(cluster.versionOf(group));
        }
        cluster.workload = WorkloadCluster.start(cluster.name);
        create(ObjectKind.EKSA_CLUSTER, eksaCluster(cluster));
        create(ObjectKind.CAPI_CLUSTER, capiCluster(cluster));
        create(ObjectKind.KUBEADM_CONTROL_PLANE, kubeadmControlPlane(cluster));
        for (Group group : cluster.groups) {
            create(ObjectKind.MACHINE_DEPLOYMENT, machineDeployment(cluster, group));
        }
        cluster.lifecycle = Lifecycle.LIVE;
        LOG.infof("tick %d: cluster %s created: Kubernetes %s, %d control plane node(s), workers %s; its API at %s", now,
                cluster.name, cluster.kubernetesVersion, cluster.controlPlaneCount, describeGroups(cluster),
                cluster.workload.url());
    }

    /** A user raises a worker node group's count in the EKS-A spec (its generation goes up). */
    private void scaleWorkers(SimCluster cluster, String groupName, int count, int now) {
        Group group = cluster.groups.stream().filter(g -> g.name.equals(groupName)).findFirst().orElseThrow();
        int before = group.count;
        group.count = count;
        patchEksaSpec(cluster);
        cluster.reportedReady = false;
        LOG.infof("tick %d: cluster %s: worker node group %s scaled from %d to %d nodes", now, cluster.name, groupName,
                before, count);
    }

    /** A user raises the cluster's Kubernetes version; groups with a version of their own stay where they are. */
    private void upgradeKubernetes(SimCluster cluster, String version, int now) {
        String before = cluster.kubernetesVersion;
        cluster.kubernetesVersion = version;
        patchEksaSpec(cluster);
        cluster.reportedReady = false;
        LOG.infof("tick %d: cluster %s: Kubernetes upgrade from %s to %s requested (workers %s)", now, cluster.name,
                before, version, describeGroups(cluster));
    }

    /** {@code eksctl anywhere delete cluster}: every object of the cluster goes, its kubeconfig secret and its API. */
    private void delete(SimCluster cluster, int now) {
        if (cluster.lifecycle != Lifecycle.LIVE) {
            return;
        }
        delete(ObjectKind.EKSA_CLUSTER, CLUSTER_NAMESPACE, cluster.name);
        for (Group group : cluster.groups) {
            for (SimMachine machine : List.copyOf(group.machines.machines)) {
                deleteMachine(group.machines, machine);
            }
            delete(ObjectKind.MACHINE_DEPLOYMENT, capiNamespace, group.machines.objectName);
        }
        for (SimMachine machine : List.copyOf(cluster.controlPlane.machines)) {
            deleteMachine(cluster.controlPlane, machine);
        }
        delete(ObjectKind.KUBEADM_CONTROL_PLANE, capiNamespace, cluster.name);
        delete(ObjectKind.CAPI_CLUSTER, capiNamespace, cluster.name);
        client.secrets().inNamespace(capiNamespace).withName(kubeconfigSecretName(cluster)).delete();
        stopWorkload(cluster);
        cluster.lifecycle = Lifecycle.DELETED;
        LOG.infof("tick %d: cluster %s deleted with all its objects", now, cluster.name);
    }

    // ---------------------------------------------------------------------------------------------------------
    // EKS-A's controller: the CAPI specs follow the EKS-A spec, the workers after the control plane.

    private void reconcileCapiSpecs(SimCluster cluster, int now) {
        MachineSet controlPlane = cluster.controlPlane;
        String controlPlaneVersion = nodeVersion(cluster.kubernetesVersion);
        if (controlPlane.replicas != cluster.controlPlaneCount || !controlPlane.version.equals(controlPlaneVersion)) {
            controlPlane.replicas = cluster.controlPlaneCount;
            controlPlane.version = controlPlaneVersion;
            patchSpec(ObjectKind.KUBEADM_CONTROL_PLANE, cluster.name, kubeadmControlPlaneSpec(cluster));
            LOG.infof("tick %d: cluster %s: KubeadmControlPlane %s moved to %s, %d replicas", now, cluster.name,
                    cluster.name, controlPlaneVersion, controlPlane.replicas);
        }
        for (Group group : cluster.groups) {
            MachineSet machines = group.machines;
            if (machines.replicas != group.count) {
                machines.replicas = group.count;
                patchSpec(ObjectKind.MACHINE_DEPLOYMENT, machines.objectName, machineDeploymentSpec(cluster, group));
                LOG.infof("tick %d: cluster %s: MachineDeployment %s scaled to %d replicas", now, cluster.name,
                        machines.objectName, machines.replicas);
            }
            String wanted = nodeVersion(cluster.versionOf(group));
            // Workers are upgraded once the control plane runs the new version: never ahead of it.
            if (!machines.version.equals(wanted) && controlPlane.done()) {
                machines.version = wanted;
                patchSpec(ObjectKind.MACHINE_DEPLOYMENT, machines.objectName, machineDeploymentSpec(cluster, group));
                LOG.infof("tick %d: cluster %s: MachineDeployment %s rolling to %s", now, cluster.name,
                        machines.objectName, wanted);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // CAPI and the workload clusters: one step per tick.

    private void stepControlPlane(SimCluster cluster, int now) {
        stepMachines(cluster.controlPlane);
        if (!cluster.initialized() && cluster.controlPlane.ready() > 0) {
            cluster.initializedAt = now;
            LOG.infof("tick %d: cluster %s: control plane initialized", now, cluster.name);
        }
    }

    /** Workers start the tick after the control plane is initialized: they need an API server to join. */
    private void stepWorkers(SimCluster cluster, int now) {
        if (cluster.initialized() && cluster.initializedAt < now) {
            for (Group group : cluster.groups) {
                stepMachines(group.machines);
            }
        }
    }

    /**
     * One reconcile of a machine set, in this order: an old machine is deleted when its replacement was already ready
     * as the tick began; machines created in an earlier tick become ready; a machine is created when the set is short
     * of its replicas, or, to roll, when it has an outdated machine and no surge machine yet.
     */
    private void stepMachines(MachineSet set) {
        boolean replacementsReady = set.machines.stream().filter(m -> m.version.equals(set.version)).allMatch(m -> m.ready);
        if (set.machines.size() > set.replicas && replacementsReady) {
            SimMachine retired = set.machines.stream().filter(m -> !m.version.equals(set.version)).findFirst()
                    .orElse(set.machines.get(set.machines.size() - 1));
            deleteMachine(set, retired);
        }
        set.machines.forEach(m -> m.ready = true);
        if (set.machines.size() < set.replicas || (set.machines.size() == set.replicas && set.hasOutdated())) {
            createMachine(set);
        }
    }

    /**
     * The workload cluster once its control plane is initialized: its kubeconfig secret appears and Cilium starts;
     * Cilium is ready {@value #CNI_READY_AFTER} ticks later. Its DaemonSet's status follows the ready nodes every
     * tick (only a change is written).
     */
    private void stepCni(SimCluster cluster, int now) {
        if (cluster.initializedAt == now) {
            publishKubeconfig(cluster);
            cluster.workload.installCilium(CILIUM_VERSION, cluster.nodes());
            LOG.infof("tick %d: cluster %s: kubeconfig secret written, Cilium %s starting", now, cluster.name, CILIUM_VERSION);
        } else if (cluster.initialized() && !cluster.cniReady && now >= cluster.initializedAt + CNI_READY_AFTER) {
            cluster.cniReady = true;
            LOG.infof("tick %d: cluster %s: Cilium %s ready", now, cluster.name, CILIUM_VERSION);
        }
        if (cluster.initialized()) {
            cluster.workload.writeCiliumStatus(cluster.nodes(), cluster.cniReady);
        }
    }

    private void reportReadiness(SimCluster cluster, int now) {
        if (!cluster.reportedReady && ready(cluster)) {
            cluster.reportedReady = true;
            LOG.infof("tick %d: cluster %s: all nodes ready and up to date", now, cluster.name);
        }
    }

    private static boolean ready(SimCluster cluster) {
        return cluster.lifecycle == Lifecycle.LIVE && cluster.cniReady
                && cluster.controlPlane.replicas == cluster.controlPlaneCount
                && cluster.controlPlane.version.equals(nodeVersion(cluster.kubernetesVersion)) && cluster.controlPlane.done()
                && cluster.groups.stream().allMatch(g -> g.machines.replicas == g.count
                        && g.machines.version.equals(nodeVersion(cluster.versionOf(g))) && g.machines.done());
    }

    /**
     * The secret CAPI writes once a cluster's control plane is initialized: {@code C-kubeconfig} in the CAPI
     * namespace, the workload API's kubeconfig in {@code data.value} (base64, as every secret's data).
     */
    private void publishKubeconfig(SimCluster cluster) {
        String kubeconfig = Base64.getEncoder().encodeToString(cluster.workload.kubeconfig().getBytes(StandardCharsets.UTF_8));
        Secret secret = new SecretBuilder()
                .withNewMetadata().withNamespace(capiNamespace).withName(kubeconfigSecretName(cluster))
                .addToLabels(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name).endMetadata()
                .withType(CAPI_SECRET_TYPE)
                .addToData("value", kubeconfig)
                .build();
        client.secrets().inNamespace(capiNamespace).resource(secret).create();
    }

    private static String kubeconfigSecretName(SimCluster cluster) {
        return cluster.name + "-kubeconfig";
    }

    private static void stopWorkload(SimCluster cluster) {
        if (cluster.workload != null) {
            cluster.workload.close();
            cluster.workload = null;
        }
    }

    private void createMachine(MachineSet set) {
        set.created++;
        String name = set.objectName + (set.controlPlane ? "-cp-" : "-") + set.created;
        SimMachine machine = new SimMachine(name, set.version);
        set.machines.add(machine);
        Map<String, Object> labels = map(ObjectDecoder.CLUSTER_NAME_LABEL, set.clusterName);
        labels.put(set.controlPlane ? CONTROL_PLANE_LABEL : ObjectDecoder.DEPLOYMENT_NAME_LABEL,
                set.controlPlane ? "" : set.objectName);
        create(ObjectKind.MACHINE, map(
                "apiVersion", ObjectKind.MACHINE.apiVersion(),
                "kind", ObjectKind.MACHINE.kind(),
                "metadata", map("namespace", capiNamespace, "name", name, "labels", labels),
                "spec", map(
                        "clusterName", set.clusterName,
                        "version", set.version,
                        "bootstrap", map("configRef", map("kind", "KubeadmConfig", "name", name)),
                        "infrastructureRef", map("kind", "DockerMachine", "name", name))));
        LOG.debugf("machine %s created (%s)", name, set.version);
    }

    private void deleteMachine(MachineSet set, SimMachine machine) {
        set.machines.remove(machine);
        delete(ObjectKind.MACHINE, capiNamespace, machine.name);
        LOG.debugf("machine %s deleted", machine.name);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Statuses, as the CAPI controllers write them: observedGeneration is the generation the server holds.

    private void writeStatuses(SimCluster cluster) {
        for (SimMachine machine : cluster.controlPlane.machines) {
            writeStatus(ObjectKind.MACHINE, machine.name, machineStatus(machine));
        }
        for (Group group : cluster.groups) {
            for (SimMachine machine : group.machines.machines) {
                writeStatus(ObjectKind.MACHINE, machine.name, machineStatus(machine));
            }
        }
        writeStatus(ObjectKind.KUBEADM_CONTROL_PLANE, cluster.name, kubeadmControlPlaneStatus(cluster));
        for (Group group : cluster.groups) {
            writeStatus(ObjectKind.MACHINE_DEPLOYMENT, group.machines.objectName, machineDeploymentStatus(group.machines));
        }
        writeStatus(ObjectKind.CAPI_CLUSTER, cluster.name, capiClusterStatus(cluster));
    }

    private Map<String, Object> kubeadmControlPlaneStatus(SimCluster cluster) {
        MachineSet set = cluster.controlPlane;
        int replicas = set.machines.size();
        int ready = set.ready();
        Map<String, Object> status = map(
                "observedGeneration", generationOf(ObjectKind.KUBEADM_CONTROL_PLANE, cluster.name),
                "selector", ObjectDecoder.CLUSTER_NAME_LABEL + "=" + cluster.name + "," + CONTROL_PLANE_LABEL,
                "replicas", replicas,
                "updatedReplicas", set.updated(),
                "readyReplicas", ready,
                "unavailableReplicas", replicas - ready,
                "initialized", cluster.initialized(),
                "ready", ready > 0);
        set.machines.stream().map(m -> m.version).min(Comparator.naturalOrder()).ifPresent(v -> status.put("version", v));
        status.put("conditions", List.of(
                condition("Available", cluster.initialized(), "WaitingForKubeadmInit", "Info", ""),
                condition("ControlPlaneComponentsHealthy", replicas > 0 && ready == replicas, "PodProvisioning", "Info",
                        "Waiting for control plane components on " + (replicas - ready) + " machine(s)"),
                condition("MachinesReady", replicas > 0 && ready == replicas, "WaitingForNodeRef", "Info",
                        (replicas - ready) + " of " + replicas + " machines are not ready yet")));
        return status;
    }

    private Map<String, Object> machineDeploymentStatus(MachineSet set) {
        int replicas = set.machines.size();
        int ready = set.ready();
        boolean available = ready >= set.replicas;
        String phase = replicas < set.replicas ? "ScalingUp" : replicas > set.replicas ? "ScalingDown" : "Running";
        String waiting = "Minimum availability requires " + set.replicas + " replicas, current " + ready + " available";
        return map(
                "observedGeneration", generationOf(ObjectKind.MACHINE_DEPLOYMENT, set.objectName),
                "selector", ObjectDecoder.CLUSTER_NAME_LABEL + "=" + set.clusterName + ","
                        + ObjectDecoder.DEPLOYMENT_NAME_LABEL + "=" + set.objectName,
                "phase", phase,
                "replicas", replicas,
                "updatedReplicas", set.updated(),
                "readyReplicas", ready,
                "availableReplicas", ready,
                "unavailableReplicas", Math.max(0, set.replicas - ready),
                "conditions", List.of(
                        condition("Available", available, "WaitingForAvailableMachines", "Warning", waiting),
                        condition("Ready", available, "WaitingForAvailableMachines", "Warning", waiting)));
    }

    private Map<String, Object> machineStatus(SimMachine machine) {
        Map<String, Object> status = map(
                "phase", machine.ready ? "Running" : "Provisioning",
                "bootstrapReady", true,
                "infrastructureReady", machine.ready);
        if (machine.ready) {
            status.put("nodeRef", map("apiVersion", "v1", "kind", "Node", "name", machine.name));
        }
        status.put("conditions", List.of(
                condition("Ready", machine.ready, "WaitingForInfrastructure", "Info", ""),
                condition("NodeHealthy", machine.ready, "WaitingForNodeRef", "Info", "")));
        return status;
    }

    private Map<String, Object> capiClusterStatus(SimCluster cluster) {
        return map(
                "observedGeneration", generationOf(ObjectKind.CAPI_CLUSTER, cluster.name),
                "phase", cluster.initialized() ? "Provisioned" : "Provisioning",
                "infrastructureReady", true,
                "controlPlaneReady", cluster.initialized(),
                "conditions", List.of(
                        condition("ControlPlaneInitialized", cluster.initialized(), "WaitingForControlPlaneProviderInitialized", "Info",
                                "Waiting for control plane provider to indicate the control plane has been initialized"),
                        condition("InfrastructureReady", true, "", "", "")));
    }

    /** A CAPI condition; reason, severity and message only when it is not True. */
    private static Map<String, Object> condition(String type, boolean ok, String reason, String severity, String message) {
        Map<String, Object> condition = map("type", type, "status", ok ? "True" : "False");
        if (!ok) {
            condition.put("reason", reason);
            condition.put("severity", severity);
            if (!message.isEmpty()) {
                condition.put("message", message);
            }
        }
        return condition;
    }

    /**
     * Writes an object's status through the status subresource, if it changed since the last write. A condition whose
     * status is unchanged keeps its {@code lastTransitionTime}.
     */
    private void writeStatus(ObjectKind kind, String name, Map<String, Object> computed) {
        String key = kind.qualifiedName() + "/" + capiNamespace + "/" + name;
        ObjectNode status = JSON.valueToTree(computed);
        ObjectNode previous = writtenStatus.get(key);
        stampTransitions(status, previous);
        if (status.equals(previous)) {
            return;
        }
        resources(kind).inNamespace(capiNamespace).withName(name).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), replace("/status", status));
        writtenStatus.put(key, status);
    }

    private void stampTransitions(ObjectNode status, ObjectNode previous) {
        if (!status.path("conditions").isArray()) {
            return;
        }
        String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        for (JsonNode condition : status.get("conditions")) {
            String since = now;
            if (previous != null) {
                for (JsonNode before : previous.path("conditions")) {
                    if (before.path("type").equals(condition.path("type")) && before.path("status").equals(condition.path("status"))) {
                        since = before.path("lastTransitionTime").asText(now);
                    }
                }
            }
            ((ObjectNode) condition).put("lastTransitionTime", since);
        }
    }

    private long generationOf(ObjectKind kind, String name) {
        GenericKubernetesResource object = resources(kind).inNamespace(capiNamespace).withName(name).get();
        if (object == null || object.getMetadata().getGeneration() == null) {
            return 1;
        }
        return object.getMetadata().getGeneration();
    }

    // ---------------------------------------------------------------------------------------------------------
    // The objects, as EKS-A and CAPI shape them.

    private Map<String, Object> eksaCluster(SimCluster cluster) {
        return map(
                "apiVersion", ObjectKind.EKSA_CLUSTER.apiVersion(),
                "kind", ObjectKind.EKSA_CLUSTER.kind(),
                "metadata", map("namespace", CLUSTER_NAMESPACE, "name", cluster.name),
                "spec", eksaClusterSpec(cluster));
    }

    private static Map<String, Object> eksaClusterSpec(SimCluster cluster) {
        List<Map<String, Object>> groups = new ArrayList<>();
        for (Group group : cluster.groups) {
            Map<String, Object> g = map("name", group.name, "count", group.count);
            if (group.kubernetesVersion != null) {
                g.put("kubernetesVersion", group.kubernetesVersion);
            }
            groups.add(g);
        }
        return map(
                "kubernetesVersion", cluster.kubernetesVersion,
                "eksaVersion", EKSA_VERSION,
                "datacenterRef", map("kind", "DockerDatacenterConfig", "name", cluster.name),
                "controlPlaneConfiguration", map("count", cluster.controlPlaneCount),
                "workerNodeGroupConfigurations", groups,
                "clusterNetwork", map(
                        "cniConfig", map("cilium", map()),
                        "pods", map("cidrBlocks", List.of("192.168.0.0/16")),
                        "services", map("cidrBlocks", List.of("10.96.0.0/12"))));
    }

    private Map<String, Object> capiCluster(SimCluster cluster) {
        return map(
                "apiVersion", ObjectKind.CAPI_CLUSTER.apiVersion(),
                "kind", ObjectKind.CAPI_CLUSTER.kind(),
                "metadata", map("namespace", capiNamespace, "name", cluster.name,
                        "labels", map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name)),
                "spec", map(
                        "clusterNetwork", map(
                                "pods", map("cidrBlocks", List.of("192.168.0.0/16")),
                                "services", map("cidrBlocks", List.of("10.96.0.0/12"))),
                        "controlPlaneRef", map("apiVersion", ObjectKind.KUBEADM_CONTROL_PLANE.apiVersion(),
                                "kind", ObjectKind.KUBEADM_CONTROL_PLANE.kind(), "namespace", capiNamespace, "name", cluster.name),
                        "infrastructureRef", map("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                                "kind", "DockerCluster", "namespace", capiNamespace, "name", cluster.name)));
    }

    private Map<String, Object> kubeadmControlPlane(SimCluster cluster) {
        return map(
                "apiVersion", ObjectKind.KUBEADM_CONTROL_PLANE.apiVersion(),
                "kind", ObjectKind.KUBEADM_CONTROL_PLANE.kind(),
                "metadata", map("namespace", capiNamespace, "name", cluster.name,
                        "labels", map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name)),
                "spec", kubeadmControlPlaneSpec(cluster));
    }

    private static Map<String, Object> kubeadmControlPlaneSpec(SimCluster cluster) {
        return map(
                "replicas", cluster.controlPlane.replicas,
                "version", cluster.controlPlane.version,
                "machineTemplate", map("infrastructureRef", map("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                        "kind", "DockerMachineTemplate", "name", cluster.name + "-control-plane")),
                "rolloutStrategy", map("type", "RollingUpdate", "rollingUpdate", map("maxSurge", 1)));
    }

    private Map<String, Object> machineDeployment(SimCluster cluster, Group group) {
        return map(
                "apiVersion", ObjectKind.MACHINE_DEPLOYMENT.apiVersion(),
                "kind", ObjectKind.MACHINE_DEPLOYMENT.kind(),
                "metadata", map("namespace", capiNamespace, "name", group.machines.objectName,
                        "labels", map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name)),
                "spec", machineDeploymentSpec(cluster, group));
    }

    private static Map<String, Object> machineDeploymentSpec(SimCluster cluster, Group group) {
        MachineSet set = group.machines;
        Map<String, Object> selector = map(ObjectDecoder.CLUSTER_NAME_LABEL, cluster.name,
                ObjectDecoder.DEPLOYMENT_NAME_LABEL, set.objectName);
        return map(
                "clusterName", cluster.name,
                "replicas", set.replicas,
                "selector", map("matchLabels", selector),
                "strategy", map("type", "RollingUpdate", "rollingUpdate", map("maxSurge", 1, "maxUnavailable", 0)),
                "template", map(
                        "metadata", map("labels", selector),
                        "spec", map(
                                "clusterName", cluster.name,
                                "version", set.version,
                                "bootstrap", map("configRef", map("kind", "KubeadmConfigTemplate", "name", set.objectName)),
                                "infrastructureRef", map("kind", "DockerMachineTemplate", "name", set.objectName))));
    }

    // ---------------------------------------------------------------------------------------------------------
    // The API server

    private MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> resources(
            ObjectKind kind) {
        return client.genericKubernetesResources(ObjectIngest.context(kind));
    }

    private void create(ObjectKind kind, Map<String, Object> object) {
        GenericKubernetesResource resource = client.getKubernetesSerialization().convertValue(object, GenericKubernetesResource.class);
        resources(kind).inNamespace(resource.getMetadata().getNamespace()).resource(resource).create();
    }

    /** Replaces the spec: the generation goes up. */
    private void patchSpec(ObjectKind kind, String name, Map<String, Object> spec) {
        resources(kind).inNamespace(capiNamespace).withName(name)
                .patch(PatchContext.of(PatchType.JSON), replace("/spec", JSON.valueToTree(spec)));
    }

    private void patchEksaSpec(SimCluster cluster) {
        resources(ObjectKind.EKSA_CLUSTER).inNamespace(CLUSTER_NAMESPACE).withName(cluster.name)
                .patch(PatchContext.of(PatchType.JSON), replace("/spec", JSON.valueToTree(eksaClusterSpec(cluster))));
    }

    /**
     * A JSON Patch (RFC 6902) that sets one field whole ({@code add} replaces a member that exists). Not a merge patch:
     * the embedded API server (Fabric8's mock) merges the lists of a JSON merge patch into the stored ones instead of
     * replacing them, so conditions and worker node groups would pile up; a JSON Patch it applies as a real server does.
     */
    static String replace(String path, JsonNode value) {
        ObjectNode operation = JSON.createObjectNode();
        operation.put("op", "add");
        operation.put("path", path);
        operation.set("value", value);
        return JSON.createArrayNode().add(operation).toString();
    }

    private void delete(ObjectKind kind, String namespace, String name) {
        resources(kind).inNamespace(namespace).withName(name).delete();
        writtenStatus.remove(kind.qualifiedName() + "/" + namespace + "/" + name);
    }

    /**
     * The EKSARelease objects, as the EKS-A installation puts them in the management cluster: the fleet's own, and
     * newer ones it could upgrade to (what {@code upgrade-check} plans with).
     */
    private void ensureRelease() {
        var releases = client.genericKubernetesResources(ManagementClusterView.RELEASES).inNamespace(capiNamespace);
        int bundles = 1;
        for (String version : AVAILABLE_RELEASES) {
            String name = EksaReleaseName.of(version);
            if (releases.withName(name).get() == null) {
                releases.resource(client.getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: EKSARelease
                        metadata: {name: %s, namespace: %s}
                        spec: {version: %s, bundlesRef: {name: bundles-%d, namespace: eksa-system}}
                        """.formatted(name, capiNamespace, version, bundles), GenericKubernetesResource.class)).create();
            }
            bundles++;
        }
    }

    private void ensureNamespace(String name) {
        if (client.namespaces().withName(name).get() == null) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private static String nodeVersion(String kubernetesVersion) {
        String version = NODE_VERSIONS.get(kubernetesVersion);
        if (version == null) {
            throw new IllegalArgumentException("no node build known for Kubernetes " + kubernetesVersion);
        }
        return version;
    }

    private static String describeGroups(SimCluster cluster) {
        List<String> groups = new ArrayList<>();
        for (Group group : cluster.groups) {
            groups.add(group.name + " x" + group.count + (group.kubernetesVersion != null ? " at " + group.kubernetesVersion : ""));
        }
        return String.join(", ", groups);
    }

    /** An ordered map of alternating keys and values, for building objects that read like their YAML. */
    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
