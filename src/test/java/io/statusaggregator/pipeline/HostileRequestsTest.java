package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.fleet.FleetPage;
import io.statusaggregator.operations.RawHttp.Answer;
import io.statusaggregator.operations.RawHttp;
import io.statusaggregator.versions.json.CompatibilityReader;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every HTTP route of the application's port asked as a hostile client would, on a running pipeline: names and query
 * values of random bytes, percent encodings ({@code %2F}, {@code %3F}, {@code %23}, {@code %00}, {@code ..}), Unicode,
 * control characters, long values, and bodies that are not AdmissionReviews. Each answer is a 2xx, 3xx or 4xx (a
 * client's mistake is never a server error) and shows neither the API server's address nor a stack trace; afterwards
 * the server still serves. Seeded: {@code -Dhostile.seed=N} replays a run.
 */
@QuarkusTest
class HostileRequestsTest {
    private static final int REQUESTS = 400;
    private static final Duration BUDGET = Duration.ofSeconds(90);
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @Inject
    RunningPipeline running;

    @Inject
    FleetPage page;

    @TestHTTPResource("/")
    URL root;

    private EmbeddedKubernetes kubernetes;
    private Pipeline pipeline;

    @BeforeEach
    void start() throws Exception {
        kubernetes = EmbeddedKubernetes.start(0);
        Pipeline.Settings settings = Fleet.settings(kafka.bootstrapServers(), UUID.randomUUID().toString().substring(0, 8), true);
        pipeline = new Pipeline(settings, kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        pipeline.start(DEADLINE);
        running.started(pipeline);
        page.start(settings.kafka(), settings.statusesTopic(), settings.transitionsTopic());
        // Until then a cluster the page does not know yet may still come: 503, which the checks below count as a fault.
        Fleet.await(DEADLINE, page::read, () -> "the fleet page has not read its topics");
    }

    @AfterEach
    void stop() {
        page.stop();
        running.stopped();
        pipeline.close();
        kubernetes.close();
    }

    private Answer send(byte[] request) throws IOException {
        return RawHttp.send(root, request);
    }

    /** A path segment or query value of one of the hostile kinds, or now and then a good name. */
    static String segment(Random random) {
        return switch (random.nextInt(9)) {
            case 0 -> "alpha";
            case 1 -> percentEncoded(random, 1 + random.nextInt(40));
            case 2 -> List.of("%2F", "%3F", "%23", "%00", "..", "%2e%2e", "%2E%2E%2F", "bravo%3Fx%3D1", "bravo%23x", "a%20b", "%", "%zz",
                    "%C0%AF", "%FF%FE").get(random.nextInt(14));
            case 3 -> List.of("ümlaut", "名前", "\uD83D\uDE00", "Alpha", "ALPHA", "-a", "a-", "a_b", "a..b", "a.b").get(random.nextInt(10));
            case 4 -> "a".repeat(List.of(64, 254, 2_000, 10_000).get(random.nextInt(4)));
            case 5 -> String.valueOf((char) random.nextInt(0x20)); // a raw control character
            case 6 -> printable(random, 1 + random.nextInt(30));
            case 7 -> "bravo?x=1#y";
            default -> percentEncoded(random, 200 + random.nextInt(4_000));
        };
    }

    private static String percentEncoded(Random random, int bytes) {
        StringBuilder encoded = new StringBuilder();
        for (int i = 0; i < bytes; i++) {
            encoded.append(String.format("%%%02X", random.nextInt(256)));
        }
        return encoded.toString();
    }

    private static String printable(Random random, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append((char) (0x21 + random.nextInt(0x5e)));
        }
        return text.toString();
    }

    static byte[] body(Random random) {
        return switch (random.nextInt(7)) {
            case 0 -> new byte[0];
            case 1 -> {
                byte[] bytes = new byte[1 + random.nextInt(4_096)];
                random.nextBytes(bytes);
                yield bytes;
            }
            case 2 -> "[".repeat(5_000).getBytes(StandardCharsets.UTF_8);
            case 3 -> List.of("null", "[]", "\"x\"", "42", "{\"request\":5}", "{\"request\":{\"operation\":\"CREATE\",\"object\":[]}}",
                    "{\"request\":{\"operation\":\"CREATE\",\"object\":{\"apiVersion\":\"anywhere.eks.amazonaws.com/v1alpha1\","
                            + "\"kind\":\"Cluster\",\"metadata\":{\"name\":7},\"spec\":{\"kubernetesVersion\":\"1.x\"}}}}")
                    .get(random.nextInt(7)).getBytes(StandardCharsets.UTF_8);
            case 4 -> new byte[4 << 20]; // over the 3 MiB limit
            case 5 -> ("{\"request\":{\"uid\":\"" + segment(random) + "\",\"operation\":\"" + segment(random) + "\"}}").getBytes(StandardCharsets.UTF_8);
            default -> ("{\"a\":\"" + "\\u0000".repeat(1_000) + "\"}").getBytes(StandardCharsets.UTF_8);
        };
    }

    private static byte[] request(Random random) {
        List<Supplier<byte[]>> routes = List.of(
                () -> RawHttp.get("/upgrade-check/" + segment(random) + "/" + segment(random)),
                () -> RawHttp.get("/upgrade-check/default/" + segment(random) + "?to=" + segment(random)),
                () -> RawHttp.get("/upgrade-check/" + segment(random)),
                () -> RawHttp.get("/fleet/clusters/" + segment(random) + "/" + segment(random) + "/transitions"),
                () -> RawHttp.get("/fleet/clusters?" + segment(random)),
                () -> RawHttp.get("/fleet/" + segment(random)),
                () -> RawHttp.get("/" + segment(random)),
                () -> RawHttp.post("/admission/clusters", body(random)),
                () -> RawHttp.post("/admission/clusters?" + segment(random), body(random)),
                () -> RawHttp.get("/admission/clusters"));
        return routes.get(random.nextInt(routes.size())).get();
    }

    @Test
    void everyRouteAnswersAClientsMistakeWithoutServerErrorsOrInternalsAndKeepsServing() throws Exception {
        long seed = Long.getLong("hostile.seed", new Random().nextLong());
        System.out.println("hostile requests: seed " + seed + " (replay: -Dhostile.seed=" + seed + ")");
        Random random = new Random(seed);
        String apiAddress = kubernetes.url().replaceFirst("^https?://", "").replaceAll("/$", "");
        List<String> findings = new ArrayList<>();
        long end = System.nanoTime() + BUDGET.toNanos();
        int sent = 0;
        int[] byClass = new int[6];
        for (; sent < REQUESTS && System.nanoTime() < end; sent++) {
            byte[] request = request(random);
            Answer answer = send(request);
            String line = new String(request, 0, Math.min(request.length, 160), StandardCharsets.ISO_8859_1).split("\r\n")[0];
            byClass[Math.max(0, answer.status()) / 100]++;
            if (answer.status() < 200 || answer.status() >= 500) {
                findings.add(answer.status() + " for " + line + ": " + answer.text().lines().findFirst().orElse(""));
            }
            String text = answer.text();
            if (text.contains(apiAddress) || text.contains("Exception") || text.contains("\tat ") || text.contains("io.statusaggregator")) {
                findings.add("internals in the answer to " + line + ": " + text.substring(0, Math.min(text.length(), 400)));
            }
        }
        System.out.printf("hostile requests: %d sent, 2xx %d, 3xx %d, 4xx %d, 5xx %d, no answer %d%n", sent, byClass[2], byClass[3],
                byClass[4], byClass[5], byClass[0]);
        assertTrue(findings.isEmpty(), findings.size() + " findings (seed " + seed + "):\n" + String.join("\n", findings));
        assertTrue(sent >= REQUESTS / 4, "only " + sent + " requests within " + BUDGET);

        Answer fleet = send(RawHttp.get("/fleet/clusters"));
        assertEquals(200, fleet.status(), "still serving: " + fleet.text());
        Answer good = send(RawHttp.get("/upgrade-check/default/absent"));
        assertEquals(404, good.status(), good.text());
        assertFalse(good.text().contains(apiAddress), good.text());
    }

    /** A cluster the fleet page has no status of, once it has read its topics: 404, as the tree answers one the API lacks. */
    @Test
    void theTransitionsOfAClusterTheFleetDoesNotHaveAre404() throws Exception {
        Answer answer = send(RawHttp.get("/fleet/clusters/default/absent/transitions"));
        assertEquals(404, answer.status(), answer.text());
        assertTrue(answer.text().contains("{\"error\":\"the fleet has no status of cluster default/absent\"}"), answer.text());
    }

    /**
     * A redirect stays on this server whatever Host a request names: its Location is a path, no host or port taken from
     * it. (A Host that is none of loopback's names is refused before any route: HostCheckTest.)
     */
    @Test
    void aRedirectNamesNoHostTheRequestGave() throws Exception {
        Answer answer = send("GET /fleet HTTP/1.1\r\nHost: [::1]:47110\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(303, answer.status(), answer.text());
        assertTrue(Pattern.compile("(?im)^location: /\r?$").matcher(answer.text()).find(), answer.text());
        assertFalse(answer.text().contains("47110"), answer.text());
    }

    /** A name that would be another request once in the API server's URL is refused before it goes there. */
    @Test
    void namesThatAreAnotherRequestInDisguiseAreRefusedWith400() throws Exception {
        for (String name : List.of("bravo%3Fx%3D1", "bravo%23x", "a%20b", "Bravo", "bravo%00", "a..b")) {
            Answer answer = send(RawHttp.get("/upgrade-check/default/" + name));
            assertEquals(400, answer.status(), name + ": " + answer.text());
            assertTrue(answer.text().contains("is not a Kubernetes name"), answer.text());
            Answer transitions = send(RawHttp.get("/fleet/clusters/default/" + name + "/transitions"));
            assertEquals(400, transitions.status(), name + ": " + transitions.text());
        }
        // A path that an encoded slash or dots would change is no route at all (404), or a refused name: never a plan.
        for (String path : List.of("/upgrade-check/default/%2E%2E%2Fbravo", "/upgrade-check/default/..", "/upgrade-check/kube-system%2Fsecrets/x",
                "/upgrade-check/default/bravo%2F..%2Fcharlie")) {
            Answer answer = send(RawHttp.get(path));
            assertTrue(answer.status() == 400 || answer.status() == 404, path + ": " + answer.text());
        }
    }

    /** The API server away: 503 and a retry, without its address (which the client's own message names). */
    @Test
    void anUnreachableApiServerIs503WithoutItsAddress() throws Exception {
        String apiAddress = kubernetes.url().replaceFirst("^https?://", "").replaceAll("/$", "");
        kubernetes.close();
        Answer answer = send(RawHttp.get("/upgrade-check/default/alpha"));
        assertEquals(503, answer.status(), answer.text());
        assertFalse(answer.text().contains(apiAddress) || answer.text().contains("localhost"), answer.text());
        assertTrue(answer.text().contains("the Kubernetes API did not answer"), answer.text());
    }
}
