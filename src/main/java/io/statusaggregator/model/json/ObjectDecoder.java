package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.CniObservation;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.EtcdadmCluster;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.MachineDeployment;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ObservedCondition;
import io.statusaggregator.model.ObservedConditions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads Kubernetes objects (full, as the API serves them, or reduced to the fields below) into the model. Missing
 * optional fields are normal: a new object has no status. A field of the wrong type, a negative count or a
 * version that does not parse is a {@link MalformedObjectException} that names the field. An EKS-A Cluster is
 * read by {@link EksaClusterDecoder}, the status it shows by {@link ClusterStatusDecoder}.
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
        return ClusterStatusDecoder.status(JsonFields.root(document).object("status"));
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
            case EKSA_CLUSTER -> EksaClusterDecoder.eksaCluster(node, root, metadata, key);
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
        return EksaClusterDecoder.unreadable(node, key);
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
    static long generation(JsonFields metadata) throws MalformedObjectException {
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
}
