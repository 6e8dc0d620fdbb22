package io.statusaggregator.model;

import java.util.Optional;

/**
 * An {@code EKSARelease} object of the management cluster: an EKS-A version that clusters can name, with the bundles
 * it ships. Its name follows from the version (see {@link EksaReleaseName}).
 *
 * @param version    {@code spec.version}, like {@code v0.23.1}; empty when the object does not say
 * @param bundlesRef {@code spec.bundlesRef.name}; empty when the object does not say
 */
public record EksaRelease(String name, Optional<String> version, Optional<String> bundlesRef) {
}
