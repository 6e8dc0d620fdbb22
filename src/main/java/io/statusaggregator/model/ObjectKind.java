package io.statusaggregator.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kinds the status rules read. A kind is recognised by API group and kind name; the version is
 * not part of it: each object is read by its own {@code apiVersion}, and {@link #versions} lists those the aggregator
 * reads, newest first (Cluster API serves {@code v1beta2} beside a deprecated {@code v1beta1} from CAPI v1.11).
 */
public enum ObjectKind {
    EKSA_CLUSTER("anywhere.eks.amazonaws.com", "v1alpha1", "Cluster", "clusters"),
    CAPI_CLUSTER("cluster.x-k8s.io", "v1beta1", "Cluster", "clusters", "v1beta2"),
    KUBEADM_CONTROL_PLANE("controlplane.cluster.x-k8s.io", "v1beta1", "KubeadmControlPlane", "kubeadmcontrolplanes",
            "v1beta2"),
    MACHINE_DEPLOYMENT("cluster.x-k8s.io", "v1beta1", "MachineDeployment", "machinedeployments", "v1beta2"),
    MACHINE("cluster.x-k8s.io", "v1beta1", "Machine", "machines", "v1beta2"),
    ETCDADM_CLUSTER("etcdcluster.cluster.x-k8s.io", "v1beta1", "EtcdadmCluster", "etcdadmclusters"),
    /** Not a Kubernetes API kind: what the aggregator observed of a workload cluster's CNI. */
    CNI_OBSERVATION("statusaggregator.io", "v1alpha1", "CNIObservation", "cniobservations");

    private final String group;
    private final String version;
    private final List<String> versions;
    private final String kind;
    private final String plural;
    private final String qualifiedName;
    private static final ObjectKind[] KINDS = values();

    ObjectKind(String group, String version, String kind, String plural, String... newer) {
        this.group = group;
        this.version = version;
        List<String> all = new ArrayList<>(List.of(newer));
        all.add(version);
        this.versions = List.copyOf(all);
        this.kind = kind;
        this.plural = plural;
        this.qualifiedName = kind + "." + group;
    }

    /** The oldest API version the aggregator reads this kind at; see {@link #versions} for all of them. */
    public String version() {
        return version;
    }

    /** {@code group/}{@link #version()}. */
    public String apiVersion() {
        return apiVersion(version);
    }

    /** The API versions the aggregator reads this kind at, newest first. */
    public List<String> versions() {
        return versions;
    }

    /** {@code group/version}. */
    public String apiVersion(String version) {
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
            if (candidate.kind.equals(kind)
                    && candidate.group.length() == groupLength
                    && apiVersion.startsWith(candidate.group)) {
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
