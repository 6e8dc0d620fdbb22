package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

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
    private final ConcurrentHashMap<String, byte[]> objects = new ConcurrentHashMap<>();

    public ReducedObjectStore(ObjectKind kind, KubernetesSerialization serialization) {
        this.kind = kind;
        this.serialization = serialization;
    }

    @Override
    public String getKey(GenericKubernetesResource object) {
        return Cache.metaNamespaceKeyFunc(object);
    }

    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource object) {
        return restore(objects.put(key, kept(object)));
    }

    @Override
    public GenericKubernetesResource remove(String key) {
        return restore(objects.remove(key));
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

    private GenericKubernetesResource restore(byte[] kept) {
        return kept == null ? null : serialization.unmarshal(new ByteArrayInputStream(kept), GenericKubernetesResource.class);
    }
}
