package io.statusaggregator.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link CoreEvents} without a server: an {@code events.k8s.io/v1} Event as {@code v1}, field by field as Kubernetes
 * converts it; the field selectors kubectl sends, matched as a real API server matches them; and the answers to the
 * paths it reads, from what the mock server stores under either API.
 */
class CoreEventsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** As EventRecorder writes one, raised to a series of 2. */
    private static final String RECORDED = """
            {"apiVersion": "events.k8s.io/v1", "kind": "Event",
             "metadata": {"name": "alpha.1879f0a3c2d4e5f6", "namespace": "default", "resourceVersion": "42", "uid": "e-1"},
             "eventTime": "2026-11-25T22:20:50.123456Z", "reportingController": "statusaggregator.io/status-aggregator",
             "reportingInstance": "status-aggregator-0", "action": "UpdateStatus", "type": "Warning",
             "reason": "MachineDeploymentNotReady", "note": "Machine deployment alpha-md-0 not ready yet",
             "regarding": {"apiVersion": "anywhere.eks.amazonaws.com/v1alpha1", "kind": "Cluster", "namespace": "default",
                           "name": "alpha", "uid": "c-1"},
             "series": {"count": 2, "lastObservedTime": "2026-11-25T22:20:51.000001Z"}}""";

    @Test
    void anEventsV1EventReadsAsV1AsKubernetesConvertsIt() throws Exception {
        assertEquals(JSON.readTree("""
                {"kind": "Event", "apiVersion": "v1",
                 "metadata": {"name": "alpha.1879f0a3c2d4e5f6", "namespace": "default", "resourceVersion": "42", "uid": "e-1"},
                 "involvedObject": {"apiVersion": "anywhere.eks.amazonaws.com/v1alpha1", "kind": "Cluster", "namespace": "default",
                                    "name": "alpha", "uid": "c-1"},
                 "reason": "MachineDeploymentNotReady", "message": "Machine deployment alpha-md-0 not ready yet",
                 "source": {}, "firstTimestamp": null, "lastTimestamp": null, "type": "Warning",
                 "eventTime": "2026-11-25T22:20:50.123456Z",
                 "series": {"count": 2, "lastObservedTime": "2026-11-25T22:20:51.000001Z"},
                 "action": "UpdateStatus", "reportingComponent": "statusaggregator.io/status-aggregator",
                 "reportingInstance": "status-aggregator-0"}"""), CoreEvents.toCore(JSON.readTree(RECORDED)));
    }

    @Test
    void theDeprecatedFieldsAreTheOldOnesAndNothingElseFillsThem() throws Exception {
        JsonNode core = CoreEvents.toCore(JSON.readTree("""
                {"metadata": {"name": "e"}, "note": "n", "related": {"kind": "Machine", "name": "m"},
                 "deprecatedSource": {"component": "kubelet", "host": "node-1"}, "deprecatedCount": 3,
                 "deprecatedFirstTimestamp": "2026-11-25T22:00:00Z", "deprecatedLastTimestamp": "2026-11-25T22:05:00Z"}"""));

        assertEquals("kubelet", core.path("source").path("component").asText());
        assertEquals("node-1", core.path("source").path("host").asText());
        assertEquals(3, core.path("count").asInt());
        assertEquals("2026-11-25T22:00:00Z", core.path("firstTimestamp").asText());
        assertEquals("2026-11-25T22:05:00Z", core.path("lastTimestamp").asText());
        assertEquals("Machine", core.path("related").path("kind").asText());
        assertEquals("", core.path("reportingComponent").asText());
        assertTrue(core.path("eventTime").isNull());
        assertFalse(core.has("series"));
        assertFalse(CoreEvents.toCore(JSON.readTree(RECORDED)).has("count"), "no deprecatedCount, no count");
    }

    @Test
    void theSelectorsKubectlSendsMatchTheClustersEventsOnly() throws Exception {
        JsonNode core = CoreEvents.toCore(JSON.readTree(RECORDED));
        // kubectl describe: the object's name, namespace, kind and uid.
        assertTrue(CoreEvents.FieldSelector.parse("involvedObject.name=alpha,involvedObject.namespace=default,"
                + "involvedObject.kind=Cluster,involvedObject.uid=c-1").matches(core));
        assertFalse(CoreEvents.FieldSelector.parse("involvedObject.name=alpha,involvedObject.namespace=default,"
                + "involvedObject.kind=Cluster,involvedObject.uid=c-0").matches(core), "a Cluster of the same name made before");
        // kubectl events --for: kind, apiVersion and name.
        assertTrue(CoreEvents.FieldSelector.parse("involvedObject.kind=Cluster,"
                + "involvedObject.apiVersion=anywhere.eks.amazonaws.com/v1alpha1,involvedObject.name=alpha").matches(core));
        assertFalse(CoreEvents.FieldSelector.parse("involvedObject.kind=Cluster,"
                + "involvedObject.apiVersion=cluster.x-k8s.io/v1beta1,involvedObject.name=alpha").matches(core), "CAPI's Cluster alpha");
        assertTrue(CoreEvents.FieldSelector.parse("").matches(core));
        assertTrue(CoreEvents.FieldSelector.parse(null).matches(core));
    }

    @Test
    void aSelectorTakesEveryOperatorEscapesAndTheFieldsARealServerSelectsBy() throws Exception {
        JsonNode core = CoreEvents.toCore(JSON.readTree(RECORDED));
        assertTrue(CoreEvents.FieldSelector.parse("type==Warning,reason!=Ready").matches(core));
        assertFalse(CoreEvents.FieldSelector.parse("type!=Warning").matches(core));
        assertTrue(CoreEvents.FieldSelector.parse("source=statusaggregator.io/status-aggregator").matches(core),
                "source is the reporting component where no source.component is set");
        assertTrue(CoreEvents.FieldSelector.parse("reportingComponent=statusaggregator.io/status-aggregator,metadata.namespace=default")
                .matches(core));
        JsonNode odd = CoreEvents.toCore(JSON.readTree("{\"reason\": \"a,b=c\"}"));
        assertTrue(CoreEvents.FieldSelector.parse("reason=a\\,b\\=c").matches(odd));

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> CoreEvents.FieldSelector.parse("note=x"));
        assertEquals("field label not supported: note", unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CoreEvents.FieldSelector.parse("type"));
    }

    /**
     * What the mock server stores: one Event per API in default, one events.k8s.io one in another namespace. As Fabric8
     * does, a v1 list holds the events.k8s.io ones too, unconverted.
     */
    private static final Map<String, String> STORED = Map.of(
            "/apis/events.k8s.io/v1/namespaces/default/events", list(RECORDED),
            "/api/v1/namespaces/default/events", list(RECORDED, """
                    {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "old", "namespace": "default"},
                     "involvedObject": {"kind": "Cluster", "name": "bravo"}, "reason": "Old", "type": "Normal", "message": "m"}"""),
            "/apis/events.k8s.io/v1/events", list(RECORDED, RECORDED.replace("\"default\"", "\"other\"")),
            "/api/v1/events", list());
    private static final Function<String, MockResponse> MOCK = path -> Optional.ofNullable(STORED.get(path))
            .map(body -> new MockResponse().setResponseCode(200).setBody(body))
            .orElseGet(() -> new MockResponse().setResponseCode(200).setBody(list()));

    private static String list(String... items) {
        return "{\"kind\": \"List\", \"metadata\": {\"resourceVersion\": \"50\"}, \"items\": [" + String.join(",", items) + "]}";
    }

    private static JsonNode answer(String path, int code) throws Exception {
        MockResponse response = CoreEvents.answer(path, MOCK).orElseThrow();
        assertEquals(code, response.code(), path);
        return JSON.readTree(response.getBody().getBytes());
    }

    private static List<String> names(JsonNode list) {
        return java.util.stream.StreamSupport.stream(list.path("items").spliterator(), false)
                .map(e -> e.path("metadata").path("name").asText()).toList();
    }

    @Test
    void aV1ListHoldsTheEventsOfBothApisSelectedByField() throws Exception {
        JsonNode all = answer("/api/v1/namespaces/default/events?limit=500", 200);
        assertEquals("EventList", all.path("kind").asText());
        assertEquals("50", all.path("metadata").path("resourceVersion").asText());
        assertEquals(List.of("alpha.1879f0a3c2d4e5f6", "old"), names(all), "each Event once");
        assertEquals(List.of("v1", "v1"), java.util.stream.StreamSupport.stream(all.path("items").spliterator(), false)
                .map(e -> e.path("apiVersion").asText()).toList());
        assertEquals("Machine deployment alpha-md-0 not ready yet", all.path("items").get(0).path("message").asText());

        assertEquals(List.of("alpha.1879f0a3c2d4e5f6"), names(answer("/api/v1/namespaces/default/events?fieldSelector="
                + "involvedObject.name%3Dalpha%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.kind%3DCluster%2CinvolvedObject.uid%3Dc-1"
                + "&limit=500", 200)));
        assertEquals(List.of("old"), names(answer("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dbravo", 200)));
        assertEquals(2, names(answer("/api/v1/events?fieldSelector=involvedObject.name%3Dalpha", 200)).size(), "every namespace");
    }

    @Test
    void oneV1EventByNameAndWhatIsNotAnEventsRead() throws Exception {
        assertEquals("Warning", answer("/api/v1/namespaces/default/events/alpha.1879f0a3c2d4e5f6", 200).path("type").asText());
        assertEquals("NotFound", answer("/api/v1/namespaces/default/events/zulu", 404).path("reason").asText());
        assertEquals("field label not supported: note", answer("/api/v1/namespaces/default/events?fieldSelector=note%3Dx", 400)
                .path("message").asText());
        assertTrue(CoreEvents.answer("/apis/events.k8s.io/v1/namespaces/default/events", MOCK).isEmpty(), "events.k8s.io: the mock's own");
        assertTrue(CoreEvents.answer("/api/v1/namespaces/default/configmaps", MOCK).isEmpty());
        assertTrue(CoreEvents.answer("/api/v1/events/alpha", MOCK).isEmpty(), "no such path");
    }
}
