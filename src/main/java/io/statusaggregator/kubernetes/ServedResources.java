package io.statusaggregator.kubernetes;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether the API server serves the resources this application reads, asked through discovery at start: pointed at a
 * cluster without EKS Anywhere or Cluster API (the wrong kubeconfig context, a CAPI version that no longer serves
 * {@code v1beta1}), its informers would wait for lists that never come, and the start would time out saying only that
 * the API server did not answer.
 */
public final class ServedResources {
    private ServedResources() {
    }

    /**
     * Those of {@code resources} the API server does not serve, as {@code plural.group/version}; empty when it serves
     * them all, and when discovery cannot tell (the API server does not answer: the start says so itself).
     */
    public static List<String> missing(KubernetesClient client, Collection<ResourceDefinitionContext> resources) {
        Map<String, Optional<Set<String>>> served = new HashMap<>();
        List<String> missing = new ArrayList<>();
        for (ResourceDefinitionContext resource : resources) {
            String groupVersion = resource.getGroup() + "/" + resource.getVersion();
            Optional<Set<String>> plurals = served.computeIfAbsent(groupVersion, version -> plurals(client, version));
            if (plurals.isEmpty()) {
                return List.of(); // cannot tell
            }
            if (!plurals.get().contains(resource.getPlural())) {
                missing.add(resource.getPlural() + "." + groupVersion);
            }
        }
        return missing;
    }

    /** The resources {@code groupVersion} serves (none when it is not served), or empty when discovery did not answer. */
    private static Optional<Set<String>> plurals(KubernetesClient client, String groupVersion) {
        try {
            APIResourceList list = client.getApiResources(groupVersion);
            return Optional.of(list == null ? Set.of() : list.getResources().stream().map(APIResource::getName).collect(Collectors.toSet()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
