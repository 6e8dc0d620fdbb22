package io.statusaggregator.model;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;

/**
 * The user-facing EKS Anywhere {@code Cluster}: its spec, its generation, and the status it shows now (written
 * by this aggregator or by another controller), which is an input of the rules.
 *
 * @param specHash the hash of the whole spec as stored, for the version history (see {@code model.json.SpecHash})
 * @param resourceVersion the API server's version of this state, opaque: a status computed from it is written on
 *                        condition that the Cluster is still at it; empty when the record has none
 * @param created         {@code metadata.creationTimestamp} and {@code uid}: which of two Clusters of one name in two
 *                        namespaces holds that name ({@link #HOLDS_NAME_FIRST})
 */
public record EksaCluster(ObjectKey key, String apiVersion, long generation, Map<String, String> annotations,
        EksaClusterSpec spec, String specHash, ClusterStatus status, String resourceVersion, Creation created)
        implements KubernetesObject {
    /**
     * The order in which Clusters of one name hold it: created first (a Cluster whose creation is not known last),
     * then by {@code uid}, then by namespace, so that every replica decides alike whatever order it read them in.
     */
    public static final Comparator<EksaCluster> HOLDS_NAME_FIRST = Comparator
            .comparing((EksaCluster c) -> c.created().instant().orElse(Instant.MAX))
            .thenComparing(c -> c.created().uid())
            .thenComparing(c -> c.key().namespace());

    /** {@code metadata.creationTimestamp} as the API server wrote it, and {@code metadata.uid}; empty when unknown. */
    public record Creation(String timestamp, String uid) {
        public static final Creation UNKNOWN = new Creation("", "");

        public Creation {
            timestamp = timestamp == null ? "" : timestamp;
            uid = uid == null ? "" : uid;
        }

        /** The timestamp, when it is one (RFC 3339, as Kubernetes writes it). */
        public Optional<Instant> instant() {
            try {
                return timestamp.isEmpty() ? Optional.empty() : Optional.of(Instant.parse(timestamp));
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
    }

    public EksaCluster {
        annotations = Map.copyOf(annotations);
        resourceVersion = resourceVersion == null ? "" : resourceVersion;
        created = created == null ? Creation.UNKNOWN : created;
    }

    /** The same Cluster as if it showed {@code shown} as its status. */
    public EksaCluster withStatus(ClusterStatus shown) {
        return new EksaCluster(key, apiVersion, generation, annotations, spec, specHash, shown, resourceVersion,
                created);
    }

    /** Whether this Cluster manages itself, as a management cluster does (a spec naming no manager counts as one). */
    public boolean isManagement() {
        return spec.managementCluster().map(key.name()::equals).orElse(true);
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.EKSA_CLUSTER;
    }
}
