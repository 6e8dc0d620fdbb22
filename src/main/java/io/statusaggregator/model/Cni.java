package io.statusaggregator.model;

import java.util.Optional;

/**
 * The CNIs EKS Anywhere manages, by the name used in {@code spec.clusterNetwork.cniConfig} and
 * {@code status.defaultCNI}.
 */
public enum Cni {
    CILIUM("cilium"),
    KINDNETD("kindnetd");

    /** Read on every record: no array copied, no stream, per lookup. */
    private static final Cni[] VALUES = values();

    private final String wireName;

    Cni(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<Cni> of(String wireName) {
        for (Cni candidate : VALUES) {
            if (candidate.wireName.equals(wireName)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
