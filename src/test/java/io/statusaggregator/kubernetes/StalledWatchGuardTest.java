package io.statusaggregator.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.mockwebserver.http.MockResponse;
import io.statusaggregator.threads.DaemonThreads;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.ForgetfulRestart;
import io.statusaggregator.pipeline.Waiting;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The guard on its own: ConfigMap informers on the mock API server, restarted as a server that compacted its history. */
class StalledWatchGuardTest {
    private static final Duration STALLED_AFTER = Duration.ofSeconds(1);
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private EmbeddedKubernetes kubernetes;
    /** The informers' client: a failed request is not tried again, so that a list fails at once. */
    private KubernetesClient client;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("guard-test"));
    private StalledWatchGuard guard;

    /** A guarded informer on one namespace's ConfigMaps, which tells what it sees and counts the informers made. */
    private final class Followed {
        final Set<String> present = ConcurrentHashMap.newKeySet();
        final AtomicInteger made = new AtomicInteger();
        /** How many times each ConfigMap was handed to onAdd. */
        final Map<String, Integer> added = new ConcurrentHashMap<>();
        final StalledWatchGuard.GuardedInformer<ConfigMap> informer;

        Followed(String namespace) {
            this(() -> client.configMaps().inNamespace(namespace));
        }

        /** Following the ConfigMaps {@code selected} selects when an informer is made. */
        Followed(Supplier<FilterWatchListDeletable<ConfigMap, ?, ?>> selected) {
            informer = guard.guard("configmaps", () -> {
                made.incrementAndGet();
                return selected.get().runnableInformer(0);
            }, new ResourceEventHandler<>() {
                @Override
                public void onAdd(ConfigMap map) {
                    present.add(map.getMetadata().getName());
                    added.merge(map.getMetadata().getName(), 1, Integer::sum);
                }

                @Override
                public void onUpdate(ConfigMap before, ConfigMap after) {
                }

                @Override
                public void onDelete(ConfigMap map, boolean finalStateUnknown) {
                    present.remove(map.getMetadata().getName());
                }
            });
        }
    }

    @BeforeEach
    void start() {
        kubernetes = EmbeddedKubernetes.start(0);
        client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(kubernetes.client().getConfiguration())
                .withRequestRetryBackoffLimit(0).build()).build();
        guard = new StalledWatchGuard(STALLED_AFTER, thread);
    }

    @AfterEach
    void stop() throws InterruptedException {
        thread.shutdownNow();
        thread.awaitTermination(5, TimeUnit.SECONDS);
        client.close();
        kubernetes.close();
    }

    private void configMap(String namespace, String name) {
        kubernetes.client().configMaps().inNamespace(namespace)
                .resource(new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build()).create();
    }

    /** Namespace one with the ConfigMaps "kept" and "deleted", followed and listed. */
    private Followed followedKeptAndDeleted() throws Exception {
        configMap("one", "kept");
        configMap("one", "deleted");
        Followed followed = new Followed("one");
        followed.informer.start().get(10, TimeUnit.SECONDS);
        // A synced informer has listed, but hands its events to the handler on a thread of its own.
        Waiting.until(DEADLINE, () -> followed.present.equals(Set.of("kept", "deleted")),
                () -> "the informer's first list reached the handler: " + followed.present);
        return followed;
    }

    /**
     * What changes while the informer cannot follow: "deleted" goes, "created" comes. Right after a restart the test's
     * own client may send on a connection the restart closed, and fail before the server saw the request; it asks
     * again then, as any client would.
     */
    private void deleteOneCreateOne() {
        againIfClosed(() -> kubernetes.client().configMaps().inNamespace("one").withName("deleted").delete());
        againIfClosed(() -> configMap("one", "created"));
    }

    private static void againIfClosed(Runnable request) {
        try {
            request.run();
        } catch (KubernetesClientException e) {
            if (!(e.getCause() instanceof io.vertx.core.http.HttpClosedException)) {
                throw e;
            }
            request.run();
        }
    }

    @Test
    void anInformerWhoseWatchIsRefusedListsAgainAndReportsWhatWasDeletedMeanwhile() throws Exception {
        Followed followed = followedKeptAndDeleted();

        AtomicInteger refused = ForgetfulRestart.restart(kubernetes);
        Waiting.until(DEADLINE, () -> refused.get() > 0, () -> "the watch was not refused");
        deleteOneCreateOne();

        Waiting.until(DEADLINE, () -> followed.present.equals(Set.of("kept", "created")),
                () -> "the informer follows the ConfigMaps after the refused watch: " + followed.present);
        assertEquals(2, followed.made.get(), "one fresh informer replaced the stalled one");
    }

    @Test
    void aFreshInformerWhoseListFailsIsReplacedUntilOneLists() throws Exception {
        Followed followed = followedKeptAndDeleted();

        // The API server restarts and then does not answer for these ConfigMaps: the watch stalls, and so does a fresh list.
        AtomicInteger lists = new AtomicInteger();
        kubernetes.answerInstead(request -> {
            if (!"GET".equals(request.getMethod()) || !request.getPath().startsWith("/api/v1/namespaces/one/configmaps")) {
                return null;
            }
            if (!request.getPath().contains("watch=true")) {
                lists.incrementAndGet();
            }
            return new MockResponse().setResponseCode(503).setBody("unavailable");
        });
        kubernetes.restart();
        deleteOneCreateOne();
        // At least one fresh informer: the guard replaces a failed one again about 2 s later, and a poll may miss the second.
        Waiting.until(DEADLINE, () -> lists.get() > 0 && !followed.informer.current().isRunning() && followed.made.get() >= 2,
                () -> "a fresh informer's list failed: " + lists.get() + " lists, " + followed.made.get() + " informers");

        kubernetes.answerInstead(null);
        Waiting.until(DEADLINE, () -> followed.present.equals(Set.of("kept", "created")),
                () -> "the informer follows the ConfigMaps once the API answers again: " + followed.present);
    }

    /**
     * A switch over, as ingest makes one when it reads a kind at another API version: here the informer made after
     * it selects another label, which "kept" carries too and "deleted" does not, as an object is found again at the
     * other version under the same key. While the fresh informer lists (held by the server here), the one before is
     * still read and nothing looks deleted; then "deleted" alone is reported gone, and "kept" is found again.
     */
    @Test
    void aSwitchOverKeepsTheOneBeforeReadableUntilTheFreshOneHasListed() throws Exception {
        labelled("kept", "before", "after");
        labelled("deleted", "before");
        labelled("created", "after");
        AtomicReference<String> label = new AtomicReference<>("before");
        Followed followed = new Followed(() -> client.configMaps().inNamespace("one").withLabel(label.get()));
        followed.informer.start().get(10, TimeUnit.SECONDS);
        Waiting.until(DEADLINE, () -> followed.present.equals(Set.of("kept", "deleted")),
                () -> "listed: " + followed.present);

        CountDownLatch listing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        kubernetes.answerInstead(request -> {
            String path = request.getPath();
            if (path.startsWith("/api/v1/namespaces/one/configmaps") && path.contains("labelSelector=after")
                    && !path.contains("watch=true")) {
                listing.countDown();
                try {
                    release.await(DEADLINE.toSeconds(), TimeUnit.SECONDS); // holds the fresh informer's list
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        });
        label.set("after");
        followed.informer.switchOver();
        assertTrue(listing.await(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the fresh informer never listed");
        assertEquals(Set.of("kept", "deleted"), followed.informer.current().getStore().list().stream()
                .map(map -> map.getMetadata().getName()).collect(Collectors.toSet()),
                "the one before is read meanwhile");
        assertEquals(Set.of("kept", "deleted"), followed.present, "nothing reported deleted while the fresh one lists");
        release.countDown();
        kubernetes.answerInstead(null);

        Waiting.until(DEADLINE, () -> followed.present.equals(Set.of("kept", "created")),
                () -> "after: " + followed.present);
        Waiting.until(DEADLINE, () -> followed.added.getOrDefault("kept", 0) == 2,
                () -> "kept found again: " + followed.added);
        assertEquals(2, followed.made.get());
    }

    private void labelled(String name, String... labels) {
        ConfigMapBuilder map = new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace("one")
                .endMetadata();
        for (String label : labels) {
            map.editMetadata().addToLabels(label, "yes").endMetadata();
        }
        kubernetes.client().configMaps().inNamespace("one").resource(map.build()).create();
    }

    @Test
    void aClosedInformerIsForgotten() throws Exception {
        Followed closed = new Followed("one");
        Followed open = new Followed("two");
        closed.informer.start().get(10, TimeUnit.SECONDS);
        open.informer.start().get(10, TimeUnit.SECONDS);
        closed.informer.close();

        ForgetfulRestart.restart(kubernetes);
        // Every guarded informer is looked at in the same pass: once the open one is replaced, the closed one would have been.
        Waiting.until(DEADLINE, () -> open.made.get() == 2, () -> "the open informer is not replaced");
        assertEquals(1, closed.made.get(), "the closed informer was replaced");
    }
}
