package io.statusaggregator.topics;

import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.Pure;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.utils.Utils;

/**
 * The key of a record on the object-state topic: {@code cluster/Kind.group/namespace/name}. The cluster comes
 * first so that the partitioner can keep all objects of one cluster on one partition; the rest makes the key the
 * object's identity, so that compaction keeps its latest state and a tombstone forgets it.
 */
@Pure
public record ObjectStateKey(String clusterName, ObjectKind kind, ObjectKey key) {
    /**
     * The partition of {@code partitions} that a cluster's records go to: the hash of its name, the way Kafka's
     * default partitioner hashes a whole key ({@link ClusterPartitioner} puts them there).
     */
    public static int partitionOf(String clusterName, int partitions) {
        return Utils.toPositive(Utils.murmur2(clusterName.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    public String encode() {
        return clusterName + "/" + kind.qualifiedName() + "/" + key.namespace() + "/" + key.name();
    }

    /** Empty for a key this application did not write: not of this form, or names Kubernetes would not accept. */
    public static Optional<ObjectStateKey> parse(String text) {
        return text == null ? Optional.empty() : parse(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@link #parse(String)} of the key's UTF-8 bytes, as a record carries it. By hand, on the bytes: every record of
     * the topic has its key parsed, and only the names it holds are made strings.
     */
    public static Optional<ObjectStateKey> parse(byte[] key) {
        if (key == null) {
            return Optional.empty();
        }
        int first = -1;
        int second = -1;
        int third = -1;
        for (int i = 0; i < key.length; i++) {
            byte b = key[i];
            if (b < 0) {
                return Optional.empty(); // not ASCII, as no Kubernetes name or kind is
            }
            if (b != '/') {
                continue;
            }
            if (first < 0) {
                first = i;
            } else if (second < 0) {
                second = i;
            } else if (third < 0) {
                third = i;
            } else {
                return Optional.empty(); // a fourth slash
            }
        }
        if (third < 0) {
            return Optional.empty();
        }
        Optional<ObjectKind> kind = ObjectKind.ofQualifiedName(key, first + 1, second);
        if (kind.isEmpty()) {
            return Optional.empty();
        }
        String cluster = new String(key, 0, first, StandardCharsets.ISO_8859_1);
        String namespace = new String(key, second + 1, third - second - 1, StandardCharsets.ISO_8859_1);
        String name = new String(key, third + 1, key.length - third - 1, StandardCharsets.ISO_8859_1);
        if (KubernetesNames.nameProblem(cluster).isPresent() || ObjectKey.problemOf(namespace, name).isPresent()) {
            return Optional.empty();
        }
        return Optional.of(new ObjectStateKey(cluster, kind.get(), new ObjectKey(namespace, name)));
    }

    // Written out: a record's own equals and hashCode go through method handles, and every record read looks keys up.
    @Override
    public boolean equals(Object other) {
        return this == other
                || other instanceof ObjectStateKey o
                        && kind == o.kind
                        && key.equals(o.key)
                        && clusterName.equals(o.clusterName);
    }

    @Override
    public int hashCode() {
        return (31 * clusterName.hashCode() + kind.hashCode()) * 31 + key.hashCode();
    }

    /** The cluster part of an encoded key, without parsing the rest. */
    public static String clusterOf(String encoded) {
        int slash = encoded.indexOf('/');
        return slash < 0 ? encoded : encoded.substring(0, slash);
    }
}
