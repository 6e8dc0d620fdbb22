package io.statusaggregator.model;

import java.util.Objects;
import java.util.Optional;

/** The identity of a namespaced Kubernetes object within its kind. */
public record ObjectKey(String namespace, String name) {
    public ObjectKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /**
     * {@code namespace/name}, as {@link #toString()} writes it, of names Kubernetes accepts; empty for anything else.
     */
    public static Optional<ObjectKey> parse(String text) {
        if (problemOf(text).isPresent()) {
            return Optional.empty();
        }
        int slash = text.indexOf('/');
        return Optional.of(new ObjectKey(text.substring(0, slash), text.substring(slash + 1)));
    }

    /** Why {@code text} is not {@code namespace/name} of a Kubernetes object, or empty when it is. */
    public static Optional<String> problemOf(String text) {
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash < 0 || text.indexOf('/', slash + 1) >= 0) {
            return Optional.of("expected NAMESPACE/NAME, got " + KubernetesNames.shown(String.valueOf(text)));
        }
        return problemOf(text.substring(0, slash), text.substring(slash + 1));
    }

    /** Why these cannot be a Kubernetes object's namespace and name, or empty when they can. */
    public static Optional<String> problemOf(String namespace, String name) {
        return KubernetesNames.namespaceProblem(namespace).or(() -> KubernetesNames.nameProblem(name));
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }

    // Written out: a record's own equals and hashCode go through method handles, and every record read looks keys up.
    @Override
    public boolean equals(Object other) {
        return this == other
                || other instanceof ObjectKey key && name.equals(key.name) && namespace.equals(key.namespace);
    }

    @Override
    public int hashCode() {
        return 31 * namespace.hashCode() + name.hashCode();
    }
}
