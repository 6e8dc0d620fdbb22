package io.statusaggregator.model;

import java.util.Optional;

/**
 * The Cluster API version an object was read at. The rules read some fields differently at each: v1beta2 renamed
 * counters, changed what conditions mean, and moved the v1beta1 fields under {@code status.deprecated.v1beta1}, which
 * is never read (docs/status-rules.md, "Reading Cluster API v1beta1 and v1beta2").
 */
public enum CapiApiVersion {
    V1BETA1("v1beta1"),
    V1BETA2("v1beta2");

    private final String version;

    CapiApiVersion(String version) {
        this.version = version;
    }

    /** The version part of an {@code apiVersion}, as in {@code cluster.x-k8s.io/v1beta2}. */
    public String version() {
        return version;
    }

    /** The version {@code apiVersion} ({@code group/version}) names, if it is one the aggregator reads. */
    public static Optional<CapiApiVersion> of(String apiVersion) {
        String version = apiVersion.substring(apiVersion.lastIndexOf('/') + 1);
        for (CapiApiVersion candidate : values()) {
            if (candidate.version.equals(version)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
