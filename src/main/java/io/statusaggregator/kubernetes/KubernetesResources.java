package io.statusaggregator.kubernetes;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.model.ObjectKind;

/**
 * The Kubernetes API resources of the kinds the rules read, for Fabric8's generic client: how ingest watches them,
 * write-back and the upgrade check read them, and the embedded API server serves them.
 */
public final class KubernetesResources {
    private KubernetesResources() {
    }

    /**
     * How many objects an informer's list asks for at a time, as client-go's reflector does: a fleet's Machines listed
     * in one response would be hundreds of MB built at once, on every replica and at every relist.
     */
    public static final long LIST_PAGE = 500;

    /** EKS Anywhere's releases: each names a release's version and its bundles; the version rules read them. */
    public static final ResourceDefinitionContext RELEASES = new ResourceDefinitionContext.Builder()
            .withGroup("anywhere.eks.amazonaws.com").withVersion("v1alpha1").withKind("EKSARelease")
            .withPlural("eksareleases").withNamespaced(true).build();

    /**
     * The resource of {@code kind} at {@link ObjectKind#version()}: its group, version, kind and plural; every one is
     * namespaced.
     */
    public static ResourceDefinitionContext of(ObjectKind kind) {
        return of(kind, kind.version());
    }

    /** The resource of {@code kind} at {@code version}, one of {@link ObjectKind#versions()}. */
    public static ResourceDefinitionContext of(ObjectKind kind, String version) {
        return new ResourceDefinitionContext.Builder()
                .withGroup(kind.group())
                .withVersion(version)
                .withKind(kind.kind())
                .withPlural(kind.plural())
                .withNamespaced(true)
                .build();
    }
}
