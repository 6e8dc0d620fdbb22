package io.statusaggregator.kubernetes;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.statusaggregator.model.ObjectKind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether the API server serves the resources this application reads, asked through discovery at start: pointed at a
 * cluster without EKS Anywhere or Cluster API (the wrong kubeconfig context), its informers would wait for lists that
 * never come, and the start would time out saying only that the API server did not answer. Also which versions of the
 * Cluster API kinds it serves ({@link #versions}), asked at start and again while ingest runs.
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

    /**
     * What the start checks: {@code missing}, the resources of {@code resources} not served (as in {@link #missing})
     * and the Cluster API kinds served at no version read ({@code plural.group/v1beta2 or v1beta1}); {@code forced},
     * the kinds that {@code setting} forces to a version not served, each said in one line. Both empty when
     * discovery cannot tell.
     */
    public record Answer(List<String> missing, List<String> forced) {
    }

    public static Answer check(KubernetesClient client, Collection<ResourceDefinitionContext> resources,
            Collection<ObjectKind> capiKinds, ApiVersionChoice.Setting setting) {
        List<String> missing = new ArrayList<>(missing(client, resources));
        List<String> forced = new ArrayList<>();
        versions(client, capiKinds).ifPresent(served -> {
            for (ApiVersionChoice.Choice choice : ApiVersionChoice.decide(served, setting).values()) {
                choice.problem().ifPresent(problem -> (choice.forced() ? forced : missing).add(problem));
            }
        });
        return new Answer(missing, forced);
    }

    /**
     * For each of {@code kinds}, those of its {@link ObjectKind#versions()} at which the API server lists its resource;
     * empty when discovery cannot tell (the API server does not answer). Discovery needs no grant: the default
     * ClusterRole {@code system:discovery} lets every authenticated user read it.
     */
    public static Optional<Map<ObjectKind, Set<String>>> versions(KubernetesClient client,
            Collection<ObjectKind> kinds) {
        Map<String, Optional<Set<String>>> served = new HashMap<>();
        Map<ObjectKind, Set<String>> versions = new LinkedHashMap<>();
        for (ObjectKind kind : kinds) {
            Set<String> at = new LinkedHashSet<>();
            for (String version : kind.versions()) {
                Optional<Set<String>> plurals =
                        served.computeIfAbsent(kind.apiVersion(version), groupVersion -> plurals(client, groupVersion));
                if (plurals.isEmpty()) {
                    return Optional.empty();
                }
                if (plurals.get().contains(kind.plural())) {
                    at.add(version);
                }
            }
            versions.put(kind, at);
        }
        return Optional.of(versions);
    }

    /**
     * The resources {@code groupVersion} serves (none when it is not served), or empty when discovery did not answer.
     */
    private static Optional<Set<String>> plurals(KubernetesClient client, String groupVersion) {
        try {
            APIResourceList list = client.getApiResources(groupVersion);
            return Optional.of(
                    list == null
                            ? Set.of()
                            : list.getResources().stream()
                                    .map(APIResource::getName)
                                    .collect(Collectors.toSet()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
