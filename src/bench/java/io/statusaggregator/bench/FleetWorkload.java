package io.statusaggregator.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ObjectDecoder;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * The benchmarks' fleet, from a seed: EKS-A Clusters with their CAPI Cluster, KubeadmControlPlane, one
 * MachineDeployment and their Machines, all Ready at first; then rolling upgrades, one step at a time, in the order
 * CAPI's controllers make them (a Kubernetes minor up while the release supports it, else a new machine template).
 * Every step changes the cluster's status, so every step is a change whose status write can be waited for.
 *
 * <p>Objects are full: the fields CAPI and EKS-A write (without {@code managedFields}), so that what ingest's
 * informers hold and what the reduction costs are those of a real fleet. The Cluster API objects are at
 * {@code v1beta2}, as CAPI v1.13 writes them: references {@code {apiGroup, kind, name}}, the v1beta2 counters and
 * conditions, and the v1beta1 ones under {@code status.deprecated.v1beta1}. Not thread-safe.
 */
final class FleetWorkload {
    static final String CAPI = "eksa-system";
    static final String NAMESPACE = "default";
    static final String EKSA_VERSION = "v0.23.1";
    /** The Kubernetes minors EKS-A v0.23 supports (compatibility.yaml): upgrades go from the first to the last. */
    static final int FIRST_MINOR = 28;
    static final int LAST_MINOR = 33;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant EPOCH = Instant.parse("2026-01-05T08:00:00Z");
    /** The Cluster API version of the management cluster the benchmarks play: CAPI v1.13's. */
    static final String CAPI_VERSION = CapiApiVersion.V1BETA2.version();
    /** What a CAPI v1.13 management cluster serves of the Cluster API kinds, newest first. */
    static final List<String> CAPI_VERSIONS_SERVED = List.of(CAPI_VERSION, CapiApiVersion.V1BETA1.version());
    private static final String INFRASTRUCTURE = "infrastructure.cluster.x-k8s.io";
    private static final String BOOTSTRAP = "bootstrap.cluster.x-k8s.io";
    /** The v1beta2 conditions that are False on a Ready object, with their reasons. */
    private static final List<String> QUIET = List.of("RollingOut", "NotRollingOut", "ScalingUp", "NotScalingUp",
            "ScalingDown", "NotScalingDown", "Remediating", "NotRemediating", "Deleting", "NotDeleting",
            "Paused", "NotPaused");

    enum Op { CREATE, SPEC, STATUS, DELETE }

    /** One write to the API server (or one record on the topic): the whole object after it; the last state for a delete. */
    record Write(ObjectKind kind, Op op, ObjectNode object) {
    }

    /** One step of one cluster's rollout: its writes, in CAPI's order. */
    record Step(Cluster cluster, List<Write> writes) {
    }

    private final Random random;
    private final int controlPlane;
    private final int workers;
    private final List<Cluster> clusters = new ArrayList<>();
    private long clock;

    /**
     * @param machinesPerCluster control plane and worker Machines together; a third of them (at least one) control plane
     */
    FleetWorkload(long seed, int clusterCount, int machinesPerCluster) {
        this.random = new Random(seed);
        this.controlPlane = Math.max(1, Math.min(3, machinesPerCluster / 3));
        this.workers = Math.max(0, machinesPerCluster - controlPlane);
        for (int i = 0; i < clusterCount; i++) {
            clusters.add(new Cluster("c%05d".formatted(i)));
        }
    }

    List<Cluster> clusters() {
        return clusters;
    }

    int machines() {
        return clusters.size() * (controlPlane + workers);
    }

    /** Every object of the fleet, created Ready: per cluster its EKS-A Cluster, then its CAPI objects. */
    List<Write> initialFleet() {
        List<Write> writes = new ArrayList<>();
        for (Cluster c : clusters) {
            writes.add(new Write(ObjectKind.EKSA_CLUSTER, Op.CREATE, c.eksa()));
            writes.add(new Write(ObjectKind.CAPI_CLUSTER, Op.CREATE, c.capiCluster()));
            writes.add(new Write(ObjectKind.KUBEADM_CONTROL_PLANE, Op.CREATE, c.kcp()));
            writes.add(new Write(ObjectKind.MACHINE_DEPLOYMENT, Op.CREATE, c.md()));
            for (int i = 0; i < controlPlane; i++) {
                writes.add(new Write(ObjectKind.MACHINE, Op.CREATE, c.newMachine(true)));
            }
            for (int i = 0; i < workers; i++) {
                writes.add(new Write(ObjectKind.MACHINE, Op.CREATE, c.newMachine(false)));
            }
        }
        return writes;
    }

    /** The next step of a cluster drawn at random: one step further in its rollout, or the first of a new one. */
    Step nextStep() {
        return clusters.get(random.nextInt(clusters.size())).step();
    }

    /** The next step of {@code cluster}; empty once it has finished the rollout it is in (or was in none). */
    Step stepOfRollout(Cluster cluster) {
        return cluster.rollout < 0 ? null : cluster.step();
    }

    /** The last step of every rollout leaves the cluster Ready; this one starts one in every cluster. */
    List<Step> startRolloutEverywhere() {
        List<Step> steps = new ArrayList<>();
        for (Cluster c : clusters) {
            if (c.rollout < 0) {
                steps.add(c.step());
            }
        }
        return steps;
    }

    /** The resource of {@code kind} at the version this fleet's objects are written at. */
    static ResourceDefinitionContext resource(ObjectKind kind) {
        return kind.versions().contains(CAPI_VERSION) ? KubernetesResources.of(kind, CAPI_VERSION)
                : KubernetesResources.of(kind);
    }

    private String uid() {
        return new UUID(random.nextLong(), random.nextLong()).toString();
    }

    private String timestamp() {
        return EPOCH.plusSeconds(clock++).toString();
    }

    /** One cluster: its objects as last written, and where it is in its rollout. */
    final class Cluster {
        final String name;
        long eksaGeneration = 1;
        int minor = FIRST_MINOR;
        int templateRevision = 1;
        long kcpGeneration = 1;
        long kcpObserved = 1;
        int kcpReplicas = controlPlane;
        int kcpUpdated = controlPlane;
        long mdGeneration = 1;
        long mdObserved = 1;
        int mdReplicas = workers;
        int mdUpdated = workers;
        final Deque<ObjectNode> controlPlaneMachines = new ArrayDeque<>();
        final Deque<ObjectNode> workerMachines = new ArrayDeque<>();
        int machineSerial;
        /** Index of the next step of the rollout under way, -1 when none is. */
        int rollout = -1;
        private final String uid = uid();

        Cluster(String name) {
            this.name = name;
        }

        String name() {
            return name;
        }

        Step step() {
            List<Write> writes = new ArrayList<>();
            int cpSteps = 2 * controlPlane;
            int i = rollout < 0 ? 0 : rollout;
            if (i == 0) {
                if (minor < LAST_MINOR) {
                    minor++;
                } else {
                    templateRevision++;
                }
                eksaGeneration++;
                writes.add(new Write(ObjectKind.EKSA_CLUSTER, Op.SPEC, eksa()));
            } else if (i == 1) {
                kcpGeneration++;
                writes.add(new Write(ObjectKind.KUBEADM_CONTROL_PLANE, Op.SPEC, kcp()));
            } else if (i == 2) {
                kcpObserved = kcpGeneration;
                kcpUpdated = 0;
                writes.add(new Write(ObjectKind.KUBEADM_CONTROL_PLANE, Op.STATUS, kcp()));
            } else if (i < 3 + cpSteps) {
                machineStep(writes, true, (i - 3) % 2 == 0);
            } else if (i == 3 + cpSteps) {
                mdGeneration++;
                writes.add(new Write(ObjectKind.MACHINE_DEPLOYMENT, Op.SPEC, md()));
            } else if (i == 4 + cpSteps) {
                mdObserved = mdGeneration;
                mdUpdated = 0;
                writes.add(new Write(ObjectKind.MACHINE_DEPLOYMENT, Op.STATUS, md()));
            } else {
                machineStep(writes, false, (i - 5 - cpSteps) % 2 == 0);
            }
            int last = 4 + cpSteps + 2 * workers;
            rollout = i >= last ? -1 : i + 1;
            return new Step(this, writes);
        }

        /** A surge: a new Machine at the new version; or the oldest one removed. The owner's counts follow. */
        private void machineStep(List<Write> writes, boolean controlPlaneMachine, boolean surge) {
            Deque<ObjectNode> machines = controlPlaneMachine ? controlPlaneMachines : workerMachines;
            if (surge) {
                writes.add(new Write(ObjectKind.MACHINE, Op.CREATE, newMachine(controlPlaneMachine)));
                if (controlPlaneMachine) {
                    kcpReplicas++;
                    kcpUpdated++;
                } else {
                    mdReplicas++;
                    mdUpdated++;
                }
            } else {
                writes.add(new Write(ObjectKind.MACHINE, Op.DELETE, machines.removeFirst()));
                if (controlPlaneMachine) {
                    kcpReplicas--;
                } else {
                    mdReplicas--;
                }
            }
            writes.add(controlPlaneMachine ? new Write(ObjectKind.KUBEADM_CONTROL_PLANE, Op.STATUS, kcp())
                    : new Write(ObjectKind.MACHINE_DEPLOYMENT, Op.STATUS, md()));
        }

        private String kubernetes() {
            return "1." + minor;
        }

        private String machineVersion() {
            return "v1.%d.%d-eks-1-%d-%d".formatted(minor, 4 + minor % 7, minor, 20 + minor % 5);
        }

        ObjectNode eksa() {
            ObjectNode o = object("anywhere.eks.amazonaws.com/v1alpha1", "Cluster", NAMESPACE, name, eksaGeneration, uid);
            o.with("metadata").putArray("finalizers").add("clusters.anywhere.eks.amazonaws.com/finalizer");
            ObjectNode spec = o.putObject("spec");
            spec.put("kubernetesVersion", kubernetes());
            spec.put("eksaVersion", EKSA_VERSION);
            ObjectNode cp = spec.putObject("controlPlaneConfiguration");
            cp.put("count", controlPlane);
            cp.putObject("endpoint").put("host", "10.%d.%d.10".formatted(name.hashCode() & 0xff, (name.hashCode() >> 8) & 0xff));
            cp.putObject("machineGroupRef").put("kind", "VSphereMachineConfig").put("name", name + "-cp-r" + templateRevision);
            ObjectNode group = spec.putArray("workerNodeGroupConfigurations").addObject();
            group.put("name", "md-0").put("count", workers);
            group.putObject("machineGroupRef").put("kind", "VSphereMachineConfig").put("name", name + "-md-0-r" + templateRevision);
            ObjectNode network = spec.putObject("clusterNetwork");
            // No CNI connection per workload cluster in the harness: the condition is the Warning that holds no one back.
            network.putObject("cniConfig").putObject("cilium").put("skipUpgrade", true);
            network.putObject("pods").putArray("cidrBlocks").add("192.168.0.0/16");
            network.putObject("services").putArray("cidrBlocks").add("10.96.0.0/12");
            spec.putObject("datacenterRef").put("kind", "VSphereDatacenterConfig").put("name", "datacenter");
            spec.putObject("managementCluster").put("name", "");
            return o;
        }

        ObjectNode capiCluster() {
            ObjectNode o = object(ObjectKind.CAPI_CLUSTER.apiVersion(CAPI_VERSION), "Cluster", CAPI, name, 1, null);
            labelCluster(o);
            ObjectNode spec = o.putObject("spec");
            spec.putObject("clusterNetwork").putObject("pods").putArray("cidrBlocks").add("192.168.0.0/16");
            spec.putObject("controlPlaneEndpoint").put("host", "10.0.0.10").put("port", 6443);
            spec.putObject("controlPlaneRef").put("apiGroup", ObjectKind.KUBEADM_CONTROL_PLANE.group())
                    .put("kind", "KubeadmControlPlane").put("name", name);
            spec.putObject("infrastructureRef").put("apiGroup", INFRASTRUCTURE).put("kind", "VSphereCluster")
                    .put("name", name);
            ObjectNode status = o.putObject("status");
            status.put("phase", "Provisioned").put("observedGeneration", 1);
            status.putObject("initialization").put("infrastructureProvisioned", true)
                    .put("controlPlaneInitialized", true);
            conditions(status, 1, "Available", "InfrastructureReady", "ControlPlaneInitialized",
                    "ControlPlaneAvailable", "WorkersAvailable", "RemoteConnectionProbe", "ControlPlaneMachinesReady",
                    "WorkerMachinesReady", "ControlPlaneMachinesUpToDate", "WorkerMachinesUpToDate");
            v1beta1Conditions(deprecated(status), "Ready", "ControlPlaneInitialized", "ControlPlaneReady",
                    "InfrastructureReady");
            return o;
        }

        ObjectNode kcp() {
            ObjectNode o = object(ObjectKind.KUBEADM_CONTROL_PLANE.apiVersion(CAPI_VERSION), "KubeadmControlPlane",
                    CAPI, name, kcpGeneration, null);
            labelCluster(o);
            ObjectNode spec = o.putObject("spec");
            spec.put("replicas", controlPlane).put("version", machineVersion());
            spec.putObject("machineTemplate").putObject("spec").putObject("infrastructureRef")
                    .put("apiGroup", INFRASTRUCTURE).put("kind", "VSphereMachineTemplate")
                    .put("name", name + "-control-plane-template-r" + templateRevision);
            ObjectNode kubeadm = spec.putObject("kubeadmConfigSpec");
            kubeadm.putObject("clusterConfiguration").put("imageRepository", "public.ecr.aws/eks-distro/kubernetes")
                    .putObject("etcd").putObject("local").put("imageRepository", "public.ecr.aws/eks-distro/etcd-io");
            kubeadm.putArray("preKubeadmCommands").add("hostname \"{{ ds.meta_data.hostname }}\"");
            kubeadm.putObject("initConfiguration").putObject("nodeRegistration").put("name", "{{ ds.meta_data.hostname }}");
            spec.putObject("rollout").putObject("strategy").put("type", "RollingUpdate").putObject("rollingUpdate")
                    .put("maxSurge", 1);
            ObjectNode status = o.putObject("status");
            status.put("observedGeneration", kcpObserved).put("replicas", kcpReplicas)
                    .put("upToDateReplicas", kcpUpdated).put("readyReplicas", kcpReplicas)
                    .put("availableReplicas", kcpReplicas)
                    .put("version", machineVersion()).put("selector", "cluster.x-k8s.io/cluster-name=" + name);
            status.putObject("initialization").put("controlPlaneInitialized", true);
            conditions(status, kcpObserved, "Available", "Initialized", "CertificatesAvailable",
                    "ControlPlaneComponentsHealthy", "EtcdClusterHealthy", "MachinesReady", "MachinesUpToDate");
            ObjectNode deprecated = deprecated(status);
            deprecated.put("readyReplicas", kcpReplicas).put("updatedReplicas", kcpUpdated)
                    .put("unavailableReplicas", 0);
            v1beta1Conditions(deprecated, "Ready", "Available", "CertificatesAvailable",
                    "ControlPlaneComponentsHealthy", "EtcdClusterHealthy", "MachinesReady", "Resized");
            return o;
        }

        ObjectNode md() {
            ObjectNode o = object(ObjectKind.MACHINE_DEPLOYMENT.apiVersion(CAPI_VERSION), "MachineDeployment", CAPI,
                    name + "-md-0", mdGeneration, null);
            labelCluster(o);
            ObjectNode spec = o.putObject("spec");
            spec.put("clusterName", name).put("replicas", workers);
            spec.putObject("selector").putObject("matchLabels").put("cluster.x-k8s.io/cluster-name", name);
            ObjectNode template = spec.putObject("template").putObject("spec");
            template.put("clusterName", name).put("version", machineVersion());
            template.putObject("bootstrap").putObject("configRef").put("apiGroup", BOOTSTRAP)
                    .put("kind", "KubeadmConfigTemplate").put("name", name + "-md-0-template-r" + templateRevision);
            template.putObject("infrastructureRef").put("apiGroup", INFRASTRUCTURE)
                    .put("kind", "VSphereMachineTemplate").put("name", name + "-md-0-r" + templateRevision);
            spec.putObject("rollout").putObject("strategy").put("type", "RollingUpdate").putObject("rollingUpdate")
                    .put("maxSurge", 1).put("maxUnavailable", 0);
            ObjectNode status = o.putObject("status");
            status.put("observedGeneration", mdObserved).put("replicas", mdReplicas).put("upToDateReplicas", mdUpdated)
                    .put("readyReplicas", mdReplicas).put("availableReplicas", mdReplicas)
                    .put("phase", "Running").put("selector", "cluster.x-k8s.io/cluster-name=" + name);
            conditions(status, mdObserved, "Available", "MachinesReady", "MachinesUpToDate");
            ObjectNode deprecated = deprecated(status);
            deprecated.put("updatedReplicas", mdUpdated).put("readyReplicas", mdReplicas)
                    .put("availableReplicas", mdReplicas).put("unavailableReplicas", 0);
            v1beta1Conditions(deprecated, "Ready", "Available", "MachineSetReady");
            return o;
        }

        ObjectNode newMachine(boolean controlPlaneMachine) {
            String role = controlPlaneMachine ? "cp" : "md-0";
            String machineName = "%s-%s-r%d-%d".formatted(name, role, templateRevision, machineSerial++);
            ObjectNode o = object(ObjectKind.MACHINE.apiVersion(CAPI_VERSION), "Machine", CAPI, machineName, 1, null);
            ObjectNode labels = labelCluster(o);
            ObjectNode owner = ((ObjectNode) o.get("metadata")).putArray("ownerReferences").addObject();
            if (controlPlaneMachine) {
                labels.put("cluster.x-k8s.io/control-plane", "").put("cluster.x-k8s.io/control-plane-name", name);
                owner.put("apiVersion", ObjectKind.KUBEADM_CONTROL_PLANE.apiVersion(CAPI_VERSION))
                        .put("kind", "KubeadmControlPlane").put("name", name);
            } else {
                labels.put(ObjectDecoder.DEPLOYMENT_NAME_LABEL, name + "-md-0")
                        .put("cluster.x-k8s.io/set-name", name + "-md-0-r" + templateRevision)
                        .put("machine-template-hash", Integer.toString(Math.abs((name + templateRevision).hashCode())));
                owner.put("apiVersion", ObjectKind.MACHINE.apiVersion(CAPI_VERSION)).put("kind", "MachineSet")
                        .put("name", name + "-md-0-r" + templateRevision);
            }
            owner.put("uid", uid()).put("controller", true).put("blockOwnerDeletion", true);
            ((ObjectNode) o.get("metadata")).putArray("finalizers").add("machine.cluster.x-k8s.io");
            ObjectNode spec = o.putObject("spec");
            spec.put("clusterName", name).put("version", machineVersion());
            spec.putObject("deletion").put("nodeDeletionTimeoutSeconds", 10);
            ObjectNode bootstrap = spec.putObject("bootstrap");
            bootstrap.putObject("configRef").put("apiGroup", BOOTSTRAP).put("kind", "KubeadmConfig")
                    .put("name", machineName);
            bootstrap.put("dataSecretName", machineName);
            spec.putObject("infrastructureRef").put("apiGroup", INFRASTRUCTURE).put("kind", "VSphereMachine")
                    .put("name", machineName);
            // v1beta2 references carry no uid; the draws v1beta1's took are made all the same, so that a seed gives the
            // clusters, steps and addresses it gave before.
            uid();
            uid();
            spec.put("providerID", "vsphere://" + uid());
            ObjectNode status = o.putObject("status");
            status.put("phase", "Running").put("observedGeneration", 1).put("lastUpdated", timestamp());
            status.putObject("initialization").put("bootstrapDataSecretCreated", true)
                    .put("infrastructureProvisioned", true);
            status.putObject("nodeRef").put("name", machineName);
            uid();
            ArrayNode addresses = status.putArray("addresses");
            String ip = "10.%d.%d.%d".formatted(random.nextInt(256), random.nextInt(256), random.nextInt(256));
            addresses.addObject().put("type", "ExternalIP").put("address", ip);
            addresses.addObject().put("type", "InternalIP").put("address", ip);
            addresses.addObject().put("type", "Hostname").put("address", machineName);
            status.putObject("nodeInfo").put("architecture", "amd64").put("bootID", uid()).put("containerRuntimeVersion", "containerd://1.7.22")
                    .put("kernelVersion", "6.1.109").put("kubeProxyVersion", machineVersion()).put("kubeletVersion", machineVersion())
                    .put("machineID", uid().replace("-", "")).put("operatingSystem", "linux").put("osImage", "Bottlerocket OS 1.26.1 (vmware-k8s-1.%d)".formatted(minor))
                    .put("systemUUID", uid());
            conditions(status, 1, "Available", "Ready", "UpToDate", "BootstrapConfigReady", "InfrastructureReady",
                    "NodeReady", "NodeHealthy");
            v1beta1Conditions(deprecated(status), "Ready", "BootstrapReady", "InfrastructureReady", "NodeHealthy",
                    "HealthCheckSucceeded");
            (controlPlaneMachine ? controlPlaneMachines : workerMachines).addLast(o);
            return o;
        }

        private ObjectNode object(String apiVersion, String kind, String namespace, String objectName, long generation, String fixedUid) {
            ObjectNode o = JSON.createObjectNode();
            o.put("apiVersion", apiVersion).put("kind", kind);
            ObjectNode metadata = o.putObject("metadata");
            metadata.put("name", objectName).put("namespace", namespace).put("generation", generation)
                    .put("uid", fixedUid != null ? fixedUid : uid()).put("creationTimestamp", timestamp());
            return o;
        }

        private ObjectNode labelCluster(ObjectNode o) {
            return ((ObjectNode) o.get("metadata")).putObject("labels").put(ObjectDecoder.CLUSTER_NAME_LABEL, name);
        }

        /**
         * v1beta2 conditions ({@code metav1.Condition}) of a Ready object: {@code types} True, each with the reason
         * named after it, then the ones a Ready object has False ({@link #QUIET}; the Cluster has no Remediating).
         */
        private void conditions(ObjectNode status, long observedGeneration, String... types) {
            ArrayNode conditions = status.putArray("conditions");
            String time = timestamp();
            for (String type : types) {
                String reason = type.replaceFirst("^.*(Ready|Available|UpToDate|Initialized|Healthy)$", "$1");
                conditions.addObject().put("type", type).put("status", "True")
                        .put("observedGeneration", observedGeneration).put("lastTransitionTime", time)
                        .put("reason", reason).put("message", "");
            }
            for (int i = 0; i < QUIET.size(); i += 2) {
                conditions.addObject().put("type", QUIET.get(i)).put("status", "False")
                        .put("observedGeneration", observedGeneration).put("lastTransitionTime", time)
                        .put("reason", QUIET.get(i + 1)).put("message", "");
            }
        }

        /** {@code status.deprecated.v1beta1}, where CAPI v1.13 keeps what v1beta1 said. */
        private ObjectNode deprecated(ObjectNode status) {
            return status.putObject("deprecated").putObject("v1beta1");
        }

        /** v1beta1 conditions (CAPI's own type) of a Ready object: {@code types} True. */
        private void v1beta1Conditions(ObjectNode deprecated, String... types) {
            ArrayNode conditions = deprecated.putArray("conditions");
            String time = timestamp();
            for (String type : types) {
                conditions.addObject().put("type", type).put("status", "True").put("lastTransitionTime", time);
            }
        }
    }
}
