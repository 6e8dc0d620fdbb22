package io.statusaggregator.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Requests reviewed as in a cluster: bearer tokens checked by a TokenReview and permissions by a SubjectAccessReview,
 * both answered by an API server that knows three users. Alice (through her group) may list Clusters and get
 * default/bravo; Prometheus' account may get /q/metrics; Bob may do nothing. Each route is asked by each, with a
 * header, with the sign-in cookie, and with nothing.
 */
@QuarkusTest
@TestProfile(AccessTest.Reviewed.class)
class AccessTest {
    public static final class Reviewed implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("aggregator.access.review", "true", "aggregator.access.token-reviews-per-second", String.valueOf(REVIEWS_PER_SECOND));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int REVIEWS_PER_SECOND = 10;
    private static final String ALICE = "alice-token";
    private static final String PROMETHEUS = "prometheus-token";
    private static final String BOB = "bob-token";
    private static final Map<String, Map<String, Object>> USERS = Map.of(
            ALICE, Map.of("username", "alice@example.com", "uid", "u-1", "groups", List.of("fleet-viewers", "system:authenticated")),
            PROMETHEUS, Map.of("username", "system:serviceaccount:monitoring:prometheus", "groups", List.of("system:serviceaccounts")),
            BOB, Map.of("username", "bob", "groups", List.of("system:authenticated")));

    @Inject
    AccessReviews reviews;

    @TestHTTPResource("/")
    URL root;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();
    private final List<JsonNode> accessReviews = new CopyOnWriteArrayList<>();
    private final List<String> tokensReviewed = new CopyOnWriteArrayList<>();
    private KubernetesMockServer api;

    @BeforeEach
    void apiServer() {
        api = new KubernetesMockServer(false);
        api.init();
        api.expect().post().withPath("/apis/authentication.k8s.io/v1/tokenreviews").andReply(201, this::tokenReview).always();
        api.expect().post().withPath("/apis/authorization.k8s.io/v1/subjectaccessreviews").andReply(201, this::accessReview).always();
        reviews.reviewWith(api.createClient());
    }

    @AfterEach
    void stop() {
        reviews.open();
        api.destroy();
    }

    /** The API server's TokenReview: the three tokens above, nobody else. */
    private Object tokenReview(RecordedRequest request) {
        JsonNode review = read(request);
        tokensReviewed.add(review.path("spec").path("token").asText());
        Map<String, Object> user = USERS.get(review.path("spec").path("token").asText());
        return Map.of("apiVersion", "authentication.k8s.io/v1", "kind", "TokenReview",
                "status", user == null ? Map.of("authenticated", false) : Map.of("authenticated", true, "user", user));
    }

    /** The API server's authorizer: RBAC as the class comment grants it. */
    private Object accessReview(RecordedRequest request) {
        JsonNode spec = read(request).path("spec");
        accessReviews.add(spec);
        boolean viewer = false;
        for (JsonNode group : spec.path("groups")) {
            viewer |= group.asText().equals("fleet-viewers");
        }
        JsonNode resource = spec.path("resourceAttributes");
        JsonNode url = spec.path("nonResourceAttributes");
        boolean allowed;
        if (!resource.isMissingNode()) {
            boolean clusters = resource.path("group").asText().equals("anywhere.eks.amazonaws.com") && resource.path("resource").asText().equals("clusters");
            String verb = resource.path("verb").asText();
            allowed = viewer && clusters && (verb.equals("list") && resource.path("namespace").asText().isEmpty()
                    || verb.equals("get") && resource.path("namespace").asText().equals("default") && resource.path("name").asText().equals("bravo"));
        } else {
            allowed = spec.path("user").asText().equals("system:serviceaccount:monitoring:prometheus")
                    && url.path("verb").asText().equals("get") && url.path("path").asText().equals("/q/metrics");
        }
        return Map.of("apiVersion", "authorization.k8s.io/v1", "kind", "SubjectAccessReview", "status", Map.of("allowed", allowed));
    }

    private static JsonNode read(RecordedRequest request) {
        try {
            return JSON.readTree(request.getBody().readUtf8());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private HttpResponse<String> get(URI uri, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI app(String path) {
        return URI.create(root.toString()).resolve(path);
    }

    /**
     * A flood of made-up tokens, all at once: at most {@code aggregator.access.token-reviews-per-second} of them reach
     * the API server each second, the rest are answered 429 with {@code Retry-After}, and a token reviewed before is
     * served meanwhile (from the cache, which the limit does not hold back).
     */
    @Test
    void aFloodOfMadeUpTokensIsHeldToTheReviewRate() throws Exception {
        URI page = app("/fleet/fleet.js"); // not the upgrade check of bravo: another test counts the reviews of that
        assertEquals(200, get(page, "Authorization", "Bearer " + ALICE).statusCode());
        int before = tokensReviewed.size();
        long start = System.nanoTime();
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> flood = new java.util.ArrayList<>();
        for (int i = 0; i < 4 * REVIEWS_PER_SECOND; i++) {
            flood.add(http.sendAsync(HttpRequest.newBuilder(app("/fleet/clusters")).timeout(Duration.ofSeconds(20))
                    .header("Authorization", "Bearer flood-" + i).build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<HttpResponse<String>> answers = flood.stream().map(java.util.concurrent.CompletableFuture::join).toList();
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(200, get(page, "Authorization", "Bearer " + ALICE).statusCode(), "a token reviewed before is served");

        List<HttpResponse<String>> throttled = answers.stream().filter(answer -> answer.statusCode() == 429).toList();
        assertFalse(throttled.isEmpty(), "every one of " + answers.size() + " new tokens reviewed in " + seconds + " s");
        assertTrue(throttled.stream().allMatch(answer -> Integer.parseInt(answer.headers().firstValue("Retry-After").orElse("0")) >= 1),
                "each told when to come back");
        assertTrue(answers.stream().allMatch(answer -> answer.statusCode() == 429 || answer.statusCode() == 401), "the others refused");
        int reviewed = tokensReviewed.size() - before;
        assertTrue(reviewed <= REVIEWS_PER_SECOND * ((int) Math.ceil(seconds) + 1),
                reviewed + " TokenReviews in " + seconds + " s, at most " + REVIEWS_PER_SECOND + " a second");
        assertEquals(answers.size() - throttled.size(), reviewed, "each token not refused was reviewed, once");
        // Within about a second new tokens are reviewed again (and the tests after this one find the limit free).
        io.statusaggregator.pipeline.Waiting.until(Duration.ofSeconds(10),
                () -> {
                    try {
                        return get(app("/fleet/clusters"), "Authorization", "Bearer after-the-flood").statusCode() == 401;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                () -> "new tokens still refused after the flood");
    }

    @Test
    void metricsAnswerOnlyAnAccountTheAuthorizerAllows() throws Exception {
        URI metrics = URI.create(management.toString()).resolve("/q/metrics");
        HttpResponse<String> none = get(metrics);
        assertEquals(401, none.statusCode());
        assertEquals("Bearer realm=\"status-aggregator\"", none.headers().firstValue("WWW-Authenticate").orElse(""));
        assertFalse(none.body().contains("jvm_"), "no metrics without a token");
        assertEquals(401, get(metrics, "Authorization", "Bearer made-up").statusCode());
        HttpResponse<String> bob = get(metrics, "Authorization", "Bearer " + BOB);
        assertEquals(403, bob.statusCode());
        assertFalse(bob.body().contains("jvm_"));
        HttpResponse<String> prometheus = get(metrics, "Authorization", "Bearer " + PROMETHEUS);
        assertEquals(200, prometheus.statusCode());
        assertTrue(prometheus.body().contains("jvm_memory_used_bytes"), "the metrics: " + prometheus.body().length() + " bytes");
        assertTrue(accessReviews.stream().anyMatch(spec -> spec.path("nonResourceAttributes").path("path").asText().equals("/q/metrics")
                && spec.path("user").asText().equals("system:serviceaccount:monitoring:prometheus")), "the review named the URL and the user");

        // The kubelet's probes carry no token.
        URI live = URI.create(management.toString()).resolve("/q/health/live");
        assertEquals(200, get(live).statusCode());
    }

    @Test
    void theUpgradeCheckAnswersThoseWhoMayGetTheCluster() throws Exception {
        assertEquals(401, get(app("/upgrade-check/default/bravo")).statusCode());
        assertEquals(403, get(app("/upgrade-check/default/bravo"), "Authorization", "Bearer " + BOB).statusCode());
        // Alice may get bravo, not alpha: the review carried the namespace and the name.
        assertEquals(403, get(app("/upgrade-check/default/alpha"), "Authorization", "Bearer " + ALICE).statusCode());
        // Past the check, the endpoint itself answers (503: no pipeline runs in this test).
        HttpResponse<String> bravo = get(app("/upgrade-check/default/bravo"), "Authorization", "Bearer " + ALICE);
        assertEquals(503, bravo.statusCode(), bravo.body());
        assertTrue(accessReviews.stream().anyMatch(spec -> spec.path("resourceAttributes").path("name").asText().equals("bravo")
                && spec.path("resourceAttributes").path("verb").asText().equals("get") && spec.path("uid").asText().equals("u-1")));
        // A path that names no Cluster is the endpoint's 400, and only for a user.
        assertEquals(401, get(app("/upgrade-check/default/Not_A_Name")).statusCode());
        assertEquals(400, get(app("/upgrade-check/default/Not_A_Name"), "Authorization", "Bearer " + BOB).statusCode());
    }

    @Test
    void aBrowserSignsInWithATokenAndKeepsItInACookie() throws Exception {
        // Navigating to the page without a token: to the sign-in form.
        HttpResponse<String> page = get(app("/"), "Accept", "text/html");
        assertEquals(303, page.statusCode());
        assertEquals("/sign-in", URI.create(page.headers().firstValue("Location").orElse("")).getPath());
        HttpResponse<String> form = get(app("/sign-in"), "Accept", "text/html");
        assertEquals(200, form.statusCode());
        assertTrue(form.body().contains("name=\"token\""), form.body());
        // The page's own data and stream without a token: 401, no redirect.
        assertEquals(401, get(app("/fleet/clusters")).statusCode());
        assertEquals(401, get(app("/fleet/fleet.js")).statusCode());

        assertTrue(signIn("made-up").body().contains("does not accept this token"));
        HttpResponse<String> refusedBob = signIn(BOB);
        assertEquals(403, refusedBob.statusCode());
        assertTrue(refusedBob.body().contains("does not allow bob to list"), refusedBob.body());
        assertEquals(400, signIn("two words").statusCode());

        HttpResponse<String> alice = signIn(ALICE);
        assertEquals(303, alice.statusCode(), alice.body());
        assertEquals("/", URI.create(alice.headers().firstValue("Location").orElse("")).getPath());
        String cookie = alice.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(cookie.startsWith(KubernetesTokenMechanism.COOKIE + "=" + ALICE), cookie);
        assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
        String sent = KubernetesTokenMechanism.COOKIE + "=" + ALICE;
        HttpResponse<String> fleet = get(app("/"), "Accept", "text/html", "Cookie", sent);
        assertEquals(200, fleet.statusCode());
        assertTrue(fleet.body().contains("/fleet/fleet.js"));
        assertEquals(200, get(app("/fleet/fleet.js"), "Cookie", sent).statusCode());
        // A cookie with another user's token is that user's: Bob's is refused.
        assertEquals(403, get(app("/fleet/fleet.js"), "Cookie", KubernetesTokenMechanism.COOKIE + "=" + BOB).statusCode());
    }

    @Test
    void routesThatNeedNoTokenAnswerWithoutOne() throws Exception {
        // The admission webhook is the API server's call: 503 here (no pipeline), not 401.
        HttpResponse<String> admission = http.send(HttpRequest.newBuilder(app("/admission/clusters"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(503, admission.statusCode(), admission.body());
        // Any other path asks for a user first: only then is it the 404 it is.
        assertEquals(401, get(app("/no-such-page")).statusCode());
        assertEquals(404, get(app("/no-such-page"), "Authorization", "Bearer " + BOB).statusCode());
    }

    /**
     * The REST layer routes {@code /fleet;x/clusters} as {@code /fleet/clusters} and {@code /upgrade-check/a/b/} as
     * {@code /upgrade-check/a/b}: such paths are no way around the questions the routes they reach ask.
     */
    @Test
    void pathsRoutedAsAnotherAskWhatThatOneAsks() throws Exception {
        for (String path : List.of("/fleet;x/clusters", "/fleet;/events", "/upgrade-check;/default/bravo", "/fleet/clusters;x")) {
            assertEquals(401, get(app(path)).statusCode(), path);
            HttpResponse<String> alice = get(app(path), "Authorization", "Bearer " + ALICE);
            assertEquals(403, alice.statusCode(), path + " is refused to everyone, even one who may list the Clusters: " + alice.body());
        }
        assertEquals(401, get(app("/upgrade-check/default/alpha/")).statusCode());
        assertEquals(403, get(app("/upgrade-check/default/alpha/"), "Authorization", "Bearer " + ALICE).statusCode(),
                "alice may get bravo, not alpha, with or without a trailing slash");
        // Past the check (bravo's own is not asked here: another test counts the reviews of it, and answers are cached).
        int listed = get(app("/fleet/clusters/"), "Authorization", "Bearer " + ALICE).statusCode();
        assertTrue(listed != 401 && listed != 403, "alice may list the Clusters, with a trailing slash too: " + listed);
        assertEquals(401, get(URI.create(root.toString().replaceAll("/$", "") + "//fleet//clusters")).statusCode());
    }

    @Test
    void anApiServerThatDoesNotAnswerIs503NotAnotherAnswer() throws Exception {
        // Alice's token reviewed (and kept 10 s), then the API server goes: a permission not asked yet cannot be, and
        // that is 503, neither her metrics (200) nor a refusal (403).
        assertEquals(200, get(app("/fleet/fleet.js"), "Authorization", "Bearer " + ALICE).statusCode());
        api.destroy();
        HttpResponse<String> unasked = get(URI.create(management.toString()).resolve("/q/metrics"), "Authorization", "Bearer " + ALICE);
        assertEquals(503, unasked.statusCode(), "a permission the API server could not be asked about: " + unasked.body());
        assertEquals("5", unasked.headers().firstValue("Retry-After").orElse(""));
        HttpResponse<String> metrics = get(URI.create(management.toString()).resolve("/q/metrics"), "Authorization", "Bearer never-seen-1");
        assertEquals(503, metrics.statusCode());
        assertFalse(metrics.body().contains("127.0.0.1") || metrics.body().contains("localhost"), metrics.body());
        HttpResponse<String> signIn = signIn("never-seen-2");
        assertEquals(503, signIn.statusCode());
    }

    private HttpResponse<String> signIn(String token) throws Exception {
        return http.send(HttpRequest.newBuilder(app("/sign-in")).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
