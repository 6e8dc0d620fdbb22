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

    /**
     * The document's JSON text, {@code of(cluster, status).toString()}, written with a generator around the status
     * as {@link StatusJson#text} wrote it (contract order), which is copied in as it is.
     */
    public static String text(EksaCluster cluster, String statusJson) {
        return StatusJson.text(json -> {
            json.writeStartObject();
            json.writeStringField("apiVersion", cluster.apiVersion());
            json.writeStringField("kind", cluster.kind().kind());
            json.writeObjectFieldStart("metadata");
            json.writeStringField("namespace", cluster.key().namespace());
            json.writeStringField("name", cluster.key().name());
            json.writeNumberField("generation", cluster.generation());
            json.writeEndObject();
            json.writeFieldName("status");
            json.writeRawValue(statusJson);
            json.writeEndObject();
        });
    }
}
