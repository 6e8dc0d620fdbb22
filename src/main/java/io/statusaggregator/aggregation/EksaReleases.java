package io.statusaggregator.aggregation;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The {@code EKSARelease} objects of the management cluster, by name: reference data every aggregating instance
 * reads for itself (a handful of objects, needed by every cluster, so not worth a topic partitioned by cluster).
 * Unknown until the first list, so that no release is reported missing for want of a look.
 */
public final class EksaReleases implements Supplier<Optional<Set<String>>>, AutoCloseable {
    public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
            .withGroup("anywhere.eks.amazonaws.com").withVersion("v1alpha1").withKind("EKSARelease")
            .withPlural("eksareleases").withNamespaced(true).build();

    private SharedIndexInformer<GenericKubernetesResource> informer;

    /** Follows the EKSARelease objects of {@code namespace}. */
    public void watch(KubernetesClient client, String namespace) {
        informer = client.genericKubernetesResources(CONTEXT).inNamespace(namespace).runnableInformer(0);
        informer.start();
    }

    @Override
    public Optional<Set<String>> get() {
        if (informer == null || !informer.hasSynced()) {
            return Optional.empty();
        }
        return Optional.of(informer.getStore().list().stream().map(r -> r.getMetadata().getName()).collect(Collectors.toUnmodifiableSet()));
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
