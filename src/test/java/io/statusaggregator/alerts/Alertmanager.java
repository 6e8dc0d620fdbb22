package io.statusaggregator.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statusaggregator.pipeline.Waiting;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Alertmanager on loopback: a temporary configuration (one receiver that sends nowhere) and storage, no
 * clustering, for the alert bridge's tests and the {@code alerts} command's. CI installs the Debian package; without it
 * a test that needs it fails rather than pass without checking.
 */
public final class Alertmanager implements AutoCloseable {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final Path BINARY = Path.of("/usr/bin/prometheus-alertmanager");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final Path directory;
    private final int port;
    private Process process;

    private Alertmanager(Path directory, int port) {
        this.directory = directory;
        this.port = port;
    }

    public static Alertmanager start() throws IOException {
        if (!Files.isExecutable(BINARY)) {
            fail(BINARY + " is missing: install the Debian package prometheus-alertmanager "
                    + "(apt-get install -y prometheus-alertmanager; .ci/run does) to run the alert bridge's test");
        }
        Path directory = Files.createTempDirectory("alertmanager-test");
        Files.writeString(directory.resolve("alertmanager.yml"), """
                route:
                  receiver: "null"
                receivers:
                  - name: "null"
                """);
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Alertmanager alertmanager = new Alertmanager(directory, port);
        alertmanager.launch();
        return alertmanager;
    }

    /** Starts the process (again, on the same port and storage) and waits until it is ready. */
    public void launch() throws IOException {
        process = new ProcessBuilder(BINARY.toString(),
                "--config.file=" + directory.resolve("alertmanager.yml"),
                "--storage.path=" + directory.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--cluster.listen-address=",
                "--log.level=warn")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("log").toFile()))
                .start();
        Waiting.until(DEADLINE, () -> {
            if (!process.isAlive()) {
                throw new AssertionError("Alertmanager exited with status " + process.exitValue() + ": " + log());
            }
            return ready();
        }, () -> "Alertmanager on port " + port + " is not ready: " + log());
    }

    private boolean ready() {
        try {
            return HTTP.send(HttpRequest.newBuilder(url().resolve("/-/ready")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Active alerts matching a label matcher, like {@code cluster="default/alpha"}. */
    public List<JsonNode> alerts(String matcher) {
        URI uri = url().resolve("/api/v2/alerts?active=true&filter=" + URLEncoder.encode(matcher, StandardCharsets.UTF_8));
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            List<JsonNode> alerts = new ArrayList<>();
            JSON.readTree(response.body()).forEach(alerts::add);
            return alerts;
        } catch (IOException e) {
            throw new AssertionError("cannot list the alerts of Alertmanager at " + uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }

    /** Waits until a cluster has an active alert of that name, and returns it. */
    public JsonNode awaitAlert(String cluster, String alertname) {
        List<JsonNode> found = new ArrayList<>();
        Waiting.until(DEADLINE, () -> {
            found.clear();
            alerts(clusterMatcher(cluster)).stream().filter(a -> alertname.equals(a.path("labels").path("alertname").asText()))
                    .forEach(found::add);
            return !found.isEmpty();
        }, () -> "no " + alertname + " for " + cluster + " in Alertmanager; it has " + alerts(clusterMatcher(cluster)));
        return found.get(0);
    }

    /** The label matcher of a cluster's alerts. */
    public static String clusterMatcher(String cluster) {
        return "cluster=\"" + cluster + "\"";
    }

    /** An alert's labels, as Alertmanager lists them. */
    public static Map<String, String> labels(JsonNode alert) {
        Map<String, String> labels = new HashMap<>();
        alert.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }

    public void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    private String log() {
        try {
            return Files.readString(directory.resolve("log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() {
        try {
            if (process != null && process.isAlive()) {
                stop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind is not the test's concern.
        }
    }
}
