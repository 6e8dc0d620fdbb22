package io.statusaggregator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.operations.RawHttp;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * 10,000 requests with made-up methods, paths of their own (control characters, encoded NULs, long, random) and
 * now and then a foreign Host, on both ports: the HTTP server's series grow only by combinations of bounded label
 * values (a few dozen after the first 1,000 requests), no label carries what a client wrote, and a route first asked
 * after the flood is still counted. Seeded:
 * {@code -Dhostile.seed=N} replays a run.
 */
@QuarkusTest
class MetricLabelsTest {
    private static final int WARM_UP = 1_000;
    private static final int REQUESTS = 10_000;
    private static final Pattern HTTP_SERIES = Pattern.compile("(?m)^(http_server_[a-z_]+)\\{([^}]*)}");
    private static final Pattern LABEL = Pattern.compile("(method|uri)=\"([^\"]*)\"");

    @TestHTTPResource("/")
    URL root;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    private Set<String> series() throws IOException {
        String text = RawHttp.send(management, RawHttp.get("/q/metrics")).text();
        Set<String> series = new TreeSet<>();
        text.lines().filter(line -> !line.startsWith("#") && !line.isBlank() && !line.startsWith("HTTP/")
                && line.contains(" "))
                .forEach(line -> series.add(line.substring(0, line.lastIndexOf(' '))));
        return series;
    }

    private static String path(Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> "/" + Long.toHexString(random.nextLong());
            case 1 -> "/fleet/" + Long.toHexString(random.nextLong()) + ".js";
            case 2 -> "/upgrade-check/" + Long.toHexString(random.nextLong()) + "/x%00" + random.nextInt(1000);
            case 3 -> "/%00" + random.nextInt(100_000) + "/%01%7f";
            case 4 -> "/q/" + Long.toHexString(random.nextLong());
            default -> "/" + "a".repeat(1 + random.nextInt(2_000)) + random.nextInt();
        };
    }

    private static String method(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> "M" + Long.toHexString(random.nextLong()).toUpperCase();
            case 1 -> List.of("get", "Post", "PROPFIND", "BREW", "GET\u0001").get(random.nextInt(5));
            case 2 -> List.of("GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "HEAD").get(random.nextInt(7));
            default -> "X" + random.nextInt(1_000_000);
        };
    }

    private void send(Random random) throws IOException {
        String host = random.nextInt(10) == 0 ? "evil-" + random.nextInt(1000) + ".example" : "localhost";
        byte[] request = (method(random) + " " + path(random) + " HTTP/1.1\r\nHost: " + host
                + "\r\nConnection: close\r\n"
                + (random.nextBoolean() ? "Content-Length: 2\r\n\r\n{}"
                        : "\r\n")).getBytes(StandardCharsets.ISO_8859_1);
        RawHttp.send(random.nextInt(3) == 0 ? management : root, request);
    }

    @Test
    void hostileRequestsAddNoSeriesOnceEachBoundedLabelHasBeenSeen() throws Exception {
        long seed = Long.getLong("hostile.seed", new Random().nextLong());
        System.out.println("metric labels: seed " + seed + " (replay: -Dhostile.seed=" + seed + ")");
        Random random = new Random(seed);
        Set<String> before = series();
        for (int i = 0; i < WARM_UP; i++) {
            send(random);
        }
        Set<String> warm = series();
        for (int i = WARM_UP; i < REQUESTS; i++) {
            send(random);
        }
        Set<String> after = series();
        List<String> added = new ArrayList<>(after);
        added.removeAll(warm);
        System.out.printf("metric labels: %d series before, %d after %d requests, %d after %d%n", before.size(),
                warm.size(), WARM_UP,
                after.size(), REQUESTS);
        assertTrue(after.size() - before.size() < 200, (after.size() - before.size()) + " series added by "
                + REQUESTS + " requests");
        // A combination of bounded values not met in the first 1,000 may still come (a rarer method on a rarer route),
        // a few dozen at most; unbounded, each made-up method or path of the 9,000 would be series of its own.
        assertTrue(added.stream().filter(s -> s.startsWith("http_server")).count() <= 100,
                "series added after the first " + WARM_UP + " (seed " + seed + "): " + added);

        List<String> foreign = new ArrayList<>();
        for (String s : after) {
            Matcher series = HTTP_SERIES.matcher(s);
            if (!series.find()) {
                continue;
            }
            Matcher label = LABEL.matcher(series.group(2));
            while (label.find()) {
                String value = label.group(2);
                boolean bounded = label.group(1).equals("method") ? HttpLabels.method(value).equals(value)
                        : HttpLabels.uri(value).equals(value);
                if (!bounded || value.chars().anyMatch(c -> c < 0x20)) {
                    foreign.add(s);
                }
            }
        }
        assertEquals(List.of(), foreign, "labels with what a client wrote");

        // A route not asked before the flood is still counted under its own name.
        assertEquals(200, RawHttp.send(root, RawHttp.get("/fleet/tree.js")).status());
        assertTrue(series().stream().anyMatch(s -> s.startsWith("http_server_requests_seconds_count")
                && s.contains("uri=\"/fleet/tree.js\"")),
                "the route asked after the flood is counted");
    }
}
