package io.statusaggregator.pipeline;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** Test-side hands on the API server: objects as CAPI and users write them, and waiting on what they show. */
final class Fleet {
    static final String CAPI = "eksa-system";
    private final KubernetesClient client;

    Fleet(KubernetesClient client) {
        this.client = client;
    }

    GenericKubernetesResource create(ObjectKind kind, String yaml) {
        GenericKubernetesResource resource = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        return resources(kind).inNamespace(resource.getMetadata().getNamespace()).resource(resource).create();
    }

    /** A merge patch of the main resource (spec, metadata), as a user's kubectl edit. */
    void patch(ObjectKind kind, String namespace, String name, String json) {
        resources(kind).inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }

    /** A merge patch of the status subresource, as the CAPI controllers write status. */
    void patchStatus(ObjectKind kind, String namespace, String name, String json) {
        resources(kind).inNamespace(namespace).withName(name).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }

    void delete(ObjectKind kind, String namespace, String name) {
        resources(kind).inNamespace(namespace).withName(name).delete();
    }

    Optional<GenericKubernetesResource> get(ObjectKind kind, String namespace, String name) {
        return Optional.ofNullable(resources(kind).inNamespace(namespace).withName(name).get());
    }

    /** The EKS-A Cluster's condition of {@code type}: {status, reason, message, ...}, empty when it has none. */
    @SuppressWarnings("unchecked")
    Map<String, Object> condition(String namespace, String name, String type) {
        return get(ObjectKind.EKSA_CLUSTER, namespace, name)
                .map(c -> (Map<String, Object>) c.getAdditionalProperties().get("status"))
                .map(s -> (java.util.List<Map<String, Object>>) s.get("conditions"))
                .flatMap(list -> list.stream().filter(c -> type.equals(c.get("type"))).findFirst())
                .orElse(Map.of());
    }

    @SuppressWarnings("unchecked")
    long observedGeneration(String namespace, String name) {
        return get(ObjectKind.EKSA_CLUSTER, namespace, name)
                .map(c -> (Map<String, Object>) c.getAdditionalProperties().get("status"))
                .map(s -> ((Number) s.getOrDefault("observedGeneration", 0)).longValue())
                .orElse(0L);
    }

    private io.fabric8.kubernetes.client.dsl.MixedOperation<GenericKubernetesResource, io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
            io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> resources(ObjectKind kind) {
        return client.genericKubernetesResources(ObjectIngest.context(kind));
    }

    /** Waits for {@code condition} to hold, checking every 20 ms, failing with {@code what} after {@code deadline}. */
    static void await(Duration deadline, Supplier<Boolean> condition, Supplier<String> what) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + deadline + ": " + what.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted");
            }
        }
    }
}
