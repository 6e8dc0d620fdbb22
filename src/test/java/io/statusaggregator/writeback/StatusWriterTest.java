package io.statusaggregator.writeback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.pipeline.Waiting;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Write-back against an API server that answers with conflicts, errors and 404s (Fabric8's mock in expectation mode). */
class StatusWriterTest {
    private static final String PATH = "/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/%s/status";
    private KubernetesMockServer server;
    private StatusWriter writer;
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

    @Test
    void aConflictIsRetriedAndTheStatusWritten() {
        server.expect().patch().withPath(PATH.formatted("a")).andReturn(409, "{}").times(2);
        server.expect().patch().withPath(PATH.formatted("a")).andReturn(200, OK).once();
        writer.submit(new ObjectKey("default", "a"), status(1));
        Waiting.until(Duration.ofSeconds(10), () -> outcomes.size() == 1, () -> "outcomes: " + outcomes);
        assertEquals(new StatusWriter.Written(new ObjectKey("default", "a"), status(1)), outcomes.get(0));
        assertEquals(2, writer.failures());
        assertEquals(1, writer.writes());
    }

    @Test
    void stoppingLetsTheWriteUnderWayFinish() {
        // The API server takes a second to answer: the write is under way when the writer is told to stop.
        server.expect().patch().delay(1, java.util.concurrent.TimeUnit.SECONDS).withPath(PATH.formatted("slow")).andReturn(200, OK).once();
        writer.submit(new ObjectKey("default", "slow"), status(1));
        Waiting.until(Duration.ofSeconds(10), () -> server.getRequestCount() >= 1, () -> "the write never reached the server");
        writer.finish(Duration.ofSeconds(10));
        assertEquals(List.of(new StatusWriter.Written(new ObjectKey("default", "slow"), status(1))), outcomes,
                "finished before stop returned");
        assertEquals(1, writer.writes());
    }

    @Test
    void aFailingClusterHoldsUpNoOther() {
        server.expect().patch().withPath(PATH.formatted("broken")).andReturn(503, "{}").always();
        server.expect().patch().withPath(PATH.formatted("fine")).andReturn(200, OK).always();
        writer.submit(new ObjectKey("default", "broken"), status(1));
        for (int i = 0; i < 5; i++) {
            writer.submit(new ObjectKey("default", "fine" ), status(i + 1));
            int written = i + 1;
            Waiting.until(Duration.ofSeconds(10), () -> outcomes.stream().filter(o -> o.cluster().name().equals("fine")).count() >= written,
                    () -> "outcomes: " + outcomes);
        }
        Waiting.until(Duration.ofSeconds(10), () -> writer.failures() >= 3, () -> "the broken cluster is not retried: " + writer.failures());
        assertTrue(outcomes.stream().noneMatch(o -> o.cluster().name().equals("broken")), "and is never reported written");
    }

    @Test
    void aGoneClusterIsReportedOnceAndNotRetried() {
        server.expect().patch().withPath(PATH.formatted("gone")).andReturn(404, "{}").always();
        writer.submit(new ObjectKey("default", "gone"), status(1));
        Waiting.until(Duration.ofSeconds(10), () -> !outcomes.isEmpty(), () -> "no outcome");
        assertEquals(1, server.getRequestCount(), "one PATCH, nothing else, not retried");
        assertEquals(List.of(new StatusWriter.Gone(new ObjectKey("default", "gone"))), outcomes);
        assertEquals(1, writer.failures());
    }

    @Test
    void theNewestStatusSubmittedWhileAWriteRetriesIsTheOneWritten() {
        server.expect().patch().withPath(PATH.formatted("b")).andReturn(500, "{}").times(3);
        server.expect().patch().withPath(PATH.formatted("b")).andReturn(200, OK).always();
        writer.submit(new ObjectKey("default", "b"), status(1));
        writer.submit(new ObjectKey("default", "b"), status(2));
        Waiting.until(Duration.ofSeconds(10), () -> outcomes.stream().anyMatch(o -> o.equals(
                new StatusWriter.Written(new ObjectKey("default", "b"), status(2)))), () -> "outcomes: " + outcomes);
    }

    @Test
    void aMergePatchNullsEveryOwnedFieldThatIsEmptyNow() {
        // A merge patch leaves alone what it does not name: an empty field left out would keep its old value.
        assertEquals("{\"status\":{\"observedGeneration\":7,\"conditions\":[],\"failureReason\":null,\"failureMessage\":null,"
                + "\"defaultCNI\":{\"version\":null},\"workerNodeGroups\":null,"
                + "\"versions\":{\"next\":null,\"current\":null,\"last\":null,\"currentKubernetes\":null}}}",
                StatusWriter.mergePatch(status(7)));
    }
}
