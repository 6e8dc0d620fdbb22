package io.statusaggregator.access;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The seconds between the ports opening and {@code run} deciding whether requests are reviewed: nothing has decided here
 * (no pipeline runs in this test), as in the embedded default's first seconds, where requests will be served open, or
 * a replica's before it has its API server client. A route that may need a token answers 503 with {@code Retry-After},
 * to a request with a token or without: not 401, nor a browser sent to sign in where it will need nothing.
 */
@QuarkusTest
@TestProfile(AccessWhileStartingTest.Undecided.class)
class AccessWhileStartingTest {
    /** Reviews on, as in a cluster; a profile of its own so that nothing has moved this instance past its start. */
    public static final class Undecided implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("aggregator.access.review", "true");
        }
    }

    @TestHTTPResource("/")
    URL root;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void routesThatMayNeedATokenAnswer503UntilDecided() throws Exception {
        for (URI uri : new URI[] {at(management, "/q/metrics"), at(root, "/fleet/clusters"), at(root, "/upgrade-check/default/alpha")}) {
            HttpResponse<String> anonymous = get(uri);
            assertEquals(503, anonymous.statusCode(), uri + ": " + anonymous.body());
            assertEquals("1", anonymous.headers().firstValue("Retry-After").orElse(""), uri.toString());
            assertEquals(503, get(uri, "Authorization", "Bearer some-token").statusCode(), uri + " with a token");
        }
        HttpResponse<String> page = get(at(root, "/"), "Accept", "text/html");
        assertEquals(503, page.statusCode(), "a browser is not sent to sign in: " + page.headers().map());
    }

    @Test
    void openRoutesAnswerMeanwhile() throws Exception {
        assertEquals(200, get(at(management, "/q/health/live")).statusCode());
    }

    private HttpResponse<String> get(URI uri, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI at(URL base, String path) {
        return URI.create(base.toString()).resolve(path);
    }
}
