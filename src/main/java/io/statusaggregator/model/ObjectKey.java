package io.statusaggregator.model;

import java.util.Objects;

/** The identity of a namespaced Kubernetes object within its kind. */
public record ObjectKey(String namespace, String name) {
    public ObjectKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /** {@code namespace/name}, as {@link #toString()} writes it; empty for anything else. */
    public static java.util.Optional<ObjectKey> parse(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1 || text.indexOf('/', slash + 1) >= 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new ObjectKey(text.substring(0, slash), text.substring(slash + 1)));
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
