package io.statusaggregator.management;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.ingest.ReducedObjectStore;
import io.statusaggregator.kubernetes.StalledWatchGuard;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.threads.DaemonThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * What every aggregating instance reads of the management cluster for itself: the {@code EKSARelease} objects and the
 * EKS-A version of each management Cluster. A handful of objects that every cluster's rules need, so not worth a
 * topic partitioned by cluster. Releases are unknown until the first list, so that none is reported missing for
 * want of a look.
 */
public final class ManagementClusterView implements Supplier<ManagementCluster>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ManagementClusterView.class);
    private static final ResourceDefinitionContext CLUSTERS = KubernetesResources.of(ObjectKind.EKSA_CLUSTER);

    private final List<StalledWatchGuard.GuardedInformer<GenericKubernetesResource>> informers = new ArrayList<>();
    /** Where the guard relists informers whose watch stalled, and tells of what was deleted meanwhile. */
    private final ScheduledExecutorService guardThread =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("management-view"));

    private KubernetesClient client;
    private StalledWatchGuard.GuardedInformer<GenericKubernetesResource> releases;
    /** The releases informer the view last read: a fresh one (at start, after a relist) is read once it has listed. */
    private volatile SharedIndexInformer<GenericKubernetesResource> releasesRead;
    /** The EKS-A version of each management Cluster, by namespace/name: only the few that manage themselves. */
    private final Map<String, Map.Entry<String, String>> managementVersions = new ConcurrentHashMap<>();
    private volatile ManagementCluster current = ManagementCluster.UNKNOWN;
    private CompletableFuture<Void> synced = new CompletableFuture<>();

    /**
     * @param clusterNamespaces  where EKS-A Clusters live; empty for every namespace
     * @param relistStalledAfter how long an informer may go without a running watch before it is replaced (see
     *                           {@link StalledWatchGuard})
     */
    public void watch(
            KubernetesClient client,
            String releaseNamespace,
            List<String> clusterNamespaces,
            Duration relistStalledAfter) {
        this.client = client;
        StalledWatchGuard guard = new StalledWatchGuard(relistStalledAfter, guardThread);
        releases = guard.guard(KubernetesResources.RELEASES.getPlural() + "." + KubernetesResources.RELEASES.getGroup(),
                () -> client.genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(releaseNamespace)
                        .withLimit(KubernetesResources.LIST_PAGE).runnableInformer(0), changes(true));
        informers.add(releases);
        for (String namespace :
                clusterNamespaces.isEmpty() ? Collections.<String>singletonList(null) : clusterNamespaces) {
            var resources = client.genericKubernetesResources(CLUSTERS);
            var scope = namespace == null ? resources.inAnyNamespace() : resources.inNamespace(namespace);
            // Every Cluster of the fleet: kept reduced, as ingest keeps them (the reduction keeps spec and status).
            informers.add(guard.guard(
                    CLUSTERS.getPlural() + "." + CLUSTERS.getGroup(),
                    () -> scope.withLimit(KubernetesResources.LIST_PAGE)
                            .runnableInformer(0)
                            .itemStore(new ReducedObjectStore(
                                    ObjectKind.EKSA_CLUSTER, client.getKubernetesSerialization())),
                    changes(false)));
        }
        // Without waiting: until the first list, nothing is known. synced() tells when it is.
        synced = CompletableFuture.allOf(
                informers.stream().map(StalledWatchGuard.GuardedInformer::start).toArray(CompletableFuture[]::new));
    }

    /** Keeps the management versions up to date per event: a Cluster changes with every status write. */
    private ResourceEventHandler<GenericKubernetesResource> changes(boolean ofReleases) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource object) {
                changed(object, false);
            }

            @Override
            public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource object) {
                changed(object, false);
            }

            @Override
            public void onDelete(GenericKubernetesResource object, boolean finalStateUnknown) {
                changed(object, true);
            }

            private void changed(GenericKubernetesResource object, boolean deleted) {
                if (!ofReleases) {
                    String key = object.getMetadata().getNamespace() + "/"
                            + object.getMetadata().getName();
                    Optional<Map.Entry<String, String>> version =
                            deleted ? Optional.empty() : managementVersion(object);
                    Map.Entry<String, String> before = version.isPresent()
                            ? managementVersions.put(key, version.get())
                            : managementVersions.remove(key);
                    if (Objects.equals(before, version.orElse(null))) {
                        return;
                    }
                }
                refresh();
            }
        };
    }

    private Optional<Map.Entry<String, String>> managementVersion(GenericKubernetesResource object) {
        if (managedByAnother(object)) {
            return Optional
                    .empty(); // nearly every event: a workload cluster's status written; no decoding, no spec hash
        }
        try {
            var decoded = ObjectDecoder.decode(asJson(object));
            if (decoded.isPresent() && decoded.get() instanceof EksaCluster cluster && cluster.isManagement()
                    && cluster.spec().eksaVersion().isPresent()) {
                return Optional.of(Map.entry(cluster.key().name(), cluster.spec().eksaVersion().get()));
            }
        } catch (MalformedObjectException e) {
            // Ingest reports a malformed Cluster; here it is simply no management cluster.
        }
        return Optional.empty();
    }

    /**
     * Whether {@code object} names another cluster as its manager ({@code spec.managementCluster.name}, not empty, not
     * its own name), read from the object as the informer holds it: then it is no management cluster, as
     * {@link EksaCluster#isManagement} decides. Anything else is decoded.
     */
    static boolean managedByAnother(GenericKubernetesResource object) {
        return object.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
                && spec.get("managementCluster") instanceof Map<?, ?> management
                && management.get("name") instanceof String name && !name.isEmpty()
                && object.getMetadata() != null && !name.equals(object.getMetadata().getName());
    }

    private synchronized void refresh() {
        // While a fresh informer lists (after a relist), the releases known before: not unknown for a moment.
        Optional<List<EksaRelease>> known = current.releases();
        SharedIndexInformer<GenericKubernetesResource> informer = releases == null ? null : releases.current();
        if (informer != null && informer.hasSynced()) {
            releasesRead = informer;
            List<EksaRelease> all = new ArrayList<>();
            for (GenericKubernetesResource release : informer.getStore().list()) {
                try {
                    all.add(ObjectDecoder.eksaRelease(asJson(release)));
                } catch (MalformedObjectException e) {
                    LOG.warnf("skipped EKSARelease %s: %s", release.getMetadata().getName(), e.getMessage());
                }
            }
            all.sort(Comparator.comparing(EksaRelease::name));
            known = Optional.of(all);
        }
        Map<String, String> versions = new HashMap<>();
        managementVersions.values().forEach(e -> versions.put(e.getKey(), e.getValue()));
        current = new ManagementCluster(known, versions);
    }

    private JsonNode asJson(GenericKubernetesResource object) {
        return client.getKubernetesSerialization().convertValue(object, JsonNode.class);
    }

    /** Completes once every informer has listed the API server: the API answers, and this account may read. */
    public CompletableFuture<Void> synced() {
        return synced;
    }

    @Override
    public ManagementCluster get() {
        if (releases != null && releases.current().hasSynced() && releases.current() != releasesRead) {
            refresh(); // listed, but no event need follow: none when there is no release at all
        }
        return current;
    }

    @Override
    public void close() {
        informers.forEach(StalledWatchGuard.GuardedInformer::close);
        guardThread.shutdownNow();
    }

    /**
     * Where this view's guard looks every second: another follower of the management cluster's reference objects may
     * guard its informer there too, rather than on a thread of its own. Shut down with this view.
     */
    public ScheduledExecutorService guardThread() {
        return guardThread;
    }
}
