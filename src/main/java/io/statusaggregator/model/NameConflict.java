package io.statusaggregator.model;

/**
 * An EKS-A Cluster whose name another namespace's Cluster holds: CAPI objects are matched by cluster name in the CAPI
 * namespace, so only the Cluster created first has them (status-rules.md, "Two EKS-A Clusters with one name").
 *
 * @param holder        the Cluster that holds the name
 * @param capiNamespace where the CAPI objects of that name are
 */
public record NameConflict(ObjectKey holder, String capiNamespace) {
}
