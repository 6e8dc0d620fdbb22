package io.statusaggregator.model;

import java.util.Optional;

/**
 * The kinds the status rules read. A kind is recognised by API group and kind name; the version is
 * not part of it, so v1beta1 and later versions of the same kind decode alike.
 */
public enum ObjectKind {
    EKSA_CLUSTER("anywhere.eks.amazonaws.com", "v1alpha1", "Cluster", "clusters"),
    CAPI_CLUSTER("cluster.x-k8s.io", "v1beta1", "Cluster", "clusters"),
    KUBEADM_CONTROL_PLANE("controlplane.cluster.x-k8s.io", "v1beta1", "KubeadmControlPlane", "kubeadmcontrolplanes"),
    MACHINE_DEPLOYMENT("cluster.x-k8s.io", "v1beta1", "MachineDeployment", "machinedeployments"),
    MACHINE("cluster.x-k8s.io", "v1beta1", "Machine", "machines"),
    ETCDADM_CLUSTER("etcdcluster.cluster.x-k8s.io", "v1beta1", "EtcdadmCluster", "etcdadmclusters"),
    /** Not a Kubernetes API kind: what the aggregator observed of a workload cluster's CNI. */
    CNI_OBSERVATION("statusaggregator.io", "v1alpha1", "CNIObservation", "cniobservations");

    private final String group;
    private final String version;
    private final String kind;
    private final String plural;
    private final String qualifiedName;
    private static final ObjectKind[] KINDS = values();

    ObjectKind(String group, String version, String kind, String plural) {
        this.group = group;
        this.version = version;
        this.kind = kind;
        this.plural = plural;
        this.qualifiedName = kind + "." + group;
    }

    /** The API version the aggregator watches this kind at. */
    public String version() {
        return version;
    }

    public String apiVersion() {
        return group + "/" + version;
    }

    /** The resource name in API paths, as in {@code /apis/cluster.x-k8s.io/v1beta1/machines}. */
    public String plural() {
        return plural;
    }

    /**
     * The kind whose {@link #qualifiedName} is the ASCII text {@code text[from, to)}, if any: how aggregation reads a
     * record key's kind without making a string of it.
     */
    public static Optional<ObjectKind> ofQualifiedName(byte[] text, int from, int to) {
        for (ObjectKind kind : KINDS) {
            String name = kind.qualifiedName;
            if (name.length() == to - from && sameAscii(name, text, from)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    private static boolean sameAscii(String name, byte[] text, int from) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) != text[from + i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code Kind.group}, unique among the kinds: how a record key names the kind. */
    public String qualifiedName() {
        return qualifiedName;
    }

    public static Optional<ObjectKind> ofQualifiedName(String qualifiedName) {
        for (ObjectKind kind : KINDS) {
            if (kind.qualifiedName.equals(qualifiedName)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    public String group() {
        return group;
    }

    public String kind() {
        return kind;
    }

    /** Finds the kind of an object from its {@code apiVersion} ({@code group/version}) and {@code kind}. */
    public static Optional<ObjectKind> of(String apiVersion, String kind) {
        int slash = apiVersion.lastIndexOf('/');
        int groupLength = Math.max(slash, 0);
        for (ObjectKind candidate : KINDS) {
            if (candidate.kind.equals(kind) && candidate.group.length() == groupLength && apiVersion.startsWith(candidate.group)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return qualifiedName();
    }
}
