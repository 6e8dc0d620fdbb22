package io.statusaggregator.model;

import java.util.Objects;

/** The identity of a namespaced Kubernetes object within its kind. */
public record ObjectKey(String namespace, String name) {
    public ObjectKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
