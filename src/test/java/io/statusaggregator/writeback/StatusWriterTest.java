package io.statusaggregator.writeback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.pipeline.LogCapture;
import io.statusaggregator.pipeline.Waiting;
import java.util.logging.Level;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Write-back against an API server that answers with conflicts, errors and 404s (Fabric8's mock in expectation mode). */
class StatusWriterTest {
    /** Each write names this aggregator as its field manager (a real API server records it in managedFields). */
    private static final String PATH = "/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/%s/"
            + "status?fieldManager=" + StatusWriter.FIELD_MANAGER;
    private KubernetesMockServer server;
    private StatusWriter writer;
    @RegisterExtension
    final LogCapture logged = new LogCapture(Level.WARNING);
    private final List<StatusWriter.Outcome> outcomes = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        writer = new StatusWriter(server.createClient(), new StatusWriter.Settings(2, Duration.ofMillis(20), Duration.ofMillis(200)),
                outcomes::add);
    }

    @AfterEach
    void stop() {
        writer.close();
        server.destroy();
    }

    private static ClusterStatus status(long generation) {
        return new ClusterStatus(generation, Optional.empty(), Optional.empty(), List.of(), List.of(), ClusterStatus.Versions.NONE);
    }

    private static final String OK = "{\"apiVersion\":\"anywhere.eks.amazonaws.com/v1alpha1\",\"kind\":\"Cluster\",\"metadata\":{\"name\":\"x\"}}";

    /** The API server's answer to a status patch: the Cluster, holding {@code status}. */
    private static String holding(ClusterStatus status) {
        return holding(status, "1");
    }

    /** The same, the Cluster at {@code resourceVersion} after the write. */
    private static String holding(ClusterStatus status, String resourceVersion) {
        ObjectNode cluster = JsonNodeFactory.instance.objectNode().put("apiVersion", "anywhere.eks.amazonaws.com/v1alpha1").put("kind", "Cluster");
        cluster.putObject("metadata").put("name", "x").put("namespace", "default").put("resourceVersion", resourceVersion);
        cluster.set("status", StatusEncoder.encode(status));
        return cluster.toString();
    }

    /** The {@code metadata.resourceVersion} of the next status patch the server took (empty for none). */
    private String nextPreconditon() throws Exception {
        io.fabric8.mockwebserver.http.RecordedRequest request = server.takeRequest(10, java.util.concurrent.TimeUnit.SECONDS);
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(request.getBody().readUtf8())
                .path("metadata").path("resourceVersion").asText("");
    }

    /**
     * A status computed from a Cluster that changed since: the API server refuses it on its precondition (409). Told
     * once, and not retried: written again it would be refused again, or undo the other writer's change.
     */
    @Test
    void aStatusComputedFromAChangedClusterIsReportedConflictedAndNotRetried() throws Exception {
        server.expect().patch().withPath(PATH.formatted("c")).andReturn(409, "{}").always();
        server.expect().patch().withPath(PATH.formatted("other")).andReturn(200, holding(status(1))).always();
        writer.submit(new ObjectKey("default", "c"), status(1), "41");
        Waiting.until(Duration.ofSeconds(10), () -> !outcomes.isEmpty(), () -> "no outcome");
        assertEquals("41", nextPreconditon(), "written on condition of the version it was computed from");
        // Another cluster's write after it, on the same two writer threads: a retry of the first would come meanwhile.
        for (int i = 1; i <= 5; i++) {
            int written = i + 1;
            writer.submit(new ObjectKey("default", "other"), status(i), "");
            Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() >= written, () -> "outcomes: " + outcomes);
        }
        assertEquals(new StatusWriter.Conflicted(new ObjectKey("default", "c"), status(1), "41"), outcomes.get(0));
        assertEquals(6, server.getRequestCount(), "one PATCH of the conflicted cluster, not retried");
        assertEquals(0, writer.writes() - 5);
    }

    /**
     * This writer's own writes move the Cluster's version: a status computed from a version they led on from (their
     * echoes not read yet) is written on condition of the version the last of them made; one computed from a version
     * they did not make (another writer's), of that.
     */
    @Test
    void aStatusComputedBeforeTheEchoesOfTheLastWritesIsWrittenOnConditionOfTheVersionTheyMade() throws Exception {
        ObjectKey cluster = new ObjectKey("default", "d");
        List<String> made = List.of("42", "43", "44", "46");
        for (int i = 0; i < made.size(); i++) {
            server.expect().patch().withPath(PATH.formatted("d")).andReturn(200, holding(status(i + 1), made.get(i))).once();
        }
        List<String> bases = List.of("41", "41", "42", "45"); // the third computed from the first's echo; the fourth after another writer
        for (int i = 0; i < bases.size(); i++) {
            int written = i + 1;
            writer.submit(cluster, status(written), bases.get(i));
            Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() == written, () -> "outcomes: " + outcomes);
        }
        assertEquals(List.of("41", "42", "43", "45"), List.of(nextPreconditon(), nextPreconditon(), nextPreconditon(), nextPreconditon()));
        assertTrue(outcomes.stream().allMatch(StatusWriter.Written.class::isInstance), "all written: " + outcomes);
    }

    @Test
    void aConflictIsRetriedAndTheStatusWritten() {
        server.expect().patch().withPath(PATH.formatted("a")).andReturn(409, "{}").times(2);
        server.expect().patch().withPath(PATH.formatted("a")).andReturn(200, holding(status(1))).once();
        writer.submit(new ObjectKey("default", "a"), status(1), "");
        Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() == 1, () -> "outcomes: " + outcomes);
        assertEquals(new StatusWriter.Written(new ObjectKey("default", "a"), status(1), status(1)), outcomes.get(0));
        assertEquals(2, writer.failures());
        assertEquals(1, writer.writes());
    }

    @Test
    void stoppingLetsTheWriteUnderWayFinish() {
        // The API server takes a second to answer: the write is under way when the writer is told to stop.
        server.expect().patch().delay(1, java.util.concurrent.TimeUnit.SECONDS).withPath(PATH.formatted("slow")).andReturn(200, holding(status(1))).once();
        writer.submit(new ObjectKey("default", "slow"), status(1), "");
        Waiting.until(Duration.ofSeconds(10), () -> server.getRequestCount() >= 1, () -> "the write never reached the server");
        writer.finish(Duration.ofSeconds(10));
        assertEquals(List.of(new StatusWriter.Written(new ObjectKey("default", "slow"), status(1), status(1))), outcomes,
                "finished before stop returned");
        assertEquals(1, writer.writes());
    }

    @Test
    void aFailingClusterHoldsUpNoOther() {
        server.expect().patch().withPath(PATH.formatted("broken")).andReturn(503, "{}").always();
        server.expect().patch().withPath(PATH.formatted("fine")).andReturn(200, OK).always();
        writer.submit(new ObjectKey("default", "broken"), status(1), "");
        for (int i = 0; i < 5; i++) {
            writer.submit(new ObjectKey("default", "fine" ), status(i + 1), "");
            int written = i + 1;
            Waiting.until(Duration.ofSeconds(10), () -> outcomes.stream().filter(o -> o.cluster().name().equals("fine")).count() >= written,
                    () -> "outcomes: " + outcomes);
        }
        Waiting.until(Duration.ofSeconds(10), () -> writer.failures() >= 3, () -> "the broken cluster is not retried: " + writer.failures());
        assertTrue(outcomes.stream().noneMatch(o -> o.cluster().name().equals("broken")), "and is never reported written");
    }

    /** A cluster whose partition moved to another instance: its retries stop, and no outcome is told of it. */
    @Test
    void anAbandonedClustersRetriesStop() {
        server.expect().patch().withPath(PATH.formatted("moved")).andReturn(503, "{}").always();
        server.expect().patch().withPath(PATH.formatted("kept")).andReturn(200, holding(status(1))).always();
        writer.submit(new ObjectKey("default", "moved"), status(1), "");
        Waiting.until(Duration.ofSeconds(10), () -> writer.failures() >= 3, () -> "the failing cluster is not retried: " + writer.failures());
        writer.abandon(cluster -> cluster.name().equals("moved"));
        long failures = writer.failures();
        // Twenty writes of another cluster, one after the other: the moved one, retried every 20 to 200 ms, would fail meanwhile.
        for (int i = 1; i <= 20; i++) {
            int written = i;
            writer.submit(new ObjectKey("default", "kept"), status(1), "");
            Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() >= written, () -> "outcomes: " + outcomes);
        }
        assertTrue(writer.failures() <= failures + 1, "at most the attempt under way when abandoned: " + (writer.failures() - failures));
        assertTrue(outcomes.stream().noneMatch(o -> o.cluster().name().equals("moved")), "no outcome of it: " + outcomes);
    }

    @Test
    void aGoneClusterIsReportedOnceAndNotRetried() {
        server.expect().patch().withPath(PATH.formatted("gone")).andReturn(404, "{}").always();
        writer.submit(new ObjectKey("default", "gone"), status(1), "");
        Waiting.until(Duration.ofSeconds(10), () -> !outcomes.isEmpty(), () -> "no outcome");
        assertEquals(1, server.getRequestCount(), "one PATCH, nothing else, not retried");
        assertEquals(List.of(new StatusWriter.Gone(new ObjectKey("default", "gone"))), outcomes);
        assertEquals(1, writer.failures());
    }

    @Test
    void theNewestStatusSubmittedWhileAWriteRetriesIsTheOneWritten() {
        server.expect().patch().withPath(PATH.formatted("b")).andReturn(500, "{}").times(3);
        server.expect().patch().withPath(PATH.formatted("b")).andReturn(200, holding(status(2))).always();
        writer.submit(new ObjectKey("default", "b"), status(1), "");
        writer.submit(new ObjectKey("default", "b"), status(2), "");
        Waiting.until(Duration.ofSeconds(10), () -> outcomes.stream().anyMatch(o -> o.equals(
                new StatusWriter.Written(new ObjectKey("default", "b"), status(2), status(2)))), () -> "outcomes: " + outcomes);
    }

    /**
     * A refusal is of the request that was sent: a newer status submitted meanwhile is written, not reported refused
     * unsent, which would leave the cluster's newest status unwritten until its next change.
     */
    @Test
    void aStatusSubmittedWhileAnotherIsRefusedIsWritten() {
        server.expect().patch().delay(500, java.util.concurrent.TimeUnit.MILLISECONDS).withPath(PATH.formatted("r"))
                .andReturn(422, "{}").once();
        server.expect().patch().withPath(PATH.formatted("r")).andReturn(200, holding(status(2))).always();
        writer.submit(new ObjectKey("default", "r"), status(1), "");
        Waiting.until(Duration.ofSeconds(10), () -> server.getRequestCount() >= 1, () -> "the write never reached the server");
        writer.submit(new ObjectKey("default", "r"), status(2), "");
        Waiting.until(Duration.ofSeconds(10), () -> !outcomes.isEmpty(), () -> "no outcome");
        assertEquals(List.of(new StatusWriter.Written(new ObjectKey("default", "r"), status(2), status(2))), outcomes);
        assertEquals(2, server.getRequestCount(), "the refused status once, then the newer one");
        assertTrue(logged.lines().stream().anyMatch(line -> line.contains("refused the status of cluster default/r")), logged.lines().toString());
    }

    /** A refusal with nothing newer submitted is reported once, with the status it refused, and not retried. */
    @Test
    void aRefusedStatusIsReportedOnceAndNotRetried() {
        server.expect().patch().withPath(PATH.formatted("r")).andReturn(422, "{}").always();
        writer.submit(new ObjectKey("default", "r"), status(1), "");
        Waiting.until(Duration.ofSeconds(10), () -> !outcomes.isEmpty(), () -> "no outcome");
        assertEquals(1, server.getRequestCount());
        assertTrue(outcomes.get(0) instanceof StatusWriter.Refused refused && refused.status().equals(status(1)), outcomes.toString());
    }

    /**
     * An API server whose Cluster CRD lacks some of the status's fields (EKS-A's own has no {@code defaultCNI},
     * {@code workerNodeGroups} or {@code versions}) answers with the Cluster as it kept it: the outcome says what was
     * kept, so that aggregation does not write the dropped fields again and again, and the log says which, once.
     */
    @Test
    void whatTheApiServerKeptOfAStatusIsReportedAndThePrunedFieldsToldOnce() {
        ClusterStatus whole = new ClusterStatus(3, Optional.empty(), Optional.of(new ClusterStatus.DefaultCni(Cni.CILIUM, "v1.15.16-eksa.1",
                ClusterStatus.CniState.APPLIED)), List.of(), List.of(), new ClusterStatus.Versions(Optional.of("v0.23.1#abc"), Optional.empty(),
                Optional.empty(), Optional.empty()));
        ClusterStatus kept = new ClusterStatus(3, Optional.empty(), Optional.empty(), List.of(), List.of(), ClusterStatus.Versions.NONE);
        server.expect().patch().withPath(PATH.formatted("pruned")).andReturn(200, holding(kept)).always();
        for (int write = 1; write <= 2; write++) {
            int outcome = write;
            writer.submit(new ObjectKey("default", "pruned"), whole, "");
            Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() == outcome, () -> "outcomes: " + outcomes);
        }
        // Another cluster whose status drops only some of those fields tells nothing new.
        ClusterStatus noCni = new ClusterStatus(3, Optional.empty(), Optional.empty(), List.of(), List.of(), whole.versions());
        server.expect().patch().withPath(PATH.formatted("other")).andReturn(200, holding(kept)).always();
        writer.submit(new ObjectKey("default", "other"), noCni, "");
        Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() == 3, () -> "outcomes: " + outcomes);
        assertEquals(new StatusWriter.Written(new ObjectKey("default", "pruned"), whole, kept), outcomes.get(0));
        List<String> told = logged.lines().stream().filter(m -> m.contains("did not keep")).toList();
        assertEquals(1, told.size(), "once: " + logged.lines());
        assertTrue(told.get(0).contains(": the API server did not keep status.defaultCNI, status.versions of cluster default/pruned as written"),
                told.get(0));
    }

    @Test
    void aMergePatchNullsEveryOwnedFieldThatIsEmptyNow() {
        // A merge patch leaves alone what it does not name: an empty field left out would keep its old value.
        assertEquals("{\"status\":{\"observedGeneration\":7,\"conditions\":[],\"failureReason\":null,\"failureMessage\":null,"
                + "\"defaultCNI\":{\"version\":null},\"workerNodeGroups\":null,"
                + "\"versions\":{\"next\":null,\"current\":null,\"last\":null,\"currentKubernetes\":null}}}",
                StatusSubresource.mergePatch(status(7), ""));
    }
}
