package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import io.statusaggregator.pipeline.Waiting;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The embedded API server's watches resume from a resourceVersion as a real API server's do: an informer whose watch
 * ends misses no deletion (Fabric8's mock server lost those made while no watch was open, and those made while a
 * watch's WebSocket was opening).
 */
class ResumableWatchesTest {
    private static final String NAMESPACE = "watched";

    @Test
    void aWatchFromAListsVersionIsToldOfWhatChangedSinceAndNotOfWhatWasListed() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            KubernetesClient client = kubernetes.client();
            List.of("kept", "deleted", "changed").forEach(name -> create(client, name));
            String listed = client.configMaps().inNamespace(NAMESPACE).list().getMetadata().getResourceVersion();
            client.configMaps().inNamespace(NAMESPACE).withName("deleted").delete();
            client.configMaps().inNamespace(NAMESPACE).withName("changed").edit(cm -> new ConfigMapBuilder(cm).addToData("k", "v").build());

            List<String> events = new CopyOnWriteArrayList<>();
            List<Long> versions = new CopyOnWriteArrayList<>();
            try (Watch watch = client.configMaps().inNamespace(NAMESPACE).watch(new ListOptionsBuilder().withResourceVersion(listed).build(),
                    recording(events, versions))) {
                Waiting.until(Duration.ofSeconds(30), () -> events.size() >= 2, () -> "the deletion and the change made after the list");
                assertEquals(List.of("DELETED deleted", "ADDED changed"), events,
                        "the deletion first, then the change; the object listed and not changed since is not announced again");
                assertTrue(versions.get(0) > Long.parseLong(listed), "a deletion has a version of its own, after the list's: " + versions);

                create(client, "created");
                Waiting.until(Duration.ofSeconds(30), () -> events.size() >= 3, () -> "a change made once the watch is open");
                assertEquals("ADDED created", events.get(2));
            }
        }
    }

    @Test
    void anInformerWhoseWatchEndsMissesNoDeletionMadeBeforeItsNextWatch() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0); KubernetesClient informing = kubernetes.newClient()) {
            List.of("a", "b", "c").forEach(name -> create(kubernetes.client(), name));
            try (SharedIndexInformer<ConfigMap> informer = informing.configMaps().inNamespace(NAMESPACE).inform()) {
                Waiting.until(Duration.ofSeconds(30), () -> informer.getStore().list().size() == 3, () -> "the informer lists the three objects");
                // Every watch ends, as when an API server restarts; the informer opens its next from the last version it saw,
                // a second later: the deletion comes in between.
                kubernetes.restart();
                kubernetes.client().configMaps().inNamespace(NAMESPACE).withName("b").delete();
                Waiting.until(Duration.ofSeconds(30), () -> informer.getStore().getByKey(NAMESPACE + "/b") == null, () -> "the informer learns of the deletion");
                assertEquals(2, informer.getStore().list().size());
            }
        }
    }

    /** A deletion made between a watch's request and its socket's opening reaches the socket once it opens. */
    @Test
    void aDeletionMadeWhileTheWatchsSocketIsOpeningReachesItOnceOpen() {
        MergePatchingDispatcher dispatcher = new MergePatchingDispatcher();
        String configMaps = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
        MockResponse created = dispatcher.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.POST, configMaps,
                Headers.builder().add("Content-Type", "application/json").build(), new Buffer("""
                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "%s", "name": "early"}}""".formatted(NAMESPACE)
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        assertEquals(201, created.code());
        MockResponse watch = dispatcher.dispatch(request(HttpMethod.GET, configMaps + "?watch=true"));
        assertEquals(200, dispatcher.dispatch(request(HttpMethod.DELETE, configMaps + "/early")).code());

        List<String> sent = new CopyOnWriteArrayList<>();
        watch.getWebSocketListener().onOpen(recordingSocket(sent), watch);
        Waiting.until(Duration.ofSeconds(30), () -> sent.stream().anyMatch(event -> event.contains("DELETED") && event.contains("\"early\"")),
                () -> "the deletion made before the socket opened; sent: " + sent);
    }

    /**
     * A watch of one object by name (as the CNI observer's of each kubeconfig secret) is announced from the store's name
     * index, not by testing every stored object: it is told of that object alone, not of one of the same name in
     * another namespace or of another kind, then of its changes and its deletion.
     */
    @Test
    void aWatchOfOneNameIsToldOfThatObjectAloneThenOfItsChanges() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0)) {
            KubernetesClient client = kubernetes.client();
            List.of("one", "other").forEach(name -> create(client, name));
            client.configMaps().inNamespace("elsewhere").resource(new ConfigMapBuilder().withNewMetadata().withName("one")
                    .withNamespace("elsewhere").endMetadata().build()).create();
            client.secrets().inNamespace(NAMESPACE).resource(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata()
                    .withName("one").withNamespace(NAMESPACE).endMetadata().build()).create();

            List<String> events = new CopyOnWriteArrayList<>();
            try (Watch watch = client.configMaps().inNamespace(NAMESPACE).withName("one").watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, ConfigMap object) {
                    events.add(action + " " + object.getMetadata().getNamespace() + "/" + object.getMetadata().getName()
                            + (object.getData() == null ? "" : " " + object.getData()));
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            })) {
                Waiting.until(Duration.ofSeconds(30), () -> !events.isEmpty(), () -> "the object announced");
                client.configMaps().inNamespace(NAMESPACE).withName("other").edit(cm -> new ConfigMapBuilder(cm).addToData("k", "other").build());
                client.configMaps().inNamespace(NAMESPACE).withName("one").edit(cm -> new ConfigMapBuilder(cm).addToData("k", "v").build());
                client.configMaps().inNamespace(NAMESPACE).withName("one").delete();
                Waiting.until(Duration.ofSeconds(30), () -> events.size() >= 3, () -> "its change and its deletion, got " + events);
                assertEquals(List.of("ADDED watched/one {}", "MODIFIED watched/one {k=v}", "DELETED watched/one {k=v}"), events);
            }
        }
    }

    private static RecordedRequest request(HttpMethod method, String path) {
        return new RecordedRequest("HTTP/1.1", method, path, Headers.builder().build(), new Buffer());
    }

    @Test
    void aWatchFromBeforeTheDeletionsKeptOfItsResourceIsTakenAsHavingMissedOne() {
        ResumableWatches watches = new ResumableWatches(2);
        watches.deleted(key("first"), object("first"), 10);
        watches.deleted(key("second"), object("second"), 11);
        AttributeSet configMaps = AttributeSet.map(PLURAL, new Attribute("namespace", NAMESPACE));
        assertFalse(watches.forgotten(configMaps, 5), "every deletion is still kept");
        watches.deleted(key("third"), object("third"), 12);

        assertTrue(watches.forgotten(configMaps, 9), "the deletion at 10 is no longer kept: a watch from 9 may have missed it");
        assertFalse(watches.forgotten(configMaps, 10), "a watch from 10 has seen it");
        AttributeSet secrets = AttributeSet.map(new Attribute("plural", "secrets"), new Attribute("namespace", NAMESPACE));
        assertFalse(watches.forgotten(secrets, 1), "nothing of another resource was deleted: its watch from long ago misses nothing");
        List<String> told = watches.deletedAfter(10, configMaps);
        assertEquals(2, told.size(), told.toString());
        assertTrue(told.get(0).contains("\"resourceVersion\":\"11\"") && told.get(0).startsWith("{\"type\":\"DELETED\""), told.get(0));
        assertEquals(List.of(), watches.deletedAfter(10, AttributeSet.map(PLURAL, new Attribute("namespace", "elsewhere"))),
                "only the deletions the watch selects");
        assertEquals(List.of(), watches.deletedAfter(10, secrets));
        assertEquals(410, ResumableWatches.expired(9).code());
    }

    @Test
    void theVersionAndNameAWatchAsksForAreReadAsFabric8AndKubectlSendThem() {
        assertEquals(OptionalLong.of(42), ResumableWatches.fromVersion("/api/v1/configmaps?watch=true&resourceVersion=42&timeoutSeconds=5"));
        assertEquals(OptionalLong.empty(), ResumableWatches.fromVersion("/api/v1/configmaps?watch=true&resourceVersion=0"));
        assertEquals(OptionalLong.empty(), ResumableWatches.fromVersion("/api/v1/configmaps?watch=true&resourceVersion="));
        assertEquals(OptionalLong.empty(), ResumableWatches.fromVersion("/api/v1/configmaps?watch=true&resourceVersion=x1"));
        AttributeSet named = ResumableWatches.selection(new AttributeSet(), "/api/v1/configmaps?fieldSelector=metadata.name%3Dbravo&watch=true");
        assertTrue(key("bravo").matches(named) && !key("alpha").matches(named), named.toString());
    }

    private static final Attribute PLURAL = new Attribute("plural", "configmaps");

    private static AttributeSet key(String name) {
        return AttributeSet.map(PLURAL, new Attribute("namespace", NAMESPACE), new Attribute("name", name));
    }

    private static String object(String name) {
        return "{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\",\"resourceVersion\":\"1\"}}".formatted(NAMESPACE, name);
    }

    private static void create(KubernetesClient client, String name) {
        client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .withNamespace(NAMESPACE).endMetadata().withData(Map.of()).build()).create();
    }

    private static Watcher<ConfigMap> recording(List<String> events, List<Long> versions) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, ConfigMap object) {
                versions.add(Long.parseLong(object.getMetadata().getResourceVersion()));
                events.add(action + " " + object.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        };
    }

    private static WebSocket recordingSocket(List<String> sent) {
        return new WebSocket() {
            @Override
            public RecordedRequest request() {
                return null;
            }

            @Override
            public boolean send(String text) {
                sent.add(text);
                return true;
            }

            @Override
            public boolean send(byte[] bytes) {
                return send(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
            }

            @Override
            public boolean close(int code, String reason) {
                return true;
            }
        };
    }
}
