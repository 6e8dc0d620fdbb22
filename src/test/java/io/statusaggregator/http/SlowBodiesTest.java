package io.statusaggregator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.statusaggregator.operations.RawHttp;
import io.statusaggregator.pipeline.LogCapture;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Clients that send a request body slowly, or stop in the middle of one, with real sockets: 500 of them at once hold
 * their own connections and nothing else, health and metrics on the management port and the application's own routes
 * answer within 1 s meanwhile, and each is cut off with 408 once its body is late (4 s here, 10 s by default) or
 * slower than the floor (8 bytes a second here, 1 KiB by default), counted as a 408 and told in one log line.
 */
@QuarkusTest
@TestProfile(SlowBodiesTest.ShortBodyDeadline.class)
class SlowBodiesTest {
    private static final int CLIENTS = 500;
    private static final long DEADLINE_MILLIS = 4_000;
    /**
     * What a loaded two-core machine may add to a cut-off: the check's tick, the event loop's turn, the reading here.
     */
    private static final long SLACK_MILLIS = 2_500;
    private static final Pattern COUNT_408 =
            Pattern.compile("(?m)^http_server_requests_seconds_count\\{([^}]*status=\"408\"[^}]*)} ([0-9.E]+)$");

    public static final class ShortBodyDeadline implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("aggregator.http.body-timeout", "4s", "aggregator.http.body-min-rate", "8");
        }
    }

    @TestHTTPResource("/")
    URL root;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @RegisterExtension
    final LogCapture warnings = new LogCapture(Level.WARNING);

    /** A slow client: the head of a request whose body is 100,000 bytes long, and the body's first byte. */
    private record SlowClient(Socket socket, long openedNanos) {
        static SlowClient open(URL root, String path, String type) throws IOException {
            Socket socket = new Socket(root.getHost(), root.getPort());
            socket.setSoTimeout((int) (DEADLINE_MILLIS + SLACK_MILLIS) * 2);
            socket.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + type
                    + "\r\nContent-Length: 100000\r\n\r\n{").getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            return new SlowClient(socket, System.nanoTime());
        }
    }

    private long answerMillis(URL server, String path) throws IOException {
        long start = System.nanoTime();
        RawHttp.Answer answer = RawHttp.send(server, RawHttp.get(path));
        assertTrue(answer.status() >= 200 && answer.status() < 500 || answer.status() == 503, path + ": "
                + answer.text());
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void slowBodiesHoldOnlyTheirOwnConnectionsAndAreCutOffWithin408() throws Exception {
        // Warm: the first answer of each route in a JVM includes its class loading.
        for (String path : List.of("/q/health/ready", "/q/health/started", "/q/metrics")) {
            answerMillis(management, path);
        }
        answerMillis(root, "/fleet/clusters");

        // One client that stops after the body's first byte: under the rate floor once its first second is over.
        SlowClient stalled = SlowClient.open(root, "/admission/clusters", "application/json");
        RawHttp.Answer cut = new RawHttp.Answer(-1, RawHttp.readToEnd(stalled.socket().getInputStream()));
        long stalledMillis = (System.nanoTime() - stalled.openedNanos()) / 1_000_000;
        stalled.socket().close();
        assertTrue(cut.text().startsWith("HTTP/1.1 408"), cut.text());
        assertTrue(cut.text()
                .contains("{\"error\":\"the request body arrived slower than 8 bytes a second; send it at once\"}"),
                        cut.text());
        assertTrue(stalledMillis < 1_000 + SLACK_MILLIS, "a stalled body held " + stalledMillis + " ms");

        // 500 that trickle their bodies (4 bytes every 250 ms, above the floor) to the webhook and the sign-in form.
        List<SlowClient> clients = new CopyOnWriteArrayList<>();
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        List<String> slowAnswers = new ArrayList<>();
        try {
            trickle.scheduleAtFixedRate(() -> clients.forEach(client -> {
                try {
                    OutputStream out = client.socket().getOutputStream();
                    out.write("    ".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (IOException closed) {
                    // Cut off: the server closed it.
                }
            }), 250, 250, TimeUnit.MILLISECONDS);
            for (int batch = 0; batch < CLIENTS / 50; batch++) {
                for (int i = 0; i < 50; i++) {
                    clients.add(i % 2 == 0 ? SlowClient.open(root, "/admission/clusters", "application/json")
                            : SlowClient.open(root, "/sign-in", "application/x-www-form-urlencoded"));
                }
                long millis = answerMillis(management, batch % 2 == 0 ? "/q/health/ready" : "/q/health/started");
                if (millis >= 1_000) {
                    slowAnswers.add("health with " + clients.size() + " slow clients: " + millis + " ms");
                }
            }
            for (String[] route : List.of(new String[] {"m", "/q/health/ready"}, new String[] {"m",
                    "/q/health/started"},
                    new String[] {"m", "/q/health/live"}, new String[] {"m", "/q/metrics"}, new String[] {"a",
                            "/fleet/clusters"},
                    new String[] {"a", "/upgrade-check/default/alpha"})) {
                long millis = answerMillis(route[0].equals("m") ? management : root, route[1]);
                if (millis >= 1_000) {
                    slowAnswers.add(route[1] + " with " + clients.size() + " slow clients: " + millis + " ms");
                }
            }
            assertEquals(List.of(), slowAnswers);

            // Each is cut off once its deadline has passed: 408, and the connection closed.
            List<String> late = new ArrayList<>();
            for (SlowClient client : clients) {
                String answer = RawHttp.readToEnd(client.socket().getInputStream());
                long heldMillis = (System.nanoTime() - client.openedNanos()) / 1_000_000;
                if (!answer.startsWith("HTTP/1.1 408") || !answer.contains("did not arrive within 4 s")
                        || heldMillis > DEADLINE_MILLIS + SLACK_MILLIS) {
                    late.add(heldMillis + " ms: " + answer.lines().findFirst().orElse("(closed without an answer)"));
                }
                client.socket().close();
            }
            assertTrue(late.isEmpty(), late.size() + " slow clients not cut off in time, e.g. " + late.subList(0,
                    Math.min(5, late.size())));
        } finally {
            trickle.shutdownNow();
            for (SlowClient client : clients) {
                client.socket().close();
            }
        }

        // Counted as the client's fault, on the route it asked for; told once, not once a client.
        String metrics = RawHttp.send(management, RawHttp.get("/q/metrics")).text();
        double cutOff = 0;
        Matcher counts = COUNT_408.matcher(metrics);
        while (counts.find()) {
            cutOff += Double.parseDouble(counts.group(2));
            assertTrue(counts.group(1).contains("uri=\"/admission/clusters\"")
                    || counts.group(1).contains("uri=\"/sign-in\""), counts.group());
        }
        assertEquals(CLIENTS + 1, cutOff, 0.5, "408s counted");
        assertTrue(!metrics.contains("status=\"500\""), "no 500 counted");
        List<String> told = warnings.lines().stream().filter(line -> line.contains("cut off")).toList();
        assertEquals(1, told.size(), "one line for the first and the 500 after it within the minute: " + told);
        assertTrue(told.get(0).contains("cut off 1 request body(ies)")
                && told.get(0).contains("aggregator.http.body-timeout"), told.get(0));
    }
}
