package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;

/**
 * A computed status as a document of its own: the Cluster's {@code apiVersion}, {@code kind}, {@code metadata}
 * ({@code namespace}, {@code name}, {@code generation}) and {@code status}. What {@code compute} prints and what the
 * status topic carries.
 */
public final class StatusDocument {
    private StatusDocument() {
    }

    public static ObjectNode of(EksaCluster cluster, ClusterStatus status) {
        return of(cluster, StatusEncoder.encode(status));
    }

    /** @param status the status as {@link StatusEncoder} wrote it, not copied: it must not be modified afterwards */
    public static ObjectNode of(EksaCluster cluster, ObjectNode status) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("apiVersion", cluster.apiVersion());
        node.put("kind", cluster.kind().kind());
        ObjectNode metadata = node.putObject("metadata");
        metadata.put("namespace", cluster.key().namespace());
        metadata.put("name", cluster.key().name());
        metadata.put("generation", cluster.generation());
        node.set("status", status);
        return node;
    }
}
