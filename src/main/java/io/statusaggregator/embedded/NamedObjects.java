package io.statusaggregator.embedded;

import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The mock server's store, with its keys indexed by object name. Fabric8's dispatcher finds the object a write names
 * by testing every stored key, so each create, update and patch takes longer with every object stored: a fleet of
 * 1,000 clusters would not load in minutes.
 */
final class NamedObjects extends LinkedHashMap<AttributeSet, String> {
    private final Map<String, Set<AttributeSet>> byName = new ConcurrentHashMap<>();
    /** The store as Fabric8 holds it, synchronized on itself: every read here goes through it as Fabric8's do. */
    private final Map<AttributeSet, String> shared = Collections.synchronizedMap(this);

    private NamedObjects() {
    }

    /** A store, indexed, put in place of {@code dispatcher}'s own. */
    static NamedObjects installIn(CrudDispatcher dispatcher) {
        NamedObjects indexed = new NamedObjects();
        try {
            // Fabric8 keeps the store in a final field it fills itself; every change goes through put, remove and
            // clear.
            Field store = CrudDispatcher.class.getDeclaredField("map");
            store.setAccessible(true);
            store.set(dispatcher, indexed.shared);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this Fabric8 mock server keeps its objects where it did not: " + e, e);
        }
        return indexed;
    }

    @Override
    public String put(AttributeSet key, String value) {
        String before = super.put(key, value);
        String name = nameOf(key);
        if (name != null) {
            byName.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet()).add(key);
        }
        return before;
    }

    @Override
    public String remove(Object key) {
        String before = super.remove(key);
        String name = before != null && key instanceof AttributeSet set ? nameOf(set) : null;
        if (name != null) {
            byName.computeIfPresent(name, (n, keys) -> {
                keys.remove(key);
                return keys.isEmpty() ? null : keys;
            });
        }
        return before;
    }

    @Override
    public void clear() {
        super.clear();
        byName.clear();
    }

    /** The stored objects {@code query} selects, in the store's order. */
    List<Map.Entry<AttributeSet, String>> stored(AttributeSet query) {
        synchronized (shared) {
            return new ArrayList<>(shared.entrySet().stream().filter(entry -> entry.getKey().matches(query))
                    .map(entry -> Map.entry(entry.getKey(), entry.getValue())).toList());
        }
    }

    /** The stored objects named {@code name} that {@code query} selects, found through the index. */
    List<Map.Entry<AttributeSet, String>> stored(String name, AttributeSet query) {
        List<Map.Entry<AttributeSet, String>> found = new ArrayList<>(1);
        for (AttributeSet key : List.copyOf(byName.getOrDefault(name, Set.of()))) {
            String stored = shared.get(key);
            if (stored != null && key.matches(query)) {
                found.add(Map.entry(key, stored));
            }
        }
        return found;
    }

    /** The one name a key or query names exactly; null for none, several, or any. */
    static String nameOf(AttributeSet key) {
        Attribute name = key.getAttribute(KubernetesAttributesExtractor.NAME);
        if (name == null || name.getType() != AttributeType.WITH || name.getValues().size() != 1) {
            return null;
        }
        String value = name.getValues().get(0).toString();
        return "*".equals(value) ? null : value;
    }
}
