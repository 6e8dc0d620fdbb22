package io.statusaggregator.ingest;

import io.statusaggregator.model.KubernetesNames;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.util.Optional;

/**
 * The key of a record on the object-state topic: {@code cluster/Kind.group/namespace/name}. The cluster comes
 * first so that the partitioner can keep all objects of one cluster on one partition; the rest makes the key the
 * object's identity, so that compaction keeps its latest state and a tombstone forgets it.
 */
public record ObjectStateKey(String clusterName, ObjectKind kind, ObjectKey key) {
    public String encode() {
        return clusterName + "/" + kind.qualifiedName() + "/" + key.namespace() + "/" + key.name();
    }

    /** Empty for a key this application did not write: not of this form, or names Kubernetes would not accept. */
    public static Optional<ObjectStateKey> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String[] parts = text.split("/", -1);
        if (parts.length != 4 || KubernetesNames.nameProblem(parts[0]).isPresent()
                || ObjectKey.problemOf(parts[2], parts[3]).isPresent()) {
            return Optional.empty();
        }
        return ObjectKind.ofQualifiedName(parts[1])
                .map(kind -> new ObjectStateKey(parts[0], kind, new ObjectKey(parts[2], parts[3])));
    }

    /** The cluster part of an encoded key, without parsing the rest. */
    public static String clusterOf(String encoded) {
        int slash = encoded.indexOf('/');
        return slash < 0 ? encoded : encoded.substring(0, slash);
    }
}
