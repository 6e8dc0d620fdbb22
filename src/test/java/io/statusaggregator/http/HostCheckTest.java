package io.statusaggregator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.operations.RawHttp;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Host a request names, as a page that a browser was led to through DNS rebinding names its own site: the embedded
 * default (as tests run, before {@code run} has said otherwise) answers loopback names only, on both ports, with 421
 * and one line; health answers any Host (the kubelet probes by the pod's address); in a deployment, any Host.
 */
@QuarkusTest
class HostCheckTest {
    @TestHTTPResource("/")
    URL root;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Inject
    HttpEdge edge;

    private static byte[] get(String path, String hostLine) {
        return ("GET " + path + " HTTP/1.1\r\n" + hostLine
                + "Connection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEmbeddedDefaultAnswersLoopbackNamesOnly() throws Exception {
        for (String host : List.of("evil.example", "evil.example:8080", "localhost.evil.example",
                "192.168.1.20:8080")) {
            for (URL server : List.of(root, management)) {
                RawHttp.Answer answer = RawHttp.send(server, get(server == root ? "/fleet/clusters" : "/q/metrics",
                        "Host: " + host + "\r\n"));
                assertEquals(421, answer.status(), host + ": " + answer.text());
                String body = answer.text().substring(answer.text().indexOf("\r\n\r\n") + 4);
                assertEquals("{\"error\":\"this server answers requests for 127.0.0.1, [::1], localhost only "
                        + "(aggregator.http.allowed-hosts)\"}\n", body);
            }
        }
        // No Host at all: HTTP/1.1 requires one (Vert.x answers 400); HTTP/1.0 may omit it.
        assertEquals(400, RawHttp.send(root, get("/fleet/clusters", "")).status(), "HTTP/1.1 without Host");
        assertEquals(421, RawHttp.send(root, "GET /fleet/clusters HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.UTF_8))
                .status(),
                "HTTP/1.0 without Host");
        for (String host : List.of("localhost", "localhost:1234", "127.0.0.1:8080", "[::1]:9000", "LocalHost")) {
            assertNotEquals(421, RawHttp.send(root, get("/fleet/clusters", "Host: " + host + "\r\n")).status(), host);
            assertNotEquals(421, RawHttp.send(management, get("/q/metrics", "Host: " + host + "\r\n")).status(), host);
        }
    }

    @Test
    void healthAnswersTheKubeletsProbeByThePodsAddress() throws Exception {
        for (String path : List.of("/q/health/live", "/q/health/ready", "/q/health/started", "/q/health")) {
            RawHttp.Answer answer = RawHttp.send(management, get(path, "Host: 10.244.1.17:9000\r\n"));
            assertTrue(answer.status() == 200 || answer.status() == 503, path + ": " + answer.text());
        }
    }

    @Test
    void aDeploymentAnswersAnyHostUnlessConfigured() throws Exception {
        edge.serve(false);
        try {
            assertNotEquals(421, RawHttp.send(root, get("/fleet/clusters",
                    "Host: status-aggregator.example.com\r\n")).status());
            assertNotEquals(421, RawHttp.send(management, get("/q/metrics", "Host: 10.244.1.17:9000\r\n")).status());
        } finally {
            edge.serve(true);
        }
        assertEquals(421, RawHttp.send(root, get("/fleet/clusters",
                "Host: status-aggregator.example.com\r\n")).status());
    }
}
