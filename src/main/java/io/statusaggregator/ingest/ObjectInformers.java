package io.statusaggregator.ingest;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import io.statusaggregator.kubernetes.StalledWatchGuard;

/**
 * Ingest's informers: one per kind and namespace, each at the version its kind is read at ({@link ReadVersions}),
 * guarded against a watch that stalls ({@link StalledWatchGuard}), their stores reduced ({@link ReducedObjectStore});
 * and what their stores hold now. Every add, update that changes the object, and delete goes to {@link Seen}.
 */
final class ObjectInformers implements AutoCloseable {
    /** Told of what an informer saw, on its handler's thread. */
    interface Seen {
        void seen(ObjectKind kind, GenericKubernetesResource object, boolean deleted);
    }

    private record Watched(ObjectKind kind, StalledWatchGuard.GuardedInformer<GenericKubernetesResource> informer) {
        GenericKubernetesResource get(String key) {
            return informer.current().getStore().getByKey(key);
        }
    }

    private final KubernetesClient client;
    private final StalledWatchGuard guard;
    private final ReadVersions versions;
    private final Seen seen;
    private final List<Watched> informers = new CopyOnWriteArrayList<>();

    ObjectInformers(KubernetesClient client, StalledWatchGuard guard, ReadVersions versions, Seen seen) {
        this.client = client;
        this.guard = guard;
        this.versions = versions;
        this.seen = seen;
    }

    /**
     * Makes the informers, not started: the EKS-A Clusters' in each of {@code clusterNamespaces} (a null one: every
     * namespace), and one for each of {@code capiKinds} in {@code capiNamespace}. A kind read at another version from
     * then on gets its informer switched over.
     */
    void make(List<String> clusterNamespaces, List<ObjectKind> capiKinds, String capiNamespace) {
        for (String namespace : clusterNamespaces) {
            informers.add(watch(ObjectKind.EKSA_CLUSTER, namespace));
        }
        for (ObjectKind kind : capiKinds) {
            informers.add(watch(kind, capiNamespace));
        }
        // A kind read at another version from now on: its informer lists at that one, then replaces the one before.
        versions.follow((kind, version) -> informers.stream().filter(w -> w.kind() == kind)
                .forEach(w -> w.informer().switchOver()));
    }

    /** Starts the informers; the future completes when every one has listed its objects. */
    CompletableFuture<Void> start() {
        return CompletableFuture.allOf(informers.stream()
                .map(w -> w.informer().start())
                .toArray(CompletableFuture[]::new));
    }

    /** The object of {@code kind} under {@code storeKey} (namespace/name) in its informer's store now, or null. */
    GenericKubernetesResource current(ObjectKind kind, String storeKey) {
        return informers.stream()
                .filter(w -> w.kind() == kind)
                .map(w -> w.get(storeKey))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }

    static String storeKey(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** Each informer's kind and the keys its store holds now. */
    void forEachKey(BiConsumer<ObjectKind, String> action) {
        for (Watched watched : informers) {
            for (String key : watched.informer().current().getStore().listKeys()) {
                action.accept(watched.kind(), key);
            }
        }
    }

    /** Each informer's kind and the objects its store holds now. */
    void forEachObject(BiConsumer<ObjectKind, GenericKubernetesResource> action) {
        for (Watched watched : informers) {
            for (GenericKubernetesResource object : watched.informer().current().getStore().list()) {
                action.accept(watched.kind(), object);
            }
        }
    }

    /** The names of the EKS-A Clusters the informers hold now. */
    Set<String> clusterNames() {
        Set<String> clusters = new HashSet<>();
        informers.stream().filter(w -> w.kind() == ObjectKind.EKSA_CLUSTER).forEach(w -> w.informer()
                .current()
                .getStore()
                .list()
                .forEach(c -> clusters.add(c.getMetadata().getName())));
        return clusters;
    }

    private Watched watch(ObjectKind kind, String namespace) {
        return new Watched(
                kind,
                guard.guard(
                        kind.plural() + "." + kind.group(),
                        () -> {
                            // At the version read when made: a switch over makes a fresh one.
                            var resources =
                                    client.genericKubernetesResources(KubernetesResources.of(kind, versions.of(kind)));
                            var scope =
                                    namespace == null ? resources.inAnyNamespace() : resources.inNamespace(namespace);
                            return scope.withLimit(KubernetesResources.LIST_PAGE)
                                    .runnableInformer(0)
                                    .itemStore(new ReducedObjectStore(kind, client.getKubernetesSerialization()))
                                    .exceptionHandler((isStarted, failure) -> {
                                        if (notFound(failure)) {
                                            // Cluster API upgraded: the CRD no longer serves this version.
                                            versions.notServed(kind);
                                        }
                                        // As Fabric8 does without a handler.
                                        return isStarted && !(failure instanceof WatcherException);
                                    });
                        },
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(GenericKubernetesResource object) {
                                seen.seen(kind, object, false);
                            }

                            @Override
                            public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource after) {
                                if (!Objects.equals(
                                        before.getMetadata().getResourceVersion(),
                                        after.getMetadata().getResourceVersion())) {
                                    seen.seen(kind, after, false);
                                }
                            }

                            @Override
                            public void onDelete(GenericKubernetesResource object, boolean finalStateUnknown) {
                                seen.seen(kind, object, true);
                            }
                        }));
    }

    private static boolean notFound(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof KubernetesClientException refused && refused.getCode() == 404) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        informers.forEach(w -> w.informer().close());
    }
}
