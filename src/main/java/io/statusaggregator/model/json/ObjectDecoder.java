package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ClusterStatus.CniState;
import io.statusaggregator.model.ClusterStatus.DefaultCni;
import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.ClusterStatus.WorkerNodeGroupStatus;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.CniObservation;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaClusterSpec.CniConfig;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.EtcdadmCluster;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.MachineDeployment;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.ObservedConditions;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.WorkerNodeGroup;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads Kubernetes objects (full, as the API serves them, or reduced to the fields below) into the model. Missing
 * optional fields are normal: a new object has no status. A field of the wrong type, a negative count or a
 * version that does not parse is a {@link MalformedObjectException} that names the field.
 */
public final class ObjectDecoder {
    public static final String CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name";
    public static final String DEPLOYMENT_NAME_LABEL = "cluster.x-k8s.io/deployment-name";
    /** On the control plane's Machines. */
    public static final String CONTROL_PLANE_LABEL = "cluster.x-k8s.io/control-plane";
    /** Kubernetes puts an object without a namespace into this one. */
    public static final String DEFAULT_NAMESPACE = "default";

    private ObjectDecoder() {
    }

    /** The kind of an object, if the rules read it; empty for any other kind. */
    public static Optional<ObjectKind> kindOf(JsonNode node) throws MalformedObjectException {
        JsonFields root = JsonFields.root(node);
        return ObjectKind.of(root.requiredString("apiVersion"), root.requiredString("kind"));
    }

    /**
     * The name of the cluster an object of a known kind belongs to, read the way {@link #decode} reads it: what
     * keeps all objects of one cluster together (on one Kafka partition, in one state). Empty when the object
     * does not say.
     */
    public static Optional<String> clusterNameOf(ObjectKind kind, JsonNode node) throws MalformedObjectException {
        JsonFields root = JsonFields.root(node);
        JsonFields metadata = root.object("metadata");
        String name = metadata.requiredString("name");
        return switch (kind) {
            case EKSA_CLUSTER, CAPI_CLUSTER -> Optional.of(name);
            case KUBEADM_CONTROL_PLANE -> Optional.of(clusterName(root, metadata).orElse(name));
            case ETCDADM_CLUSTER -> Optional.of(clusterName(root, metadata).orElse(etcdClusterName(name)));
            case MACHINE_DEPLOYMENT, MACHINE -> clusterName(root, metadata);
            case CNI_OBSERVATION -> root.object("spec").string("clusterName").filter(n -> !n.isEmpty());
        };
    }

    /** The status of a status document (what {@code compute} prints and the status topic carries). */
    public static ClusterStatus statusOf(JsonNode document) throws MalformedObjectException {
        return status(JsonFields.root(document).object("status"));
    }

    /** Whether the object is an {@code EKSARelease}: reference data, read by {@link #eksaRelease}. */
    public static boolean isEksaRelease(JsonNode node) {
        return node.path("kind").asText().equals("EKSARelease")
                && node.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/");
    }

    public static EksaRelease eksaRelease(JsonNode node) throws MalformedObjectException {
        JsonFields root = JsonFields.root(node);
        JsonFields spec = root.object("spec");
        return new EksaRelease(root.object("metadata").requiredString("name"), spec.string("version"),
                spec.object("bundlesRef").string("name"));
    }

    /**
     * Decodes an object of a kind the rules read; empty for any other kind. What ingest sent for an object too large
     * for the topic ({@link OversizedObject}) is refused, saying so.
     */
    public static Optional<KubernetesObject> decode(JsonNode node) throws MalformedObjectException {
        Optional<ObjectKind> kind = kindOf(node);
        if (kind.isEmpty()) {
            return Optional.empty();
        }
        Optional<OversizedObject> oversized = OversizedObject.of(node);
        if (oversized.isPresent()) {
            throw new MalformedObjectException("", oversized.get().problem());
        }
        JsonFields root = JsonFields.root(node);
        JsonFields metadata = root.object("metadata");
        ObjectKey key =
                new ObjectKey(metadata.string("namespace").orElse(DEFAULT_NAMESPACE), metadata.requiredString("name"));
        return Optional.of(switch (kind.get()) {
            case EKSA_CLUSTER -> eksaCluster(node, root, metadata, key);
            case CAPI_CLUSTER -> capiCluster(root, key);
            case KUBEADM_CONTROL_PLANE -> kubeadmControlPlane(root, metadata, key);
            case MACHINE_DEPLOYMENT -> machineDeployment(root, metadata, key);
            case MACHINE -> machine(root, metadata, key);
            case ETCDADM_CLUSTER -> etcdadmCluster(root, metadata, key);
            case CNI_OBSERVATION -> cniObservation(root, key);
        });
    }

    /**
     * What can be read of an EKS-A Cluster that {@link #decode} refuses: its identity, generation and the status it
     * shows (none, if that is what cannot be read), with an empty spec that stands for "unknown". The rules never
     * read that spec: they report the cluster as unreadable (see {@code rules.MalformedInputs}).
     */
    public static EksaCluster unreadableCluster(JsonNode node, ObjectKey key) {
        JsonNode generation = node.path("metadata").path("generation");
        ClusterStatus status;
        try {
            status = statusOf(node);
        } catch (MalformedObjectException e) {
            status = ClusterStatus.NONE;
        }
        JsonNode rawSpec = node.get("spec");
        return new EksaCluster(key, node.path("apiVersion").asText("anywhere.eks.amazonaws.com/v1alpha1"),
                generation.canConvertToLong() && generation.asLong() >= 0 ? generation.asLong() : 1L, Map.of(),
                new EksaClusterSpec(0, List.of(), Optional.empty(), Optional.empty(), Optional.empty(), false,
                        new CniConfig(Cni.CILIUM, false), Optional.empty()),
                SpecHash.of(rawSpec == null ? NullNode.getInstance() : rawSpec), status, resourceVersion(node),
                creation(node));
    }

    /** {@code metadata.resourceVersion}; empty when it is missing or not a string (never so from an API server). */
    private static String resourceVersion(JsonNode node) {
        JsonNode version = node.path("metadata").path("resourceVersion");
        return version.isTextual() ? version.textValue() : "";
    }

    private static EksaCluster eksaCluster(JsonNode node, JsonFields root, JsonFields metadata, ObjectKey key)
            throws MalformedObjectException {
        EksaClusterSpec clusterSpec = eksaClusterSpec(root.object("spec"));
        JsonNode rawSpec = node.get("spec");
        return new EksaCluster(key, root.requiredString("apiVersion"), generation(metadata),
                metadata.stringMap("annotations"), clusterSpec,
                SpecHash.of(rawSpec == null ? NullNode.getInstance() : rawSpec),
                status(root.object("status")), resourceVersion(node), creation(node));
    }

    /** {@code metadata.creationTimestamp} and {@code uid}; each empty when missing or not a string. */
    private static EksaCluster.Creation creation(JsonNode node) {
        JsonNode metadata = node.path("metadata");
        JsonNode timestamp = metadata.path("creationTimestamp");
        JsonNode uid = metadata.path("uid");
        return new EksaCluster.Creation(timestamp.isTextual() ? timestamp.textValue() : "",
                uid.isTextual() ? uid.textValue() : "");
    }

    private static EksaClusterSpec eksaClusterSpec(JsonFields spec) throws MalformedObjectException {
        List<WorkerNodeGroup> groups = new ArrayList<>();
        for (JsonFields group : spec.objects("workerNodeGroupConfigurations")) {
            groups.add(workerNodeGroup(group));
        }
        JsonFields controlPlane = spec.object("controlPlaneConfiguration");
        int controlPlaneCount = controlPlane.count("count")
                .orElseThrow(() -> new MalformedObjectException(controlPlane.pathOf("count"), "required"));
        boolean externalEtcd = spec.has("externalEtcdConfiguration");
        if (externalEtcd) {
            spec.object("externalEtcdConfiguration").count("count");
        }
        return new EksaClusterSpec(
                controlPlaneCount,
                groups,
                requiredSpecVersion(spec),
                spec.string("eksaVersion"),
                spec.object("bundlesRef").string("name"),
                externalEtcd,
                cniConfig(spec.object("clusterNetwork")),
                spec.object("managementCluster").string("name").filter(name -> !name.isEmpty()));
    }

    private static WorkerNodeGroup workerNodeGroup(JsonFields group) throws MalformedObjectException {
        Optional<WorkerNodeGroup.Autoscaling> autoscaling = Optional.empty();
        if (group.has("autoscalingConfiguration")) {
            JsonFields bounds = group.object("autoscalingConfiguration");
            int min = bounds.countOrZero("minCount");
            int max = bounds.count("maxCount")
                    .orElseThrow(() -> new MalformedObjectException(bounds.pathOf("maxCount"), "required"));
            if (min > max) {
                throw new MalformedObjectException(
                        bounds.pathOf("minCount"), "must not be greater than maxCount (" + max + "), got " + min);
            }
            autoscaling = Optional.of(new WorkerNodeGroup.Autoscaling(min, max));
        }
        // EKS-A defaults a group without a count to one node.
        int count = group.count("count").orElse(1);
        return new WorkerNodeGroup(
                group.requiredString("name"), count, autoscaling, specVersion(group, "kubernetesVersion"));
    }

    /**
     * The control plane's version, which EKS-A requires (its webhook refuses a Cluster without one): read as optional,
     * a Cluster without it was Ready, and its next version was checked against nothing (a downgrade let through).
     */
    private static Optional<KubernetesVersion> requiredSpecVersion(JsonFields spec) throws MalformedObjectException {
        Optional<KubernetesVersion> version = specVersion(spec, "kubernetesVersion");
        if (version.isEmpty()) {
            throw new MalformedObjectException(
                    spec.pathOf("kubernetesVersion"),
                    "required: the control plane's Kubernetes version (like \"1.31\")");
        }
        return version;
    }

    private static Optional<KubernetesVersion> specVersion(JsonFields fields, String field)
            throws MalformedObjectException {
        Optional<String> text = fields.string(field);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(KubernetesVersion.parseSpec(text.get())
                .orElseThrow(() -> new MalformedObjectException(
                        fields.pathOf(field),
                        "not a Kubernetes version of the form MAJOR.MINOR (like \"1.27\"): "
                                + KubernetesNames.shown(text.get()))));
    }

    /**
     * {@code clusterNetwork.cniConfig} names one CNI; the older {@code clusterNetwork.cni} string too; Cilium by
     * default.
     */
    private static CniConfig cniConfig(JsonFields network) throws MalformedObjectException {
        JsonFields config = network.object("cniConfig");
        boolean cilium = config.has("cilium");
        boolean kindnetd = config.has("kindnetd");
        if (cilium && kindnetd) {
            throw new MalformedObjectException(config.path(), "names both cilium and kindnetd; a cluster has one CNI");
        }
        if (cilium) {
            return new CniConfig(Cni.CILIUM, config.object("cilium").bool("skipUpgrade"));
        }
        if (kindnetd) {
            return new CniConfig(Cni.KINDNETD, false);
        }
        Optional<String> legacy = network.string("cni");
        if (legacy.isPresent()) {
            Cni cni = legacy.get().startsWith("cilium")
                    ? Cni.CILIUM
                    : Cni.of(legacy.get())
                            .orElseThrow(() -> new MalformedObjectException(
                                    network.pathOf("cni"), "unknown CNI " + KubernetesNames.shown(legacy.get())));
            return new CniConfig(cni, false);
        }
        return new CniConfig(Cni.CILIUM, false);
    }

    private static CapiCluster capiCluster(JsonFields root, ObjectKey key) throws MalformedObjectException {
        CapiApiVersion version = capiApiVersion(root);
        JsonFields spec = root.object("spec");
        JsonFields status = root.object("status");
        ObservedConditions conditions = conditions(status);
        boolean initialized = version == CapiApiVersion.V1BETA2
                && (status.object("initialization").bool("controlPlaneInitialized")
                        || conditions.isTrue(CapiCluster.CONTROL_PLANE_INITIALIZED));
        // v1beta1 refs are {apiVersion, kind, name, namespace}, v1beta2 ones {apiGroup, kind, name}: the name is read.
        return new CapiCluster(key, version, spec.object("controlPlaneRef").string("name"),
                spec.object("managedExternalEtcdRef").string("name"), initialized, conditions);
    }

    private static KubeadmControlPlane kubeadmControlPlane(JsonFields root, JsonFields metadata, ObjectKey key)
            throws MalformedObjectException {
        CapiApiVersion version = capiApiVersion(root);
        JsonFields status = root.object("status");
        boolean v1beta2 = version == CapiApiVersion.V1BETA2;
        return new KubeadmControlPlane(key,
                clusterName(root, metadata).orElse(key.name()),
                version,
                generation(metadata),
                status.generation("observedGeneration").orElse(0L),
                status.countOrZero("replicas"),
                status.countOrZero("readyReplicas"),
                status.countOrZero(v1beta2 ? "upToDateReplicas" : "updatedReplicas"),
                v1beta2 ? status.countOrZero("availableReplicas") : 0,
                v1beta2 ? status.object("initialization").bool("controlPlaneInitialized") : status.bool("initialized"),
                conditions(status));
    }

    private static MachineDeployment machineDeployment(JsonFields root, JsonFields metadata, ObjectKey key)
            throws MalformedObjectException {
        CapiApiVersion version = capiApiVersion(root);
        JsonFields status = root.object("status");
        return new MachineDeployment(key,
                requiredClusterName(root, metadata),
                version,
                generation(metadata),
                status.generation("observedGeneration").orElse(0L),
                status.countOrZero("replicas"),
                status.countOrZero("readyReplicas"),
                status.countOrZero(version == CapiApiVersion.V1BETA2 ? "upToDateReplicas" : "updatedReplicas"),
                status.countOrZero("availableReplicas"),
                conditions(status));
    }

    /**
     * The Cluster API version of a CAPI object: each is read by its own (a topic holds both for a while after Cluster
     * API is upgraded). Another version would be read by the wrong names, so it is refused, saying which are read.
     */
    private static CapiApiVersion capiApiVersion(JsonFields root) throws MalformedObjectException {
        String apiVersion = root.requiredString("apiVersion");
        return CapiApiVersion.of(apiVersion).orElseThrow(() -> new MalformedObjectException(root.pathOf("apiVersion"),
                "not a Cluster API version this aggregator reads (v1beta2 or v1beta1): "
                        + KubernetesNames.shown(apiVersion)));
    }

    private static Machine machine(JsonFields root, JsonFields metadata, ObjectKey key)
            throws MalformedObjectException {
        JsonFields spec = root.object("spec");
        Optional<String> text = spec.string("version");
        Optional<KubernetesVersion> version = Optional.empty();
        if (text.isPresent()) {
            version = Optional.of(KubernetesVersion.parseMachine(text.get())
                    .orElseThrow(() -> new MalformedObjectException(
                            spec.pathOf("version"),
                            "not a Kubernetes version (like \"v1.27.4-eks-1-27-11\"): "
                                    + KubernetesNames.shown(text.get()))));
        }
        return new Machine(key, requiredClusterName(root, metadata),
                Optional.ofNullable(metadata.stringMap("labels").get(DEPLOYMENT_NAME_LABEL)), version);
    }

    private static EtcdadmCluster etcdadmCluster(JsonFields root, JsonFields metadata, ObjectKey key)
            throws MalformedObjectException {
        return new EtcdadmCluster(key, clusterName(root, metadata).orElse(etcdClusterName(key.name())),
                root.object("status").bool("ready"));
    }

    /** EKS-A names a cluster's external etcd {@code C-etcd}. */
    private static String etcdClusterName(String name) {
        return name.endsWith("-etcd") ? name.substring(0, name.length() - "-etcd".length()) : name;
    }

    private static CniObservation cniObservation(JsonFields root, ObjectKey key) throws MalformedObjectException {
        JsonFields spec = root.object("spec");
        String name = spec.requiredString("cni");
        Cni cni = Cni.of(name).orElseThrow(() -> new MalformedObjectException(spec.pathOf("cni"),
                "unknown CNI " + KubernetesNames.shown(name) + " (cilium or kindnetd)"));
        return new CniObservation(key, spec.requiredString("clusterName"), cni,
                spec.string("version").filter(v -> !v.isEmpty()), spec.bool("ready"),
                spec.string("problem").filter(p -> !p.isEmpty()));
    }

    /**
     * The server sets {@code metadata.generation} to 1 on create; a hand-written object without one is taken as new.
     */
    private static long generation(JsonFields metadata) throws MalformedObjectException {
        return metadata.generation("generation").orElse(1L);
    }

    private static Optional<String> clusterName(JsonFields root, JsonFields metadata) throws MalformedObjectException {
        Optional<String> fromSpec = root.object("spec").string("clusterName").filter(n -> !n.isEmpty());
        if (fromSpec.isPresent()) {
            return fromSpec;
        }
        return Optional.ofNullable(metadata.stringMap("labels").get(CLUSTER_NAME_LABEL)).filter(n -> !n.isEmpty());
    }

    private static String requiredClusterName(JsonFields root, JsonFields metadata) throws MalformedObjectException {
        return clusterName(root, metadata).orElseThrow(() -> new MalformedObjectException("spec.clusterName",
                "required (or the label " + CLUSTER_NAME_LABEL + ")"));
    }

    private static ObservedConditions conditions(JsonFields status) throws MalformedObjectException {
        List<ObservedCondition> conditions = new ArrayList<>();
        for (JsonFields condition : status.objects("conditions")) {
            conditions.add(new ObservedCondition(
                    condition.requiredString("type"),
                    condition.string("status").orElse(""),
                    condition.string("reason").orElse(""),
                    condition.string("message").orElse("")));
        }
        return new ObservedConditions(conditions);
    }

    /**
     * The status an EKS-A Cluster shows. Conditions of types this aggregator does not own, and ones without a
     * transition time, say nothing the rules use and are skipped.
     */
    private static ClusterStatus status(JsonFields status) throws MalformedObjectException {
        Optional<String> reason = status.string("failureReason").filter(r -> !r.isEmpty());
        Optional<String> message = status.string("failureMessage").filter(m -> !m.isEmpty());
        Optional<Failure> failure = reason.isPresent() || message.isPresent()
                ? Optional.of(new Failure(reason.orElse(""), message.orElse("")))
                : Optional.empty();
        Optional<DefaultCni> defaultCni = Optional.empty();
        if (status.has("defaultCNI")) {
            JsonFields cni = status.object("defaultCNI");
            Optional<Cni> name = cni.string("name").flatMap(Cni::of);
            if (name.isPresent()) {
                CniState state =
                        "Applied".equals(cni.string("status").orElse("")) ? CniState.APPLIED : CniState.NOT_APPLIED;
                defaultCni = Optional.of(new DefaultCni(name.get(), cni.string("version").orElse(""), state));
            }
        }
        List<Condition> conditions = new ArrayList<>();
        for (JsonFields condition : status.objects("conditions")) {
            Optional<ConditionType> type = condition.string("type").flatMap(ConditionType::of);
            Optional<ConditionStatus> conditionStatus = condition.string("status").flatMap(ConditionStatus::of);
            Optional<String> since = condition.string("lastTransitionTime");
            if (type.isEmpty() || conditionStatus.isEmpty() || since.isEmpty()) {
                continue;
            }
            Instant lastTransitionTime;
            try {
                lastTransitionTime = TransitionTimes.parse(since.get());
            } catch (DateTimeParseException e) {
                throw new MalformedObjectException(condition.pathOf("lastTransitionTime"),
                        "not an RFC 3339 time (like 2023-06-05T21:58:57Z): " + KubernetesNames.shown(since.get()));
            }
            conditions.add(new Condition(type.get(), conditionStatus.get(), condition.string("reason").orElse(""),
                    condition.string("message").orElse(""),
                    condition.string("severity").flatMap(Severity::of).orElse(Severity.NONE), lastTransitionTime));
        }
        List<WorkerNodeGroupStatus> groups = new ArrayList<>();
        for (JsonFields group : status.objects("workerNodeGroups")) {
            Optional<String> name = group.string("name");
            if (name.isPresent()) {
                groups.add(new WorkerNodeGroupStatus(
                        name.get(),
                        group.string("kubernetesVersion").flatMap(KubernetesVersion::parseSpec),
                        group.countOrZero("replicas"),
                        group.countOrZero("readyReplicas"),
                        group.countOrZero("upToDateReplicas")));
            }
        }
        JsonFields versions = status.object("versions");
        return new ClusterStatus(
                status.generation("observedGeneration").orElse(0L),
                failure,
                defaultCni,
                conditions,
                groups,
                new Versions(
                        versions.string("next"),
                        versions.string("current"),
                        versions.string("last"),
                        kubernetesVersions(versions)));
    }

    /** {@code status.versions.currentKubernetes}, written by this aggregator; unreadable parts count as not written. */
    private static Optional<KubernetesVersions> kubernetesVersions(JsonFields versions)
            throws MalformedObjectException {
        if (!versions.has("currentKubernetes")) {
            return Optional.empty();
        }
        JsonFields recorded = versions.object("currentKubernetes");
        List<KubernetesVersions.Group> groups = new ArrayList<>();
        for (JsonFields group : recorded.objects("workerNodeGroups")) {
            Optional<String> name = group.string("name");
            if (name.isEmpty()) {
                return Optional.empty();
            }
            groups.add(new KubernetesVersions.Group(
                    name.get(), group.string("kubernetesVersion").flatMap(KubernetesVersion::parseSpec)));
        }
        return Optional.of(new KubernetesVersions(
                recorded.string("kubernetesVersion").flatMap(KubernetesVersion::parseSpec), groups));
    }
}
