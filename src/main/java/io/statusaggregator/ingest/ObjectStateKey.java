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
        // By hand, not String.split (a regular expression's machinery): every record of the topic has its key parsed.
        int first = text.indexOf('/');
        int second = first < 0 ? -1 : text.indexOf('/', first + 1);
        int third = second < 0 ? -1 : text.indexOf('/', second + 1);
        if (third < 0 || text.indexOf('/', third + 1) >= 0) {
            return Optional.empty();
        }
        String cluster = text.substring(0, first);
        String namespace = text.substring(second + 1, third);
        String name = text.substring(third + 1);
        if (KubernetesNames.nameProblem(cluster).isPresent() || ObjectKey.problemOf(namespace, name).isPresent()) {
            return Optional.empty();
        }
        return ObjectKind.ofQualifiedName(text.substring(first + 1, second))
                .map(kind -> new ObjectStateKey(cluster, kind, new ObjectKey(namespace, name)));
    }

    // Written out: a record's own equals and hashCode go through method handles, and every record read looks keys up.
    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof ObjectStateKey o && kind == o.kind && key.equals(o.key) && clusterName.equals(o.clusterName);
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
