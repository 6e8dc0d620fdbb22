package io.statusaggregator.model;

import java.util.Arrays;
import java.util.Optional;

/** The CNIs EKS Anywhere manages, by the name used in {@code spec.clusterNetwork.cniConfig} and {@code status.defaultCNI}. */
public enum Cni {
    CILIUM("cilium"),
    KINDNETD("kindnetd");

    private final String wireName;

    Cni(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<Cni> of(String wireName) {
        return Arrays.stream(values()).filter(c -> c.wireName.equals(wireName)).findFirst();
    }
}
