package io.statusaggregator.aggregation;

import io.statusaggregator.model.CapiCluster;
import io.statusaggregator.model.ClusterMember;
import io.statusaggregator.model.ClusterSnapshot;
import io.statusaggregator.model.CniObservation;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EtcdadmCluster;
import io.statusaggregator.model.KubeadmControlPlane;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.MachineDeployment;
import io.statusaggregator.model.MalformedObject;
import io.statusaggregator.model.NameConflict;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.VersionRules;
import io.statusaggregator.model.EksaVersion;
import io.statusaggregator.model.Pure;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The objects of one workload cluster as far as they have been seen: the EKS-A Cluster (once it has been seen)
 * and its members from the CAPI namespace. Not thread-safe: one cluster's events are applied in order by one thread.
 */
@Pure
public final class ClusterState {
    private final String clusterName;
    private EksaCluster cluster;
    private final Map<ObjectKind, Map<ObjectKey, ClusterMember>> members = new EnumMap<>(ObjectKind.class);
    /**
     * Objects whose latest state cannot be read, by kind and key; an EKS-A Cluster among them has a stand-in in
     * {@link #cluster}.
     */
    private final Map<ObjectKind, Map<ObjectKey, MalformedObject>> malformed = new EnumMap<>(ObjectKind.class);
    /**
     * The last snapshot, and the compatibility data it was made with (the management cluster's data it holds itself);
     * dropped when an object changes. Aggregation reads it once to compute and once more to publish the change, and
     * building it is a good part of a computation.
     */
    private ClusterSnapshot snapshot;
    private Compatibility snapshotCompatibility;
    /**
     * Each kind's members as the last snapshot listed them, kept while that kind does not change: a record changes one
     * object, and copying every kind's members anew for each snapshot was a measurable part of a computation.
     */
    private final Map<ObjectKind, List<ClusterMember>> listed = new EnumMap<>(ObjectKind.class);
    private List<MalformedObject> malformedListed;
    /** Set while another namespace's Cluster holds this one's name: it then holds no members. */
    private NameConflict nameConflict;

    public ClusterState(String clusterName) {
        this.clusterName = clusterName;
    }

    public String clusterName() {
        return clusterName;
    }

    public Optional<EksaCluster> cluster() {
        return Optional.ofNullable(cluster);
    }

    /** Whether another namespace's Cluster holds this one's name, and which; returns whether that is news. */
    public boolean nameHeldBy(Optional<NameConflict> conflict) {
        if (conflict.equals(Optional.ofNullable(nameConflict))) {
            return false;
        }
        nameConflict = conflict.orElse(null);
        snapshot = null;
        return true;
    }

    /** The EKS-A Cluster and the problem it has, if it cannot be read, for {@link #hold} in another state. */
    record HeldCluster(EksaCluster cluster, Optional<MalformedObject> problem) {
    }

    /** Takes the EKS-A Cluster out of this state, with its problem. */
    Optional<HeldCluster> takeCluster() {
        if (cluster == null) {
            return Optional.empty();
        }
        HeldCluster held = new HeldCluster(cluster, malformed(ObjectKind.EKSA_CLUSTER, cluster.key()));
        remove(ObjectKind.EKSA_CLUSTER, cluster.key());
        return Optional.of(held);
    }

    /** Holds an EKS-A Cluster {@link #takeCluster taken} from another state. */
    void hold(HeldCluster held) {
        held.problem().ifPresentOrElse(problem -> putMalformed(problem, Optional.of(held.cluster())),
                () -> put(held.cluster()));
    }

    /** Adds or replaces an object of this cluster. */
    public void put(KubernetesObject object) {
        snapshot = null;
        listed.remove(object.kind());
        forgetMalformed(object.kind(), object.key());
        if (object instanceof EksaCluster eksa) {
            cluster = eksa;
        } else if (object instanceof ClusterMember member) {
            members.computeIfAbsent(member.kind(), k -> new LinkedHashMap<>()).put(member.key(), member);
        }
    }

    /**
     * An object whose latest state cannot be read: its older, readable state is forgotten (it no longer holds) and
     * the problem is kept for the rules to report. An EKS-A Cluster keeps {@code standIn}: its identity, generation
     * and the status it shows, so that its status can still be written and its echo recognised.
     *
     * @return the problem this object had already, if any: whether this is news
     */
    public Optional<MalformedObject> putMalformed(MalformedObject problem, Optional<EksaCluster> standIn) {
        Optional<MalformedObject> before = malformed(problem.kind(), problem.key());
        remove(problem.kind(), problem.key()); // drops the snapshot too
        standIn.ifPresent(eksa -> cluster = eksa);
        malformed.computeIfAbsent(problem.kind(), k -> new LinkedHashMap<>()).put(problem.key(), problem);
        malformedListed = null;
        return before;
    }

    /** The problem of an object whose latest state cannot be read; empty when it is readable, or unknown. */
    public Optional<MalformedObject> malformed(ObjectKind kind, ObjectKey key) {
        return Optional.ofNullable(malformed.getOrDefault(kind, Map.of()).get(key));
    }

    private void forgetMalformed(ObjectKind kind, ObjectKey key) {
        Map<ObjectKey, MalformedObject> ofKind = malformed.get(kind);
        if (ofKind != null && ofKind.remove(key) != null) {
            malformedListed = null;
        }
    }

    /**
     * The key this cluster holds for the member {@code key} names (an equal instance), or {@code key} if it holds none.
     */
    public ObjectKey keyOf(ObjectKind kind, ObjectKey key) {
        Map<ObjectKey, ClusterMember> ofKind = members.get(kind);
        ClusterMember member = ofKind == null ? null : ofKind.get(key);
        return member == null ? key : member.key();
    }

    /** Forgets a deleted object. */
    public void remove(ObjectKind kind, ObjectKey key) {
        snapshot = null;
        listed.remove(kind);
        forgetMalformed(kind, key);
        if (kind == ObjectKind.EKSA_CLUSTER) {
            if (cluster != null && cluster.key().equals(key)) {
                cluster = null;
            }
        } else {
            Map<ObjectKey, ClusterMember> ofKind = members.get(kind);
            if (ofKind != null) {
                ofKind.remove(key);
            }
        }
    }

    public boolean isEmpty() {
        return cluster == null
                && members.values().stream().allMatch(Map::isEmpty)
                && malformed.values().stream().allMatch(Map::isEmpty);
    }

    /** The input of the rules; empty until the EKS-A Cluster itself has been seen. */
    public Optional<ClusterSnapshot> snapshot(Compatibility compatibility, ManagementCluster management) {
        if (cluster == null) {
            return Optional.empty();
        }
        if (snapshot != null && snapshotCompatibility == compatibility
                && (snapshot.management() == management || snapshot.management().equals(management))) {
            return Optional.of(snapshot);
        }
        Optional<String> expectedCilium = cluster.spec().eksaVersion()
                .flatMap(EksaVersion::parse)
                .flatMap(compatibility::ciliumFor);
        snapshot = new ClusterSnapshot(
                cluster,
                of(ObjectKind.CAPI_CLUSTER, CapiCluster.class).stream().findFirst(),
                of(ObjectKind.KUBEADM_CONTROL_PLANE, KubeadmControlPlane.class),
                of(ObjectKind.MACHINE_DEPLOYMENT, MachineDeployment.class),
                of(ObjectKind.MACHINE, Machine.class),
                of(ObjectKind.ETCDADM_CLUSTER, EtcdadmCluster.class),
                of(ObjectKind.CNI_OBSERVATION, CniObservation.class).stream().findFirst(),
                expectedCilium,
                VersionRules.supportedBy(cluster.spec(), compatibility),
                management,
                malformedListed(),
                Optional.ofNullable(nameConflict));
        snapshotCompatibility = compatibility;
        return Optional.of(snapshot);
    }

    /** The cluster's CAPI Cluster, once seen. */
    public Optional<CapiCluster> capiCluster() {
        return of(ObjectKind.CAPI_CLUSTER, CapiCluster.class).stream().findFirst();
    }

    /** The members of a kind: each is of {@code type}, since {@link #put} files a member under its own kind. */
    @SuppressWarnings("unchecked")
    private <T extends ClusterMember> List<T> of(ObjectKind kind, Class<T> type) {
        return (List<T>) listed.computeIfAbsent(kind, k -> {
            Map<ObjectKey, ClusterMember> ofKind = members.get(k);
            return ofKind == null ? List.of() : List.copyOf(ofKind.values());
        });
    }

    private List<MalformedObject> malformedListed() {
        if (malformedListed == null) {
            malformedListed = malformed.values().stream().flatMap(m -> m.values().stream()).toList();
        }
        return malformedListed;
    }
}
