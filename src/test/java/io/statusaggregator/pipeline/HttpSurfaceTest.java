package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.fleet.ClusterView;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.http.HttpLabels;
import io.statusaggregator.operations.RawHttp;
import io.statusaggregator.operations.RawHttp.Answer;
import io.statusaggregator.versions.json.CompatibilityReader;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole HTTP surface, both ports, asked at random as a hostile or careless client would, on a running pipeline:
 * methods of HTTP and made-up ones, every route and paths of random bytes, headers (Host names, content types, chunked
 * bodies cut short or malformed, a body shorter or longer than declared, {@code Expect}, cookies, tokens, very long
 * values) and bodies ({@link HostileRequestsTest#body}). Every answer comes within a deadline and is no 5xx; no answer
 * shows a stack trace, one of the application's or the JDK's class names, or an IP address other than the one asked;
 * the metric series stay bounded. Seeded: the seed is printed, {@code -Dhostile.seed=N} replays a run.
 */
@QuarkusTest
@TestProfile(HttpSurfaceTest.ShortTimeouts.class)
class HttpSurfaceTest {
    /** Modest timeouts, so that a request that stalls is closed soon: its body after 3 s, a silent connection too. */
    public static final class ShortTimeouts implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("aggregator.http.body-timeout", "3s", "quarkus.http.idle-timeout", "3s",
                    "quarkus.http.read-timeout", "3s",
                    "quarkus.management.idle-timeout", "3s");
        }
    }

    private static final int REQUESTS = 600;
    private static final Duration BUDGET = Duration.ofSeconds(120);
    /** A body declared and not sent is cut off by its rate floor after 1 s, a silent connection closed after 3 s. */
    private static final Duration ANSWER_DEADLINE = Duration.ofSeconds(6);
    private static final Pattern IPV4 = Pattern.compile("(?<![0-9.])(\\d{1,3}\\.){3}\\d{1,3}(?![0-9.])");
    private static final Pattern HEALTH_DOWN = Pattern.compile("\"status\"\\s*:\\s*\"DOWN\"");
    private static final Pattern INTERNALS =
            Pattern.compile("Exception|\\tat |\\bat io\\.|io\\.statusaggregator|\\bjava\\.[a-z]+\\.");
    private static final List<String> METHODS = List.of("GET", "GET", "GET", "POST", "POST", "HEAD", "PUT", "DELETE",
            "OPTIONS", "PATCH",
            "TRACE", "CONNECT", "get", "PROPFIND", "BREW", "M-SEARCH", "X" + "Y".repeat(200));
    private static final List<String> MANAGEMENT_PATHS = List.of("/q/health", "/q/health/live", "/q/health/ready",
            "/q/health/started",
            "/q/health/well", "/q/metrics", "/q/metrics?name[]=x", "/q/", "/q/dev-ui", "/q/openapi", "/",
                    "/q/health/%00",
            "/q/metrics/../health");

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Inject
    RunningPipeline running;

    @Inject
    FleetPage page;

    @Inject
    ClusterView clusterView;

    @TestHTTPResource("/")
    URL root;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    private EmbeddedKubernetes kubernetes;
    private Pipeline pipeline;

    @BeforeEach
    void start() throws Exception {
        kubernetes = EmbeddedKubernetes.start(0);
        Pipeline.Settings settings = Fleet.settings(kafka.bootstrapServers(),
                UUID.randomUUID().toString().substring(0, 8), true);
        pipeline = new Pipeline(settings, kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        pipeline.start(DEADLINE);
        running.started(pipeline);
        page.start(settings.kafka(), settings.statusesTopic(), settings.transitionsTopic());
        Fleet.await(DEADLINE, page::read, () -> "the fleet page has not read its topics");
        clusterView.start(new ClusterObjects(kubernetes.newClient(), "eksa-system"));
    }

    @AfterEach
    void stop() {
        clusterView.stop();
        page.stop();
        running.stopped();
        pipeline.close();
        kubernetes.close();
    }

    private static String path(Random random, boolean onManagement) {
        if (onManagement) {
            String path = MANAGEMENT_PATHS.get(random.nextInt(MANAGEMENT_PATHS.size()));
            return random.nextInt(4) == 0 ? path + "/" + HostileRequestsTest.segment(random) : path;
        }
        String segment = HostileRequestsTest.segment(random);
        return switch (random.nextInt(9)) {
            case 0 -> "/upgrade-check/default/" + segment + (random.nextBoolean() ? "?to="
                    + HostileRequestsTest.segment(random) : "");
            case 1 -> "/fleet/clusters/" + segment + "/" + HostileRequestsTest.segment(random)
                    + (random.nextBoolean() ? "/tree" : "/transitions");
            case 2 -> List.of("/fleet/clusters", "/fleet/events", "/fleet", "/", "/index.html",
                    "/fleet/fleet.js").get(random.nextInt(6));
            case 3, 4 -> "/admission/clusters";
            case 5 -> List.of("/sign-in", "/sign-out").get(random.nextInt(2));
            case 6 -> "/" + segment;
            case 7 -> "*";
            default -> "/fleet/" + segment;
        };
    }

    /** A Host header line, or none (HTTP/1.0 only, see {@link #request}). */
    private static String host(Random random, URL server) {
        return switch (random.nextInt(8)) {
            case 0 -> "Host: 127.0.0.1:" + server.getPort() + "\r\n";
            case 1 -> "Host: [::1]\r\n";
            case 2 -> "Host: evil.example\r\n";
            case 3 -> "Host: " + HostileRequestsTest.segment(random).replaceAll("[\r\n]", "") + "\r\n";
            case 4 -> "";
            default -> "Host: localhost:" + server.getPort() + "\r\n";
        };
    }

    private static String header(Random random) {
        String value = HostileRequestsTest.segment(random).replaceAll("[\r\n]", "");
        return switch (random.nextInt(10)) {
            case 0 -> "Content-Type: " + List.of("application/json", "application/x-www-form-urlencoded",
                    "text/plain", "multipart/form-data; "
                    + "boundary=x", "application/json; charset=" + value, value).get(random.nextInt(6));
            case 1 -> "Accept: " + List.of("text/event-stream", "*/*", "application/json",
                    value).get(random.nextInt(4));
            case 2 -> "Authorization: Bearer " + value;
            case 3 -> "Cookie: " + List.of("status-aggregator-token", "a", "").get(random.nextInt(3)) + "=" + value;
            case 4 -> "Expect: 100-continue";
            case 5 -> "X-Forwarded-For: " + value;
            case 6 -> "Origin: http://evil.example";
            case 7 -> "Accept-Encoding: " + List.of("gzip", "br", "x".repeat(3_000)).get(random.nextInt(3));
            case 8 -> "X-" + random.nextInt(1000) + ": " + "v".repeat(random.nextInt(12_000));
            default -> "Range: bytes=" + value;
        };
    }

    private static byte[] request(Random random, URL server, String path) {
        String method = METHODS.get(random.nextInt(METHODS.size()));
        String hostLine = host(random, server);
        String version = hostLine.isEmpty() ? "HTTP/1.0" : "HTTP/1.1";
        StringBuilder head = new StringBuilder(method + " " + path + " " + version + "\r\n" + hostLine);
        for (int i = random.nextInt(4); i > 0; i--) {
            head.append(header(random)).append("\r\n");
        }
        head.append("Connection: close\r\n");
        byte[] body = random.nextInt(3) == 0 ? new byte[0] : HostileRequestsTest.body(random);
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        switch (random.nextInt(6)) {
            case 0 -> { // chunked, sometimes cut short or malformed
                head.append("Transfer-Encoding: chunked\r\n\r\n");
                request.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
                request.writeBytes((Integer.toHexString(body.length) + "\r\n").getBytes(StandardCharsets.UTF_8));
                request.writeBytes(body);
                request.writeBytes(List.of("\r\n0\r\n\r\n", "\r\n", "\r\nzz\r\n",
                        "").get(random.nextInt(4)).getBytes(StandardCharsets.UTF_8));
            }
            case 1 -> { // a body shorter than declared
                head.append("Content-Length: ").append(body.length + 1 + random.nextInt(1_000)).append("\r\n\r\n");
                request.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
                request.writeBytes(body);
            }
            case 2 -> { // a declared length that is no number, or two
                head.append(List.of("Content-Length: -1", "Content-Length: 1e3",
                        "Content-Length: 5\r\nContent-Length: 7")
                        .get(random.nextInt(3))).append("\r\n\r\n");
                request.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
                request.writeBytes(body);
            }
            default -> {
                head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
                request.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
                request.writeBytes(body);
            }
        }
        return request.toByteArray();
    }

    private java.util.Set<String> series() throws IOException {
        return RawHttp.send(management, RawHttp.get("/q/metrics")).text().lines()
                .filter(line -> !line.startsWith("#") && !line.isBlank() && line.contains("{"))
                .map(line -> line.substring(0, line.lastIndexOf(' ')))
                        .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }

    /**
     * Sends {@code request} and reads its answer: the head, then the body as the head frames it (a length, chunks, an
     * event stream's head only, or until the server closes). A route that does not read a body answers before the
     * body has gone: the connection then waits for it, which is not the answer's time.
     */
    private static Answer answer(URL server, byte[] request) throws IOException {
        boolean head = new String(request, 0, Math.min(5, request.length), StandardCharsets.ISO_8859_1).equals("HEAD ");
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout((int) ANSWER_DEADLINE.toMillis() * 2);
            try {
                socket.getOutputStream().write(request);
                socket.getOutputStream().flush();
            } catch (IOException e) {
                // Answered and closed before the whole request was written.
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int n;
            try {
                while ((n = in.read(buffer)) >= 0) {
                    read.write(buffer, 0, n);
                    if (complete(withoutInterim(read.toString(StandardCharsets.ISO_8859_1)), head)) {
                        break;
                    }
                }
            } catch (IOException e) {
                // A reset after the answer, or the timeout: what arrived is the answer.
            }
            String text = withoutInterim(read.toString(StandardCharsets.ISO_8859_1));
            return new Answer(text.startsWith("HTTP/1.") && text.length() >= 12 ? Integer.parseInt(text.substring(9,
                    12)) : -1, text);
        }
    }

    /** Without a {@code 100 Continue} before the answer. */
    private static String withoutInterim(String text) {
        return text.startsWith("HTTP/1.1 100 ") && text.contains("\r\n\r\n")
                ? text.substring(text.indexOf("\r\n\r\n") + 4) : text;
    }

    private static boolean complete(String text, boolean toHead) {
        int headEnd = text.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            return false;
        }
        String head = text.substring(0, headEnd).toLowerCase(java.util.Locale.ROOT);
        Matcher length = Pattern.compile("(?m)^content-length: *(\\d+)").matcher(head);
        if (toHead || head.contains("text/event-stream")) {
            return true;
        }
        if (length.find()) {
            return text.length() - headEnd - 4 >= Long.parseLong(length.group(1));
        }
        if (head.contains("transfer-encoding: chunked")) {
            return text.endsWith("\r\n0\r\n\r\n");
        }
        return false;
    }

    private static final Pattern HTTP_LABEL = Pattern.compile("(method|uri)=\"([^\"]*)\"");

    private static boolean unboundedHttpLabel(String series) {
        if (!series.startsWith("http_server")) {
            return false;
        }
        Matcher label = HTTP_LABEL.matcher(series);
        while (label.find()) {
            String value = label.group(2);
            if (!(label.group(1).equals("method") ? HttpLabels.method(value) : HttpLabels.uri(value)).equals(value)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void everyAnswerOfEitherPortIsTimelyAndAClientsFaultShowsNoInternals() throws Exception {
        long seed = Long.getLong("hostile.seed", new Random().nextLong());
        System.out.println("HTTP surface: seed " + seed + " (replay: -Dhostile.seed=" + seed + ")");
        Random random = new Random(seed);
        java.util.Set<String> before = series();
        int seriesBefore = before.size();
        List<String> findings = new ArrayList<>();
        int[] byClass = new int[6];
        long end = System.nanoTime() + BUDGET.toNanos();
        int sent = 0;
        for (; sent < REQUESTS && System.nanoTime() < end; sent++) {
            boolean onManagement = random.nextInt(10) < 3;
            URL server = onManagement ? management : root;
            String path = path(random, onManagement);
            byte[] request = request(random, server, path);
            String line = new String(request, 0, Math.min(request.length, 160),
                    StandardCharsets.ISO_8859_1).split("\r\n")[0];
            long start = System.nanoTime();
            Answer answer = answer(server, request);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            byClass[Math.max(0, answer.status()) / 100]++;
            String where = (onManagement ? "management " : "") + line;
            if (took.compareTo(ANSWER_DEADLINE) > 0) {
                findings.add("answered after " + took.toMillis() + " ms: " + where);
            }
            // Health says DOWN with 503 (to HEAD without the JSON that says so): an answer, not a fault.
            if (answer.status() >= 500 && !(onManagement && answer.status() == 503
                    && (HEALTH_DOWN.matcher(answer.text()).find() || headOfHealth(line)))) {
                findings.add(answer.status() + " for " + where + ": " + answer.text().lines().findFirst().orElse(""));
            }
            String text = answer.text();
            boolean metrics = onManagement && answer.status() == 200 && path.startsWith("/q/metrics");
            Matcher internals = INTERNALS.matcher(text);
            if (!metrics && internals.find()) {
                findings.add("'" + internals.group() + "' in the answer to " + where + ": " + text.substring(0,
                        Math.min(text.length(), 300)));
            }
            Matcher address = IPV4.matcher(text);
            while (!metrics && address.find()) {
                if (!address.group().equals(server.getHost())) {
                    findings.add("address " + address.group() + " in the answer to " + where);
                }
            }
        }
        java.util.Set<String> afterSet = series();
        int seriesAfter = afterSet.size();
        afterSet.removeAll(before);
        List<String> unbounded = afterSet.stream().filter(HttpSurfaceTest::unboundedHttpLabel).toList();
        System.out.printf("HTTP surface: %d sent, 2xx %d, 3xx %d, 4xx %d, 5xx %d, closed without an answer %d; "
                + "series %d -> %d%n", sent, byClass[2], byClass[3], byClass[4], byClass[5], byClass[0], seriesBefore,
                seriesAfter);
        assertEquals(List.of(), findings, findings.size() + " findings (seed " + seed + ")");
        assertTrue(sent >= REQUESTS / 4, "only " + sent + " requests within " + BUDGET);
        // Bounded by the labels' values (HTTP's methods, the routes, the statuses), not by what clients send: a made-up
        // method or path of each request would be a series of its own.
        assertEquals(List.of(), unbounded, "series with a label a client wrote (seed " + seed + ")");
        assertTrue(seriesAfter - seriesBefore < 1_000, "series " + seriesBefore + " -> " + seriesAfter + " (seed "
                + seed + ")");
        assertEquals(200, RawHttp.send(root, RawHttp.get("/fleet/clusters")).status(), "still serving");
        assertEquals(200, RawHttp.send(management, RawHttp.get("/q/health/live")).status(), "still serving");
    }

    /**
     * Whether {@code line} is a HEAD of the health endpoint, also by a path that normalizes to it
     * ({@code /q/metrics/../health}): its 503 says a check is DOWN, without the body that would say so.
     */
    private static boolean headOfHealth(String line) {
        String[] parts = line.split(" ");
        if (parts.length < 2 || !parts[0].equals("HEAD")) {
            return false;
        }
        try {
            String path = java.net.URI.create(parts[1]).normalize().getPath();
            return path != null && path.startsWith("/q/health");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
