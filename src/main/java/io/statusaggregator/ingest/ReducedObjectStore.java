package io.statusaggregator.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import io.statusaggregator.topics.ObjectReduction;

/**
 * An informer's store that keeps each object as ingest publishes it: {@link ObjectReduction#reduce}, as UTF-8 JSON.
 * Fabric8's own store keeps every object whole, a tree of maps (about 8.8 KB an object); what ingest and the informer
 * read back from a stored object is all in the reduction: namespace and name (the key, and the namespace index),
 * {@code resourceVersion} (a relisted object of the same version is no update), and the fields published again from
 * the store (a failed send, a deletion's tombstone).
 *
 * <p>An object whose cluster cannot be read is kept whole: the publisher skips it for that reason, and its reduction,
 * without the unreadable part, might name a cluster after all. Kept whole, it is published from the store as it was.
 */
public final class ReducedObjectStore implements ItemStore<GenericKubernetesResource> {
    private final ObjectKind kind;
    private final KubernetesSerialization serialization;
    private static final JsonFactory JSON = new JsonFactory();
    private final ConcurrentHashMap<String, byte[]> objects = new ConcurrentHashMap<>();

    public ReducedObjectStore(ObjectKind kind, KubernetesSerialization serialization) {
        this.kind = kind;
        this.serialization = serialization;
    }

    @Override
    public String getKey(GenericKubernetesResource object) {
        return Cache.metaNamespaceKeyFunc(object);
    }

    /** Hands back the identity of the object replaced, if any (see {@link #identity}). */
    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource object) {
        return identity(objects.put(key, kept(object)));
    }

    /** Hands back the identity of the object removed, if any (see {@link #identity}). */
    @Override
    public GenericKubernetesResource remove(String key) {
        return identity(objects.remove(key));
    }

    @Override
    public Stream<String> keySet() {
        return objects.keySet().stream();
    }

    @Override
    public Stream<GenericKubernetesResource> values() {
        return objects.values().stream().map(this::restore);
    }

    @Override
    public int size() {
        return objects.size();
    }

    @Override
    public GenericKubernetesResource get(String key) {
        return restore(objects.get(key));
    }

    /**
     * Not the whole object: the informer must then hand the watch's own object to {@code onAdd} during its first list
     * instead of deferring the adds and reading them back from here.
     */
    @Override
    public boolean isFullState() {
        return false;
    }

    private byte[] kept(GenericKubernetesResource object) {
        JsonNode full = serialization.convertValue(object, JsonNode.class);
        JsonNode kept = routable(full) ? ObjectReduction.reduce(kind, full) : full;
        return serialization.asJson(kept).getBytes(StandardCharsets.UTF_8);
    }

    private boolean routable(JsonNode full) {
        try {
            ObjectDecoder.clusterNameOf(kind, full);
            return true;
        } catch (MalformedObjectException e) {
            return false;
        }
    }

    /**
     * What Fabric8's informer reads of the object a put replaced or a remove took: namespace (its namespace index),
     * name, and resourceVersion (an update of the same version is none); and what it hands to {@code onUpdate} as the
     * state before, of which ingest reads the resourceVersion only. Read from the kept JSON without building the
     * object, a second parse per watch event that ingest's profile showed on the client's event loop.
     */
    static GenericKubernetesResource identity(byte[] kept) {
        if (kept == null) {
            return null;
        }
        GenericKubernetesResource identity = new GenericKubernetesResource();
        ObjectMeta metadata = new ObjectMeta();
        identity.setMetadata(metadata);
        try (JsonParser parser = JSON.createParser(kept)) {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("apiVersion") && value == JsonToken.VALUE_STRING) {
                    identity.setApiVersion(parser.getText());
                } else if (field.equals("kind") && value == JsonToken.VALUE_STRING) {
                    identity.setKind(parser.getText());
                } else if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String name = parser.currentName();
                        JsonToken text = parser.nextToken();
                        if (text != JsonToken.VALUE_STRING) {
                            parser.skipChildren();
                        } else if (name.equals("namespace")) {
                            metadata.setNamespace(parser.getText());
                        } else if (name.equals("name")) {
                            metadata.setName(parser.getText());
                        } else if (name.equals("resourceVersion")) {
                            metadata.setResourceVersion(parser.getText());
                        }
                    }
                } else {
                    parser.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the store's own JSON could not be read", e);
        }
        return identity;
    }

    private GenericKubernetesResource restore(byte[] kept) {
        return kept == null
                ? null
                : serialization.unmarshal(new ByteArrayInputStream(kept), GenericKubernetesResource.class);
    }
}
